"""What every SPADE tool shares: typed definitions, argument checking, dispatch and snapshots.

A stateful tool is a class the environment owns (one instance per episode). Its tools are methods named by
:class:`ToolDef` entries; :meth:`ToolSet.call` validates the arguments against the JSON schema, runs the method
and returns a JSON result — ``{"error": "..."}`` when the call fails, never an exception. Calls are atomic: a
failing call leaves the state unchanged. :meth:`ToolSet.snapshot` returns the JSON state that final-state
comparison uses.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from spade_tools.schema import normalize, validate


class ToolError(Exception):
    """A tool call failed in a way the agent should be told about (bad path, insufficient funds, ...)."""


@dataclass(frozen=True)
class ToolDef:
    """One tool: its public name, description, JSON schema for the arguments, and the method that runs it."""

    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    method: str = ""

    def schema(self) -> dict[str, Any]:
        """The OpenAI function-calling schema of this tool."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": dict(self.parameters)},
        }


def unknown_name_message(kind: str, name: Any, known: Sequence[str]) -> str:
    """``unknown tool 'lss'; did you mean 'ls'? (available: ...)`` with a close match when there is one."""
    shown = name if isinstance(name, str) else repr(name)
    close = difflib.get_close_matches(shown, list(known), n=1) if isinstance(name, str) else []
    hint = f"; did you mean '{close[0]}'?" if close else ""
    return f"unknown {kind} '{shown[:60]}'{hint} (available: {', '.join(known) or 'none'})"


class ToolSet:
    """Base class of the bundled tools: subclasses list their tools in ``TOOL_DEFS`` and implement them."""

    KIND: ClassVar[str] = ""
    TOOL_DEFS: ClassVar[tuple[ToolDef, ...]] = ()

    @classmethod
    def schemas(cls) -> list[dict[str, Any]]:
        """OpenAI-format schemas of every tool of this class."""
        return [d.schema() for d in cls.TOOL_DEFS]

    @classmethod
    def tool_names(cls) -> list[str]:
        return [d.name for d in cls.TOOL_DEFS]

    @classmethod
    def tool_def(cls, name: str) -> ToolDef | None:
        for d in cls.TOOL_DEFS:
            if d.name == name:
                return d
        return None

    def call(self, name: str, arguments: Any = None) -> dict[str, Any]:
        """Run one tool call; returns its JSON result, or ``{"error": message}`` if it is invalid or fails."""
        definition = self.tool_def(name) if isinstance(name, str) else None
        if definition is None:
            return {"error": unknown_name_message("tool", name, self.tool_names())}
        if arguments is None:
            arguments = {}
        problem = validate(arguments, definition.parameters)
        if problem:
            return {"error": f"tool '{name}': {problem}"}
        method = getattr(self, definition.method or definition.name)
        try:
            result = method(**normalize(arguments, definition.parameters))
        except ToolError as err:
            return {"error": f"{name}: {err}"}
        return result

    def snapshot(self) -> dict[str, Any]:
        """The JSON state compared at the end of an episode (subclasses define it)."""
        raise NotImplementedError
