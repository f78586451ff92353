"""SQLite registry store: transactional, content-addressed, safe for concurrent writers.

Layout: ``records`` is the compact index (ids, status, domain, turns) that registration scans through a
covering index; ``payloads`` holds the large immutable parts (code, manifest, report) read only on demand.
Every write is one ``BEGIN IMMEDIATE`` transaction in WAL mode, so a process killed mid-write leaves either the
whole record or nothing, and concurrent writers serialise instead of losing records.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spade_registry import gate
from spade_registry.errors import (
    BadRecordError,
    ForeignStoreError,
    ManifestError,
    RecordNotFoundError,
    ReservedNameError,
    StoreCorruptError,
    StoreError,
)
from spade_registry.hashing import content_hash
from spade_registry.ids import ENV_NAMESPACE, MAX_VERSION, NAMESPACES, format_env_id, name_key, parse_id
from spade_registry.manifest import MAX_TURNS_LIMIT, EnvManifest
from spade_registry.paths import resolve_store_path
from spade_registry.records import Record, Status, Trust
from spade_registry.schema import APP_ID, EMBEDDINGS_SCHEMA, SCHEMA, SCHEMA_VERSION, migrate_v1

_log = logging.getLogger(__name__)


_RECORD_COLUMNS = (
    "r.rid, r.env_id, r.name, r.version, r.content_hash, r.domain, r.status, r.trust, r.max_turns, r.players, "
    "r.tags, p.manifest, p.code, p.module, r.failed_stage, p.provenance, s.data, p.report, r.created_at, r.updated_at, "
    "r.namespace"
)
_RECORD_FROM = "records r JOIN payloads p ON p.rid = r.rid LEFT JOIN stats s ON s.rid = r.rid"
DECLARED_NAMES_KEY = "bundled_declared_names"
"""Meta key: the environment names installed plugins declare (JSON list), reserved whether or not stored yet."""


@dataclass(frozen=True)
class RefusedRecord:
    """A stored record a bulk read left out, and why."""

    rid: int
    reason: str


@dataclass(frozen=True)
class QueryResult:
    """What a bulk read found: the readable records, and each record it left out with its reason."""

    records: list[Record]
    refused: list[RefusedRecord]


class RegistryStore:
    """A durable store of environment records (see module docstring). Thread-safe; one connection per store."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path: Path = resolve_store_path(path)
        self._lock = threading.RLock()
        if self.path.is_dir():
            raise StoreError(f"registry store path {self.path} is a directory; pass a file path (e.g. {self.path / 'registry.sqlite3'})")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = self._connect()

    # -- connection ---------------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        try:
            conn = sqlite3.connect(self.path, timeout=60.0, isolation_level=None, check_same_thread=False)
            conn.text_factory = gate.decode_text
            conn.execute("PRAGMA busy_timeout = 60000")
            tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise StoreCorruptError(
                f"registry store {self.path} is not a readable SQLite database ({exc}); move it aside or point "
                f"SPADE_STORE at another file"
            ) from exc
        if tables and "spade_meta" not in tables:
            conn.close()
            raise ForeignStoreError(
                f"{self.path} is an SQLite database that SPADE did not create (tables: {', '.join(sorted(tables))}); "
                f"refusing to touch it. Use another path via SPADE_STORE or --store"
            )
        try:
            conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = FULL")
            conn.execute("PRAGMA foreign_keys = ON")
            if not tables:
                self._create_schema(conn)
            if self._check_meta(conn) < SCHEMA_VERSION:
                migrate_v1(conn, self.path)
            self._ensure_embeddings_table(conn)
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise StoreCorruptError(f"registry store {self.path} is damaged ({exc}); move it aside and re-create it") from exc
        return conn

    def _create_schema(self, conn: sqlite3.Connection) -> None:
        conn.execute("BEGIN IMMEDIATE")
        try:
            for statement in SCHEMA.strip().split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT OR IGNORE INTO spade_meta VALUES ('app', ?)", (APP_ID,))
            conn.execute("INSERT OR IGNORE INTO spade_meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _ensure_embeddings_table(self, conn: sqlite3.Connection) -> None:
        if conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'embeddings'").fetchone():
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(EMBEDDINGS_SCHEMA)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _check_meta(self, conn: sqlite3.Connection) -> int:
        meta = dict(conn.execute("SELECT key, value FROM spade_meta").fetchall())
        if meta.get("app") != APP_ID:
            raise ForeignStoreError(f"{self.path} has a spade_meta table but is not a SPADE registry store (app={meta.get('app')!r})")
        version = int(meta.get("schema_version", "0"))
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} uses store schema v{version}, newer than this SPADE understands (v{SCHEMA_VERSION}); upgrade spade"
            )
        return version

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> RegistryStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writes -------------------------------------------------------------------------------------------
    def add(
        self,
        *,
        code: str,
        manifest: dict[str, Any],
        status: Status = Status.QUARANTINED,
        trust: Trust = Trust.DESIGNER,
        module: str | None = None,
        failed_stage: str | None = None,
        provenance: dict[str, Any] | None = None,
        report: dict[str, Any] | None = None,
        version: int | None = None,
        namespace: str = ENV_NAMESPACE,
    ) -> tuple[Record, bool]:
        """Store a record unless identical code (normalised AST) exists; return ``(record, created)``.

        An ``accepted`` record gets the next ``<Name>-v<N>`` id in the same transaction (``version``: that version
        when no record of the name has it, e.g. an imported environment keeping its id); it needs a valid
        manifest, and a designer record in the ``spade`` namespace a name no bundled environment has
        (:meth:`reserved_name_problem`). ``namespace``: ``spade-pack`` for an imported environment (the id's
        namespace, see :mod:`spade_registry.ids`), ``spade`` otherwise.
        Every manifest, provenance and report must be plain JSON data (``StoreError`` otherwise).
        """
        gate.check_text(code, "code", max_bytes=gate.MAX_CODE_BYTES)
        digest = content_hash(code)
        manifest_json = gate.dumps(manifest, "manifest")
        if not isinstance(manifest, dict):
            raise StoreError(f"record manifest must be a dict, got {type(manifest).__name__}")
        if Status(status) is Status.ACCEPTED:
            _check_acceptable_manifest(manifest)
        payload = (manifest_json, code, gate.check_label(module, "module"),
                   gate.dumps(provenance or {}, "provenance"), None if report is None else gate.dumps(report, "report"))
        failed_stage = gate.check_label(failed_stage, "failed_stage")
        if version is not None:
            gate.check_version(version)
        if namespace not in NAMESPACES:
            raise StoreError(f"record namespace {namespace!r:.60} is not one of {', '.join(NAMESPACES)}")
        index = gate.index_fields(manifest)
        now = time.time()
        with self._write() as conn:
            row = conn.execute("SELECT rid FROM records WHERE content_hash = ?", (digest,)).fetchone()
            if row is not None:
                return self._get_rid(row[0]), False
            cur = conn.execute(
                "INSERT INTO records (namespace, name, content_hash, domain, status, failed_stage, trust, max_turns,"
                " players, tags, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (namespace, index.name, digest, index.domain, Status(status).value, failed_stage, Trust(trust).value,
                 index.max_turns, index.players, json.dumps(list(index.tags)), now, now),
            )
            rid = int(cur.lastrowid)
            conn.execute(
                "INSERT INTO payloads (rid, manifest, code, module, provenance, report) VALUES (?, ?, ?, ?, ?, ?)",
                (rid, *payload),
            )
            if Status(status) is Status.ACCEPTED:
                self._assign_version(conn, rid, namespace, index.name, Trust(trust), prefer=version)
        return self._get_rid(rid), True

    def set_status(
        self,
        ref: str | int,
        status: Status,
        *,
        failed_stage: str | None = None,
        report: dict[str, Any] | None = None,
    ) -> Record:
        """Change a record's status (and report); accepting assigns its ``Name-vN`` id if it has none."""
        status = Status(status)
        failed_stage = gate.check_label(failed_stage, "failed_stage")
        report_json = None if report is None else gate.dumps(report, "report")
        with self._write() as conn:
            record = self._get(ref)
            conn.execute(
                "UPDATE records SET status = ?, failed_stage = ?, updated_at = ? WHERE rid = ?",
                (status.value, failed_stage if status is Status.FAILED else None, time.time(), record.rid),
            )
            if report_json is not None:
                conn.execute("UPDATE payloads SET report = ? WHERE rid = ?", (report_json, record.rid))
            if status is Status.ACCEPTED and record.env_id is None:
                _check_acceptable_manifest(record.manifest)
                self._assign_version(conn, record.rid, record.namespace, record.name, record.trust)
        return self._get_rid(record.rid)

    def update_stats(self, ref: str | int, updates: dict[str, Any]) -> dict[str, Any]:
        """Merge ``updates`` into a record's stats atomically; return the new stats."""
        with self._write() as conn:
            record = self._get(ref)
            stats = {**record.stats, **updates}
            conn.execute(
                "INSERT INTO stats (rid, data) VALUES (?, ?) ON CONFLICT (rid) DO UPDATE SET data = excluded.data",
                (record.rid, gate.dumps(stats, "stats")),
            )
        return stats

    def _assign_version(self, conn: sqlite3.Connection, rid: int, namespace: str, name: str, trust: Trust, *,
                        prefer: int | None = None) -> None:
        if trust is Trust.DESIGNER and namespace == ENV_NAMESPACE:
            problem = self._reserved_name_problem(conn, name)
            if problem:
                raise ReservedNameError(problem)
        taken = prefer is None or conn.execute(
            "SELECT 1 FROM records WHERE namespace = ? AND name = ? AND version = ?", (namespace, name, prefer)
        ).fetchone() is not None
        version = _next_version(conn, namespace, name) if taken else gate.check_version(prefer)
        conn.execute("UPDATE records SET version = ?, env_id = ? WHERE rid = ?",
                     (version, format_env_id(name, version, namespace), rid))

    def reserved_name_problem(self, name: str) -> str | None:
        """Why a designer environment may not be called ``name`` (a bundled environment's name), or None.

        Names are compared by :func:`~spade_registry.ids.name_key` (case, ``_`` and ``.`` ignored), so an
        unversioned ``gymnasium.make("spade/<Name>")`` of a bundled environment can never reach designer code.
        """
        with self._lock:
            return self._reserved_name_problem(self._conn, name)

    def _reserved_name_problem(self, conn: sqlite3.Connection, name: str) -> str | None:
        bundled = self._bundled_names(conn).get(name_key(name))
        if bundled is not None:
            return (f"the name {name!r} belongs to the bundled environment spade/{bundled} (names are compared "
                    "ignoring case, '_' and '.'); give the environment its own name in ENV_SPEC['name']")
        return None

    def _bundled_names(self, conn: sqlite3.Connection) -> dict[str, str]:
        """``name_key -> name`` of every bundled name: those stored, and those installed plugins declare
        (:meth:`declare_bundled_names`), so a name is reserved before its seed is first stored."""
        names = [n for (n,) in conn.execute("SELECT DISTINCT name FROM records WHERE trust = ?",
                                            (Trust.BUNDLED.value,))]
        row = conn.execute("SELECT value FROM spade_meta WHERE key = ?", (DECLARED_NAMES_KEY,)).fetchone()
        if row is not None:
            try:
                declared = gate.loads(row[0], DECLARED_NAMES_KEY)
            except StoreError as exc:
                _log.warning("declared bundled names left out: %s", exc)
                declared = []
            names += [n for n in declared if isinstance(n, str)] if isinstance(declared, list) else []
        return {name_key(n): n for n in sorted(names)}

    def declare_bundled_names(self, names: Iterable[str]) -> None:
        """Reserve the environment names installed plugins declare (replacing the previous declaration)."""
        self.set_meta(DECLARED_NAMES_KEY, gate.dumps(sorted({gate.check_name(n) for n in names}), DECLARED_NAMES_KEY))

    def shadowing_ids(self) -> set[str]:
        """Ids of accepted designer records whose names collide with a bundled one (stores written before the
        name rule): registration leaves them out."""
        with self._lock:
            bundled = sorted(self._bundled_names(self._conn))
            if not bundled:
                return set()
            # names are ASCII (NAME_PATTERN), so SQLite's lower() is name_key's casefold here
            rows = self._conn.execute(
                "SELECT env_id, name FROM records WHERE status = 'accepted' AND trust = ? AND env_id IS NOT NULL "
                f"AND namespace = '{ENV_NAMESPACE}' "
                f"AND lower(replace(replace(name, '_', ''), '.', '')) IN ({', '.join('?' * len(bundled))})",
                (Trust.DESIGNER.value, *bundled)).fetchall()
        return {env_id for env_id, name in rows if name_key(name) in bundled}

    # -- metadata -----------------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        with self._lock:
            row = self._conn.execute("SELECT value FROM spade_meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def set_meta(self, key: str, value: str) -> None:
        gate.check_text(key, "meta key", max_bytes=gate.MAX_LABEL_CHARS)
        gate.check_text(value, f"meta {key!r}", max_bytes=gate.MAX_JSON_BYTES)
        with self._write() as conn:
            conn.execute("INSERT OR REPLACE INTO spade_meta VALUES (?, ?)", (key, value))

    # -- reads --------------------------------------------------------------------------------------------
    def get(self, ref: str | int) -> Record:
        """A record by env id (``spade/X-v0``, ``X-v0``, ``spade-pack/X-v0``), ``#rid``/rid, or content hash (or a unique prefix)."""
        with self._lock:
            return self._get(ref)

    def _get(self, ref: str | int) -> Record:
        if isinstance(ref, int):
            return self._get_rid(ref)
        text = ref.strip()
        if text.startswith("#") and text[1:].isdigit():
            return self._get_rid(int(text[1:]))
        if text.startswith(("ast:", "raw:")):
            rows = self._conn.execute(
                "SELECT rid FROM records WHERE content_hash LIKE ? LIMIT 2", (text.replace("%", "") + "%",)
            ).fetchall()
            if len(rows) == 1:
                return self._get_rid(rows[0][0])
            raise RecordNotFoundError(f"no unique record with content hash starting {text!r} in {self.path}")
        wanted = parse_id(text)
        row = self._conn.execute("SELECT rid FROM records WHERE namespace = ? AND name = ? AND version = ?",
                                 (wanted.namespace, wanted.name, wanted.version)).fetchone()
        if row is None:
            raise RecordNotFoundError(f"no environment {wanted} in {self.path}; run `spade list` to see what is there")
        return self._get_rid(row[0])

    def _get_rid(self, rid: int) -> Record:
        row = self._conn.execute(f"SELECT {_RECORD_COLUMNS} FROM {_RECORD_FROM} WHERE r.rid = ?", (rid,)).fetchone()
        if row is None:
            raise RecordNotFoundError(f"no record #{rid} in {self.path}")
        return gate.record_from_row(row)

    def find_by_hash(self, digest: str) -> Record | None:
        with self._lock:
            row = self._conn.execute("SELECT rid FROM records WHERE content_hash = ?", (digest,)).fetchone()
            return None if row is None else self._get_rid(row[0])

    def query(
        self,
        *,
        domain: str | None = None,
        status: Status | str | None = None,
        tag: str | None = None,
        trust: Trust | str | None = None,
        limit: int | None = None,
    ) -> list[Record]:
        """Records matching every given filter, oldest first; a record outside the store's schema is left out and
        logged (:meth:`query_checked` returns those too)."""
        found = self.query_checked(domain=domain, status=status, tag=tag, trust=trust, limit=limit)
        for refused in found.refused:
            _log.warning("record #%s left out: %s", refused.rid, refused.reason)
        return found.records

    def query_checked(
        self,
        *,
        domain: str | None = None,
        status: Status | str | None = None,
        tag: str | None = None,
        trust: Trust | str | None = None,
        limit: int | None = None,
    ) -> QueryResult:
        """Like :meth:`query`, also returning every matching record that could not be read, with its reason."""
        clauses, params = _filters(domain=domain, status=status, tag=tag, trust=trust)
        sql = f"SELECT {_RECORD_COLUMNS} FROM {_RECORD_FROM}{clauses} ORDER BY r.rid"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        records, refused = [], []
        with self._lock:
            for row in self._conn.execute(sql, params):
                try:
                    records.append(gate.record_from_row(row))
                except BadRecordError as exc:
                    refused.append(RefusedRecord(exc.rid, exc.reason))
        return QueryResult(records, refused)

    def count(self, *, domain: str | None = None, status: Status | str | None = None) -> int:
        clauses, params = _filters(domain=domain, status=status)
        with self._lock:
            return int(self._conn.execute(f"SELECT COUNT(*) FROM records r{clauses}", params).fetchone()[0])

    def accepted_index(self) -> list[tuple[str, int]]:
        """``(env_id, max_turns)`` of every accepted record: all that Gymnasium registration needs.

        A row whose id is not the ``spade/<Name>-v<N>`` of its name and version, or whose ``max_turns`` is out of
        range, is left out and logged (an older store's row); the others are returned."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT rid, env_id, namespace, name, version, max_turns FROM records WHERE status = 'accepted' "
                "AND env_id IS NOT NULL").fetchall()
        out = []
        for rid, env_id, namespace, name, version, max_turns in rows:
            problem = _index_row_problem(env_id, namespace, name, version, max_turns)
            if problem is None:
                out.append((env_id, max_turns))
            else:
                _log.warning("record #%s is not registered: %s", rid, problem)
        return out

    # -- embeddings (environment memory) ------------------------------------------------------------------------
    def put_embeddings(self, model: str, vectors: Iterable[tuple[int, bytes]], *, dim: int) -> int:
        """Cache ``(rid, float32 bytes)`` vectors under ``model`` in one transaction; return how many were new.

        A record's vector for a model is written once: an existing one is kept (records are immutable).
        """
        rows = []
        for rid, blob in vectors:
            if len(blob) != 4 * dim:
                raise StoreError(
                    f"embedding for record #{rid} has {len(blob)} bytes; expected {4 * dim} (float32 x {dim})"
                )
            rows.append((int(rid), model, dim, sqlite3.Binary(blob)))
        if not rows:
            return 0
        with self._write() as conn:
            before = conn.total_changes
            conn.executemany(
                "INSERT INTO embeddings (rid, model, dim, vector) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (rid, model) DO NOTHING",
                rows,
            )
            return conn.total_changes - before

    def get_embeddings(
        self,
        model: str,
        *,
        after_seq: int = 0,
        rids: Iterable[int] | None = None,
        with_vectors: bool = True,
    ) -> list[tuple[int, int, str, str, bytes | None]]:
        """``(seq, rid, domain, status, vector bytes)`` of records embedded under ``model``, in ``seq`` order.

        ``after_seq`` returns only vectors stored after that one (incremental loading); ``rids`` restricts to those
        records; ``with_vectors=False`` returns ``None`` for the vector (a cheap status/domain refresh).
        """
        vector = "e.vector" if with_vectors else "NULL"
        sql = (f"SELECT e.seq, e.rid, r.domain, r.status, {vector} FROM embeddings e JOIN records r ON r.rid = e.rid"
               " WHERE e.model = ? AND e.seq > ?")
        params: list[Any] = [model, int(after_seq)]
        if rids is not None:
            wanted = sorted({int(r) for r in rids})
            if not wanted:
                return []
            sql += f" AND e.rid IN ({','.join('?' * len(wanted))})"
            params.extend(wanted)
        with self._lock:
            return self._conn.execute(sql + " ORDER BY e.seq", params).fetchall()

    def rids_without_embedding(self, model: str, *, after_rid: int = 0, limit: int | None = None) -> list[int]:
        """Ids (ascending) of records above ``after_rid`` that have no vector under ``model`` yet."""
        sql = ("SELECT r.rid FROM records r WHERE r.rid > ? AND NOT EXISTS"
               " (SELECT 1 FROM embeddings e WHERE e.rid = r.rid AND e.model = ?) ORDER BY r.rid")
        params: list[Any] = [int(after_rid), model]
        if limit is not None:
            sql += " LIMIT ?"
            params.append(int(limit))
        with self._lock:
            return [row[0] for row in self._conn.execute(sql, params)]

    def stats_index(
        self, *, domain: str | None = None, status: Status | str | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        """``(rid, stats)`` of every record matching the filters, by rid, without reading code or manifests; stats
        outside the store's schema (an older store's row) are logged and read as ``{}``."""
        clauses, params = _filters(domain=domain, status=status)
        sql = f"SELECT r.rid, s.data FROM records r LEFT JOIN stats s ON s.rid = r.rid{clauses} ORDER BY r.rid"
        with self._lock:
            rows = self._conn.execute(sql, params).fetchall()
        return [(rid, _stats_or_empty(rid, data)) for rid, data in rows]

    def change_marker(self) -> tuple[int, int]:
        """Differs after any commit, by another connection (``data_version``) or this one (``total_changes``)."""
        with self._lock:
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0]), self._conn.total_changes

    def data_version(self) -> int:
        """Changes whenever another connection commits; cheap way to notice new records."""
        with self._lock:
            return int(self._conn.execute("PRAGMA data_version").fetchone()[0])


def _filters(**filters: Any) -> tuple[str, list[Any]]:
    clauses, params = [], []
    if filters.get("domain"):
        clauses.append("r.domain = ?")
        params.append(filters["domain"])
    if filters.get("status"):
        clauses.append("r.status = ?")
        params.append(Status(filters["status"]).value if not isinstance(filters["status"], Status) else filters["status"].value)
    if filters.get("trust"):
        clauses.append("r.trust = ?")
        params.append(Trust(filters["trust"]).value)
    if filters.get("tag"):
        clauses.append("EXISTS (SELECT 1 FROM json_each(r.tags) WHERE json_each.value = ?)")
        params.append(filters["tag"])
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def _next_version(conn: sqlite3.Connection, namespace: str, name: str) -> int:
    """One past the name's highest version; when that would pass :data:`MAX_VERSION` (an imported id claimed the
    top), the lowest free version instead, so allocation never overflows."""
    (latest,) = conn.execute("SELECT MAX(version) FROM records WHERE namespace = ? AND name = ?",
                             (namespace, name)).fetchone()
    if latest is None:
        return 0
    if isinstance(latest, int) and 0 <= latest < MAX_VERSION:
        return latest + 1
    row = conn.execute(
        "SELECT v FROM (SELECT 0 AS v UNION ALL SELECT version + 1 FROM records WHERE namespace = ? AND name = ? "
        "AND version >= 0 AND version < ?) WHERE v NOT IN (SELECT version FROM records WHERE namespace = ? "
        "AND name = ? AND version IS NOT NULL) ORDER BY v LIMIT 1",
        (namespace, name, MAX_VERSION, namespace, name)).fetchone()
    if row is None:
        raise StoreError(f"the name {name!r} has used every version up to {MAX_VERSION}; give it another name")
    return int(row[0])


def _index_row_problem(env_id: Any, namespace: Any, name: Any, version: Any, max_turns: Any) -> str | None:
    try:
        gate.check_name(name)
        gate.check_version(version)
        gate.check_int(max_turns, "max_turns", 0, MAX_TURNS_LIMIT)
        if namespace not in NAMESPACES:
            return f"its namespace {namespace!r:.60} is not one of {', '.join(NAMESPACES)}"
        if env_id != format_env_id(name, version, namespace):
            return f"its id {env_id!r:.100} is not {format_env_id(name, version, namespace)!r}"
    except StoreError as exc:
        return str(exc)
    return None


def _stats_or_empty(rid: int, data: Any) -> dict[str, Any]:
    if not data:
        return {}
    try:
        stats = gate.loads(data, "stats")
    except StoreError as exc:
        _log.warning("record #%s: stats left out: %s", rid, exc)
        return {}
    return stats if isinstance(stats, dict) else {}


def _check_acceptable_manifest(manifest: Any) -> None:
    """An accepted record's manifest must be a valid ``ENV_SPEC`` (never the ``Unnamed`` placeholder)."""
    try:
        EnvManifest.from_dict(manifest, source="record manifest")
    except ManifestError as exc:
        raise StoreError(f"cannot accept a record whose manifest is invalid: {exc}") from exc
