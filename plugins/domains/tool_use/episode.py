"""One tool-use episode: parse the action, run the calls, observe, and score by final-state equality.

An environment builds the initial tool state and a reference call sequence (its scripted solver), then hands
both to :class:`ToolEpisode`. The episode replays the reference calls on a *fresh* toolbox to get the target
snapshot (BFCL-style ground-truth run), so the success check is "the agent's final state equals the reference
run's final state" — robust to call order where the tools' snapshots are order-free (ledger history, calendar
ids, table rows). The privileged hint is the milestone list: which tools in which order, never the arguments.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from spade_domains.tool_use.actions import (
    CALL_EXAMPLE,
    FINISH,
    FINISH_SCHEMA,
    milestones,
    parse_tool_action,
    render_tools,
)
from spade_tools.base import ToolSet
from spade_tools.schema import normalize
from spade_tools.toolbox import Toolbox

MAX_RESULT_CHARS = 2500
MAX_STEP_OBS_CHARS = 12_000
FINISH_CALL = {"name": FINISH, "arguments": {}}


def _as_toolbox(made: Any) -> Toolbox:
    if isinstance(made, Toolbox):
        return made
    if isinstance(made, ToolSet):
        return Toolbox(made)
    raise TypeError(f"make_toolbox() must return a Toolbox or a tool set, got {type(made).__name__}")


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 30] + f" ... ({len(text) - limit + 30} chars cut)"


class ToolEpisode:
    """Runs one episode of a tool-use task.

    ``make_toolbox()`` must build the *same* initial state every time it is called (it is called twice: once
    for the agent, once for the reference replay). ``reference_calls`` is a list of ``{"name", "arguments"}``;
    each must succeed on the initial state in order, and together they must change the state (otherwise doing
    nothing would succeed) — a ``ValueError`` says which call failed.
    """

    def __init__(self, make_toolbox: Callable[[], Any], reference_calls: Sequence[Mapping[str, Any]], task: str,
                 *, max_turns: int) -> None:
        if max_turns < 2:
            raise ValueError("a tool-use episode needs max_turns >= 2")
        self.box = _as_toolbox(make_toolbox())
        self.schemas = [*self.box.schemas(), copy.deepcopy(FINISH_SCHEMA)]  # per instance: never the shared constant
        params = {s["function"]["name"]: s["function"]["parameters"] for s in self.schemas}
        replay = _as_toolbox(make_toolbox())
        self.reference: list[dict[str, Any]] = []
        for i, call in enumerate(reference_calls):
            name, arguments = call["name"], dict(call.get("arguments", {}))
            result = replay.call(name, arguments)
            if "error" in result:
                raise ValueError(f"reference call {i + 1} ({name}) failed on the initial state: {result['error']}")
            self.reference.append({"name": name, "arguments": normalize(arguments, params[name])})
        if len(self.reference) + 1 > max_turns:
            raise ValueError(f"the reference needs {len(self.reference) + 1} turns but max_turns is {max_turns}")
        self.target = replay.snapshot()
        self.initial = self.box.snapshot()
        if self.target == self.initial:
            raise ValueError("the reference calls leave the state unchanged, so doing nothing would succeed")
        self.task = task
        self.max_turns = max_turns
        self.turn = 0
        self.matched = 0
        self.done = False

    # -- observations --------------------------------------------------------------------------------------
    def first_observation(self) -> str:
        """The task, the tool schemas and how to call them."""
        return (
            f"{self.task}\n\nTools (one JSON schema per line):\n{render_tools(self.schemas)}\n\n"
            f"Call a tool by replying with JSON: {CALL_EXAMPLE}. A JSON list runs several calls in order; "
            f"<tool_call>...</tool_call> tags work too. When the task is complete, call "
            f'{{"name": "{FINISH}", "arguments": {{}}}}. You have {self.max_turns} turns.'
        )

    def reset_info(self) -> dict[str, Any]:
        """``info`` for ``reset``: the tool schemas, ready for a chat template's ``tools=`` argument."""
        return {"tools": [json.loads(json.dumps(s)) for s in self.schemas]}

    # -- the step ------------------------------------------------------------------------------------------
    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """Parse and run one action; the episode ends on ``finish``, a plain-text answer, or the last turn."""
        if self.done:
            raise RuntimeError("the episode is over; reset the environment")
        self.turn = self.turn + 1
        last_turn = self.turn >= self.max_turns
        parsed = parse_tool_action(action, self.schemas)
        info: dict[str, Any] = {"success": False, "format_error": parsed.format_error,
                                "action_is_valid": parsed.ok, "tool_calls": 0}
        if not parsed.ok:
            obs = (f"Format error: {parsed.format_error}\nReply with one tool call as JSON: {CALL_EXAMPLE}, "
                   f"or call {FINISH} when done.")
            return self._close(obs, info) if last_turn else self._open(obs, info)
        lines = []
        for call in parsed.value.calls:
            arguments = dict(call.arguments)
            result = self.box.call(call.name, arguments)
            if "error" in result:
                info["action_is_valid"] = False
                lines.append(f"{call.name} -> error: {result['error']}")
            else:
                if self.matched < len(self.reference) and self.reference[self.matched] == call.to_dict():
                    self.matched = self.matched + 1
                lines.append(f"{call.name} -> {json.dumps(result, ensure_ascii=False)}")
        info["tool_calls"] = len(parsed.value.calls)
        budget = max(200, MAX_STEP_OBS_CHARS // max(1, len(lines)))
        obs = "\n".join(_clip(line, min(budget, MAX_RESULT_CHARS)) for line in lines)
        if parsed.value.final is not None:
            note = "Final answer received." if parsed.value.plain_text else "Finish called."
            return self._close(f"{obs}\n{note}".strip(), info)
        if last_turn:
            return self._close(f"{obs}\nOut of turns.".strip(), info)
        return self._open(obs or "No tool calls.", info)

    def _open(self, obs: str, info: dict[str, Any]) -> tuple[str, float, bool, bool, dict[str, Any]]:
        info["progress"] = self.progress()
        return f"{obs}\n(turn {self.turn} of {self.max_turns})", 0.0, False, False, info

    def _close(self, obs: str, info: dict[str, Any]) -> tuple[str, float, bool, bool, dict[str, Any]]:
        self.done = True
        final = self.box.snapshot()
        success = final == self.target
        info["success"] = success
        info["progress"] = self.progress()
        if success:
            verdict = "The final state matches the expected result: task complete."
        else:
            differing = [kind for kind in self.target if final.get(kind) != self.target[kind]]
            verdict = f"The final state does not match the expected result (differences in: {', '.join(differing)})."
        return f"{obs}\n{verdict}", 1.0 if success else 0.0, True, False, info

    # -- solver and hint ------------------------------------------------------------------------------------
    def progress(self) -> float:
        """Fraction of the reference calls made so far, in order (ACEBench-style process score)."""
        return round(self.matched / len(self.reference), 4) if self.reference else 1.0

    def reference_action(self) -> str:
        """The next reference call as JSON (``finish`` once the reference sequence is done)."""
        call = self.reference[self.matched] if self.matched < len(self.reference) else FINISH_CALL
        return json.dumps(call, ensure_ascii=False)

    def milestone_hint(self) -> str:
        """The privileged hint: the reference run's tools in order, without their arguments."""
        return (f"Milestones (tools in order; the arguments are yours to work out): "
                f"{milestones([*self.reference, FINISH_CALL])}.")

    def state_matches(self) -> bool:
        """Whether the agent's current state already equals the reference run's final state."""
        return self.box.snapshot() == self.target
