"""Typed dataclass configs from YAML/dicts with dotted command-line overrides (one place for every knob).

``load_config(SelfPlayConfig, "run.yaml", ["agent.rollouts_per_env=8"])`` builds nested dataclasses, checks each
value's type against the field annotation, and names the bad key (``agent.rollouts_per_env: expected int, got
'eight'``) instead of failing later.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import io
import re
import textwrap
import tokenize
import types
import typing
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

import yaml

from spade_core.errors import SpadeError
from spade_registry.syntax import parse_source

T = TypeVar("T")


class ConfigError(SpadeError, ValueError):
    """A config file or override has an unknown key or a value of the wrong type."""


def _check(value: Any, annotation: Any, where: str) -> Any:
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is Any:
        return value
    if dataclasses.is_dataclass(annotation):
        if isinstance(value, annotation):
            return value
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a mapping for {annotation.__name__}, got {value!r}")
        return from_dict(annotation, value, where=where)
    if origin in (typing.Union, types.UnionType):
        errors = []
        for option in args:
            if option is type(None):
                if value is None:
                    return None
                continue
            try:
                return _check(value, option, where)
            except ConfigError as exc:
                errors.append(str(exc))
        raise ConfigError(f"{where}: {value!r} matches none of {annotation}")
    if origin in (list, tuple):
        if not isinstance(value, (list, tuple)):
            raise ConfigError(f"{where}: expected a list, got {value!r}")
        item = args[0] if args else Any
        items = [_check(v, item, f"{where}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if origin is tuple else items
    if origin is dict:
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a mapping, got {value!r}")
        return {k: _check(v, args[1] if args else Any, f"{where}.{k}") for k, v in value.items()}
    if origin is typing.Literal:
        if value not in args:
            raise ConfigError(f"{where}: expected one of {list(args)}, got {value!r}")
        return value
    if annotation is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if isinstance(annotation, type):
        if annotation is not bool and isinstance(value, bool):
            raise ConfigError(f"{where}: expected {annotation.__name__}, got {value!r}")
        if not isinstance(value, annotation):
            raise ConfigError(f"{where}: expected {annotation.__name__}, got {value!r}")
    return value


def from_dict(cls: type[T], data: dict[str, Any], *, where: str = "config") -> T:
    """Build dataclass ``cls`` from ``data``, recursively, rejecting unknown keys, derived keys (``DERIVED_KEYS``)
    and wrong types; a ``ValueError`` from ``cls``'s own checks comes out as a :class:`ConfigError` naming the key."""
    hints = typing.get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls) if f.init}
    for path, source in derived_keys(cls).items():
        if _holds(data, path.split(".")):
            raise ConfigError(f"{_key(where, path)}: derived from {source}, not set on its own; set {source} instead")
    unknown = sorted(set(data) - names)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(names))})")
    kwargs = {key: _check(value, hints[key], _key(where, key)) for key, value in data.items()}
    try:
        return cls(**kwargs)
    except ConfigError:
        raise
    except ValueError as exc:  # the class's own range checks: name the key the way the file spells it
        raise ConfigError(_named(where, str(exc), names)) from exc


def derived_keys(cls: type) -> Mapping[str, str]:
    """``cls.DERIVED_KEYS``: dotted keys (below ``cls``) that a component config has but the tree sets from another
    knob, each with that knob (``{"regret.k": "agent.seeds_per_env"}``); a file or override that sets one fails."""
    return getattr(cls, "DERIVED_KEYS", {})


def derive(cls: type[T], knobs: Any, **derived: Any) -> T:
    """A ``cls`` with the ``derived`` fields given and every other field read from ``knobs`` (a config section whose
    class holds ``cls``'s user-set fields): how a run turns a section into a component's config, in one call."""
    names = [f.name for f in dataclasses.fields(cls) if f.init]
    stray = sorted(set(derived) - set(names))
    missing = [name for name in names if name not in derived and not hasattr(knobs, name)]
    if stray or missing:
        raise TypeError(f"derive({cls.__name__}, {type(knobs).__name__}): "
                        + (f"no field {stray}" if stray else f"neither derived nor in the section: {missing}"))
    return cls(**{name: derived[name] if name in derived else getattr(knobs, name) for name in names})


def require(owner: object, checks: list[tuple[bool, str]], error: type[Exception]) -> None:
    """Raise ``error`` for the first failed ``(ok, message)`` check of a config object, as ``Class.field must ...,
    got value`` (each message opens with its field's name, which :func:`from_dict` turns into the file's key)."""
    for ok, message in checks:
        if not ok:
            name = message.split()[0]
            raise error(f"{type(owner).__name__}.{message}, got {getattr(owner, name)!r}")


def _key(where: str, key: str) -> str:
    return key if where == "config" else f"{where}.{key}"


def _holds(data: Any, parts: list[str]) -> bool:
    for part in parts:
        if not isinstance(data, dict) or part not in data:
            return False
        data = data[part]
    return True


