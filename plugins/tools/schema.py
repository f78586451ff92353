"""A small, real JSON-schema validator for tool arguments (the subset OpenAI function schemas use).

Supported keywords: ``type`` (a name or a list of names), ``properties``, ``required``, ``additionalProperties``
(bool or schema), ``items``, ``enum``, ``minimum``/``maximum``, ``minLength``/``maxLength`` and
``minItems``/``maxItems``. Other keywords (``description``, ``default``, ...) are ignored, as JSON Schema says.
Messages name the argument and say what was expected: ``argument 'amount' must be number, got string``.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from typing import Any

JSON_TYPES = ("string", "number", "integer", "boolean", "object", "array", "null")


def json_type(value: Any) -> str:
    """The JSON type name of a Python value (``int`` is ``integer``, ``float`` is ``number``)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def _is_type(value: Any, name: str) -> bool:
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "integer":
        if isinstance(value, bool):
            return False
        # an integral float counts only where it is exact (|x| <= 2**53); 1e308 is not an integer argument
        return isinstance(value, int) or (
            isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) <= 2**53
        )
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "string":
        return isinstance(value, str)
    if name == "array":
        return isinstance(value, (list, tuple))
    if name == "object":
        return isinstance(value, Mapping)
    raise ValueError(f"unsupported JSON schema type {name!r} (supported: {', '.join(JSON_TYPES)})")


def _same(value: Any, option: Any) -> bool:
    """JSON equality: ``True`` is not ``1``."""
    return value == option and isinstance(value, bool) == isinstance(option, bool)


def _label(path: str) -> str:
    return f"argument '{path}'" if path else "arguments"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def validate(value: Any, schema: Mapping[str, Any], path: str = "") -> str | None:
    """Check ``value`` against ``schema``; return the first problem as a message, or None if it conforms.

    ``path`` names the value in messages (empty: the whole argument object).
    """
    types = schema.get("type")
    if types is not None:
        names = [types] if isinstance(types, str) else list(types)
        if not any(_is_type(value, n) for n in names):
            return f"{_label(path)} must be {' or '.join(names)}, got {json_type(value)}"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{_label(path)} must be a finite number, got {value!r}"
    if "enum" in schema and not any(_same(value, option) for option in schema["enum"]):
        options = ", ".join(_show(o) for o in schema["enum"])
        return f"{_label(path)} must be one of {options}; got {_show(value)}"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if "minimum" in schema and value < schema["minimum"]:
            return f"{_label(path)} must be >= {schema['minimum']}, got {value}"
        if "maximum" in schema and value > schema["maximum"]:
            return f"{_label(path)} must be <= {schema['maximum']}, got {value}"
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            if schema["minLength"] == 1:
                return f"{_label(path)} must not be empty"
            return f"{_label(path)} must have at least {schema['minLength']} characters, got {len(value)}"
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            return f"{_label(path)} must have at most {schema['maxLength']} characters, got {len(value)}"
    if isinstance(value, (list, tuple)):
        if "minItems" in schema and len(value) < schema["minItems"]:
            return f"{_label(path)} must have at least {schema['minItems']} items, got {len(value)}"
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            return f"{_label(path)} must have at most {schema['maxItems']} items, got {len(value)}"
        items = schema.get("items")
        if isinstance(items, Mapping):
            for i, item in enumerate(value):
                problem = validate(item, items, f"{path}[{i}]" if path else f"[{i}]")
                if problem:
                    return problem
    if isinstance(value, Mapping):
        return _validate_object(value, schema, path)
    return None


def _validate_object(value: Mapping[str, Any], schema: Mapping[str, Any], path: str) -> str | None:
    properties = schema.get("properties", {})
    for key in schema.get("required", ()):
        if key not in value:
            return f"missing required argument '{_join(path, key)}'"
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if not isinstance(key, str):
            return f"{_label(path)} has a non-string key {_show(key)}"
        if key in properties:
            problem = validate(item, properties[key], _join(path, key))
        elif extra is False:
            allowed = ", ".join(properties) or "none"
            close = difflib.get_close_matches(key, list(properties), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            return f"unexpected argument '{_join(path, key)}' (allowed: {allowed}){hint}"
        elif isinstance(extra, Mapping):
            problem = validate(item, extra, _join(path, key))
        else:
            problem = None
        if problem:
            return problem
    return None


def normalize(value: Any, schema: Mapping[str, Any]) -> Any:
    """A copy of a *valid* ``value`` with integral floats turned into ints where the schema asks for integers.

    JSON Schema counts ``2.0`` as an integer; the tools want a real ``int``.
    """
    types = schema.get("type")
    names = [types] if isinstance(types, str) else list(types or ())
    if isinstance(value, float) and "integer" in names and "number" not in names and value.is_integer():
        return int(value)
    if isinstance(value, (list, tuple)):
        items = schema.get("items")
        return [normalize(v, items) if isinstance(items, Mapping) else v for v in value]
    if isinstance(value, Mapping):
        properties = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        out = {}
        for key, item in value.items():
            sub = properties.get(key, extra if isinstance(extra, Mapping) else None)
            out[key] = normalize(item, sub) if isinstance(sub, Mapping) else item
        return out
    return value


def obj(properties: Mapping[str, Any], required: tuple[str, ...] | list[str] = ()) -> dict[str, Any]:
    """Shorthand for a closed object schema (``additionalProperties: false``)."""
    return {
        "type": "object",
        "properties": dict(properties),
        "required": list(required),
        "additionalProperties": False,
    }
