"""The host <-> worker channel: length-prefixed JSON frames carrying tagged values. Never pickle.

A frame is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON. The host decodes worker output
with :func:`json.loads` only (a pickle reply with a malicious ``__reduce__`` ran code in the host on ``recv()``,
docs/design.md §7), caps the frame size before reading it and its value count before parsing it
(:func:`element_estimate`), and turns anything malformed into a protocol error.

Values keep their Python shape across the channel so that a sandboxed environment returns exactly what the same
code returns in-process: tuples travel as ``{"$t": [...]}``, dicts whose keys are not all plain strings (or that
start with ``$``) as ``{"$d": [[k, v], ...]}``, and anything JSON cannot carry as ``{"$o": "<type name>"}``, which
decodes to a :class:`RemoteObject` placeholder whose class has the same name (so the host's contract checks
report the same type name as they would in-process).
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any

HEADER = struct.Struct(">I")
MAX_DEPTH = 48
"""Containers nested deeper than this are sent as a placeholder (the host's checks reject them anyway)."""

_dumps = json.JSONEncoder(ensure_ascii=False, allow_nan=True, separators=(",", ":")).encode


class WireError(ValueError):
    """A frame or value on the channel is malformed (not JSON, wrong shape, too large, too deep)."""


class RemoteObject:
    """Placeholder for a worker-side value that JSON cannot carry; only its type name crosses the channel."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} from the sandbox>"


_placeholder_classes: dict[str, type[RemoteObject]] = {}


def _placeholder(type_name: Any) -> RemoteObject:
    name = type_name if isinstance(type_name, str) and type_name.isidentifier() and len(type_name) <= 64 else "object"
    cls = _placeholder_classes.get(name)
    if cls is None:
        if len(_placeholder_classes) >= 512:  # bounded: a hostile worker cannot grow this without limit
            name = "object"
            cls = _placeholder_classes.get(name)
        if cls is None:
            cls = type(name, (RemoteObject,), {"__slots__": ()})
            _placeholder_classes[name] = cls
    return cls()


# -- encoding (worker side) -----------------------------------------------------------------------------------
def to_wire(value: Any, depth: int = 0) -> Any:
    """Turn a Python value into plain JSON data, tagging tuples, odd dicts and opaque objects."""
    t = type(value)
    if t is str or t is int or t is bool or value is None:
        return value
    if t is float:
        return value if math.isfinite(value) else {"$f": repr(value)}
    if depth >= MAX_DEPTH:
        return {"$o": "NestedTooDeep"}
    if t is list:
        return [to_wire(v, depth + 1) for v in value]
    if t is tuple:
        return {"$t": [to_wire(v, depth + 1) for v in value]}
    if t is dict:
        for key in value:
            if type(key) is not str or key[:1] == "$":
                return {"$d": [[to_wire(k, depth + 1), to_wire(v, depth + 1)] for k, v in value.items()]}
        return {k: to_wire(v, depth + 1) for k, v in value.items()}
    return {"$o": t.__name__}


def _hook(obj: dict[str, Any]) -> Any:
    if len(obj) == 1:
        if "$t" in obj:
            items = obj["$t"]
            if type(items) is not list:
                raise WireError("tagged tuple must hold a list")
            return tuple(items)
        if "$d" in obj:
            pairs = obj["$d"]
            if type(pairs) is not list:
                raise WireError("tagged dict must hold a list of pairs")
            out: dict[Any, Any] = {}
            for pair in pairs:
                if type(pair) is not list or len(pair) != 2:
                    raise WireError("tagged dict entries must be [key, value] pairs")
                key = pair[0]
                try:
                    out[key] = pair[1]
                except TypeError:  # an unhashable key (a list) cannot have come from a real dict
                    raise WireError("tagged dict has an unhashable key") from None
            return out
        if "$o" in obj:
            return _placeholder(obj["$o"])
        if "$f" in obj:
            return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(obj["$f"], math.nan)
    return obj


_loads_tagged = json.JSONDecoder(object_hook=_hook).decode


def dumps(message: Any) -> bytes:
    """Serialise one message (already plain JSON data) to a frame payload."""
    return _dumps(message).encode("utf-8", "surrogatepass")


def loads(payload: bytes | bytearray | memoryview) -> Any:
    """Parse one frame payload, decoding tagged values. Raises :class:`WireError` on anything malformed."""
    try:
        text = (payload if not isinstance(payload, memoryview) else bytes(payload)).decode("utf-8", "surrogatepass")
        return _loads_tagged(text)
    except WireError:
        raise
    except (ValueError, RecursionError, TypeError) as exc:
        raise WireError(f"malformed frame: {type(exc).__name__}: {str(exc)[:200]}") from None


def element_estimate(payload: bytes | bytearray) -> int:
    """An upper bound on the JSON values a payload decodes to (every ``,``, ``[`` and ``{`` counted, inside strings
    too), computed without parsing. Parsing costs memory per value (~25x the bytes for ``[[],[],...]``), so the
    host refuses a frame whose estimate exceeds ``SandboxLimits.max_reply_elements`` before it parses anything."""
    return payload.count(b",") + payload.count(b"[") + payload.count(b"{") + 1


def frame(payload: bytes) -> bytes:
    """Prefix a payload with its length."""
    return HEADER.pack(len(payload)) + payload
