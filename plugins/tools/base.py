"""What every SPADE tool shares: typed definitions, argument checking, dispatch and snapshots.

A stateful tool is a class the environment owns (one instance per episode). Its tools are methods named by
:class:`ToolDef` entries; :meth:`ToolSet.call` checks that the arguments are small plain data
(:func:`spade_tools.guard.plain_data_problem`), validates them against the JSON schema, runs the method under
:func:`spade_tools.guard.guarded_call` (bounded integers, its own decimal context, a per-call deadline) and returns
a JSON result. What it turns into ``{"error": "..."}`` instead of raising (:data:`CALL_FAILURES`): a
:class:`ToolError`, arguments over the data limits or against the schema, the deadline, and the numeric failures a
model's values can provoke in arithmetic (``ArithmeticError`` — overflow, division by zero, decimal errors —,
``ValueError`` such as the integer-string conversion limit, ``RecursionError`` and ``MemoryError``). Calls are
atomic: a failing call leaves the state unchanged. :meth:`ToolSet.snapshot` returns the JSON state that final-state
comparison uses.
"""

from __future__ import annotations

import copy
import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from spade_tools.guard import (
    DEFAULT_TIMEOUT_S,
    CallTimeout,
    guarded_arguments,
    guarded_call,
    isolated_numeric_context,
    plain_data_problem,
)
from spade_tools.schema import normalize, validate

CALL_FAILURES: tuple[type[BaseException], ...] = (ArithmeticError, ValueError, RecursionError, MemoryError)
"""Exceptions from a tool's own code that :meth:`ToolSet.call` reports as a failed call (see the module docstring)."""


SANDBOX_CLASS_MARK = "__spade_sandbox__"
"""The key the sandbox puts in the dict of every class sandboxed code defines (``spade_core.sandbox.guards.
SANDBOX_MARK``; a test keeps the two equal: this package does not import the sandbox)."""
_PLAIN_RESULT_TYPES = (str, int, float, bool, type(None))
MAX_RESULT_VALUES = 1_000_000


def _result_problem(value: Any) -> str | None:
    """Why a tool's result is not plain JSON data (dicts with string keys, lists, tuples, scalars), or None.
    Checked by exact type, iteratively and within :data:`MAX_RESULT_VALUES` values."""
    stack = [value]
    seen = 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > MAX_RESULT_VALUES:
            return f"more than {MAX_RESULT_VALUES} values"
        kind = type(item)
        if kind in _PLAIN_RESULT_TYPES:
            continue
        if kind is dict:
            for key in item:
                if type(key) is not str:
                    return f"a dict key of type {type(key).__name__}"
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
        else:
            return f"a value of type {kind.__name__}"
    return None


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
        """The OpenAI function-calling schema of this tool: a fresh deep copy (callers may change it; the
        definition every instance shares stays as it is)."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description,
                         "parameters": copy.deepcopy(dict(self.parameters))},
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
    CALL_TIMEOUT_S: ClassVar[float | None] = DEFAULT_TIMEOUT_S
    """The per-call deadline; None for a tool whose calls are bounded elsewhere (the sandbox's own time limit)."""

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
        problem = plain_data_problem(arguments) or validate(arguments, definition.parameters)
        if problem:
            return {"error": f"tool '{name}': {problem}"}
        method = self._declared_method(definition)
        if method is None:
            return {"error": f"tool '{name}' does not name a public method declared by its tool class"}
        kwargs = guarded_arguments(normalize(arguments, definition.parameters))
        try:
            self.prepare()
            if self.CALL_TIMEOUT_S is None:
                with isolated_numeric_context():
                    result = method(**kwargs)
            else:
                result = guarded_call(lambda: method(**kwargs), timeout_s=self.CALL_TIMEOUT_S)
        except ToolError as err:
            return {"error": f"{name}: {err}"}
        except CallTimeout:
            return {"error": f"{name}: the call took longer than {self.CALL_TIMEOUT_S:g} s and was stopped"}
        except CALL_FAILURES as err:
            return {"error": f"{name}: the call failed on these arguments ({type(err).__name__}: {err})"}
        problem = _result_problem(result)
        if problem:  # a tool returns JSON data; anything else (a cursor, a bound method) never reaches the caller
            return {"error": f"{name}: the tool returned {problem}, not plain JSON data"}
        return result

    def _declared_method(self, definition: ToolDef) -> Any:
        """The method a tool call may run: public, named by a ``ToolDef`` of the tool plugin's own class (the first
        class in the MRO that sandboxed code did not define) and looked up on that class, so a subclass written by
        sandboxed code can neither point a tool at a private helper nor swap the code that runs."""
        own = next((klass for klass in type(self).__mro__
                    if klass is not ToolSet and issubclass(klass, ToolSet) and SANDBOX_CLASS_MARK not in klass.__dict__),
                   None)
        if own is None:
            return None
        declared = {d.method or d.name for d in own.__dict__.get("TOOL_DEFS", own.TOOL_DEFS)}
        name = definition.method or definition.name
        if not name or name[:1] == "_" or name not in declared:
            return None
        function = getattr(own, name, None)
        if not callable(function):
            return None
        return function.__get__(self, type(self)) if hasattr(function, "__get__") else None

    def prepare(self) -> None:
        """One-off work a call needs that is not the call's own (building an index): runs before the deadline."""

    def snapshot(self) -> dict[str, Any]:
        """The JSON state compared at the end of an episode (subclasses define it)."""
        raise NotImplementedError
