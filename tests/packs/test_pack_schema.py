"""The pack readers take any JSON a stranger can write: each value either parses or raises a PackFormatError that
names the file and the field; no other exception, no hang."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from spade_core.packs import PackError, PackFormatError, export_pack, open_pack
from spade_core.packs.export import ExportFilter
from spade_core.packs.schema import INDEX_FILE, environment_from_record, parse_index

JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=20),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                    max_leaves=20)
HASH = "ast:" + "a" * 64
VALID_INDEX = {"format": "spade-pack", "format_version": 1, "name": "p", "description": "", "created_at": "t",
               "spade_version": "0", "made_by": {}, "environments": [
                   {"id": "spade/A-v0", "domain": "games", "status": "accepted", "content_hash": HASH,
                    "path": "environments/A-v0"}]}
VALID_RECORD = {"id": "spade/A-v0", "content_hash": HASH, "status": "accepted", "manifest": {"name": "A", "domain": "games"},
                "report": None, "provenance": {}, "lineage": {"run": "r", "iteration": 1},
                "stats": {"plays": 2, "successes": 1, "p_hint": 1.0, "p_nohint": 0.5, "regret": 0.5,
                          "regret_history": [{"iteration": 1, "regret": 0.5, "p_hint": 1.0, "p_nohint": 0.5}]}}


def test_the_valid_shapes_parse() -> None:
    header, (entry,) = parse_index(VALID_INDEX)
    env = environment_from_record(VALID_RECORD, "code", "record.json", entry)
    assert header.name == "p" and env.stats.regret_history[0]["regret"] == 0.5 and env.lineage.iteration == 1


@given(data=JSON)
def test_any_json_as_index_parses_or_names_file_and_field(data: object) -> None:
    try:
        parse_index(data)
    except PackFormatError as exc:
        assert exc.file == INDEX_FILE and exc.field


@given(key=st.sampled_from(sorted(VALID_INDEX)), value=JSON)
def test_any_index_field_replaced_parses_or_names_it(key: str, value: object) -> None:
    try:
        parse_index({**VALID_INDEX, key: value})
    except PackFormatError as exc:
        assert exc.file == INDEX_FILE and exc.field.split("[")[0].split(".")[0] in (key, "(top level)", "format")


@given(key=st.sampled_from(sorted(VALID_RECORD)), inner=st.sampled_from(["plays", "successes", "regret", "iteration",
                                                                          "run", "regret_history"]), value=JSON)
def test_any_record_field_replaced_parses_or_raises_pack_format_error(key: str, inner: str, value: object) -> None:
    record = {**VALID_RECORD, key: value}
    if isinstance(VALID_RECORD[key], dict) and inner in VALID_RECORD[key]:
        record[key] = {**VALID_RECORD[key], inner: value}
    try:
        environment_from_record(record, "code", "record.json")
    except PackFormatError as exc:
        assert exc.file == "record.json" and exc.field


def test_a_tarball_of_the_pack_folder_reads_too(tmp_path: Path, make_source) -> None:
    source = make_source(["PackTopFolder"])
    folder = export_pack(source, tmp_path / "pool", name="top", find_parents=False).path
    tarball = tmp_path / "by-hand.tar.gz"
    with tarfile.open(tarball, "w:gz") as archive:
        archive.add(folder, arcname="pool")
    pack = open_pack(str(tarball))
    assert [e.pack_id for e in pack.environments] == ["spade/PackTopFolder-v0"]
    with pytest.raises(PackError, match="nothing to export"):
        export_pack(source, tmp_path / "empty", name="empty", filters=ExportFilter(domains=("math",)))
    with tarfile.open(tmp_path / "junk.tar.gz", "w:gz") as archive:
        archive.addfile(tarfile.TarInfo("README.md"), io.BytesIO(b""))
    with pytest.raises(PackError, match="pack.json is missing"):
        open_pack(str(tmp_path / "junk.tar.gz"))


def test_parquet_without_header_or_with_a_forged_hash(tmp_path: Path, make_source) -> None:
    import pyarrow.parquet as pq

    from spade_core.gym_bridge import open_store, sync_seed_environments
    from spade_core.packs import import_pack
    from spade_core.packs.schema import PARQUET_FILE

    source = make_source(["PackParquetForged"])
    folder = export_pack(source, tmp_path / "hf", name="forged", fmt="parquet", find_parents=False).path
    table = pq.read_table(folder / PARQUET_FILE)
    forged = table.set_column(table.schema.get_field_index("module"), "module",
                              [[table.column("module")[0].as_py() + "\nEXTRA = 1\n"]])
    pq.write_table(forged, folder / PARQUET_FILE)
    target = open_store(tmp_path / "t.sqlite3")
    sync_seed_environments(target)
    (outcome,) = import_pack(open_pack(str(folder)), target).outcomes
    assert outcome.verdict == "rejected" and outcome.stage == "content_hash"
    pq.write_table(table.replace_schema_metadata(None), folder / PARQUET_FILE)
    with pytest.raises(PackFormatError, match="spade_pack"):
        open_pack(str(folder))
