"""BFCL v4 multi-turn as SPADE environments (categories base, miss_func, miss_param, long_context).

The ``bfcl-eval`` package ships the tasks (user turns, initial API state, ground-truth call sequences), the
function docs and the stateful API classes (``GorillaFileSystem``, ``TwitterAPI``, ``TradingBot``, ...). Each task
becomes one :class:`~spade_core.contract.env.SpadeEnv`:

- observations: the function docs as JSON tool schemas plus the first user turn; then the execution results of
  each action; when the model ends a turn (a reply without a tool call), the next user turn (for ``miss_func``
  the docs of the functions that turn adds, with BFCL's own wording);
- actions: tool calls ``{"name": ..., "arguments": {...}}`` (a JSON list for several; ``<tool_call>`` tags and
  fenced JSON too, parsed by the tool-use domain's parser) or BFCL's own Python-call list
  ``[cd(folder='docs'), ls()]``; the calls run against the task's live API instances, with BFCL's result strings;
- verdict, exactly as BFCL's ``multi_turn_checker`` decides, after every turn whose ground truth is not empty:
  the model must have executed at least one call in that turn; every public attribute of every API instance must
  equal the instance of a ground-truth run (same initial state, the ground-truth calls of every turn so far); and
  the ground truth's execution results for that turn must all appear (as a multiset) among the model's results of
  all turns so far. More than 20 executed steps in one turn force-quits the task (BFCL fails it, except in the
  last turn, where BFCL's runner still scores it; so does this adapter).

Reward is 1.0 on success at the end, else 0.0. By default an episode ends at the first failed turn (the verdict
cannot change afterwards); ``reset(options={"stop_at_failure": False})`` plays every turn, as BFCL's inference
does. Calls are executed by method lookup on the instances, never by ``eval`` of model text (BFCL evals strings).

Known, deliberate differences from BFCL's pipeline (none changes a verdict for the same executed calls): an action
naming an unknown function, with malformed JSON, or with more than 8 calls is a ``format_error`` that ends the turn
without executing anything (BFCL executes the well-formed calls of a step and records ``NameError`` strings for
unknown names); BFCL's string rewriting also prefixes method names that appear inside string arguments followed by
``(``, which this adapter does not imitate.

bfcl-eval is Apache-2.0 licensed (Berkeley Function Calling Leaderboard, ShishirPatil/gorilla).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from typing import Any

from spade_core.contract.env import SpadeEnv
from spade_core.evaluation.suite import EvalTask, Suite
from spade_domains.benchmarks.bfcl_api import CALL_TIMEOUT_S, ApiState, missing_results, state_differences
from spade_domains.benchmarks.bfcl_calls import Call, parse_python_call, parse_python_call_list, render_tools
from spade_domains.benchmarks.bfcl_data import CATEGORIES, BfclEntry, get_entry, load_entries
from spade_domains.benchmarks.common import trusted_env
from spade_domains.tool_use.actions import milestones, parse_tool_action
from spade_registry.manifest import EnvManifest

__all__ = [  # the adapter's surface; the data, the call syntax and BFCL's checks live in bfcl_data/_calls/_api
    "ADDITIONAL_FUNCTION_PROMPT", "CALL_TIMEOUT_S", "CATEGORIES", "END_OF_TURN_ACTION", "MAXIMUM_STEP_LIMIT", "ApiState",
    "BfclEntry", "BfclMultiTurnEnv", "Call", "load_base", "load_entries", "load_long_context", "load_miss_func",
    "load_miss_param", "load_suite", "make_env", "manifest_for", "parse_python_call",
]

MAXIMUM_STEP_LIMIT = 20
"""BFCL's per-turn step limit: the 21st executed step of a turn force-quits the task."""
MAX_CALLS_PER_ACTION = 8
"""The tool-use parser's limit; longer ground-truth turns are replayed over several steps."""
ADDITIONAL_FUNCTION_PROMPT = "I have updated some more functions you can choose from. What about now?"
"""BFCL's user message for a ``miss_func`` turn that adds the held-out functions."""
END_OF_TURN_ACTION = "Done."

INSTRUCTIONS = (
    "You help a user by calling tools. The user's requests arrive one turn at a time. To call tools, reply with "
    'JSON: {"name": "<tool>", "arguments": {...}}, or a JSON list of such calls to run in order. You then see '
    "each call's result and may call more tools. When the current request is complete (or cannot be done with "
    "the tools), reply in plain text without any tool call; that ends your turn. If the request lacks a required "
    "value, ask for it in plain text instead of guessing."
)


# -- the environment ---------------------------------------------------------------------------------------------------
def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _user_text(messages: Sequence[Mapping[str, Any]]) -> str:
    return "\n".join(str(m.get("content", "")) for m in messages if m.get("role", "user") == "user")


