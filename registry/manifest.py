"""The ``ENV_SPEC`` manifest: the one schema every SPADE environment declares.

A manifest is plain data (JSON-safe) so it can be stored, indexed and sent across the sandbox boundary.
:func:`EnvManifest.from_dict` rejects a bad manifest with a :class:`ManifestError` that names the field.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from spade_registry.errors import ManifestError
from spade_registry.plain_json import first_non_json

NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_.]{0,79}\Z", re.ASCII)
r"""Environment names: no ``-`` (reserved for ``-vN``) and no ``:`` (``gymnasium.make`` splits on it). Anchored with
``\Z`` (``$`` would also match before a final newline); use ``fullmatch``."""

DOMAIN_PATTERN = re.compile(r"[a-z][a-z0-9_]{0,39}\Z", re.ASCII)
DEFAULT_MAX_CHARS = 8192
MAX_TURNS_LIMIT = 1000
MAX_PLAYERS = 8


@dataclass(frozen=True)
class DifficultyKnob:
    """A numeric constructor argument that changes how hard the environment is."""

    name: str
    min: float
    max: float
    default: float
    integer: bool = True

    def check(self, value: Any, *, where: str) -> float | int:
        """Validate one knob value passed to ``gymnasium.make``; return it with the right type."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ManifestError(self.name, f"must be a number, got {shown(value)}", source=where)
        if self.integer and int(value) != value:
            raise ManifestError(self.name, f"must be an integer, got {shown(value)}", source=where)
        if not self.min <= value <= self.max:
            raise ManifestError(
                self.name, f"{shown(value)} is outside its declared range [{self.min}, {self.max}]", source=where
            )
        return int(value) if self.integer else float(value)


@dataclass(frozen=True)
class EnvManifest:
    """What an environment declares about itself (docs/design.md §2)."""

    name: str
    domain: str
    description: str
    reward_range: tuple[float, float]
    max_turns: int
    players: int = 1
    difficulty: tuple[DifficultyKnob, ...] = ()
    tools: tuple[str, ...] = ()
    doc_id: str | None = None
    grounding: str = ""
    tags: tuple[str, ...] = ()
    max_obs_chars: int = DEFAULT_MAX_CHARS
    max_action_chars: int = DEFAULT_MAX_CHARS
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def single_turn(self) -> bool:
        return self.max_turns == 1

    def knob_defaults(self) -> dict[str, float | int]:
        return {k.name: (int(k.default) if k.integer else k.default) for k in self.difficulty}

    def check_knobs(self, knobs: dict[str, Any], *, where: str) -> dict[str, float | int]:
        """Merge ``knobs`` over the defaults, rejecting unknown names and out-of-range values."""
        by_name = {k.name: k for k in self.difficulty}
        unknown = sorted(set(knobs) - set(by_name))
        if unknown:
            known = ", ".join(sorted(by_name)) or "none"
            raise ManifestError(unknown[0], f"is not a difficulty knob of {self.name} (known: {known})", source=where)
        merged = self.knob_defaults()
        for key, value in knobs.items():
            merged[key] = by_name[key].check(value, where=where)
        return merged

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["reward_range"] = list(self.reward_range)
        data["difficulty"] = {
            k.name: {"min": k.min, "max": k.max, "default": k.default, "integer": k.integer} for k in self.difficulty
        }
        data["tools"] = list(self.tools)
        data["tags"] = list(self.tags)
        if not data["extra"]:
            data.pop("extra")
        return data

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "ENV_SPEC") -> EnvManifest:
        """Validate a manifest dict; raise :class:`ManifestError` naming the first bad field."""
        if not isinstance(data, dict):
            raise ManifestError("ENV_SPEC", f"must be a dict, got {type(data).__name__}", source=source)
        for key, value in data.items():
            bad = first_non_json({key: value}, "ENV_SPEC")
            if bad is not None:
                raise ManifestError(key if isinstance(key, str) else "ENV_SPEC", "must be plain JSON data (strings, "
                                    f"finite numbers, booleans, None, lists and dicts with string keys); {bad}",
                                    source=source)
        known = {
            "name", "domain", "description", "reward_range", "max_turns", "players", "difficulty", "tools",
            "doc_id", "grounding", "tags", "max_obs_chars", "max_action_chars", "extra",
        }
        for key in data:
            if key not in known:
                raise ManifestError(str(key), f"is not a manifest field (allowed: {', '.join(sorted(known))})", source=source)
        for required in ("name", "domain", "description", "reward_range", "max_turns"):
            if required not in data:
                raise ManifestError(required, "is required", source=source)

        name = _string(data, "name", source)
        if not NAME_PATTERN.fullmatch(name):
            raise ManifestError(
                "name",
                f"{name!r} must start with a letter and use only letters, digits, '_' or '.' (max 80 chars); "
                "'-' and ':' are reserved for ids",
                source=source,
            )
        domain = _string(data, "domain", source)
        if not DOMAIN_PATTERN.fullmatch(domain):
            raise ManifestError("domain", f"{domain!r} must be lowercase letters, digits or '_'", source=source)
        description = _string(data, "description", source)

        rr = data["reward_range"]
        if not (isinstance(rr, (list, tuple)) and len(rr) == 2 and all(_is_number(v) for v in rr)):
            raise ManifestError("reward_range", f"must be a pair [low, high] of numbers, got {rr!r}", source=source)
        low, high = float(rr[0]), float(rr[1])
        if not (math.isfinite(low) and math.isfinite(high) and low <= high):
            raise ManifestError("reward_range", f"needs finite low <= high, got {rr!r}", source=source)

        max_turns = _int_in(data, "max_turns", 1, MAX_TURNS_LIMIT, source)
        players = _int_in(data, "players", 1, MAX_PLAYERS, source, default=1)
        max_obs = _int_in(data, "max_obs_chars", 16, 1_000_000, source, default=DEFAULT_MAX_CHARS)
        max_act = _int_in(data, "max_action_chars", 16, 1_000_000, source, default=DEFAULT_MAX_CHARS)

        knobs = _knobs(data.get("difficulty", {}), source)
        tools = _string_list(data, "tools", source)
        tags = _string_list(data, "tags", source)
        doc_id = data.get("doc_id")
        if doc_id is not None and not isinstance(doc_id, str):
            raise ManifestError("doc_id", f"must be a string or None, got {type(doc_id).__name__}", source=source)
        grounding = data.get("grounding", "")
        if not isinstance(grounding, str):
            raise ManifestError("grounding", f"must be a string, got {type(grounding).__name__}", source=source)
        extra = data.get("extra", {})
        if not isinstance(extra, dict):
            raise ManifestError("extra", "must be a dict", source=source)
        return cls(
            name=name, domain=domain, description=description, reward_range=(low, high), max_turns=max_turns,
            players=players, difficulty=knobs, tools=tuple(tools), doc_id=doc_id, grounding=grounding,
            tags=tuple(tags), max_obs_chars=max_obs, max_action_chars=max_act, extra=dict(extra),
        )


