"""reasoning-gym suites: reference answers pass the generators' own scorers; retries give feedback, not answers."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "reasoning_gym", reason="reasoning-gym is not installed (the 'eval' extra: pip install 'spade-rl[eval]')"
)

from spade_core.evaluation import BenchmarkDataError, load_suite
from spade_domains.benchmarks import reasoning


def _play(env, actions):
    obs, _ = env.reset(seed=0)
    for action in actions:
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            return obs, reward, info
    raise AssertionError("episode still running")


@pytest.mark.parametrize("name", reasoning.DEFAULT_DATASETS)
def test_reference_answers_score_full_marks(name: str) -> None:
    for index in range(10):
        env = reasoning.make_env(name, index, 10)
        env.reset(seed=0)
        _, reward, terminated, _, info = env.step(env.reference_action())
        assert terminated and info["success"] and reward == 1.0, (name, index, info)


@pytest.mark.parametrize("name", reasoning.DEFAULT_DATASETS)
def test_wrong_and_untagged_answers_fail(name: str) -> None:
    env = reasoning.make_env(name, 0, 1)
    _, reward, info = _play(env, ["<answer>definitely not it 123456</answer>"])
    assert not info["success"] and reward < 1.0 and info["format_error"] is None
    env = reasoning.make_env(name, 0, 1)
    reference = env.spawn()
    reference.reset(seed=0)
    bare = reference.reference_action().removeprefix("<answer>").removesuffix("</answer>")
    _, reward, info = _play(env, [bare])  # the right answer, but not in <answer> tags
    assert not info["success"] and "answer" in info["format_error"]


def test_retry_gives_feedback_then_accepts_a_corrected_answer() -> None:
    env = reasoning.make_env("chain_sum", 3, 5, attempts=3)
    obs, _ = env.reset(seed=0)
    answer = env.reference_action()
    obs, reward, terminated, _, info = env.step("<answer>-99999</answer>")
    assert not terminated and reward == 0.0 and "2 attempt(s) left" in obs
    assert answer.removeprefix("<answer>").removesuffix("</answer>") not in obs  # feedback never leaks the answer
    obs, reward, terminated, _, info = env.step(answer)
    assert terminated and info["success"] and info["attempt"] == 2 and reward == 1.0


def test_retry_ends_after_the_last_attempt() -> None:
    env = reasoning.make_env("basic_arithmetic", 1, 5, attempts=2)
    _, reward, info = _play(env, ["<answer>x</answer>", "<answer>y</answer>"])
    assert not info["success"] and info["attempt"] == 2


def test_suites_interleave_datasets_and_accept_a_dataset_argument() -> None:
    suite = load_suite("reasoning-gym", limit=7)
    assert [t.task_id for t in suite.tasks][:5] == [f"{n}/0" for n in reasoning.DEFAULT_DATASETS]
    assert len(suite.tasks) == 7 and "<answer>" in suite.system_prompt
    one = load_suite("reasoning-gym-retry:letter_counting", limit=3)
    assert one.name == "reasoning-gym-retry:letter_counting"
    assert [t.task_id for t in one.tasks] == ["letter_counting/0", "letter_counting/1", "letter_counting/2"]
    assert one.tasks[0].make_env().manifest.max_turns == reasoning.DEFAULT_ATTEMPTS


def test_items_do_not_depend_on_the_suite_size() -> None:
    small = load_suite("reasoning-gym:simple_equations", limit=2).tasks[1].make_env().reset(seed=0)[0]
    large = load_suite("reasoning-gym:simple_equations", limit=40).tasks[1].make_env().reset(seed=0)[0]
    assert small == large


def test_unknown_dataset_is_reported_with_suggestions() -> None:
    with pytest.raises(BenchmarkDataError, match="chain_sum"):
        load_suite("reasoning-gym:chain_summ")
