"""BFCL v4 multi-turn adapter: ground-truth replay, agreement with BFCL's own checker, action formats."""

from __future__ import annotations

import json
import random
import uuid

import pytest

pytest.importorskip(
    "bfcl_eval",
    reason="bfcl-eval is not installed (the 'eval' extra: pip install 'spade-rl[eval]' && "
           "pip install --no-deps bfcl-eval); the BFCL replay and checker-agreement tests need it",
)

from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker

from spade_domains.benchmarks import bfcl

MIN_REPLAY_SUCCESS = 0.95


def _play_reference(entry: bfcl.BfclEntry) -> dict:
    env = bfcl.make_env(entry)
    env.reset(seed=0)
    while True:
        _, reward, terminated, truncated, info = env.step(env.reference_action())
        if terminated or truncated:
            assert reward == (1.0 if info["success"] else 0.0)
            return info


@pytest.mark.parametrize("category", bfcl.CATEGORIES)
def test_ground_truth_replay_succeeds(category: str) -> None:
    """Playing BFCL's own ground-truth call sequences (as JSON tool calls) scores success on >= 95% of tasks."""
    entries = bfcl.load_entries(category)
    assert len(entries) == 200
    failures = {}
    for entry in entries:
        info = _play_reference(entry)
        if not info["success"]:
            failures[entry.id] = (info["bfcl_error_type"], info["bfcl_error"])
    rate = 1 - len(failures) / len(entries)
    assert rate >= MIN_REPLAY_SUCCESS, f"{category}: replay success {rate:.1%}; failures: {failures}"
    assert not failures, f"{category}: every ground-truth replay is expected to pass; failed: {failures}"


# -- agreement with BFCL's checker ---------------------------------------------------------------------------------
def _play(entry: bfcl.BfclEntry, turns: list[list[list[bfcl.Call]]], *, python_syntax: bool) -> dict:
    """Play a trajectory (turns -> steps -> calls) through the environment, every turn, and return the final info."""
    env = bfcl.make_env(entry)
    env.reset(seed=0, options={"stop_at_failure": False})
    info: dict = {}
    for steps in turns:
        for step in steps:
            if python_syntax:
                action = "[" + ", ".join(c.to_bfcl() for c in step) + "]"
            else:
                action = json.dumps([{"name": c.name, "arguments": _keywords(entry, c)} for c in step])
            _, _, terminated, truncated, info = env.step(action)
            if terminated or truncated:
                return info
        _, _, terminated, truncated, info = env.step("Done with this request.")
        if terminated or truncated:
            return info
    raise AssertionError("the episode did not end after the last turn")


def _keywords(entry: bfcl.BfclEntry, call: bfcl.Call) -> dict:
    return dict(bfcl.ApiState(entry).keyword_call(call).kwargs)


def _bfcl_verdict(entry: bfcl.BfclEntry, decoded: list) -> tuple[bool, str | None]:
    """BFCL's own evaluation of a decoded model result: its runner's turn-count rule, then multi_turn_checker."""
    if len(decoded) != entry.turns:
        return False, "multi_turn:force_terminated"
    # A fresh model name per call: BFCL keeps API instances in module globals keyed by model name and task id.
    result = multi_turn_checker(decoded, [list(t) for t in entry.ground_truth], dict(entry.raw),
                                f"multi_turn_{entry.category}", f"spade_agreement_{uuid.uuid4().hex}")
    return result["valid"], result.get("error_type")