def _named(where: str, message: str, names: set[str]) -> str:
    """``where.field: rest`` when ``message`` opens with a field of ``names`` (``Class.field must ...`` or ``field
    must ...``, the way component configs word their checks); ``where: message`` otherwise."""
    head = re.match(r"(?:[A-Za-z_]\w*\.)?([A-Za-z_]\w*)\b:?\s*", message)
    if head and head.group(1) in names:
        return f"{_key(where, head.group(1))}: {message[head.end():]}"
    return f"{where}: {message}"


def to_dict(config: Any) -> dict[str, Any]:
    """A plain, YAML-safe dict of a (nested) dataclass config."""
    def plain(value: Any) -> Any:
        if isinstance(value, tuple):
            return [plain(v) for v in value]
        if isinstance(value, list):
            return [plain(v) for v in value]
        if isinstance(value, dict):
            return {k: plain(v) for k, v in value.items()}
        return value

    return plain(dataclasses.asdict(config))


def apply_overrides(data: dict[str, Any], overrides: list[str]) -> dict[str, Any]:
    """Apply ``a.b.c=value`` overrides (values parsed as YAML) to a nested dict."""
    result = {k: (dict(v) if isinstance(v, dict) else v) for k, v in data.items()}
    for item in overrides:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"override {item!r} must look like section.key=value")
        node = result
        parts = key.split(".")
        for part in parts[:-1]:
            child = node.get(part)
            node[part] = dict(child) if isinstance(child, dict) else {}
            node = node[part]
        try:
            node[parts[-1]] = yaml.safe_load(raw)
        except yaml.YAMLError as exc:
            raise ConfigError(f"override {item!r}: cannot parse value: {exc}") from exc
    return result


def load_config(cls: type[T], path: str | Path | None = None, overrides: list[str] | None = None,
                base: T | None = None) -> T:
    """Defaults (or ``base``) < YAML file < overrides, validated into ``cls``."""
    data = to_dict(base if base is not None else cls())
    if path is not None:
        try:
            loaded = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise ConfigError(f"cannot read config {path}: {exc}") from exc
        if not isinstance(loaded, dict):
            raise ConfigError(f"{path}: the top level must be a mapping")
        data = merge_mappings(data, loaded)
    data = apply_overrides(data, overrides or [])
    return from_dict(cls, data)


def merge_mappings(base: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """``update`` over ``base``, recursively for nested mappings."""
    merged = dict(base)
    for key, value in update.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_mappings(merged[key], value)
        else:
            merged[key] = value
    return merged


@dataclasses.dataclass(frozen=True)
class Knob:
    """One leaf setting of a config tree: its dotted key, type, default and help (the comment beside the field)."""

    key: str
    type: str
    default: Any
    help: str


def knobs(cls: type, prefix: str = "") -> list[Knob]:
    """Every leaf setting of dataclass ``cls`` and its nested dataclasses, in declaration order."""
    hints = typing.get_type_hints(cls)
    defaults = to_dict(cls())
    helps = field_help(cls)
    out: list[Knob] = []
    for f in dataclasses.fields(cls):
        if not f.init:
            continue
        key = f"{prefix}{f.name}"
        hint = hints[f.name]
        if dataclasses.is_dataclass(hint) and isinstance(hint, type):
            out += knobs(hint, prefix=f"{key}.")
            continue
        out.append(Knob(key, _type_text(hint), defaults[f.name], helps.get(f.name, "")))
    return out


def _type_text(hint: Any) -> str:
    if typing.get_origin(hint) is typing.Literal:
        return " | ".join(repr(a) for a in typing.get_args(hint))
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " | ".join(_type_text(a) for a in typing.get_args(hint))
    if hint is type(None):
        return "None"
    return hint.__name__ if isinstance(hint, type) and not typing.get_args(hint) else str(hint).replace("typing.", "")


def field_help(cls: type) -> dict[str, str]:
    """The help of each field of dataclass ``cls`` (and its dataclass bases): the comment lines right above the field,
    the comment at the end of its line and the string right below it (an attribute docstring), joined."""
    out: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(klass):
            continue
        try:
            source = textwrap.dedent(inspect.getsource(klass))
        except (OSError, TypeError):
            continue
        lines = source.splitlines()
        comments = {tok.start[0]: tok.string.lstrip("#").strip()
                    for tok in tokenize.generate_tokens(io.StringIO(source).readline) if tok.type == tokenize.COMMENT}
        [classdef] = [n for n in parse_source(source).body if isinstance(n, ast.ClassDef)]
        for at, node in enumerate(classdef.body):
            if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
                continue
            doc = _docstring(classdef.body[at + 1] if at + 1 < len(classdef.body) else None)
            above: list[str] = []
            row = node.lineno - 1
            while row in comments and lines[row - 1].lstrip().startswith("#"):
                above.insert(0, comments[row])
                row -= 1
            trailing = comments.get(node.end_lineno or node.lineno)
            text = " ".join([*above, *([trailing] if trailing else []), *([doc] if doc else [])])
            if text:
                out[node.target.id] = text
    return out


def _docstring(node: ast.stmt | None) -> str:
    """The text of a string statement (an attribute's docstring), on one line; empty for anything else."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return " ".join(node.value.value.split())
    return ""
