"""The bundled tools plugin: tool schemas and implementations, and their sandbox stand-ins.

Every tool is listed through ``spade_tools()`` with its OpenAI-format schema and a ``"module:attr"``
implementation reference (a method of the stateful class the environment owns, or a plain function).
``spade_sandbox_modules()`` exposes the tool classes by name to sandboxed environment code, so a
designer-written environment can ``from spade_tools.filesystem import FileSystem``.
"""

from __future__ import annotations

from spade_core.plugins import hookimpl
from spade_core.plugins.contributions import ToolSpec
from spade_tools.base import ToolSet
from spade_tools.calculator import Calculator
from spade_tools.calendar_tool import Calendar
from spade_tools.corpus_search import CorpusSearch
from spade_tools.filesystem import FileSystem
from spade_tools.ledger import Ledger
from spade_tools.python_executor import PythonExecutor
from spade_tools.sqltable import SqlDatabase

TOOL_SETS: tuple[type[ToolSet], ...] = (
    FileSystem, Ledger, Calendar, SqlDatabase, Calculator, PythonExecutor, CorpusSearch,
)
"""The bundled tool classes, in listing order."""

SANDBOX_MODULES: dict[str, dict[str, str]] = {
    "spade_tools.filesystem": {"FileSystem": "spade_tools.filesystem:FileSystem"},
    "spade_tools.ledger": {"Ledger": "spade_tools.ledger:Ledger"},
    "spade_tools.calendar_tool": {"Calendar": "spade_tools.calendar_tool:Calendar"},
    "spade_tools.sqltable": {"SqlDatabase": "spade_tools.sqltable:SqlDatabase"},
    "spade_tools.calculator": {
        "Calculator": "spade_tools.calculator:Calculator",
        "calculate": "spade_tools.calculator:calculate",
    },
    "spade_tools.toolbox": {"Toolbox": "spade_tools.toolbox:Toolbox"},
    "spade_tools.schema": {"validate": "spade_tools.schema:validate"},
    "spade_tools.python_executor": {"PythonExecutor": "spade_tools.python_executor:PythonExecutor"},
}
"""CorpusSearch is not exposed to sandboxed code: its index (~5 s to build) belongs in the host process."""


def tool_specs() -> list[ToolSpec]:
    """A :class:`ToolSpec` for every tool of every bundled tool set."""
    specs = []
    for cls in TOOL_SETS:
        stateful = cls is not Calculator
        for definition in cls.TOOL_DEFS:
            if stateful:
                impl = f"{cls.__module__}:{cls.__name__}.{definition.method or definition.name}"
            else:
                impl = "spade_tools.calculator:calculate"
            specs.append(ToolSpec(
                name=definition.name, description=definition.description, parameters=definition.parameters,
                implementation=impl, stateful=stateful,
            ))
    return specs


@hookimpl
def spade_tools() -> list[ToolSpec]:
    return tool_specs()


@hookimpl
def spade_sandbox_modules() -> dict[str, dict[str, str]]:
    return {module: dict(names) for module, names in SANDBOX_MODULES.items()}