class BfclMultiTurnEnv:
    """One BFCL multi-turn task in the SPADE inner-environment format (trusted, in-process)."""

    def __init__(self, entry: BfclEntry) -> None:
        self.entry = entry
        self._parser = _tool_parser()

    # -- episode -----------------------------------------------------------------------------------------------------
    def reset(self, rng: Any, options: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        self.stop_at_failure = bool(options.get("stop_at_failure", True))
        self.model = ApiState(self.entry)
        self.reference = ApiState(self.entry)
        self.tool_names = sorted(self.model.methods)
        self.turn = 0
        self.steps = 0  # executed steps in the current turn
        self.decoded: list[list[list[str]]] = []  # per turn, per executed step, BFCL call strings
        self.model_results: list[str] = []
        self.failure: dict[str, Any] | None = None
        self.turns_passed = 0
        self.finished = False
        tools = render_tools(self.entry.functions)
        first = _user_text(self.entry.raw["question"][0]) if self.entry.turns else ""
        obs = (f"Available tools (one JSON schema per line):\n{tools}\n\nUser (turn 1 of {self.entry.turns}):\n{first}")
        return obs, {"bfcl_id": self.entry.id, "bfcl_turn": 0}

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        calls, ends_turn, problem = self._parse(action)
        info: dict[str, Any] = {"format_error": problem, "action_is_valid": problem is None, "bfcl_turn": self.turn}
        if calls:
            results = [self.model.execute(c) for c in calls]
            self.model_results.extend(results)
            self._turn_steps().append([c.to_bfcl() for c in calls])
            self.steps += 1
            if self.steps > MAXIMUM_STEP_LIMIT:
                if self.turn < self.entry.turns - 1:
                    self._fail(self.turn, "multi_turn:force_terminated",
                               f"more than {MAXIMUM_STEP_LIMIT} steps in turn {self.turn}; BFCL force-quits the task")
                    return self._final("", info)
                ends_turn = True  # BFCL still scores a force-quit in the last turn
            if not ends_turn:
                lines = [f"{i}. {c.to_bfcl()} -> {r}" for i, (c, r) in enumerate(zip(calls, results), 1)]
                obs = "Results:\n" + "\n".join(lines)
                return obs, 0.0, False, False, {**info, "success": False}
        self._end_turn()
        if self.finished or (self.failure is not None and self.stop_at_failure):
            note = f"The request could not be completed: {problem}" if problem else ""
            return self._final(note, info)
        return self._next_turn_observation(problem), 0.0, False, False, {**info, "success": False}

    def privileged_hint(self) -> str:
        names = [parse_python_call(c).name for c in self._turn_truth()]
        if not names:
            return "This request cannot be completed with the available tools and values; say so, or ask."
        return "Tools to call, in order: " + milestones({"name": n} for n in names)

    def reference_action(self) -> str:
        truth = [self.model.keyword_call(parse_python_call(c)) for c in self._turn_truth()]
        start = self.steps * MAX_CALLS_PER_ACTION
        chunk = truth[start:start + MAX_CALLS_PER_ACTION]
        if not chunk:
            return END_OF_TURN_ACTION
        return json.dumps([{"name": c.name, "arguments": dict(c.kwargs)} for c in chunk], ensure_ascii=False)

    # -- internals ---------------------------------------------------------------------------------------------------
    def _turn_steps(self) -> list[list[str]]:
        """The executed steps of the current turn (BFCL's decoded model result for it)."""
        while len(self.decoded) <= self.turn:
            self.decoded.append([])
        return self.decoded[self.turn]

    def _turn_truth(self) -> tuple[str, ...]:
        return self.entry.ground_truth[self.turn] if self.turn < self.entry.turns else ()

    def _parse(self, action: str) -> tuple[list[Call], bool, str | None]:
        """(calls to execute, whether the turn ends after them, format error).

        JSON tool calls first (the tool-use domain's parser), then BFCL's Python call list; a reply that is
        neither is plain text and ends the turn.
        """
        parsed = self._parser(action, [{"name": n, "parameters": {"type": "object"}} for n in self.tool_names])
        if parsed.ok and not parsed.value.plain_text:
            calls = [Call(c.name, (), dict(c.arguments)) for c in parsed.value.calls]
            return calls, parsed.value.final is not None, None
        try:
            python_calls = parse_python_call_list(action)
        except ValueError as exc:
            python_calls, python_error = None, str(exc)
        else:
            python_error = None
        if python_calls:
            unknown = [c.name for c in python_calls if c.name not in self.model.methods]
            if unknown:
                return [], True, f"unknown tool {unknown[0]!r}; available: {', '.join(self.tool_names)}"
            return python_calls, False, None
        if python_error:  # the text looks like BFCL's call list, so its problem is the useful message
            return [], True, f"{python_error}; write calls as JSON, e.g. {{\"name\": \"ls\", \"arguments\": {{}}}}"
        if not parsed.ok:
            return [], True, parsed.format_error
        return [], True, None

    def _end_turn(self) -> None:
        """Score the turn that just ended (BFCL's per-turn checks) and move to the next one."""
        self._turn_steps()
        truth = [parse_python_call(c) for c in self._turn_truth()]
        expected = [self.reference.execute(c) for c in truth]
        if truth and self.failure is None:
            problem = self._check_turn(expected)
            if problem is None:
                self.turns_passed += 1
            else:
                self._fail(self.turn, *problem)
        elif not truth and self.failure is None:
            self.turns_passed += 1
        self.turn += 1
        self.steps = 0
        self.finished = self.turn >= self.entry.turns

    def _check_turn(self, expected: list[str]) -> tuple[str, str] | None:
        if not self._turn_steps():
            return "multi_turn:empty_turn_model_response", f"Model response list is empty for turn {self.turn}"
        differences = state_differences(self.model, self.reference)
        if differences:
            where = "; ".join(f"{cls}: {', '.join(attrs)}" for cls, attrs in differences.items())
            return "multi_turn:instance_state_mismatch", f"API state differs from the ground-truth run ({where})"
        missing = missing_results(self.model_results, expected)
        if missing:
            shown = "; ".join(_clip(m, 120) for m in missing[:3])
            return ("multi_turn:execution_response_mismatch",
                    f"results of the ground-truth calls for turn {self.turn} never appeared: {shown}")
        return None

    def _fail(self, turn: int, error_type: str, message: str) -> None:
        if self.failure is None:
            self.failure = {"turn": turn, "error_type": error_type, "message": message}

    def _next_turn_observation(self, problem: str | None) -> str:
        lead = f"(Your last reply was not a valid tool call: {problem}. The turn has ended.)\n\n" if problem else ""
        added = self.entry.added_functions.get(self.turn)
        header = f"User (turn {self.turn + 1} of {self.entry.turns}):\n"
        if added:
            text = f"New tools are available:\n{render_tools(added)}\n{ADDITIONAL_FUNCTION_PROMPT}"
        else:
            text = _user_text(self.entry.raw["question"][self.turn])
        return lead + header + text

    def _final(self, note: str, info: dict[str, Any]) -> tuple[str, float, bool, bool, dict[str, Any]]:
        success = self.failure is None and self.finished
        info = {
            **info, "success": success, "turns_passed": self.turns_passed, "bfcl_turns": self.entry.turns,
            "bfcl_decoded": self.decoded,
            "bfcl_error_type": None if self.failure is None else self.failure["error_type"],
            "bfcl_error": None if self.failure is None else self.failure["message"],
            "failed_turn": None if self.failure is None else self.failure["turn"],
        }
        text = note or ("All requests handled." if success else f"Task over: {info['bfcl_error']}")
        return text, 1.0 if success else 0.0, True, False, info


def _tool_parser() -> Any:
    """The tool-use domain's action parser (JSON calls, ``<tool_call>`` tags, fenced JSON)."""
    return parse_tool_action


# -- SpadeEnv and suites ---------------------------------------------------------------------------------------------
def manifest_for(entry: BfclEntry) -> EnvManifest:
    """The manifest of one task's environment (long enough for every turn at BFCL's step limit)."""
    return EnvManifest.from_dict({
        "name": f"BFCL.{entry.id}", "domain": "tool_use", "description": INSTRUCTIONS,
        "reward_range": [0.0, 1.0], "max_turns": min(1000, entry.turns * (MAXIMUM_STEP_LIMIT + 2)),
        "tools": sorted({d["name"] for d in entry.functions}
                        | {d["name"] for docs in entry.added_functions.values() for d in docs}),
        "tags": ["benchmark", "bfcl", f"bfcl_{entry.category}"], "max_obs_chars": 1_000_000,
        "max_action_chars": 32_768, "grounding": "Berkeley Function Calling Leaderboard v4, multi-turn",
        "extra": {"bfcl_id": entry.id, "category": entry.category},
    }, source=entry.id)


def make_env(entry: BfclEntry | str) -> SpadeEnv:
    """A fresh :class:`SpadeEnv` for one task (an entry or its BFCL id)."""
    entry = get_entry(entry) if isinstance(entry, str) else entry
    return trusted_env(manifest_for(entry), functools.partial(BfclMultiTurnEnv, entry), f"bfcl/{entry.id}")


SYSTEM_PROMPT = "{description}"


def load_suite(category: str, *, argument: str | None = None, limit: int | None = None, **_: Any) -> Suite:
    """The suite of one category: every task in BFCL's order (the first ``limit``)."""
    entries = load_entries(category)
    if limit is not None:
        entries = entries[:limit]
    tasks = tuple(EvalTask(e.id, functools.partial(make_env, e), 0, {}, {"category": category}) for e in entries)
    return Suite(f"bfcl-multi-turn-{category.replace('_', '-')}",
                 f"BFCL v4 multi-turn {category} ({len(tasks)} tasks)", tasks, SYSTEM_PROMPT, max_new_tokens=256,
                 tags=("bfcl", "tool_use"), batch_size=1)


def load_base(**kwargs: Any) -> Suite:
    return load_suite("base", **kwargs)


def load_miss_func(**kwargs: Any) -> Suite:
    return load_suite("miss_func", **kwargs)


def load_miss_param(**kwargs: Any) -> Suite:
    return load_suite("miss_param", **kwargs)


def load_long_context(**kwargs: Any) -> Suite:
    return load_suite("long_context", **kwargs)
