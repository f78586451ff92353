"""The one gate of the registry store: every value is checked against the store's schema before it is written,
and every row is checked again when it is read back.

Writing: names fullmatch :data:`~spade_registry.manifest.NAME_PATTERN`, versions lie in ``[0, MAX_VERSION]``,
integers fit SQLite's 64-bit columns, JSON payloads are plain data whose integers fit 64 bits (their strings are stored
JSON-escaped, so any text is kept), and code and payloads stay within their byte bounds. A value outside the schema raises
:class:`~spade_registry.errors.StoreError` naming the field, before anything is written.

Reading: a row written by an older store (or by hand) is turned into a :class:`~spade_registry.records.Record`
only when it satisfies the same schema; otherwise :class:`~spade_registry.errors.BadRecordError` names the record
and the reason, so bulk reads can skip that one record and go on.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from spade_registry.errors import BadRecordError, StoreError
from spade_registry.ids import MAX_VERSION, NAMESPACES, format_env_id
from spade_registry.manifest import DOMAIN_PATTERN, MAX_PLAYERS, MAX_TURNS_LIMIT, NAME_PATTERN
from spade_registry.plain_json import MAX_DEPTH
from spade_registry.records import Record, Status, Trust

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
"""SQLite's integer range: the bound of every integer column and of every integer inside stored JSON."""
MAX_CODE_BYTES = 1024 * 1024
"""An environment's source in UTF-8 (the sandbox's own limit on a module is far smaller)."""
MAX_JSON_BYTES = 4 * 1024 * 1024
"""One stored JSON payload (manifest, provenance, report or stats) as written."""
MAX_TAGS, MAX_TAG_CHARS = 64, 80
MAX_LABEL_CHARS = 200
"""Short text columns: a module path, a failed stage, a content hash."""
STORE_STAGE = "store"
"""The stage an environment fails at when the store refuses to keep it (a value outside the schema)."""
PLACEHOLDER_NAME, PLACEHOLDER_DOMAIN = "Unnamed", "unknown"
"""Index values of a failed candidate whose manifest has no usable name or domain."""


def check_text(value: Any, field: str, *, max_bytes: int) -> str:
    """``value`` if it is a string of valid UTF-8 text within ``max_bytes`` bytes, else :class:`StoreError`."""
    if not isinstance(value, str):
        raise StoreError(f"record {field} must be a string, got {type(value).__name__}")
    if len(value) > max_bytes:  # a character is at least one byte: refused before encoding it
        raise StoreError(f"record {field} has {len(value)} characters, over the store's {max_bytes}-byte limit")
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise StoreError(f"record {field} is not valid text ({exc.reason} at character {exc.start}); "
                         "store only text that encodes as UTF-8") from None
    if size > max_bytes:
        raise StoreError(f"record {field} is {size} bytes in UTF-8, over the store's {max_bytes}-byte limit")
    return value


def check_label(value: str | None, field: str) -> str | None:
    """An optional short text column (module path, failed stage)."""
    return None if value is None else check_text(value, field, max_bytes=MAX_LABEL_CHARS)


def check_int(value: Any, field: str, low: int = INT64_MIN, high: int = INT64_MAX) -> int:
    """``value`` if it is an integer (not a bool) in ``[low, high]``, else :class:`StoreError`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise StoreError(f"record {field} must be an integer, got {type(value).__name__}")
    if not low <= value <= high:
        shown = value if value.bit_length() <= 64 else f"an integer of {value.bit_length()} bits"
        raise StoreError(f"record {field} must lie in [{low}, {high}], got {shown}")
    return value


def check_name(value: Any) -> str:
    if not isinstance(value, str) or not NAME_PATTERN.fullmatch(value):
        raise StoreError(f"record name {value!r:.100} does not fullmatch the name grammar (a letter, then letters, "
                         "digits, '_' or '.'; at most 80 characters; no control characters)")
    return value


def check_version(value: Any, field: str = "version") -> int:
    return check_int(value, field, 0, MAX_VERSION)


def json_problem(value: Any, path: str) -> str | None:
    """Where ``value`` first stops being storable JSON (plain data, 64-bit integers, UTF-8 text), or None.

    Walks without recursion, so no nesting can exhaust the stack before :data:`MAX_DEPTH` is reported.
    """
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        if depth > MAX_DEPTH:
            return f"{where} is nested deeper than {MAX_DEPTH} levels"
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, int):
            if not INT64_MIN <= item <= INT64_MAX:
                return f"{where} is an integer of {item.bit_length()} bits (the store keeps 64-bit integers)"
        elif isinstance(item, float):
            if not math.isfinite(item):
                return f"{where} is {item!r}"
        elif isinstance(item, str):
            continue  # any string: JSON text escapes what UTF-8 cannot hold (a lone surrogate becomes \\udXXX)
        elif isinstance(item, (list, tuple)):
            stack.extend((child, f"{where}[{i}]", depth + 1) for i, child in enumerate(item))
        elif isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    return f"{where} has a non-string key {key!r:.60}"
                stack.append((child, f"{where}[{key!r:.60}]", depth + 1))
        else:
            return f"{where} is a {type(item).__name__}"
    return None


def dumps(value: Any, what: str) -> str:
    """``value`` as the store's JSON text, or :class:`StoreError` saying which part is outside the schema."""
    bad = json_problem(value, what)
    if bad is not None:
        raise StoreError(f"record {what} must be plain JSON data (strings, finite numbers, 64-bit integers, "
                         f"booleans, None, lists and dicts with string keys); {bad}")
    text = json.dumps(value, sort_keys=True, allow_nan=False)
    return check_text(text, what, max_bytes=MAX_JSON_BYTES)


