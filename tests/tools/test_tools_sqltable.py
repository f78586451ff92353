"""The SQL table tool: a narrow, parameterised wrapper over in-memory sqlite3."""

from __future__ import annotations

import gc
import json
import sqlite3

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spade_tools.sqltable import _CONNECTIONS, MAX_ROWS, SqlDatabase, _authorize

INVENTORY = {"inventory": {
    "columns": {"sku": "TEXT", "qty": "INTEGER", "price": "REAL"},
    "primary_key": "sku",
    "rows": [{"sku": "A1", "qty": 3, "price": 1.5}, ["B2", 0, 2], {"sku": "C3", "qty": 7}],
}}


def fresh() -> SqlDatabase:
    return SqlDatabase(INVENTORY)


def test_select_with_conditions_order_and_limit() -> None:
    db = fresh()
    assert db.call("select", {"table": "inventory"})["rows"][1] == {"sku": "B2", "qty": 0, "price": 2.0}
    rows = db.call("select", {"table": "inventory", "columns": ["sku"], "where": [
        {"column": "qty", "op": ">", "value": 0}], "order_by": "qty", "descending": True})["rows"]
    assert rows == [{"sku": "C3"}, {"sku": "A1"}]
    assert db.call("select", {"table": "inventory", "where": [{"column": "price", "op": "=", "value": None}]})["rows"] == [
        {"sku": "C3", "qty": 7, "price": None}]
    assert db.call("select", {"table": "inventory", "where": [{"column": "sku", "op": "in", "value": ["A1", "C3"]}]})[
        "row_count"] == 2
    assert db.call("select", {"table": "inventory", "where": [{"column": "sku", "op": "like", "value": "B%"}]})[
        "row_count"] == 1
    limited = db.call("select", {"table": "inventory", "limit": 2})
    assert limited["row_count"] == 2 and limited["truncated"] is True


def test_create_insert_update_delete() -> None:
    db = fresh()
    assert db.call("create_table", {"table": "log", "columns": {"id": "INTEGER", "note": "TEXT"}, "primary_key": "id"})[
        "created"] == "log"
    assert db.call("insert", {"table": "log", "rows": [{"id": 1, "note": "a"}, {"id": 2}]})["inserted"] == 2
    assert db.call("update", {"table": "inventory", "values": {"qty": 10}, "where": [
        {"column": "qty", "op": "<", "value": 5}]})["updated"] == 2
    assert db.call("delete", {"table": "log", "where": [{"column": "note", "op": "=", "value": None}]})["deleted"] == 1
    tables = db.call("list_tables")["tables"]
    assert tables["log"] == {"columns": {"id": "INTEGER", "note": "TEXT"}, "primary_key": "id", "rows": 1}


@pytest.mark.parametrize(("name", "arguments", "needle"), [
    ("insert", {"table": "inventory", "rows": [{"sku": "D4", "qty": 1}, {"sku": "A1", "qty": 1}]}, "UNIQUE"),
    ("insert", {"table": "inventory", "rows": [{"sku": "D4", "qty": "many"}]}, "cannot store TEXT value in INTEGER"),
    ("insert", {"table": "inventory", "rows": [{"sku": "D4", "qtty": 1}]}, "did you mean 'qty'"),
    ("update", {"table": "inventory", "values": {"qty": 1}, "where": [{"column": "sku", "op": "==", "value": "A1"}]},
     "must be one of"),
    ("update", {"table": "inventory", "values": {}, "where": []}, "at least one column"),
    ("update", {"table": "inventory", "values": {"sku": "A1"}, "where": []}, "UNIQUE"),
    ("select", {"table": "inventroy"}, "did you mean 'inventory'"),
    ("select", {"table": "inventory", "where": [{"column": "qty", "op": "<", "value": None}]}, "null"),
    ("select", {"table": "inventory", "where": [{"column": "qty", "op": "in", "value": []}]}, "non-empty list"),
    ("create_table", {"table": "inventory", "columns": {"a": "TEXT"}}, "already exists"),
    ("create_table", {"table": "t; DROP TABLE inventory", "columns": {"a": "TEXT"}}, "must be a letter"),
    ("create_table", {"table": "t", "columns": {"a\" TEXT); DROP TABLE inventory; --": "TEXT"}}, "must be a letter"),
    ("create_table", {"table": "t", "columns": {"a": "BLOB"}}, "must be one of"),
    ("create_table", {"table": "sqlite_master2", "columns": {"a": "TEXT"}}, "must be a letter"),
    ("delete", {"table": "inventory"}, "missing required argument 'where'"),
])
def test_refused_calls_change_nothing(name: str, arguments: dict, needle: str) -> None:
    db = fresh()
    before = db.snapshot()
    assert needle in db.call(name, arguments)["error"]
    assert db.snapshot() == before