def _mutations(entry: bfcl.BfclEntry, rng: random.Random) -> dict[str, list[list[list[bfcl.Call]]]]:
    """Deliberately wrong (and a few harmless) variants of the ground-truth trajectory, one call per step."""
    def base() -> list[list[list[bfcl.Call]]]:
        return [[[bfcl.parse_python_call(c)] for c in turn] for turn in entry.ground_truth]

    busy = [i for i, turn in enumerate(entry.ground_truth) if turn]
    out: dict[str, list[list[list[bfcl.Call]]]] = {}
    t = rng.choice(busy)
    turns = base()
    turns[t].pop(rng.randrange(len(turns[t])))
    out["drop_call"] = turns
    turns = base()
    turns[t] = []
    out["skip_turn"] = turns
    turns = base()
    i = rng.randrange(len(turns[t]))
    call = turns[t][i][0]
    changed = _change_argument(call)
    if changed is not None:
        turns[t][i] = [changed]
        out["wrong_argument"] = turns
    turns = base()
    turns[t].insert(0, list(turns[t][0]))
    out["repeat_call"] = turns
    if len(entry.ground_truth[t]) > 1:
        turns = base()
        turns[t][0], turns[t][1] = turns[t][1], turns[t][0]
        out["swap_calls"] = turns
    if t + 1 < entry.turns:
        turns = base()
        turns[t + 1].insert(0, turns[t].pop())
        out["late_call"] = turns
    turns = base()
    turns[t] = [[c[0] for c in turns[t]]]
    out["one_step"] = turns  # harmless: the same calls in one step
    turns = base()
    turns[t] = turns[t] + [[turns[t][-1][0]]] * (bfcl.MAXIMUM_STEP_LIMIT + 1)
    out["step_flood"] = turns
    return out


def _change_argument(call: bfcl.Call) -> bfcl.Call | None:
    def bump(value):
        if isinstance(value, bool):
            return not value
        if isinstance(value, (int, float)):
            return value + 1
        if isinstance(value, str):
            return value + "_x"
        return None

    if call.kwargs:
        key = sorted(call.kwargs)[0]
        new = bump(call.kwargs[key])
        return None if new is None else bfcl.Call(call.name, call.args, {**call.kwargs, key: new})
    if call.args:
        new = bump(call.args[0])
        return None if new is None else bfcl.Call(call.name, (new, *call.args[1:]), call.kwargs)
    return None


def test_verdicts_agree_with_bfcl_checker_on_wrong_trajectories() -> None:
    """On a seeded sample of mutated ground-truth trajectories, our verdict (and failure type) equals BFCL's."""
    rng = random.Random(8)
    compared = wrong = 0
    disagreements = []
    for category in bfcl.CATEGORIES:
        for entry in rng.sample(bfcl.load_entries(category), 12):
            for kind, turns in _mutations(entry, rng).items():
                info = _play(entry, turns, python_syntax=rng.random() < 0.3)
                ours = (info["success"], info["bfcl_error_type"])
                theirs = _bfcl_verdict(entry, info["bfcl_decoded"])
                compared += 1
                wrong += not theirs[0]
                if ours[0] != theirs[0] or (not ours[0] and ours[1] != theirs[1]):
                    disagreements.append((entry.id, kind, ours, theirs))
    assert not disagreements, f"{len(disagreements)} of {compared} verdicts differ from BFCL's: {disagreements[:5]}"
    assert compared >= 300 and wrong >= 200, (compared, wrong)


def test_ground_truth_record_passes_bfcl_checker() -> None:
    """The executed-call record of a reference replay is valid for BFCL's checker too (cross-check helper)."""
    for category in bfcl.CATEGORIES:
        entry = bfcl.load_entries(category)[3]
        info = _play_reference(entry)
        assert info["success"]
        assert _bfcl_verdict(entry, info["bfcl_decoded"]) == (True, None)


# -- environment behaviour -----------------------------------------------------------------------------------------
def _entry(category: str = "base", index: int = 0) -> bfcl.BfclEntry:
    return bfcl.load_entries(category)[index]


def test_first_observation_lists_tools_and_first_request() -> None:
    entry = _entry()
    env = bfcl.make_env(entry)
    obs, info = env.reset(seed=0)
    assert obs.startswith("Available tools")
    for doc in entry.functions:
        assert f'"name": "{doc["name"]}"' in obs
    assert entry.raw["question"][0][0]["content"] in obs
    assert '"type": "dict"' not in obs and '"type": "float"' not in obs  # BFCL types mapped to JSON Schema
    assert info["bfcl_id"] == entry.id


def test_calls_execute_and_results_are_observed() -> None:
    env = bfcl.make_env(_entry())
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step('{"name": "cd", "arguments": {"folder": "document"}}')
    assert not (terminated or truncated) and reward == 0.0
    assert obs.startswith("Results:") and "current_working_directory" in obs and info["format_error"] is None
    obs, *_ = env.step('<tool_call>{"name": "ls", "arguments": {}}</tool_call>')
    assert "final_report.pdf" in obs
    obs, *_ = env.step("[pwd()]")  # BFCL's own Python-call format
    assert "/workspace/document" in obs