@dataclass(frozen=True)
class IndexFields:
    """The index columns of a record, taken from a manifest that may be invalid (failed candidates are stored)."""

    name: str
    domain: str
    max_turns: int
    players: int
    tags: tuple[str, ...]


def index_fields(manifest: dict[str, Any]) -> IndexFields:
    """Index columns from a (possibly invalid) manifest: a value outside the schema becomes the placeholder."""
    name = manifest.get("name")
    domain = manifest.get("domain")
    tags = manifest.get("tags")
    return IndexFields(
        name=name if isinstance(name, str) and NAME_PATTERN.fullmatch(name) else PLACEHOLDER_NAME,
        domain=domain if isinstance(domain, str) and DOMAIN_PATTERN.fullmatch(domain) else PLACEHOLDER_DOMAIN,
        max_turns=_small_int(manifest.get("max_turns"), 0, MAX_TURNS_LIMIT, 0),
        players=_small_int(manifest.get("players", 1), 1, MAX_PLAYERS, 1),
        tags=tuple(t for t in tags[:MAX_TAGS] if isinstance(t, str) and 0 < len(t) <= MAX_TAG_CHARS and _is_utf8(t))
        if isinstance(tags, list) else (),
    )


def _small_int(value: Any, low: int, high: int, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high else default


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def decode_text(raw: bytes) -> str:
    """SQLite text as ``str``: text that is not UTF-8 (a hand-written row) keeps its bytes as lone surrogates, so
    the one record is refused by :func:`record_from_row` instead of the whole read failing."""
    return raw.decode("utf-8", "surrogateescape")


def record_from_row(row: tuple[Any, ...]) -> Record:
    """A stored row as a :class:`Record`, or :class:`BadRecordError` when the row is outside the store's schema."""
    rid = row[0]
    try:
        return _record(row)
    except (StoreError, ValueError, TypeError, KeyError, RecursionError) as exc:
        raise BadRecordError(rid, str(exc)) from None


def _record(row: tuple[Any, ...]) -> Record:
    (rid, env_id, name, version, digest, domain, status, trust, max_turns, players, tags, manifest, code, module,
     failed_stage, provenance, stats, report, created, updated, namespace) = row
    check_name(name)
    if namespace not in NAMESPACES:
        raise StoreError(f"record namespace {namespace!r:.60} is not one of {', '.join(NAMESPACES)}")
    if version is not None or env_id is not None:
        check_version(version)
        if env_id != format_env_id(name, version, namespace):
            raise StoreError(f"record id {env_id!r:.100} is not {format_env_id(name, version, namespace)!r}, the id "
                             "its namespace, name and version make")
    if not isinstance(domain, str) or not (domain == PLACEHOLDER_DOMAIN or DOMAIN_PATTERN.fullmatch(domain)):
        raise StoreError(f"record domain {domain!r:.60} does not fullmatch the domain grammar")
    for value, field in ((created, "created_at"), (updated, "updated_at")):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise StoreError(f"record {field} must be a finite number, got {value!r:.40}")
    parsed_tags = loads(tags, "tags")
    if not isinstance(parsed_tags, list) or not all(isinstance(t, str) for t in parsed_tags):
        raise StoreError("record tags must be a JSON list of strings")
    manifest_data, provenance_data = loads(manifest, "manifest"), loads(provenance, "provenance")
    stats_data = loads(stats, "stats") if stats else {}
    report_data = loads(report, "report") if report else None
    for value, field in ((manifest_data, "manifest"), (provenance_data, "provenance"), (stats_data, "stats")):
        if not isinstance(value, dict):
            raise StoreError(f"record {field} must be a JSON object")
    return Record(
        rid=check_int(rid, "rid", 1), env_id=env_id, name=name, version=version,
        content_hash=check_text(digest, "content_hash", max_bytes=MAX_LABEL_CHARS), domain=domain,
        status=Status.parse(status), trust=Trust(trust), max_turns=check_int(max_turns, "max_turns", 0, MAX_TURNS_LIMIT),
        players=check_int(players, "players", 0, MAX_PLAYERS), tags=tuple(parsed_tags), manifest=manifest_data,
        code=check_text(code, "code", max_bytes=MAX_CODE_BYTES), module=check_label(module, "module"),
        failed_stage=check_label(failed_stage, "failed_stage"), provenance=provenance_data, stats=stats_data,
        report=report_data if isinstance(report_data, dict) else None, created_at=float(created),
        updated_at=float(updated), namespace=namespace,
    )


def loads(text: Any, what: str) -> Any:
    """Stored JSON text back as data, or :class:`StoreError` when it is not text the gate would have written."""
    check_text(text, what, max_bytes=MAX_JSON_BYTES)
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:  # a 5,000-digit integer is a ValueError here
        raise StoreError(f"record {what} is not JSON the store can read: {str(exc)[:200]}") from None
    bad = json_problem(value, what)
    if bad is not None:
        raise StoreError(f"record {what} holds data outside the store's schema: {bad}")
    return value
