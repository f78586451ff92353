"""The designer prompt's API reference, generated from the code so that it cannot drift from it.

A domain lists what environment code may import (its ``spade_sandbox_modules`` contribution: module -> name ->
``"module:attr"``); :func:`api_reference` renders each name with its exact signature (``inspect.signature``) and
its docstring, and for tool classes (a ``TOOL_DEFS`` tuple) every tool with its argument schema, the shape of its
JSON result (read from the method's ``return {...}`` statements) and its description. The rendering is compact
text meant for a model: one line per signature, docstrings indented below.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from spade_registry.syntax import parse_source

DOC_LINES = 10
"""At most this many docstring lines per entry."""
TOOL_DOC_CHARS = 160
TOOL_CLASSES_NOTE = (
    "Every class with tools: obj.call(\"<tool>\", {arguments}) -> JSON result (a failed call returns "
    "{\"error\": ...} and changes nothing); obj.snapshot() -> the JSON state compared at the end of an episode.")


def resolve(target: str) -> Any:
    """The object a ``"module:attr"`` (or ``"module:Class.attr"``) reference names."""
    module_name, _, attr = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in attr.split("."):
        obj = getattr(obj, part)
    return obj


def _annotation(value: Any) -> str:
    if value is inspect.Parameter.empty:
        return ""
    return value if isinstance(value, str) else inspect.formatannotation(value)


def signature_text(obj: Callable[..., Any], *, drop_first: bool = False) -> str:
    """``(a: int, b: str = 'x', *, c=None) -> bool`` for ``obj``, annotations as written in the source."""
    signature = inspect.signature(obj)
    params = list(signature.parameters.values())
    if drop_first and params:
        params = params[1:]
    parts: list[str] = []
    star_done = False
    for i, p in enumerate(params):
        if p.kind is p.KEYWORD_ONLY and not star_done:
            parts.append("*")
            star_done = True
        text = p.name
        if p.kind is p.VAR_POSITIONAL:
            text, star_done = "*" + p.name, True
        elif p.kind is p.VAR_KEYWORD:
            text = "**" + p.name
        annotation = _annotation(p.annotation)
        if annotation:
            text += f": {annotation}"
        if p.default is not p.empty:
            text += f" = {p.default!r}" if annotation else f"={p.default!r}"
        parts.append(text)
        if p.kind is p.POSITIONAL_ONLY and (i + 1 == len(params) or params[i + 1].kind is not p.POSITIONAL_ONLY):
            parts.append("/")
    returns = _annotation(signature.return_annotation)
    return f"({', '.join(parts)})" + (f" -> {returns}" if returns else "")


def _doc(obj: Any, indent: str, limit: int = DOC_LINES) -> list[str]:
    doc = inspect.getdoc(obj) or ""
    lines = [line.rstrip() for line in doc.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    if len(lines) > limit:
        lines = [*lines[:limit], "..."]
    return [indent + line if line else "" for line in lines]


def _result_shape(method: Callable[..., Any], owner: type, depth: int = 0) -> str | None:
    """``{"table", "inserted"}`` from the ``return {...}`` statements of ``method`` (following ``return
    self._helper(...)`` one level), or None when its results are not dict literals."""
    try:
        tree = parse_source(textwrap.dedent(inspect.getsource(method)))
    except (OSError, TypeError, SyntaxError):
        return None
    shapes: list[str] = []
    literals: dict[str, ast.Dict] = {}
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
            else []
        for target in targets:
            if isinstance(target, ast.Name) and _string_keys(node.value) and target.id not in literals:
                literals[target.id] = node.value
    for node in ast.walk(tree):
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in literals:
            value = literals[value.id]
        if _string_keys(value):
            shape = "{" + ", ".join(f'"{k.value}"' for k in value.keys) + "}"
        elif (depth == 0 and isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
              and inspect.isfunction(getattr(method, "__globals__", {}).get(value.func.id))):
            shape = _result_shape(method.__globals__[value.func.id], owner, depth + 1) or ""
        elif (depth == 0 and isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
              and isinstance(value.func.value, ast.Name) and value.func.value.id in ("self", "cls")
              and hasattr(owner, value.func.attr)):
            shape = _result_shape(getattr(owner, value.func.attr), owner, depth + 1) or ""
        else:
            shape = ""
        if shape and shape not in shapes:
            shapes.append(shape)
    return " | ".join(shapes) if shapes else None


def _string_keys(node: ast.AST | None) -> bool:
    return isinstance(node, ast.Dict) and bool(node.keys) and all(
        isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys)


def schema_text(schema: Mapping[str, Any]) -> str:
    """A JSON schema as compact type text: ``string``, ``array of {column: string, op: "="|"<"}``, ..."""
    if "enum" in schema:
        return "|".join(f'"{v}"' if isinstance(v, str) else repr(v) for v in schema["enum"])
    kind = schema.get("type")
    if isinstance(kind, list):
        return "|".join(schema_text({**schema, "type": k}) for k in kind)
    if kind == "array":
        items = schema.get("items")
        bounds = ""
        if "minItems" in schema or "maxItems" in schema:
            bounds = f"[{schema.get('minItems', 0)}..{schema.get('maxItems', '')}]"
        return f"array{bounds} of " + (schema_text(items) if isinstance(items, Mapping) else "any")
    if kind == "object" or "properties" in schema:
        properties = schema.get("properties") or {}
        required = set(schema.get("required") or ())
        if not properties:
            extra = schema.get("additionalProperties")
            if isinstance(extra, Mapping):
                return "{name: " + schema_text(extra) + "}"
            return "object"
        fields = [f"{name}{'' if name in required else '?'}: {schema_text(sub)}" for name, sub in properties.items()]
        return "{" + ", ".join(fields) + "}"
    return str(kind or "any")


def tool_line(definition: Any, owner: type) -> str:
    """``insert(table: string, rows: array[1..100] of {...}) -> {"table", "inserted"}  Insert rows ...``."""
    params = definition.parameters or {}
    properties = params.get("properties") or {}
    required = set(params.get("required") or ())
    args = ", ".join(f"{name}{'' if name in required else '?'}: {schema_text(sub)}" for name, sub in properties.items())
    method = getattr(owner, definition.method or definition.name, None)
    shape = _result_shape(method, owner) if method is not None else None
    description = " ".join(definition.description.split())
    if len(description) > TOOL_DOC_CHARS:
        description = description[:TOOL_DOC_CHARS - 3] + "..."
    return f"{definition.name}({args})" + (f" -> {shape}" if shape else "") + f"  {description}"


def _public_methods(cls: type) -> list[str]:
    own = []
    for name, value in vars(cls).items():
        if name.startswith("_") or not callable(value) or isinstance(value, type):
            continue
        if hasattr(cls, "TOOL_DEFS") and any((d.method or d.name) == name for d in cls.TOOL_DEFS):
            continue  # listed as a tool
        own.append(name)
    return own  # a tool class's inherited call/snapshot are stated once, in TOOL_CLASSES_NOTE


def describe(name: str, obj: Any) -> list[str]:
    """The reference lines of one exported name."""
    if inspect.isclass(obj):
        init = "()" if obj.__init__ is object.__init__ else signature_text(obj.__init__, drop_first=True)
        lines = [f"  {name}{init.removesuffix(' -> None')}"]
        lines += _doc(obj, "      ")
        definitions = getattr(obj, "TOOL_DEFS", ())
        if definitions:
            lines.append("      tools:")
            lines += [f"        {tool_line(d, obj)}" for d in definitions]
        for method in _public_methods(obj):
            function = getattr(obj, method)
            lines.append(f"      .{method}{signature_text(function, drop_first=True)}")
            lines += _doc(function, "          ", limit=3)
        return lines
    if callable(obj):
        return [f"  {name}{signature_text(obj)}", *_doc(obj, "      ")]
    return [f"  {name} = {obj!r}"]


def api_reference(modules: Mapping[str, Mapping[str, str]], *, only: Iterable[str] | None = None) -> str:
    """Every name of ``modules`` (a ``spade_sandbox_modules`` contribution) with signature and docstring; ``only``
    keeps these modules, in that order."""
    order = list(only) if only is not None else list(modules)
    out = ["API REFERENCE (generated from the code: exact signatures; nothing else of these modules is importable)"]
    tool_classes = False
    for module in order:
        names = modules[module]
        out.append(f"from {module} import {', '.join(names)}")
        for name, target in names.items():
            obj = resolve(target)
            tool_classes = tool_classes or bool(inspect.isclass(obj) and getattr(obj, "TOOL_DEFS", ()))
            out += describe(name, obj)
    if tool_classes:
        out.insert(1, TOOL_CLASSES_NOTE)
    return "\n".join(out)