def shown(value: Any) -> str:
    """``repr(value)`` cut to 80 characters; an integer too long to print (CPython refuses ``repr`` over 4,300
    digits) is described by its size."""
    if isinstance(value, int) and value.bit_length() > 256:
        return f"an integer of {value.bit_length()} bits"
    try:
        return repr(value)[:80]
    except ValueError:
        return f"a {type(value).__name__} too large to print"


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _string(data: dict, key: str, source: str) -> str:
    value = data[key]
    if not isinstance(value, str) or not value.strip():
        raise ManifestError(key, f"must be a non-empty string, got {value!r}", source=source)
    return value


def _int_in(data: dict, key: str, low: int, high: int, source: str, default: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ManifestError(key, f"must be an integer in [{low}, {high}], got {shown(value)}", source=source)
    return value


def _string_list(data: dict, key: str, source: str) -> list[str]:
    value = data.get(key, [])
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) and v for v in value):
        raise ManifestError(key, f"must be a list of non-empty strings, got {value!r}", source=source)
    return list(value)


def _knobs(value: Any, source: str) -> tuple[DifficultyKnob, ...]:
    if not isinstance(value, dict):
        raise ManifestError("difficulty", "must map knob name -> {min, max, default}", source=source)
    knobs = []
    for name, spec in value.items():
        where = f"difficulty.{name}"
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise ManifestError(where, "knob names must be public Python identifiers", source=source)
        if not isinstance(spec, dict) or not {"min", "max", "default"} <= set(spec):
            raise ManifestError(where, "must be a dict with 'min', 'max' and 'default'", source=source)
        if set(spec) - {"min", "max", "default", "integer", "description"}:
            raise ManifestError(where, f"unknown keys {sorted(set(spec) - {'min', 'max', 'default', 'integer', 'description'})}", source=source)
        lo, hi, default = spec["min"], spec["max"], spec["default"]
        if not all(_is_number(v) for v in (lo, hi, default)):
            raise ManifestError(where, "min, max and default must be numbers", source=source)
        if not lo <= default <= hi:
            raise ManifestError(where, f"needs min <= default <= max, got {lo}, {default}, {hi}", source=source)
        integer = spec.get("integer", all(isinstance(v, int) for v in (lo, hi, default)))
        knobs.append(DifficultyKnob(name, lo, hi, default, bool(integer)))
    return tuple(knobs)
