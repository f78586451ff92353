"""A toolbox: several tool sets an environment owns together, called by tool name, snapshotted as one.

``Toolbox(FileSystem(tree), Ledger(accounts))`` routes ``call("mv", {...})`` to the file system and
``call("deposit", {...})`` to the ledger; ``snapshot()`` is ``{"filesystem": ..., "ledger": ...}``.
"""

from __future__ import annotations

from typing import Any

from spade_tools.base import ToolSet, unknown_name_message


class Toolbox:
    """Tool sets with distinct tool names and distinct kinds."""

    def __init__(self, *tools: ToolSet) -> None:
        if not tools:
            raise ValueError("a Toolbox needs at least one tool set")
        self._tools = list(tools)
        self._by_name: dict[str, ToolSet] = {}
        kinds: set[str] = set()
        for tool in tools:
            if not isinstance(tool, ToolSet):
                raise TypeError(f"Toolbox holds tool sets (FileSystem, Ledger, ...), got {type(tool).__name__}")
            if tool.KIND in kinds:
                raise ValueError(f"two tool sets of kind {tool.KIND!r} in one Toolbox")
            kinds.add(tool.KIND)
            for name in tool.tool_names():
                if name in self._by_name:
                    raise ValueError(f"tool name {name!r} is provided twice")
                self._by_name[name] = tool

    def names(self) -> list[str]:
        """Every tool name, in the order the tool sets were given."""
        return list(self._by_name)

    def schemas(self) -> list[dict[str, Any]]:
        """OpenAI-format schemas of every tool (pass them to a chat template's ``tools=``)."""
        out: list[dict[str, Any]] = []
        for tool in self._tools:
            out.extend(tool.schemas())
        return out

    def call(self, name: str, arguments: Any = None) -> dict[str, Any]:
        """Run one tool call; ``{"error": ...}`` for an unknown tool, bad arguments or a failed call."""
        tool = self._by_name.get(name) if isinstance(name, str) else None
        if tool is None:
            return {"error": unknown_name_message("tool", name, self.names())}
        return tool.call(name, arguments)

    def snapshot(self) -> dict[str, Any]:
        """``{kind: snapshot}`` of every tool set (stateless ones included as ``{}``)."""
        return {tool.KIND: tool.snapshot() for tool in self._tools}
