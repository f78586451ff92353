"""What counts as plain JSON data everywhere in SPADE: manifests, ``info`` dicts, stored records.

Plain JSON is ``str``, ``int``, finite ``float``, ``bool``, ``None``, lists (tuples) of it and dicts with *string*
keys, at most :data:`MAX_DEPTH` levels deep. ``json.dumps`` alone is not the test: it writes ``inf`` as
``Infinity`` and turns the key ``1`` into ``"1"``, so what comes back would differ from what went in.
"""

from __future__ import annotations

import math
from typing import Any

MAX_DEPTH = 32
_SCALARS = (str, int, float, bool, type(None))


def first_non_json(value: Any, path: str = "value", depth: int = 0) -> str | None:
    """Where ``value`` first stops being plain JSON (``"ENV_SPEC['extra']['x'] is inf"``), or None."""
    if depth > MAX_DEPTH:
        return f"{path} is nested deeper than {MAX_DEPTH} levels"
    if isinstance(value, _SCALARS):
        if isinstance(value, float) and not math.isfinite(value):
            return f"{path} is {value!r}"
        return None
    if isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            found = first_non_json(item, f"{path}[{i}]", depth + 1)
            if found:
                return found
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path} has a non-string key {key!r}"
            found = first_non_json(item, f"{path}[{key!r}]", depth + 1)
            if found:
                return found
        return None
    return f"{path} is a {type(value).__name__}"
