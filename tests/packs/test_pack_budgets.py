"""The pack reader's byte budget: hostile tarballs and parquet files are refused before their bytes are read, so
reading a pack of N bytes costs a bounded multiple of N, and any bytes at all either read as a pack or raise
:class:`PackError`."""

from __future__ import annotations

import gzip
import io
import tarfile
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spade_core.packs import PackError, PackRefusedError, open_pack
from spade_core.packs.budget import MIN_BUDGET_BYTES, ByteBudget, pack_budget
from spade_core.packs.tar_stream import MAX_PATH_BYTES, parse_pax

MiB = 1024 * 1024


def header(name: bytes, size: int, kind: bytes) -> bytes:
    """One ustar header block declaring ``size`` bytes (the bytes themselves need not follow)."""
    info = tarfile.TarInfo(name.decode())
    info.size, info.type = size, kind
    return info.tobuf(format=tarfile.GNU_FORMAT)[:512]


def gz(path: Path, *blocks: bytes) -> Path:
    path.write_bytes(gzip.compress(b"".join(blocks) + bytes(1024)))
    return path


def peak_of(call) -> int:
    tracemalloc.start()
    try:
        call()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak


def refused(path: Path, needle: str) -> int:
    def read() -> None:
        with pytest.raises(PackRefusedError, match=needle):
            open_pack(str(path))
    return peak_of(read)


def test_a_long_name_declaring_gigabytes_is_refused_before_it_is_read(tmp_path: Path) -> None:
    # the header declares 1.5 GiB of name, and 16 MiB of zeros follow (what a 16 KB gzip holds)
    path = gz(tmp_path / "longname.tar.gz", header(b"././@LongLink", 1536 * MiB, tarfile.GNUTYPE_LONGNAME),
              bytes(16 * MiB))
    assert refused(path, f"over the {MAX_PATH_BYTES} byte name limit") < 2 * MiB


def test_a_pax_header_declaring_gigabytes_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = gz(tmp_path / "pax.tar.gz", header(b"pax", 1536 * MiB, tarfile.XHDTYPE), bytes(4 * MiB))
    assert refused(path, "PAX header declares") < 2 * MiB


def test_a_member_the_pack_never_uses_is_refused_unread(tmp_path: Path) -> None:
    path = gz(tmp_path / "unused.tar.gz", header(b"junk.bin", 1000 * MiB, tarfile.REGTYPE), bytes(8 * MiB))
    assert refused(path, "not a file a pack uses") < 2 * MiB


def test_a_used_member_past_the_budget_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = gz(tmp_path / "big.tar.gz", header(b"environments/Big-v0/module.py.txt", 1000 * MiB, tarfile.REGTYPE),
              bytes(8 * MiB))
    assert path.stat().st_size < MiB
    assert refused(path, "budget") < 2 * MiB


def test_the_budget_is_a_multiple_of_the_size_on_disk() -> None:
    assert pack_budget(0) == MIN_BUDGET_BYTES
    assert pack_budget(MiB) == 256 * MiB
    assert pack_budget(10**12) == 1024 * MiB
    budget = ByteBudget(10, "x")
    budget.charge(10, "ten bytes")
    with pytest.raises(PackRefusedError, match="only 0 of the pack's 10 byte budget"):
        budget.charge(1, "one more")


@given(st.lists(st.tuples(st.text(st.characters(codec="ascii", exclude_characters="="), min_size=1, max_size=12),
                          st.text(st.characters(codec="utf-8"), max_size=30)), max_size=5))
def test_pax_records_parse_in_one_pass(records: list[tuple[str, str]]) -> None:
    body = b"".join(pax_record(f" {key}={value}\n".encode("utf-8", "surrogatepass")) for key, value in records)
    allowed = {"path", "size", "mtime", "atime", "ctime", "uid", "gid", "uname", "gname", "comment", "charset",
               "hdrcharset"}
    try:
        parsed = parse_pax(body, "x")
    except PackError:
        assert any(key not in allowed for key, _ in records) or any("\ud800" <= c <= "\udfff" for _, v in records
                                                                   for c in v)
    else:
        assert parsed == dict(records)


def pax_record(text: bytes) -> bytes:
    length = len(text) + 1
    while len(str(length)) + len(text) != length:
        length = len(str(length)) + len(text)
    return str(length).encode() + text


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.binary(max_size=4096), kind=st.sampled_from([b"0", b"5", b"L", b"x", b"g", b"2", b"S"]),
       size=st.integers(0, 2**33), name=st.sampled_from([b"pack.json", b"README.md", b"x/pack.json", b"a",
                                                         b"environments/A-v0/record.json"]))
def test_any_archive_reads_as_a_pack_or_raises_pack_error(tmp_path: Path, data: bytes, kind: bytes, size: int,
                                                          name: bytes) -> None:
    path = tmp_path / "fuzz.tar.gz"
    path.write_bytes(gzip.compress(header(name, min(size, 8**11 - 1), kind) + data))
    try:
        open_pack(str(path))
    except PackError:
        pass


def test_a_pax_path_header_names_the_member(tmp_path: Path) -> None:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        info = tarfile.TarInfo("p/" + "é" * 40 + "/README.md")  # a PAX path header (non-ASCII)
        archive.addfile(info, io.BytesIO(b""))
    path = tmp_path / "pax-name.tar.gz"
    path.write_bytes(buf.getvalue())
    with pytest.raises(PackRefusedError, match="not a file a pack uses"):
        open_pack(str(path))


def hostile_parquet(path: Path, rows: int, module: str) -> Path:
    """A parquet pack whose every row holds the same long module (a few KB on disk, dictionary-encoded)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from spade_core.packs.parquet import COLUMNS, JSON_COLUMNS
    from spade_core.packs.schema import PARQUET_METADATA_KEY

    header = {"format": "spade-pack", "format_version": 1, "name": "hostile", "description": "", "created_at": "now",
              "spade_version": "0", "made_by": {}}
    cells = {"id": [f"spade/Row{i}-v0" for i in range(rows)], "name": [f"Row{i}" for i in range(rows)],
             "version": [0] * rows, "domain": ["games"] * rows, "status": ["accepted"] * rows, "tags": [[]] * rows,
             "content_hash": ["raw:" + "0" * 64] * rows, "module": [module] * rows,
             **{name: ["{}"] * rows for name in JSON_COLUMNS}}
    schema = pa.schema([(name, pa.list_(pa.string()) if name == "tags" else pa.int64() if name == "version" else
                         pa.string()) for name in COLUMNS],
                       metadata={PARQUET_METADATA_KEY: __import__("json").dumps(header).encode()})
    pq.write_table(pa.table(cells, schema=schema), path, compression="zstd")
    return path


def test_a_parquet_module_repeated_in_every_row_is_refused_before_the_rows_are_built(tmp_path: Path) -> None:
    path = hostile_parquet(tmp_path / "repeat.parquet", 6000, "x = 1\n" * 31_000)  # 186k characters
    assert path.stat().st_size < 200_000
    assert refused(path, "column 'module'") < 64 * MiB


def test_a_small_parquet_pack_within_its_budget_reads(tmp_path: Path) -> None:
    pack = open_pack(str(hostile_parquet(tmp_path / "small.parquet", 20, "x = 1\n" * 1000)))
    assert len(pack.environments) == 20
