"""A small SQL table tool: stdlib ``sqlite3`` in memory behind a narrow, parameterised interface.

The agent never writes SQL: tables, columns and conditions arrive as JSON, identifiers are checked against a
strict pattern and the known schema, and every value is a bound parameter. Tables are ``STRICT`` so a value of
the wrong type is refused. The connection is never an attribute of the tool object (it lives in a private
module-level map found by identity, so even a sandbox-defined subclass cannot reach it); an authoriser denies
``ATTACH``/``PRAGMA``, SQLite limits cap value and statement sizes, and a progress handler stops runaway
statements.
"""

from __future__ import annotations

import contextlib
import difflib
import json
import sqlite3
from collections.abc import Mapping
from typing import Any

from spade_core import linear_re
from spade_tools.base import ToolDef, ToolError, ToolSet
from spade_tools.episode_state import EpisodeSlots
from spade_tools.schema import obj

COLUMN_TYPES = ("TEXT", "INTEGER", "REAL")
OPERATORS = ("=", "!=", "<", "<=", ">", ">=", "like", "in")
IDENT_PATTERN = linear_re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,39}$")
MAX_TABLES = 20
MAX_COLUMNS = 30
MAX_ROWS = 5000
MAX_TEXT_CHARS = 2000
MAX_SELECT = 200
MAX_VM_STEPS = 5_000_000
_DENIED = {sqlite3.SQLITE_ATTACH, sqlite3.SQLITE_DETACH, sqlite3.SQLITE_PRAGMA}
_LIMITS = {
    sqlite3.SQLITE_LIMIT_LENGTH: 1_000_000,
    sqlite3.SQLITE_LIMIT_SQL_LENGTH: 100_000,
    sqlite3.SQLITE_LIMIT_ATTACHED: 0,
    sqlite3.SQLITE_LIMIT_COLUMN: MAX_COLUMNS + 1,
}
_CONNECTIONS: EpisodeSlots[tuple[sqlite3.Connection, list[int]]] = EpisodeSlots(lambda entry: entry[0].close())
"""tool object -> (its connection, its progress-step counter), found by identity only (a look-alike object's
``__eq__``/``__hash__`` reach nothing); values never refer back to the key."""

_TABLE = {"type": "string", "minLength": 1, "maxLength": 40, "description": "table name"}
_SCALAR = {"type": ["string", "number", "null"]}
_WHERE = {
    "type": "array",
    "maxItems": 10,
    "description": "conditions joined with AND; [] matches every row",
    "items": obj({
        "column": {"type": "string", "minLength": 1, "maxLength": 40},
        "op": {"type": "string", "enum": list(OPERATORS)},
        "value": {"type": ["string", "number", "null", "array"], "maxItems": 100,
                  "items": _SCALAR, "description": "a value; a list of values for 'in'"},
    }, ["column", "op", "value"]),
}
_ROW = {"type": "object", "additionalProperties": _SCALAR, "description": "column -> value"}


def _ident(name: Any, what: str) -> str:
    if not isinstance(name, str) or not IDENT_PATTERN.match(name) or name.lower().startswith("sqlite"):
        raise ToolError(f"{what} name {str(name)[:40]!r} must be a letter followed by letters, digits or '_'")
    return name


def _scalar(value: Any, where: str) -> Any:
    if isinstance(value, bool) or not (value is None or isinstance(value, (str, int, float))):
        raise ToolError(f"{where}: values must be strings, numbers or null")
    if isinstance(value, str) and len(value) > MAX_TEXT_CHARS:
        raise ToolError(f"{where}: text values have at most {MAX_TEXT_CHARS} characters")
    return value


def _authorize(action: int, *args: Any) -> int:
    return sqlite3.SQLITE_DENY if action in _DENIED else sqlite3.SQLITE_OK


def _open() -> tuple[sqlite3.Connection, list[int]]:
    conn = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
    conn.set_authorizer(_authorize)
    for limit, value in _LIMITS.items():
        conn.setlimit(limit, value)
    steps = [0]

    def progress() -> int:
        steps[0] += 1000
        return 1 if steps[0] > MAX_VM_STEPS else 0

    conn.set_progress_handler(progress, 1000)
    return conn, steps


