"""The tools plugin: discovered through entry points, schemas in OpenAI format, references that load."""

from __future__ import annotations

import re

import pytest

from spade_core.plugins import get_plugins
from spade_core.plugins.contributions import ToolSpec, load_object
from spade_tools.base import ToolSet
from spade_tools.calculator import Calculator
from spade_tools.filesystem import FileSystem
from spade_tools.ledger import Ledger
from spade_tools.plugin import SANDBOX_MODULES, TOOL_SETS, tool_specs
from spade_tools.toolbox import Toolbox

NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


def test_plugin_is_discovered_and_lists_every_tool() -> None:
    plugins = get_plugins()
    assert "tools" in [p.name for p in plugins.loaded]
    names = [spec.name for spec in plugins.collect_flat("spade_tools")]
    for expected in ("ls", "mv", "deposit", "transfer", "add_event", "find_free_slot", "select", "update", "calculate"):
        assert expected in names
    assert len(names) == len(set(names)), "tool names must be unique"


@pytest.mark.parametrize("spec", tool_specs(), ids=lambda s: s.name)
def test_specs_are_openai_functions_with_loadable_implementations(spec: ToolSpec) -> None:
    schema = spec.schema()
    assert schema["type"] == "function" and NAME.match(schema["function"]["name"])
    params = schema["function"]["parameters"]
    assert params["type"] == "object" and params["additionalProperties"] is False
    assert set(params["required"]) <= set(params["properties"])
    assert callable(load_object(spec.implementation))
    assert spec.description


def test_sandbox_modules_resolve_to_the_named_objects() -> None:
    for module, names in SANDBOX_MODULES.items():
        for attr, ref in names.items():
            assert ref.startswith(f"{module}:")
            assert load_object(ref).__name__ == attr
    exposed = {attr for names in SANDBOX_MODULES.values() for attr in names}
    # CorpusSearch stays in the host: its index takes seconds to build and belongs there, not in every worker
    assert {cls.__name__ for cls in TOOL_SETS} - {"CorpusSearch"} <= exposed
    assert "CorpusSearch" not in exposed


def test_every_tool_set_has_a_kind_and_a_json_snapshot() -> None:
    for cls in TOOL_SETS:
        assert issubclass(cls, ToolSet) and cls.KIND
        assert isinstance(cls().snapshot(), dict)


def test_toolbox_routes_calls_and_snapshots_by_kind() -> None:
    box = Toolbox(FileSystem({"a.txt": "x"}), Ledger({"cash": 5}), Calculator())
    assert box.call("cat", {"file_name": "/a.txt"})["file_content"] == "x"
    assert box.call("deposit", {"account": "cash", "amount": 1})["balance"] == 6
    assert "did you mean 'cat'" in box.call("cta", {})["error"]
    assert set(box.snapshot()) == {"filesystem", "ledger", "calculator"}
    assert len(box.schemas()) == len(box.names())
    with pytest.raises(ValueError):
        Toolbox(Ledger(), Ledger())
    with pytest.raises(TypeError):
        Toolbox(object())  # type: ignore[arg-type]
