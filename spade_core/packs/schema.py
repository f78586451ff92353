"""The one home of the pack format (version :data:`FORMAT_VERSION`): its layout, its files and their fields.

A pack is a folder (or a tarball, a parquet dataset or an installed distribution holding the same data)::

    pack.json                          the index: format, name, how it was made, one entry per environment
    README.md                          the card: counts per domain and status, statistics, how it was made
    environments/<Name>-v<N>/module.py.txt   the module source, as text (a pack holds no importable Python)
    environments/<Name>-v<N>/record.json     manifest, content hash, validation report, stats, lineage

Everything in a pack was written by a model and shared by a stranger: every reader here checks types, sizes and
paths, and raises :class:`~spade_core.packs.errors.PackFormatError` naming the file and the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from spade_core import linear_re
from spade_core.packs.errors import PackFormatError
from spade_core.validation.config import ValidationConfig
from spade_registry.gate import INT64_MAX, INT64_MIN, json_problem
from spade_registry.ids import ID_PATTERN, format_env_id
from spade_registry.manifest import NAME_PATTERN
from spade_registry.records import Status

FORMAT = "spade-pack"
FORMAT_VERSION = 1
INDEX_FILE = "pack.json"
CARD_FILE = "README.md"
ENV_DIR = "environments"
MODULE_FILE = "module.py.txt"
RECORD_FILE = "record.json"
PARQUET_FILE = "data/environments.parquet"
PARQUET_METADATA_KEY = b"spade_pack"
ENTRY_POINT_GROUP = "spade.packs"
"""Installed packs declare ``<pack name> = <data folder>`` here; the value names a folder read as data, never
imported (``importlib.metadata`` reads entry points without loading them)."""

PACK_NAME_PATTERN = linear_re.compile(r"^[a-z][a-z0-9_]{0,63}$")
HASH_PATTERN = linear_re.compile(r"^(ast|raw):[0-9a-f]{64}$")
MAX_ENVIRONMENTS = 100_000
MAX_MODULE_CHARS = ValidationConfig().max_source_chars
MAX_RECORD_BYTES = 4 * 1024 * 1024
MAX_INDEX_BYTES = 64 * 1024 * 1024
MAX_CARD_BYTES = 1024 * 1024
MAX_PACK_BYTES = 1024 * 1024 * 1024
"""Reading stops past this many bytes in all (a tarball's members, held in memory; a folder's files)."""
MAX_MEMBERS = 4 * MAX_ENVIRONMENTS + 16


@dataclass(frozen=True)
class Lineage:
    """Where an environment came from: the run and iteration that accepted it, the grounding document's title, and
    its parent in the environment memory (the closest earlier accepted environment, by ``parent_by``)."""

    source: str | None = None
    run: str | None = None
    iteration: int | None = None
    document_title: str | None = None
    doc_id: str | None = None
    parent: str | None = None
    parent_similarity: float | None = None
    parent_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


@dataclass(frozen=True)
class PackStats:
    """Self-play statistics: episodes played, hinted and unhinted success, regret now and per iteration."""

    plays: int = 0
    successes: int = 0
    p_hint: float | None = None
    p_nohint: float | None = None
    regret: float | None = None
    regret_history: tuple[dict[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"plays": self.plays, "successes": self.successes, "p_hint": self.p_hint, "p_nohint": self.p_nohint,
                "regret": self.regret, "regret_history": [dict(h) for h in self.regret_history]}


@dataclass(frozen=True)
class PackEnvironment:
    """One environment of a pack, as the pack claims it (nothing here is trusted until re-validated)."""

    pack_id: str
    name: str
    version: int
    domain: str
    status: str
    tags: tuple[str, ...]
    content_hash: str
    code: str
    manifest: dict[str, Any]
    report: dict[str, Any] | None
    stats: PackStats
    lineage: Lineage
    provenance: dict[str, Any] = field(default_factory=dict)

    def record_data(self) -> dict[str, Any]:
        """``record.json``: everything but the code."""
        return {"id": self.pack_id, "content_hash": self.content_hash, "status": self.status,
                "manifest": self.manifest, "report": self.report, "stats": self.stats.to_dict(),
                "lineage": self.lineage.to_dict(), "provenance": self.provenance}


@dataclass(frozen=True)
class BrokenEnvironment:
    """An index entry whose files could not be read: rejected on import with ``reason`` (file and field)."""

    pack_id: str
    reason: str


@dataclass(frozen=True)
class IndexEntry:
    pack_id: str
    domain: str
    status: str
    content_hash: str
    path: str

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.pack_id, "domain": self.domain, "status": self.status,
                "content_hash": self.content_hash, "path": self.path}


@dataclass(frozen=True)
class PackHeader:
    """What the index says about the pack as a whole."""

    name: str
    description: str
    created_at: str
    spade_version: str
    made_by: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "name": self.name,
                "description": self.description, "created_at": self.created_at,
                "spade_version": self.spade_version, "made_by": self.made_by}


@dataclass(frozen=True)
class Pack:
    """A read pack: its header and its environments (readable or broken), in index order."""

    header: PackHeader
    environments: tuple[PackEnvironment | BrokenEnvironment, ...]
    origin: str


def env_folder(pack_id: str) -> str:
    """``environments/<Name>-v<N>`` for ``spade/<Name>-v<N>``."""
    return f"{ENV_DIR}/{pack_id.rpartition('/')[2]}"


# -- reading: every value checked, every error naming file and field ---------------------------------------------
def load_json(raw: bytes, file: str, limit: int) -> Any:
    if len(raw) > limit:
        raise PackFormatError(file, "(file)", f"is {len(raw)} bytes, over the {limit} byte limit")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise PackFormatError(file, "(file)", f"is not UTF-8 JSON: {exc}") from None


def _get(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], file: str, *, optional: bool = False) -> Any:
    if key not in data:
        if optional:
            return None
        raise PackFormatError(file, key, "is missing")
    value = data[key]
    if optional and value is None:
        return None
    if isinstance(value, bool) and kind is not bool and bool not in (kind if isinstance(kind, tuple) else (kind,)):
        raise PackFormatError(file, key, f"must be {_kind_name(kind)}, got {value!r}")
    if not isinstance(value, kind):
        raise PackFormatError(file, key, f"must be {_kind_name(kind)}, got {type(value).__name__}")
    if isinstance(value, int) and not INT64_MIN <= value <= INT64_MAX:
        raise PackFormatError(file, key, f"is an integer of {value.bit_length()} bits; the store keeps 64-bit integers")
    return value


def _kind_name(kind: type | tuple[type, ...]) -> str:
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join({"str": "a string", "int": "an integer", "dict": "an object", "list": "a list",
                        "float": "a number", "bool": "true or false"}.get(k.__name__, k.__name__) for k in kinds)


def _int64(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and INT64_MIN <= value <= INT64_MAX


def _plain(value: Any, file: str, key: str) -> Any:
    bad = json_problem(value, key)
    if bad is not None:
        raise PackFormatError(file, key, f"must be plain JSON data the store can keep; {bad}")
    return value


def parse_pack_id(value: Any, file: str, key: str = "id") -> tuple[str, str, int]:
    """``(id, name, version)`` of a ``spade/<Name>-v<N>`` id from a pack."""
    if not isinstance(value, str):
        raise PackFormatError(file, key, f"must be a string 'spade/<Name>-v<N>', got {type(value).__name__}")
    match = ID_PATTERN.fullmatch(value)
    if match is None or match.group("ns") != "spade" or not NAME_PATTERN.fullmatch(match.group("name")):
        raise PackFormatError(file, key, f"{value[:100]!r} is not an environment id 'spade/<Name>-v<N>'")
    name, version = match.group("name"), int(match.group("version"))
    return format_env_id(name, version), name, version


def parse_hash(value: Any, file: str, key: str = "content_hash") -> str:
    if not isinstance(value, str) or not HASH_PATTERN.fullmatch(value):
        raise PackFormatError(file, key, f"must be 'ast:<64 hex>' or 'raw:<64 hex>', got {str(value)[:100]!r}")
    return value


def parse_status(value: Any, file: str, key: str = "status") -> str:
    try:
        return Status.parse(value).value if isinstance(value, str) else Status.parse(repr(value)).value
    except ValueError as exc:
        raise PackFormatError(file, key, str(exc)) from None


def parse_header(data: Any, file: str = INDEX_FILE) -> PackHeader:
    if not isinstance(data, dict):
        raise PackFormatError(file, "(top level)", f"must be a JSON object, got {type(data).__name__}")
    if data.get("format") != FORMAT:
        raise PackFormatError(file, "format", f"must be {FORMAT!r} (is this a SPADE pack?), got "
                              f"{str(data.get('format'))[:60]!r}")
    version = _get(data, "format_version", int, file)
    if version != FORMAT_VERSION:
        raise PackFormatError(file, "format_version", f"this SPADE reads pack format v{FORMAT_VERSION}, the pack is "
                              f"v{version}; " + ("upgrade spade" if version > FORMAT_VERSION else "re-export it"))
    name = _get(data, "name", str, file)
    if not PACK_NAME_PATTERN.fullmatch(name):
        raise PackFormatError(file, "name", f"{name[:80]!r} must be lowercase letters, digits or '_' (max 64), "
                              "starting with a letter")
    made_by = _plain(_get(data, "made_by", dict, file), file, "made_by")
    return PackHeader(name=name, description=_get(data, "description", str, file)[:10_000],
                      created_at=_get(data, "created_at", str, file)[:64],
                      spade_version=_get(data, "spade_version", str, file)[:64], made_by=made_by)


INDEX_KEYS = frozenset({"format", "format_version", "name", "description", "created_at", "spade_version", "made_by",
                        "environments"})
ENTRY_KEYS = frozenset({"id", "domain", "status", "content_hash", "path"})
"""The fields of ``pack.json`` and of each of its entries; any other field is refused (nothing is silently ignored)."""


def _known_keys(data: dict[str, Any], known: frozenset[str], file: str, where: str) -> None:
    unknown = sorted(str(k)[:40] for k in data if k not in known)
    if unknown:
        raise PackFormatError(file, where, f"has fields this SPADE does not read ({', '.join(unknown[:5])}); a pack "
                              f"holds only {', '.join(sorted(known))}")


def parse_index(data: Any, file: str = INDEX_FILE) -> tuple[PackHeader, list[IndexEntry]]:
    """The header and entries of ``pack.json``; ids and paths must be unique, paths inside ``environments/``; a
    field outside :data:`INDEX_KEYS` / :data:`ENTRY_KEYS` refuses the pack."""
    header = parse_header(data, file)
    _known_keys(data, INDEX_KEYS, file, "(top level)")
    entries = _get(data, "environments", list, file)
    if len(entries) > MAX_ENVIRONMENTS:
        raise PackFormatError(file, "environments", f"has {len(entries)} entries, over the {MAX_ENVIRONMENTS} limit")
    out, seen_ids, seen_paths = [], set(), set()
    for i, entry in enumerate(entries):
        where = f"environments[{i}]"
        if not isinstance(entry, dict):
            raise PackFormatError(file, where, f"must be an object, got {type(entry).__name__}")
        _known_keys(entry, ENTRY_KEYS, file, where)
        pack_id, _, _ = parse_pack_id(entry.get("id"), file, f"{where}.id")
        path = _get(entry, "path", str, file)
        if path != env_folder(pack_id):
            raise PackFormatError(file, f"{where}.path", f"must be {env_folder(pack_id)!r} for {pack_id}, got "
                                  f"{path[:100]!r}")
        if pack_id in seen_ids or path in seen_paths:
            raise PackFormatError(file, f"{where}.id", f"{pack_id} appears twice")
        seen_ids.add(pack_id)
        seen_paths.add(path)
        domain = _get(entry, "domain", str, file)
        out.append(IndexEntry(pack_id, domain[:40], parse_status(entry.get("status"), file, f"{where}.status"),
                              parse_hash(entry.get("content_hash"), file, f"{where}.content_hash"), path))
    return header, out


def parse_environment(entry: IndexEntry, code_raw: bytes, record_raw: bytes) -> PackEnvironment:
    """One environment from its two files; the index's hash and id must match the record's."""
    module_file = f"{entry.path}/{MODULE_FILE}"
    record_file = f"{entry.path}/{RECORD_FILE}"
    code = decode_module(code_raw, module_file)
    data = load_json(record_raw, record_file, MAX_RECORD_BYTES)
    return environment_from_record(data, code, record_file, entry)


def decode_module(raw: bytes, file: str) -> str:
    if len(raw) > MAX_MODULE_CHARS * 4:
        raise PackFormatError(file, "(file)", f"is {len(raw)} bytes, over the module limit")
    try:
        code = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise PackFormatError(file, "(file)", f"is not UTF-8 text: {exc}") from None
    if len(code) > MAX_MODULE_CHARS:
        raise PackFormatError(file, "(file)", f"has {len(code)} characters, over the {MAX_MODULE_CHARS} limit")
    return code


def environment_from_record(data: Any, code: str, file: str, entry: IndexEntry | None = None) -> PackEnvironment:
    """A :class:`PackEnvironment` from ``record.json`` data (also a parquet row's decoded columns)."""
    if not isinstance(data, dict):
        raise PackFormatError(file, "(top level)", f"must be a JSON object, got {type(data).__name__}")
    pack_id, name, version = parse_pack_id(data.get("id"), file)
    digest = parse_hash(data.get("content_hash"), file)
    status = parse_status(data.get("status"), file)
    if entry is not None:
        if pack_id != entry.pack_id:
            raise PackFormatError(file, "id", f"is {pack_id}, but the index lists this folder as {entry.pack_id}")
        if digest != entry.content_hash:
            raise PackFormatError(file, "content_hash", f"is {digest}, but the index says {entry.content_hash}")
    manifest = _plain(_get(data, "manifest", dict, file), file, "manifest")
    report = _get(data, "report", dict, file, optional=True)
    if report is not None:
        _plain(report, file, "report")
    provenance = _plain(_get(data, "provenance", dict, file, optional=True) or {}, file, "provenance")
    stats = parse_stats(_get(data, "stats", dict, file), file)
    lineage = parse_lineage(_get(data, "lineage", dict, file), file)
    raw_domain = manifest.get("domain")
    domain = raw_domain[:40] if isinstance(raw_domain, str) else "unknown"
    if entry is not None and (entry.domain, entry.status) != (domain, status):
        raise PackFormatError(file, "manifest.domain", f"domain {domain!r} and status {status!r} differ from the "
                              f"index's {entry.domain!r} and {entry.status!r}; the importer reads the record, so the "
                              "two must agree")
    raw_tags = manifest.get("tags")
    tags = tuple(t[:80] for t in raw_tags if isinstance(t, str))[:64] if isinstance(raw_tags, list) else ()
    return PackEnvironment(pack_id=pack_id, name=name, version=version, domain=domain, status=status, tags=tags,
                           content_hash=digest, code=code, manifest=manifest, report=report, stats=stats,
                           lineage=lineage, provenance=provenance)


def _number(value: Any, file: str, key: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value or abs(value) == float("inf"):
        raise PackFormatError(file, key, f"must be a finite number or null, got {str(value)[:40]!r}")
    return float(value)


def parse_stats(data: Mapping[str, Any], file: str) -> PackStats:
    plays = _get(data, "plays", int, file)
    successes = _get(data, "successes", int, file)
    if plays < 0 or not 0 <= successes <= plays:
        raise PackFormatError(file, "stats.successes", f"needs 0 <= successes <= plays, got {successes}, {plays}")
    history = _get(data, "regret_history", list, file)
    rows = []
    for i, row in enumerate(history[:100_000]):
        key = f"stats.regret_history[{i}]"
        if not isinstance(row, dict):
            raise PackFormatError(file, key, "must be an object")
        iteration = row.get("iteration")
        if not _int64(iteration):
            raise PackFormatError(file, f"{key}.iteration", f"must be an integer, got {str(iteration)[:40]!r}")
        rows.append({"iteration": iteration, **{k: _number(row.get(k), file, f"{key}.{k}")
                                                 for k in ("regret", "p_hint", "p_nohint")}})
    return PackStats(plays=plays, successes=successes, p_hint=_number(data.get("p_hint"), file, "stats.p_hint"),
                     p_nohint=_number(data.get("p_nohint"), file, "stats.p_nohint"),
                     regret=_number(data.get("regret"), file, "stats.regret"), regret_history=tuple(rows))


def parse_lineage(data: Mapping[str, Any], file: str) -> Lineage:
    def text(key: str) -> str | None:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise PackFormatError(file, f"lineage.{key}", f"must be a string or null, got {type(value).__name__}")
        return None if value is None else value[:500]

    iteration = data.get("iteration")
    if iteration is not None and not _int64(iteration):
        raise PackFormatError(file, "lineage.iteration", f"must be an integer or null, got {str(iteration)[:40]!r}")
    return Lineage(source=text("source"), run=text("run"), iteration=iteration, document_title=text("document_title"),
                   doc_id=text("doc_id"), parent=text("parent"),
                   parent_similarity=_number(data.get("parent_similarity"), file, "lineage.parent_similarity"),
                   parent_by=text("parent_by"))