class SqlDatabase(ToolSet):
    """In-memory tables owned by one environment.

    ``SqlDatabase(tables={"inventory": {"columns": {"sku": "TEXT", "qty": "INTEGER"}, "primary_key": "sku",
    "rows": [{"sku": "A1", "qty": 3}]}})``. ``snapshot()`` gives every table's columns, primary key and rows
    (sorted, so row order does not matter).
    """

    KIND = "sqlite"
    TOOL_DEFS = (
        ToolDef("list_tables", "List the tables with their columns, primary key and row count.", obj({})),
        ToolDef("create_table", "Create a table. Column types: TEXT, INTEGER or REAL.", obj({
            "table": _TABLE,
            "columns": {"type": "object", "additionalProperties": {"type": "string", "enum": list(COLUMN_TYPES)},
                        "description": "column name -> type, in order"},
            "primary_key": {"type": "string", "minLength": 1, "maxLength": 40,
                            "description": "optional column that must be unique"},
        }, ["table", "columns"])),
        ToolDef("insert", "Insert rows (all or nothing); missing columns are NULL.", obj({
            "table": _TABLE,
            "rows": {"type": "array", "minItems": 1, "maxItems": 100, "items": _ROW},
        }, ["table", "rows"])),
        ToolDef("select", "Read rows matching every condition.", obj({
            "table": _TABLE,
            "columns": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_COLUMNS,
                        "description": "columns to return; default all"},
            "where": _WHERE,
            "order_by": {"type": "string", "maxLength": 40, "description": "column to sort by"},
            "descending": {"type": "boolean"},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_SELECT, "description": "default 50"},
        }, ["table"])),
        ToolDef("update", "Set columns on every row matching the conditions.", obj({
            "table": _TABLE,
            "values": {**_ROW, "description": "column -> new value"},
            "where": _WHERE,
        }, ["table", "values", "where"])),
        ToolDef("delete", "Delete every row matching the conditions.", obj({
            "table": _TABLE, "where": _WHERE,
        }, ["table", "where"])),
    )

    def __init__(self, tables: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        _CONNECTIONS.put(self, _open())
        self._schema: dict[str, dict[str, Any]] = {}
        for name, spec in (tables or {}).items():
            columns = spec.get("columns", {})
            if isinstance(columns, (list, tuple)):
                columns = dict(columns)
            try:
                self.create_table(name, dict(columns), spec.get("primary_key"))
                rows = list(spec.get("rows", ()))
                if rows:
                    self._insert_rows(name, [r if isinstance(r, Mapping) else dict(zip(columns, r)) for r in rows])
            except ToolError as err:
                raise ValueError(f"table {name!r}: {err}") from None

    def close(self) -> None:
        """Close the connection now (it is also closed when the object is garbage-collected)."""
        entry = _CONNECTIONS.pop(self)
        if entry is not None:
            entry[0].close()

    # -- state ----------------------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in sorted(self._schema):
            spec = self._schema[name]
            cols = [c for c, _ in spec["columns"]]
            rows = [list(r) for r in self._run(f"SELECT {', '.join(_q(c) for c in cols)} FROM {_q(name)}").fetchall()]
            rows.sort(key=lambda r: json.dumps(r))
            out[name] = {"columns": [list(c) for c in spec["columns"]], "primary_key": spec["primary_key"], "rows": rows}
        return {"tables": out}

    # -- helpers --------------------------------------------------------------------------------------------
    def _run(self, sql: str, params: tuple[Any, ...] | list[Any] = ()) -> sqlite3.Cursor:
        entry = _CONNECTIONS.get(self)
        if entry is None:
            raise ToolError("the database is closed")
        conn, steps = entry
        steps[0] = 0
        try:
            return conn.execute(sql, tuple(params))
        except sqlite3.Error as err:
            raise ToolError(f"sqlite: {err}") from None

    def _table(self, name: str) -> dict[str, Any]:
        if not isinstance(name, str) or name not in self._schema:
            close = difflib.get_close_matches(str(name), list(self._schema), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ToolError(f"no table '{str(name)[:40]}'{hint} (tables: {', '.join(sorted(self._schema)) or 'none'})")
        return self._schema[name]

    def _column(self, table: str, column: str) -> str:
        names = [c for c, _ in self._schema[table]["columns"]]
        if column not in names:
            close = difflib.get_close_matches(str(column), names, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise ToolError(f"table '{table}' has no column '{str(column)[:40]}'{hint} (columns: {', '.join(names)})")
        return column

    def _where(self, table: str, where: list[Mapping[str, Any]]) -> tuple[str, list[Any]]:
        clauses, params = [], []
        for i, cond in enumerate(where):
            column, op, value = self._column(table, cond["column"]), cond["op"], cond["value"]
            if op == "in":
                if not isinstance(value, list) or not value:
                    raise ToolError(f"where[{i}]: 'in' needs a non-empty list of values")
                clauses.append(f"{_q(column)} IN ({', '.join('?' for _ in value)})")
                params.extend(_scalar(v, f"where[{i}]") for v in value)
                continue
            if isinstance(value, list):
                raise ToolError(f"where[{i}]: a list of values needs op 'in'")
            _scalar(value, f"where[{i}]")
            if value is None:
                if op not in ("=", "!="):
                    raise ToolError(f"where[{i}]: null can only be compared with '=' or '!='")
                clauses.append(f"{_q(column)} IS {'NOT ' if op == '!=' else ''}NULL")
                continue
            sql_op = "LIKE" if op == "like" else op
            clauses.append(f"{_q(column)} {sql_op} ?")
            params.append(value)
        return (" WHERE " + " AND ".join(clauses) if clauses else ""), params

    def _insert_rows(self, table: str, rows: list[Mapping[str, Any]]) -> int:
        self._table(table)
        count = self._run(f"SELECT COUNT(*) FROM {_q(table)}").fetchone()[0]
        if count + len(rows) > MAX_ROWS:
            raise ToolError(f"table '{table}' holds at most {MAX_ROWS} rows")
        prepared = []
        for i, row in enumerate(rows):
            cols = [self._column(table, c) for c in row]
            prepared.append((cols, [_scalar(row[c], f"rows[{i}].{c}") for c in cols]))
        self._run("BEGIN")
        try:
            for cols, values in prepared:
                if cols:
                    self._run(f"INSERT INTO {_q(table)} ({', '.join(_q(c) for c in cols)}) "
                              f"VALUES ({', '.join('?' for _ in cols)})", values)
                else:
                    self._run(f"INSERT INTO {_q(table)} DEFAULT VALUES")
        except ToolError:
            with contextlib.suppress(ToolError):  # some errors end the transaction themselves
                self._run("ROLLBACK")
            raise
        self._run("COMMIT")
        return len(prepared)

    # -- tools ----------------------------------------------------------------------------------------------
    def list_tables(self) -> dict[str, Any]:
        out = {}
        for name in sorted(self._schema):
            spec = self._schema[name]
            out[name] = {"columns": dict(spec["columns"]), "primary_key": spec["primary_key"],
                         "rows": self._run(f"SELECT COUNT(*) FROM {_q(name)}").fetchone()[0]}
        return {"tables": out}

    def create_table(self, table: str, columns: Mapping[str, str], primary_key: str | None = None) -> dict[str, Any]:
        table = _ident(table, "table")
        if table in self._schema:
            raise ToolError(f"table '{table}' already exists")
        if len(self._schema) >= MAX_TABLES:
            raise ToolError(f"at most {MAX_TABLES} tables")
        if not columns:
            raise ToolError("a table needs at least one column")
        if len(columns) > MAX_COLUMNS:
            raise ToolError(f"a table has at most {MAX_COLUMNS} columns")
        cols = []
        for name, kind in columns.items():
            name = _ident(name, "column")
            if kind not in COLUMN_TYPES:
                raise ToolError(f"column '{name}' type must be one of {', '.join(COLUMN_TYPES)}, got {kind!r}")
            if name.lower() in {c.lower() for c, _ in cols}:
                raise ToolError(f"duplicate column '{name}'")
            cols.append((name, kind))
        if primary_key is not None and primary_key not in columns:
            raise ToolError(f"primary_key '{primary_key}' is not one of the columns")
        parts = [f"{_q(c)} {k}" for c, k in cols]
        if primary_key is not None:
            parts.append(f"PRIMARY KEY ({_q(primary_key)})")
        self._run(f"CREATE TABLE {_q(table)} ({', '.join(parts)}) STRICT")
        self._schema[table] = {"columns": cols, "primary_key": primary_key}
        return {"created": table, "columns": dict(cols), "primary_key": primary_key}

    def insert(self, table: str, rows: list[Mapping[str, Any]]) -> dict[str, Any]:
        return {"table": table, "inserted": self._insert_rows(table, rows)}

    def select(self, table: str, columns: list[str] | None = None, where: list[Mapping[str, Any]] = (),
               order_by: str | None = None, descending: bool = False, limit: int = 50) -> dict[str, Any]:
        spec = self._table(table)
        cols = [self._column(table, c) for c in columns] if columns else [c for c, _ in spec["columns"]]
        clause, params = self._where(table, list(where))
        order = ""
        if order_by is not None:
            order = f" ORDER BY {_q(self._column(table, order_by))}{' DESC' if descending else ''}, rowid"
        else:
            order = " ORDER BY rowid"
        sql = f"SELECT {', '.join(_q(c) for c in cols)} FROM {_q(table)}{clause}{order} LIMIT ?"
        fetched = self._run(sql, [*params, limit + 1]).fetchall()
        rows = [dict(zip(cols, r)) for r in fetched[:limit]]
        result: dict[str, Any] = {"table": table, "rows": rows, "row_count": len(rows)}
        if len(fetched) > limit:
            result["truncated"] = True
        return result

    def update(self, table: str, values: Mapping[str, Any], where: list[Mapping[str, Any]]) -> dict[str, Any]:
        self._table(table)
        if not values:
            raise ToolError("values must set at least one column")
        cols = [self._column(table, c) for c in values]
        new = [_scalar(values[c], f"values.{c}") for c in cols]
        clause, params = self._where(table, list(where))
        cursor = self._run(f"UPDATE {_q(table)} SET {', '.join(f'{_q(c)} = ?' for c in cols)}{clause}", [*new, *params])
        return {"table": table, "updated": cursor.rowcount}

    def delete(self, table: str, where: list[Mapping[str, Any]]) -> dict[str, Any]:
        self._table(table)
        clause, params = self._where(table, list(where))
        cursor = self._run(f"DELETE FROM {_q(table)}{clause}", params)
        return {"table": table, "deleted": cursor.rowcount}


def _q(identifier: str) -> str:
    """Quote an identifier that already passed :func:`_ident` or the schema check."""
    return '"' + identifier.replace('"', '""') + '"'