def test_values_are_parameters_not_sql() -> None:
    db = fresh()
    evil = "x'); DROP TABLE inventory; --"
    db.call("insert", {"table": "inventory", "rows": [{"sku": evil, "qty": 1}]})
    found = db.call("select", {"table": "inventory", "where": [{"column": "sku", "op": "=", "value": evil}]})
    assert found["rows"] == [{"sku": evil, "qty": 1, "price": None}]
    assert "inventory" in db.call("list_tables")["tables"]


def test_the_connection_is_not_an_attribute_at_all() -> None:
    """Not even a private one: a sandbox-defined subclass may read its instances' ``_`` attributes."""
    db = fresh()
    for name, value in vars(db).items():
        assert not isinstance(value, (sqlite3.Connection, sqlite3.Cursor)), name
    for name in dir(db):
        if not name.startswith("__"):
            assert not isinstance(getattr(db, name), (sqlite3.Connection, sqlite3.Cursor)), name
    assert _authorize(sqlite3.SQLITE_ATTACH, "file.db", None, None, None) == sqlite3.SQLITE_DENY
    assert _authorize(sqlite3.SQLITE_PRAGMA, "journal_mode", None, None, None) == sqlite3.SQLITE_DENY
    assert _authorize(sqlite3.SQLITE_SELECT, None, None, None, None) == sqlite3.SQLITE_OK


def test_connections_are_released_with_their_tool_object() -> None:
    before = len(_CONNECTIONS)
    db = fresh()
    assert len(_CONNECTIONS) == before + 1
    del db
    gc.collect()
    assert len(_CONNECTIONS) == before
    closed = fresh()
    closed.close()
    assert "closed" in closed.call("select", {"table": "inventory"})["error"]


def test_snapshot_is_sorted_json_and_restorable() -> None:
    a, b = fresh(), fresh()
    a.call("insert", {"table": "inventory", "rows": [{"sku": "Z", "qty": 1}, {"sku": "Y", "qty": 2}]})
    b.call("insert", {"table": "inventory", "rows": [{"sku": "Y", "qty": 2}]})
    b.call("insert", {"table": "inventory", "rows": [{"sku": "Z", "qty": 1}]})
    assert a.snapshot() == b.snapshot()
    snap = a.snapshot()
    json.dumps(snap)
    restored = SqlDatabase({name: {"columns": spec["columns"], "primary_key": spec["primary_key"], "rows": spec["rows"]}
                            for name, spec in snap["tables"].items()})
    assert restored.snapshot() == snap


def test_row_limit() -> None:
    db = SqlDatabase({"t": {"columns": {"a": "INTEGER"}}})
    for start in range(0, MAX_ROWS, 100):
        assert "error" not in db.call("insert", {"table": "t", "rows": [{"a": i} for i in range(start, start + 100)]})
    assert "at most" in db.call("insert", {"table": "t", "rows": [{"a": 1}]})["error"]


VALUES = st.one_of(st.none(), st.integers(-10**6, 10**6), st.floats(-1e6, 1e6), st.text(max_size=8))


@settings(derandomize=True, deadline=None, max_examples=50)
@given(rows=st.lists(st.fixed_dictionaries({"sku": st.text(min_size=1, max_size=6), "qty": VALUES}), max_size=8))
def test_inserts_are_all_or_nothing(rows) -> None:
    db = fresh()
    before = db.snapshot()
    result = db.call("insert", {"table": "inventory", "rows": rows}) if rows else {"error": "empty"}
    after = db.snapshot()
    if "error" in result:
        assert after == before
    else:
        assert len(after["tables"]["inventory"]["rows"]) == 3 + len(rows)