def test_plain_text_ends_the_turn_and_scoring_stops_at_the_first_failed_turn() -> None:
    entry = _entry()
    env = bfcl.make_env(entry)
    env.reset(seed=0)
    obs, reward, terminated, _, info = env.step("I will do that later.")
    assert terminated and reward == 0.0 and not info["success"]
    assert info["bfcl_error_type"] == "multi_turn:empty_turn_model_response" and info["failed_turn"] == 0


def test_format_error_ends_the_turn_without_executing() -> None:
    entry = _entry()
    env = bfcl.make_env(entry)
    env.reset(seed=0, options={"stop_at_failure": False})
    obs, _, terminated, _, info = env.step('{"name": "mkdir", "arguments": {"dir_name": "temp"')
    assert info["format_error"] and not info["action_is_valid"] and not terminated
    assert "not a valid tool call" in obs and "turn 2 of" in obs
    obs, _, _, _, info = env.step('{"name": "launch_rocket", "arguments": {}}')
    assert "launch_rocket" in info["format_error"]
    state = env.unwrapped.trusted_instance()
    assert state.decoded == [[], []]  # nothing was executed


def test_model_text_is_never_evaluated() -> None:
    env = bfcl.make_env(_entry())
    env.reset(seed=0, options={"stop_at_failure": False})
    _, _, _, _, info = env.step("[mkdir(dir_name=__import__('os').getcwd())]")
    assert info["format_error"] and "literal" in info["format_error"]
    obs, _, _, _, info = env.step('{"name": "mkdir", "arguments": {"dir_name": "__import__(\'os\')"}}')
    assert info["format_error"] is None  # a string argument stays a string


def test_miss_func_turn_adds_the_held_out_functions() -> None:
    entry = next(e for e in bfcl.load_entries("miss_func") if e.added_functions)
    turn, docs = next(iter(entry.added_functions.items()))
    names = {d["name"] for d in docs}
    assert not names & {d["name"] for d in entry.functions}
    env = bfcl.make_env(entry)
    obs, _ = env.reset(seed=0)
    assert all(f'"name": "{n}"' not in obs for n in names)
    for _ in range(turn):
        while (action := env.reference_action()) != bfcl.END_OF_TURN_ACTION:
            env.step(action)
        obs, _, terminated, _, _ = env.step(action)
        assert not terminated
    assert bfcl.ADDITIONAL_FUNCTION_PROMPT in obs
    assert all(f'"name": "{n}"' in obs for n in names)


def test_step_limit_force_quits_before_the_last_turn() -> None:
    entry = next(e for e in bfcl.load_entries("base") if e.turns >= 2)
    env = bfcl.make_env(entry)
    env.reset(seed=0)
    info = {}
    for _ in range(bfcl.MAXIMUM_STEP_LIMIT + 1):
        _, _, terminated, _, info = env.step('{"name": "pwd", "arguments": {}}' if "pwd" in
                                             env.unwrapped.trusted_instance().model.methods else "[]")
        if terminated:
            break
    assert terminated and info["bfcl_error_type"] == "multi_turn:force_terminated"


def test_hint_names_tools_but_no_arguments() -> None:
    entry = _entry()
    env = bfcl.make_env(entry)
    env.reset(seed=0)
    hint = env.privileged_hint()
    assert hint.startswith("Tools to call, in order:") and "cd" in hint
    assert "document" not in hint and "temp" not in hint


def test_environment_passes_gymnasium_checks() -> None:
    from gymnasium.utils.env_checker import check_env

    check_env(bfcl.make_env(_entry("miss_param", 5)), skip_render_check=True)


def test_suite_loads_every_category() -> None:
    from spade_core.evaluation import load_suite

    for category in bfcl.CATEGORIES:
        suite = load_suite(f"bfcl-multi-turn-{category.replace('_', '-')}", limit=3)
        assert [t.task_id for t in suite.tasks] == [f"multi_turn_{category}_{i}" for i in range(3)]
    assert len(load_suite("bfcl-multi-turn-base").tasks) == 200
