"""The registry store's SQLite schema (the records, payloads, stats, meta and embeddings tables) and the migration
of older stores to it, run when a store is opened."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

from spade_registry.ids import ENV_NAMESPACE, PACK_NAMESPACE, format_env_id

_log = logging.getLogger(__name__)

APP_ID = "spade-registry"
SCHEMA_VERSION = 2
"""v2: records carry their id namespace (``spade`` or ``spade-pack``) and ``(namespace, name, version)`` is unique;
a v1 store is migrated when opened (:func:`migrate_v1`)."""

RECORDS_TABLE = """
CREATE TABLE IF NOT EXISTS {table} (
    rid INTEGER PRIMARY KEY AUTOINCREMENT,
    namespace TEXT NOT NULL DEFAULT '""" + ENV_NAMESPACE + """',
    name TEXT NOT NULL,
    version INTEGER,
    env_id TEXT UNIQUE,
    content_hash TEXT NOT NULL UNIQUE,
    domain TEXT NOT NULL,
    status TEXT NOT NULL,
    failed_stage TEXT,
    trust TEXT NOT NULL,
    max_turns INTEGER NOT NULL,
    players INTEGER NOT NULL,
    tags TEXT NOT NULL DEFAULT '[]',
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    UNIQUE (namespace, name, version)
)"""
RECORDS_INDEXES = """
CREATE INDEX IF NOT EXISTS records_by_status ON records (status, env_id, max_turns);
CREATE INDEX IF NOT EXISTS records_by_domain ON records (domain, status);
CREATE INDEX IF NOT EXISTS records_by_trust ON records (trust, name)"""
SCHEMA = ("CREATE TABLE IF NOT EXISTS spade_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
           + RECORDS_TABLE.format(table="records") + ";" + RECORDS_INDEXES + ";" + """
CREATE TABLE IF NOT EXISTS payloads (
    rid INTEGER PRIMARY KEY REFERENCES records (rid),
    manifest TEXT NOT NULL,
    code TEXT NOT NULL,
    module TEXT,
    provenance TEXT NOT NULL,
    report TEXT
);
CREATE TABLE IF NOT EXISTS stats (rid INTEGER PRIMARY KEY REFERENCES records (rid), data TEXT NOT NULL);
""")

# Environment-memory embeddings: one vector per (record, embedding model), computed once. Created on open for stores
# made before it existed (additive: the schema version does not change).
EMBEDDINGS_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    rid INTEGER NOT NULL REFERENCES records (rid),
    model TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    UNIQUE (rid, model)
)
"""




_V1_COLUMNS = ("rid, name, version, env_id, content_hash, domain, status, failed_stage, trust, max_turns, players, tags, "
               "created_at, updated_at")


def migrate_v1(conn: sqlite3.Connection, path: Path) -> None:
    """Bring a v1 store to v2 in one transaction: the records table gains its ``namespace`` column (and the
    ``(namespace, name, version)`` key), and every accepted record imported from a pack moves from
    ``spade/<Name>-v<N>`` to ``spade-pack/<Name>-v<N>``, logged once with its old and new id."""
    conn.execute("PRAGMA foreign_keys = OFF")  # the table is rebuilt under its rid; payloads keep pointing at it
    conn.execute("BEGIN IMMEDIATE")
    try:
        if int(dict(conn.execute("SELECT key, value FROM spade_meta").fetchall()).get("schema_version", "0")) < 2:
            moved = _rebuild_records(conn)
            conn.execute("INSERT OR REPLACE INTO spade_meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            for old, new in moved:
                _log.warning("%s: the imported environment %s is now %s (imported environments have their own "
                             "namespace, so no pack can take a plugin's or the designer's id)", path, old, new)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    finally:
        conn.execute("PRAGMA foreign_keys = ON")


def _rebuild_records(conn: sqlite3.Connection) -> list[tuple[str, str]]:
    """Copy v1 ``records`` into the v2 table; return ``(old id, new id)`` of each imported record moved."""
    conn.execute(RECORDS_TABLE.format(table="records_v2"))
    conn.execute(f"INSERT INTO records_v2 ({_V1_COLUMNS}) SELECT {_V1_COLUMNS} FROM records")
    conn.execute("DROP TABLE records")
    conn.execute("ALTER TABLE records_v2 RENAME TO records")
    for statement in RECORDS_INDEXES.strip().split(";"):
        conn.execute(statement)
    rows = conn.execute(
        "SELECT r.rid, r.env_id, r.name, r.version FROM records r JOIN payloads p ON p.rid = r.rid "
        "WHERE r.env_id IS NOT NULL AND json_valid(p.provenance) AND json_extract(p.provenance, '$.source') = 'pack'"
    ).fetchall()
    moved = []
    for rid, env_id, name, version in rows:
        try:
            new_id = format_env_id(name, version, PACK_NAMESPACE)
        except ValueError:  # a row outside the schema stays as it is; reads report it
            continue
        conn.execute("UPDATE records SET namespace = ?, env_id = ? WHERE rid = ?", (PACK_NAMESPACE, new_id, rid))
        moved.append((env_id, new_id))
    return moved
