"""Canonical plain data for comparing what agent code computed: encoded in the agent's worker, compared in the host.

A test such as ``assert add(2, 3) == 5`` must not be decided by objects the agent wrote (an always-true ``__eq__``
would pass every test). So the agent's worker only *evaluates* the operands and encodes each result as plain JSON
data (:func:`encode`); the host decodes it into builtin values (:func:`decode`) and applies the comparison itself
(:mod:`.assertions`). Objects that are not plain data (an instance of the agent's class, a regex match) arrive as an
:class:`Opaque` value: its type name and truth value only, equal to nothing but itself.

Encoding: ``None``/``bool``/``int``/``float``/``str`` as JSON (big ints as ``{"$x": hex}``, non-finite floats
as ``{"$f": ...}``), ``{"$t": [...]}`` tuple, ``{"$l": [...]}`` list, ``{"$s": [...]}`` set, ``{"$z": [...]}``
frozenset, ``{"$d": [[k, v], ...]}`` dict (dict views as lists), ``{"$b": hex}`` bytes, ``{"$c": [re, im]}`` complex,
``{"$o": name, "truth": bool}`` anything else. Subclasses of these builtins are encoded as their base type.
"""

from __future__ import annotations

import math
from typing import Any

_VIEWS = (type({}.keys()), type({}.values()), type({}.items()))
MAX_DEPTH = 32
MAX_ITEMS = 100_000


class CanonError(ValueError):
    """A value is too large or too deep to compare, or an encoding is malformed."""


class Opaque:
    """A value that is not plain data, seen from the host: only its type name and truth value crossed over."""

    __slots__ = ("name", "truth")

    def __init__(self, name: str, truth: bool) -> None:
        self.name = name
        self.truth = truth

    def __bool__(self) -> bool:
        return self.truth

    def __eq__(self, other: object) -> bool:
        return other is self

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        return f"<{self.name} object>"


# -- encoding (runs in the agent's worker) -------------------------------------------------------------------
def encode(value: Any) -> Any:
    """Plain JSON data for ``value`` (see the module docstring); raises :class:`CanonError` when too large."""
    budget = [MAX_ITEMS]
    return _encode(value, 0, budget)


def _truth(value: Any) -> bool:
    try:
        return bool(value)
    except Exception:  # a __bool__ that raises makes the value falsy for the comparison
        return False


def _encode(value: Any, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise CanonError(f"the value has more than {MAX_ITEMS} items; tests compare smaller values")
    if value is None or value is True or value is False:
        return value
    if depth > MAX_DEPTH:
        raise CanonError(f"the value is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, bool):
        return bool.__bool__(value)
    if isinstance(value, int):
        number = int.__index__(value)
        return number if abs(number) < 1 << 53 else {"$x": hex(number)}
    if isinstance(value, float):
        number = float.__float__(value)
        return number if math.isfinite(number) else {"$f": repr(number)}
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, complex):
        number = complex.__complex__(value)
        return {"$c": [_encode(number.real, depth + 1, budget), _encode(number.imag, depth + 1, budget)]}
    if isinstance(value, (bytes, bytearray)):
        return {"$b": bytes(value).hex()}
    if isinstance(value, tuple):
        return {"$t": [_encode(v, depth + 1, budget) for v in tuple.__iter__(value)]}
    if isinstance(value, list):
        return {"$l": [_encode(v, depth + 1, budget) for v in list.__iter__(value)]}
    if isinstance(value, frozenset):
        return {"$z": [_encode(v, depth + 1, budget) for v in frozenset.__iter__(value)]}
    if isinstance(value, set):
        return {"$s": [_encode(v, depth + 1, budget) for v in set.__iter__(value)]}
    if isinstance(value, dict):
        return {"$d": [[_encode(k, depth + 1, budget), _encode(v, depth + 1, budget)]
                       for k, v in dict.items(value)]}
    if type(value) in _VIEWS:
        return {"$l": [_encode(v, depth + 1, budget) for v in value]}
    return {"$o": type(value).__name__[:64], "truth": _truth(value)}


# -- decoding (runs in the host) -----------------------------------------------------------------------------
def decode(data: Any) -> Any:
    """Builtin values for an encoding made by :func:`encode`; raises :class:`CanonError` on anything else."""
    budget = [MAX_ITEMS]
    return _decode(data, 0, budget)


def _items(data: Any, depth: int, budget: list[int]) -> list[Any]:
    if type(data) is not list:
        raise CanonError("malformed canonical value: a tagged container must hold a list")
    return [_decode(item, depth + 1, budget) for item in data]


def _decode(data: Any, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0 or depth > MAX_DEPTH + 2:
        raise CanonError("canonical value too large or too deep")
    t = type(data)
    if data is None or t is bool or t is str or t is float:
        return data
    if t is int:
        return data
    if t is not dict or not data:
        raise CanonError(f"malformed canonical value of type {t.__name__}")
    if "$o" in data:
        name = data["$o"]
        if type(name) is not str or len(data) != 2 or type(data.get("truth")) is not bool:
            raise CanonError("malformed opaque value")
        return Opaque(name[:64] or "object", data["truth"])
    if len(data) != 1:
        raise CanonError("malformed canonical value: a tag object has one key")
    tag, body = next(iter(data.items()))
    if tag == "$l":
        return _items(body, depth, budget)
    if tag == "$t":
        return tuple(_items(body, depth, budget))
    if tag in ("$s", "$z"):
        items = _items(body, depth, budget)
        try:
            return set(items) if tag == "$s" else frozenset(items)
        except TypeError:
            raise CanonError("malformed set: an item is not hashable") from None
    if tag == "$d":
        if type(body) is not list:
            raise CanonError("malformed dict encoding")
        out: dict[Any, Any] = {}
        for pair in body:
            if type(pair) is not list or len(pair) != 2:
                raise CanonError("malformed dict encoding: entries are [key, value]")
            key = _decode(pair[0], depth + 1, budget)
            try:
                out[key] = _decode(pair[1], depth + 1, budget)
            except TypeError:
                raise CanonError("malformed dict encoding: a key is not hashable") from None
        return out
    if tag == "$x" and type(body) is str and len(body) <= 20_000:
        try:
            return int(body, 16)
        except ValueError:
            raise CanonError("malformed big integer") from None
    if tag == "$f" and body in ("nan", "inf", "-inf"):
        return float(body)
    if tag == "$b" and type(body) is str and len(body) <= 2 * MAX_ITEMS:
        try:
            return bytes.fromhex(body)
        except ValueError:
            raise CanonError("malformed bytes") from None
    if tag == "$c":
        parts = _items(body, depth, budget)
        if len(parts) != 2 or not all(type(p) in (int, float) for p in parts):
            raise CanonError("malformed complex number")
        return complex(parts[0], parts[1])
    raise CanonError(f"unknown canonical tag {tag[:20]!r}")
