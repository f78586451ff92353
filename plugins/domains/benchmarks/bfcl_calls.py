"""BFCL's call surface: function docs as JSON tool schemas for the model, and calls parsed from the model's text,
either one call or BFCL's own Python call list ``[cd(folder='docs'), ls()]``; arguments must be plain literals."""

from __future__ import annotations

import ast
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from spade_registry.syntax import parse_source
from spade_tools.guard import plain_data_problem

_TYPE_MAP = {"dict": "object", "float": "number", "tuple": "array", "any": None}


def to_json_schema(schema: Any) -> Any:
    """A BFCL parameter doc as JSON Schema (``dict`` -> ``object``, ``float`` -> ``number``, ``tuple`` -> ``array``)."""
    if isinstance(schema, list):
        return [to_json_schema(s) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type" and isinstance(value, str):
            mapped = _TYPE_MAP.get(value, value)
            if mapped is not None:
                out[key] = mapped
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        else:
            out[key] = to_json_schema(value)
    return out


def tool_schema(doc: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI-style tool schema for one BFCL function doc (its ``response`` doc is left out)."""
    return {"type": "function", "function": {
        "name": doc["name"], "description": doc.get("description", ""),
        "parameters": to_json_schema(doc.get("parameters", {"type": "dict", "properties": {}})),
    }}


def render_tools(docs: Sequence[Mapping[str, Any]]) -> str:
    """One compact JSON line per function: name, description, parameters."""
    return "\n".join(json.dumps(tool_schema(d)["function"], ensure_ascii=False) for d in docs)


# -- calls -----------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Call:
    """One function call as executed: a name, positional and keyword arguments (Python literals)."""

    name: str
    args: tuple[Any, ...] = ()
    kwargs: Mapping[str, Any] = field(default_factory=dict)

    def to_bfcl(self) -> str:
        """The call as BFCL's decoded model output writes it (``cd(folder='docs')``); ``eval``-able by BFCL."""
        parts = [repr(a) for a in self.args] + [f"{k}={v!r}" for k, v in self.kwargs.items()]
        return f"{self.name}({', '.join(parts)})"


def parse_python_call(text: str) -> Call:
    """``"mv(source='a', destination='b')"`` -> :class:`Call`; arguments must be Python literals."""
    node = parse_source(text.strip(), mode="eval").body
    return _call_from_node(node)


def _call_from_node(node: ast.AST) -> Call:
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError("each element must be a call like name(arg=value)")
    if any(k.arg is None for k in node.keywords):
        raise ValueError(f"{node.func.id}: **kwargs unpacking is not allowed")
    try:
        args = tuple(ast.literal_eval(a) for a in node.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    except (ValueError, SyntaxError, TypeError, RecursionError, MemoryError) as exc:
        raise ValueError(f"{node.func.id}: arguments must be literal values ({exception_text(exc)})") from None
    problem = plain_data_problem(kwargs) or plain_data_problem(list(args))
    if problem:
        raise ValueError(f"{node.func.id}: {problem}")
    return Call(node.func.id, args, kwargs)


def parse_python_call_list(text: str) -> list[Call] | None:
    """BFCL's prompting format ``[f(a=1), g()]`` (brackets optional); None if the text is not a call list.

    Raises ``ValueError`` when the text is clearly meant as calls but does not parse.
    """
    body = text.strip("`\n ")
    if body.startswith("python"):
        body = body[len("python"):].strip()
    probe = body.lstrip("[").lstrip()
    if not probe or not (probe[0].isalpha() or probe[0] == "_"):
        return None
    head = probe.split("(", 1)[0]
    if "(" not in probe or not head.replace("_", "a").isalnum():
        return None
    if not body.startswith("["):
        body = "[" + body
    if not body.endswith("]"):
        body = body + "]"
    try:
        node = parse_source(body, mode="eval").body
    except SyntaxError as exc:
        raise ValueError(f"the call list does not parse as Python: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise ValueError("the call list is nested too deeply to parse") from None
    if not isinstance(node, (ast.List, ast.Tuple)):
        return None
    return [_call_from_node(element) for element in node.elts]


def exception_text(exc: BaseException) -> str:
    try:
        return str(exc)
    except Exception:  # an exception whose message itself fails to render
        return type(exc).__name__
