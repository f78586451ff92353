"""The parquet form of a pack: one row per environment, loadable with ``datasets.load_dataset("parquet", ...)``.

Columns are flat strings and numbers (structured fields as JSON text), so any parquet reader shows them; the pack's
header is kept in the file's key-value metadata under :data:`~spade_core.packs.schema.PARQUET_METADATA_KEY`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from spade_core.packs.budget import ByteBudget, pack_budget
from spade_core.packs.errors import PackError, PackFormatError
from spade_core.packs.schema import (
    MAX_ENVIRONMENTS,
    MAX_INDEX_BYTES,
    MAX_PACK_BYTES,
    MAX_RECORD_BYTES,
    PARQUET_FILE,
    PARQUET_METADATA_KEY,
    BrokenEnvironment,
    Pack,
    PackEnvironment,
    PackHeader,
    decode_module,
    environment_from_record,
    load_json,
    parse_header,
)

JSON_COLUMNS = ("manifest", "report", "stats", "lineage", "provenance")
COLUMNS = ("id", "name", "version", "domain", "status", "tags", "content_hash", "module", *JSON_COLUMNS)
STRING_COLUMNS = ("id", "name", "domain", "status", "content_hash", "module", *JSON_COLUMNS)
"""Read as dictionaries, so a value repeated in many rows is decoded once and its cost counted before the rows are
built."""


def write_parquet(header: PackHeader, environments: list[PackEnvironment], path: Path) -> None:
    """One row per environment in ``path`` (the folder's ``data/environments.parquet``)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    columns: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    for env in environments:
        data = env.record_data()
        columns["id"].append(env.pack_id)
        columns["name"].append(env.name)
        columns["version"].append(env.version)
        columns["domain"].append(env.domain)
        columns["status"].append(env.status)
        columns["tags"].append(list(env.tags))
        columns["content_hash"].append(env.content_hash)
        columns["module"].append(env.code)
        for name in JSON_COLUMNS:
            columns[name].append(json.dumps(data[name], sort_keys=True, allow_nan=False))
    schema = pa.schema([(name, pa.list_(pa.string()) if name == "tags" else
                         pa.int64() if name == "version" else pa.string()) for name in COLUMNS],
                       metadata={PARQUET_METADATA_KEY: json.dumps(header.to_dict(), sort_keys=True).encode()})
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table(columns, schema=schema), path, compression="zstd")


def parquet_file(source: Path) -> Path:
    """The parquet file of a source: the file itself, or a pack folder's ``data/environments.parquet``."""
    return source if source.is_file() else source / PARQUET_FILE


def read_parquet(source: Path) -> Pack:
    """A pack from its parquet file, row group by row group under the pack's byte budget (each group's declared size
    is checked before it is read, and every row's cells are charged before they become Python values); the schema
    and every cell are checked like the folder form's files."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = parquet_file(source)
    file = path.name
    if path.is_symlink() or not path.is_file():
        raise PackError(f"{path} is not a regular parquet file")
    size = path.stat().st_size
    if size > MAX_PACK_BYTES:
        raise PackError(f"{path} is over {MAX_PACK_BYTES} bytes; refusing the pack")
    budget = ByteBudget(pack_budget(size), str(path))
    try:
        parquet = pq.ParquetFile(path, read_dictionary=list(STRING_COLUMNS))
        header = _header(parquet, file)
        rows: list[dict[str, Any]] = []
        for group in range(parquet.metadata.num_row_groups):
            declared = parquet.metadata.row_group(group)
            budget.check(declared.total_byte_size, f"row group {group} ({declared.num_rows} rows)")
            rows += _rows(parquet.read_row_group(group, columns=list(COLUMNS)), budget, group)
    except (pa.ArrowException, OSError) as exc:
        raise PackError(f"{path} is not a readable parquet file: {type(exc).__name__}: {exc}") from None
    return Pack(header=header, environments=tuple(_row(row, i, file) for i, row in enumerate(rows)), origin=str(path))


def _header(parquet: Any, file: str) -> PackHeader:
    metadata = parquet.schema_arrow.metadata or {}
    if parquet.metadata.num_rows > MAX_ENVIRONMENTS:
        raise PackFormatError(file, "(rows)", f"has {parquet.metadata.num_rows} rows, over {MAX_ENVIRONMENTS}")
    header_raw = metadata.get(PARQUET_METADATA_KEY)
    if header_raw is None:
        raise PackFormatError(file, PARQUET_METADATA_KEY.decode(), "the file's metadata has no pack header "
                              "(was it written by `spade export --format parquet`?)")
    header = parse_header(load_json(header_raw, f"{file} metadata", MAX_INDEX_BYTES), f"{file} metadata")
    missing = [c for c in COLUMNS if c not in parquet.schema_arrow.names]
    if missing:
        raise PackFormatError(file, missing[0], "column is missing")
    return header


def _rows(table: Any, budget: ByteBudget, group: int) -> list[dict[str, Any]]:
    """The row group's rows as Python values, once the bytes of every cell they hold are charged to ``budget``."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for name in STRING_COLUMNS:
        column = table.column(name)
        if pa.types.is_dictionary(column.type):
            cells = sum(int(pc.sum(pc.take(pc.binary_length(chunk.dictionary), chunk.indices)).as_py() or 0)
                        for chunk in column.chunks)
        else:
            cells = int(pc.sum(pc.binary_length(column)).as_py() or 0)
        budget.charge(cells, f"row group {group} column {name!r}")
    tags = sum(int(pc.sum(pc.binary_length(pc.list_flatten(chunk))).as_py() or 0)
               for chunk in table.column("tags").chunks)
    budget.charge(tags, f"row group {group} column 'tags'")
    return table.to_pylist()


def _row(row: dict[str, Any], i: int, file: str) -> PackEnvironment | BrokenEnvironment:
    where = f"{file} row {i}"
    pack_id = row.get("id") if isinstance(row.get("id"), str) else f"row {i}"
    try:
        code = row.get("module")
        if not isinstance(code, str):
            raise PackFormatError(where, "module", "must be a string")
        decode_module(code.encode("utf-8", "surrogatepass"), f"{where} module")
        data: dict[str, Any] = {"id": row.get("id"), "content_hash": row.get("content_hash"),
                                "status": row.get("status")}
        for name in JSON_COLUMNS:
            cell = row.get(name)
            if not isinstance(cell, str):
                raise PackFormatError(where, name, "must be a JSON string")
            data[name] = load_json(cell.encode("utf-8", "surrogatepass"), f"{where} {name}", MAX_RECORD_BYTES)
        env = environment_from_record(data, code, where)
        if env.name != row.get("name") or env.version != row.get("version") or env.domain != row.get("domain"):
            raise PackFormatError(where, "name", "the name, version and domain columns disagree with the id and "
                                  "manifest columns")
        return env
    except PackFormatError as exc:
        return BrokenEnvironment(pack_id[:200], str(exc))
