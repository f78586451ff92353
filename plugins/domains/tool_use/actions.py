"""Parse an agent's tool-use action: structured tool calls checked against the tools' JSON schemas.

Accepted forms (what models and chat templates actually emit):

- a JSON object ``{"name": "ls", "arguments": {"path": "/docs"}}`` (``parameters`` is accepted for
  ``arguments``; ``arguments`` may be a JSON-encoded string, as in the OpenAI API), or the OpenAI shape
  ``{"type": "function", "function": {...}}`` / ``{"tool_calls": [...]}``;
- a JSON list of such objects (parallel calls, run in order);
- any of the above inside a fenced ```json block, Hermes/Qwen-style ``<tool_call>{...}</tool_call>`` tags
  (several tags allowed) or after Mistral's ``[TOOL_CALLS]`` marker, with free text around them;
- ``{"name": "finish", "arguments": {}}`` (optionally ``{"answer": "..."}``) as the last call ends the episode;
- plain text with no tool call is a final answer and also ends the episode.

Anything that tries to be a tool call and fails gives a ``format_error`` that says what to fix.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from spade_core import linear_re
from spade_core.plugins.contributions import ParsedAction
from spade_tools.base import unknown_name_message
from spade_tools.guard import plain_data_problem
from spade_tools.schema import json_type, normalize, validate

MAX_ACTION_CHARS = 32_768
MAX_CALLS = 8
MAX_INT_DIGITS = 19
FINISH = "finish"
FINISH_SCHEMA: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": FINISH,
        "description": "End the episode once the task is complete (optionally with a short final answer).",
        "parameters": {
            "type": "object",
            "properties": {"answer": {"type": "string", "maxLength": 2000}},
            "required": [],
            "additionalProperties": False,
        },
    },
}
CALL_EXAMPLE = '{"name": "<tool>", "arguments": {...}}'
MISTRAL_MARKER = "[TOOL_CALLS]"

_TOOL_CALL_TAG = linear_re.compile(r"(?s)<tool_call>(.*?)(?:</tool_call>|$)")
_FENCE = linear_re.compile(r"(?s)```[ \t]*([A-Za-z_]*)[ \t]*\n?(.*?)```")
_INLINE_CALL = linear_re.compile(r'\{\s*"(?:name|function|tool_calls)"\s*:')


@dataclass(frozen=True)
class ToolCall:
    """One validated call: a tool name and its (schema-normalised) arguments."""

    name: str
    arguments: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "arguments": dict(self.arguments)}


@dataclass(frozen=True)
class ToolAction:
    """A parsed action: calls to run in order, then ``final`` (not None) if the action ends the episode."""

    calls: tuple[ToolCall, ...] = ()
    final: str | None = None
    plain_text: bool = False


class _ActionError(Exception):
    pass


class _NumberError(Exception):
    """A JSON number a tool call may not carry (raised by the decoder's number hooks)."""


def tool_parameters(tools: Iterable[Any]) -> dict[str, Mapping[str, Any]]:
    """``{name: parameters schema}`` from OpenAI schemas, ``{"name", "parameters"}`` dicts or ToolSpecs."""
    out: dict[str, Mapping[str, Any]] = {}
    for tool in tools:
        if isinstance(tool, Mapping):
            fn = tool.get("function", tool)
            name, params = fn.get("name"), fn.get("parameters", {})
        else:
            name, params = getattr(tool, "name", None), getattr(tool, "parameters", {})
        if not isinstance(name, str) or not name:
            raise ValueError(f"a tool needs a name, got {tool!r}")
        out[name] = params or {"type": "object", "properties": {}}
    return out


def surrogate_problem(text: str, what: str = "action") -> str | None:
    """A message if ``text`` holds a lone UTF-16 surrogate (not encodable as UTF-8), else None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        bad = text[err.start]
        return (f"{what} contains a lone surrogate {ascii(bad)} at index {err.start}, which is not valid Unicode "
                f"text; send valid UTF-8")
    return None


def _parse_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _NumberError(f"an integer with {len(digits.lstrip('-'))} digits; numbers in tool calls have at most "
                           f"{MAX_INT_DIGITS} digits")
    return int(digits)


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NumberError(f"the number {text[:40]} is too large to represent; send a finite number")
    return value


def _refuse_constant(name: str) -> Any:
    raise _NumberError(f"{name} is not a JSON value; send a finite number")


_DECODER = json.JSONDecoder(parse_int=_parse_int, parse_float=_parse_float, parse_constant=_refuse_constant)
"""Strict JSON: no NaN/Infinity, no number that overflows a float, no integer over :data:`MAX_INT_DIGITS` digits."""


def _loads(text: str, where: str) -> Any:
    try:
        return _DECODER.decode(text)
    except _NumberError as err:
        raise _ActionError(f"invalid JSON {where}: {err}") from None
    except RecursionError:
        raise _ActionError(f"{where} is nested too deeply") from None
    except json.JSONDecodeError as err:
        raise _ActionError(
            f"invalid JSON {where}: {err.msg} at line {err.lineno} column {err.colno}; "
            f"a tool call looks like {CALL_EXAMPLE}"
        ) from None


def _segments(text: str) -> list[tuple[str, str]] | None:
    """The JSON texts that hold tool calls, with where each came from; None if the text is a plain answer."""
    marker = text.find(MISTRAL_MARKER)
    if marker >= 0:
        return [(text[marker + len(MISTRAL_MARKER):].strip(), f"after {MISTRAL_MARKER}")]
    if "<tool_call>" in text:
        return [(m.group(1).strip(), "inside <tool_call>") for m in _TOOL_CALL_TAG.finditer(text)]
    fenced = [
        (body.strip(), "in the ``` block")
        for lang, body in _FENCE.findall(text)
        if lang.lower() in ("", "json", "tool_call", "tool_code", "javascript") and body.strip()[:1] in ("{", "[")
    ]
    if fenced:
        return fenced
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        return [(stripped, "in the action")]
    found = []
    position = 0
    while True:
        match = _INLINE_CALL.search(text, position)
        if match is None:
            break
        try:
            _, end = _DECODER.raw_decode(text, match.start())
        except (json.JSONDecodeError, RecursionError, _NumberError):
            raise _ActionError(
                f"the tool call starting at character {match.start()} is not valid JSON; "
                f"a tool call looks like {CALL_EXAMPLE}"
            ) from None
        found.append((text[match.start():end], "in the action"))
        position = end
    return found or None


def _raw_calls(data: Any, where: str) -> list[Any]:
    if isinstance(data, Mapping) and "tool_calls" in data and "name" not in data:
        data = data["tool_calls"]
        if not isinstance(data, list):
            raise _ActionError(f"'tool_calls' {where} must be a list of calls")
    if isinstance(data, list):
        if not data:
            raise _ActionError(f"empty list of tool calls {where}; send at least one {CALL_EXAMPLE}")
        return list(data)
    return [data]


def _one_call(raw: Any, tools: Mapping[str, Mapping[str, Any]]) -> ToolCall:
    if not isinstance(raw, Mapping):
        raise _ActionError(f"a tool call must be a JSON object like {CALL_EXAMPLE}, got {json_type(raw)}")
    if isinstance(raw.get("function"), Mapping):
        raw = raw["function"]
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise _ActionError(f"a tool call needs a \"name\" string, like {CALL_EXAMPLE}")
    problem = surrogate_problem(name, "the tool name")
    if problem:
        raise _ActionError(problem)
    if name != FINISH and name not in tools:
        raise _ActionError(unknown_name_message("tool", name, [*tools, FINISH]))
    key = "arguments" if "arguments" in raw else "parameters" if "parameters" in raw else None
    arguments = raw.get(key, {}) if key else {}
    extra = sorted(set(raw) - {"name", "arguments", "parameters", "type", "id"})
    if extra:
        raise _ActionError(f"tool call '{name}' has unexpected key(s) {', '.join(extra)}; "
                           f"put the tool's arguments inside \"arguments\"")
    if isinstance(arguments, str):
        arguments = _loads(arguments, f"in the arguments string of '{name}'") if arguments.strip() else {}
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, Mapping):
        raise _ActionError(f"tool '{name}': arguments must be an object, got {json_type(arguments)}")
    problem = plain_data_problem(arguments)
    if problem:
        raise _ActionError(f"tool '{name}': {problem}")
    schema = FINISH_SCHEMA["function"]["parameters"] if name == FINISH else tools[name]
    problem = validate(arguments, schema)
    if problem:
        raise _ActionError(f"tool '{name}': {problem}")
    return ToolCall(name, normalize(dict(arguments), schema))


def _parse(text: Any, tools: Mapping[str, Mapping[str, Any]]) -> ToolAction:
    if not isinstance(text, str):
        raise _ActionError(f"an action must be text, got {type(text).__name__}")
    if len(text) > MAX_ACTION_CHARS:
        raise _ActionError(f"action is {len(text)} characters; the limit is {MAX_ACTION_CHARS}")
    problem = surrogate_problem(text)
    if problem:
        raise _ActionError(problem)
    if not text.strip():
        raise _ActionError(f"empty action: send a tool call like {CALL_EXAMPLE}, or a final answer")
    segments = _segments(text)
    if segments is None:
        return ToolAction(final=text.strip(), plain_text=True)
    raw_calls: list[Any] = []
    for body, where in segments:
        if not body:
            raise _ActionError(f"empty tool call {where}; write {CALL_EXAMPLE}")
        raw_calls.extend(_raw_calls(_loads(body, where), where))
    if len(raw_calls) > MAX_CALLS:
        raise _ActionError(f"{len(raw_calls)} tool calls in one action; the limit is {MAX_CALLS}")
    calls = [_one_call(raw, tools) for raw in raw_calls]
    finishes = [i for i, c in enumerate(calls) if c.name == FINISH]
    if finishes and finishes != [len(calls) - 1]:
        raise _ActionError(f"'{FINISH}' must be the last call of an action, and only once")
    if finishes:
        answer = calls[-1].arguments.get("answer", "")
        return ToolAction(calls=tuple(calls[:-1]), final=answer)
    return ToolAction(calls=tuple(calls))


def parse_tool_action(text: str, tools: Iterable[Any]) -> ParsedAction:
    """Parse ``text`` against ``tools`` (OpenAI schemas or ToolSpecs); the value is a :class:`ToolAction`."""
    try:
        return ParsedAction(value=_parse(text, tool_parameters(tools)))
    except RecursionError:
        return ParsedAction(format_error="the action is nested too deeply; send a flat tool call")
    except _ActionError as err:
        # Messages quote parts of the action; never let a lone surrogate through into an observation.
        return ParsedAction(format_error=str(err).encode("utf-8", "backslashreplace").decode("utf-8"))


def parse_tool_calls(text: str, tools: Iterable[Any]) -> dict[str, Any]:
    """Sandbox-friendly form of :func:`parse_tool_action`: plain JSON data.

    Returns ``{"calls": [{"name", "arguments"}, ...], "final": str | None, "error": str | None}``;
    ``final`` is set when the action ends the episode (the ``finish`` answer, or the plain-text answer).
    """
    parsed = parse_tool_action(text, tools)
    if not parsed.ok:
        return {"calls": [], "final": None, "error": parsed.format_error}
    action: ToolAction = parsed.value
    return {"calls": [c.to_dict() for c in action.calls], "final": action.final, "error": None}


def render_tools(schemas: Iterable[Mapping[str, Any]]) -> str:
    """One compact JSON line per tool (name, description, parameters), for an observation."""
    lines = []
    for schema in schemas:
        fn = schema.get("function", schema)
        lines.append(json.dumps({"name": fn["name"], "description": fn.get("description", ""),
                                 "parameters": fn.get("parameters", {})}, ensure_ascii=False))
    return "\n".join(lines)


def milestones(calls: Iterable[Mapping[str, Any]]) -> str:
    """The tool names of a call sequence in order, repeats collapsed: ``ls -> mkdir (repeat) -> mv (repeat)``.

    This is the privileged hint of a tool-use environment: which tools in which order, never their arguments.
    """
    names: list[str] = []
    repeated: list[bool] = []
    for call in calls:
        name = call["name"]
        if names and names[-1] == name:
            repeated[-1] = True
        else:
            names.append(name)
            repeated.append(False)
    return " -> ".join(f"{n} (repeat as needed)" if r else n for n, r in zip(names, repeated))
