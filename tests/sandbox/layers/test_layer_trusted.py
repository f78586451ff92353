"""Values reached through trusted code are plain or frozen: a trusted method cannot be made to change a shared
container, ``deepcopy`` takes no caller memo, ``ToolSet.call`` runs only public methods its tool class declares and
returns only plain data, and a tool episode's schemas are its own."""

from __future__ import annotations

import pytest

from spade_core.errors import EnvCodeError, SandboxPolicyError
from spade_core.sandbox import SandboxedInnerEnv
from spade_core.sandbox.guards import SANDBOX_MARK
from spade_domains.tool_use.episode import ToolEpisode
from spade_tools.base import SANDBOX_CLASS_MARK, ToolDef
from spade_tools.calculator import Calculator
from spade_tools.ledger import Ledger

ENV = '''
import copy
from spade_tools.calculator import Calculator

ENV_SPEC = {"id": "spade/Trusted-v0", "domain": "games", "description": "d", "action_format": "a",
            "max_turns": 5, "players": 1, "tags": []}

class Oops(Exception):
    pass


class Trusted:
    def reset(self, rng, options):
        self.rng = rng
        return "start", {}

    def step(self, action):
        if action == "shuffle":
            self.rng.shuffle(Calculator.TOOL_DEFS[0].parameters["required"])
        elif action == "memo":
            memo = {}
            copy.deepcopy(self.rng, memo)
            return str(len(memo)), 0.0, False, False, {}
        elif action == "mro":
            return str(Oops.mro()), 0.0, False, False, {}
        elif action == "copy":
            mine = list(Calculator.TOOL_DEFS[0].parameters["required"])
            self.rng.shuffle(mine)
            return str(sorted(mine)), 0.0, False, False, {}
        return str(Calculator.TOOL_DEFS[0].parameters["required"]), 0.0, False, False, {}

    def privileged_hint(self):
        return "none"

    def reference_action(self):
        return "look"
'''


def test_trusted_methods_cannot_change_shared_containers_or_leak_internals(pool) -> None:
    handle = SandboxedInnerEnv(ENV, env_id="spade/Trusted-v0", pool=pool)
    try:
        handle.reset(0, {})
        original = handle.step("look")[0]
        with pytest.raises(SandboxPolicyError, match="shuffle"):
            handle.step("shuffle")
        handle.reset(0, {})
        with pytest.raises(EnvCodeError, match="argument"):
            handle.step("memo")
        handle.reset(0, {})
        with pytest.raises(SandboxPolicyError, match="mro"):
            handle.step("mro")  # the list would hold BaseException, which the environment cannot name
        handle.reset(0, {})
        assert handle.step("copy")[0] == str(sorted(eval(original)))  # our own repr of a list
        assert handle.step("look")[0] == original
    finally:
        handle.close()


def test_the_sandbox_mark_has_one_meaning() -> None:
    assert SANDBOX_CLASS_MARK == SANDBOX_MARK


def _sandbox_subclass(base: type, **attrs) -> type:
    """A subclass as sandboxed code would make it (the sandbox marks every class it defines)."""
    return type("Evil", (base,), {SANDBOX_MARK: True, **attrs})


def test_toolset_runs_only_public_methods_its_own_class_declares() -> None:
    private = _sandbox_subclass(Ledger, TOOL_DEFS=(ToolDef("peek", "d", method="_state"),
                                                   ToolDef("look", "d", method="snapshot"),
                                                   *Ledger.TOOL_DEFS))
    tool = private()
    assert "does not name a public method" in tool.call("peek", {})["error"]
    assert "does not name a public method" in tool.call("look", {})["error"]  # public but not a declared tool
    assert "error" not in tool.call("list_accounts", {})  # the class's own tools still run


def test_a_tool_result_that_is_not_plain_data_never_reaches_the_caller() -> None:
    class Leaky(Calculator):
        def calculate(self, expression: str):
            return {"cursor": object()}

    assert "not plain JSON data" in Leaky().call("calculate", {"expression": "1+1"})["error"]


def test_a_tool_episode_owns_its_schemas() -> None:
    def episode() -> ToolEpisode:
        return ToolEpisode(lambda: Ledger({"cash": 10}), [{"name": "deposit", "arguments": {"account": "cash", "amount": 5}}], "task",
                           max_turns=4)

    first = episode()
    first.schemas[-1]["function"]["name"] = "hijacked"
    first.schemas[0]["function"]["parameters"]["injected"] = True
    second = episode()
    assert second.schemas[-1]["function"]["name"] != "hijacked"
    assert "injected" not in second.schemas[0]["function"]["parameters"]
    assert "injected" not in Ledger.TOOL_DEFS[0].parameters
