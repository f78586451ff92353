"""``run_suite``: batched rounds, per-task results, summaries; the tiny model on a few tasks of every suite."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from pathlib import Path

import pytest

from spade_core.evaluation import EvaluationError, Suite, load_suite, read_run, run_suite
from spade_core.evaluation.results import write_suite_run
from spade_core.evaluation.stats import wilson_interval
from spade_core.models.base import Generation, ModelBackend, SamplingParams

try:
    import reasoning_gym  # noqa: F401

    HAVE_RG = True
except ImportError:
    HAVE_RG = False
try:
    import bfcl_eval  # noqa: F401

    HAVE_BFCL = True
except ImportError:
    HAVE_BFCL = False
needs_rg = pytest.mark.skipif(not HAVE_RG, reason="reasoning-gym is not installed (pip install 'spade-rl[eval]')")
needs_bfcl = pytest.mark.skipif(not HAVE_BFCL, reason="bfcl-eval is not installed (the 'eval' extra)")


class ScriptedPolicy:
    """A rule-based agent behind the ModelBackend interface: answers each question from a table of replies.

    ``replies[question]`` is the list of replies for successive turns of that task (the last one repeats).
    Conversations whose first user message contains ``explode_on`` make the whole batch call raise.
    """

    name = "scripted"
    tokenizer = None
    max_batch_size = 7  # like an in-process backend; run_suite may set it per suite

    def __init__(self, replies: dict[str, list[str]], explode_on: str | None = None) -> None:
        self.replies = replies
        self.explode_on = explode_on
        self.calls: list[int] = []
        self.batch_sizes_seen: list[int] = []

    def generate(self, prompts: Sequence[Sequence[int]], params: SamplingParams) -> list[Generation]:
        raise NotImplementedError("the scripted policy answers chat conversations only")

    def chat(self, conversations: Sequence[Sequence[dict[str, str]]], params: SamplingParams) -> list[Generation]:
        self.calls.append(len(conversations))
        self.batch_sizes_seen.append(self.max_batch_size)
        out = []
        for conversation in conversations:
            question = next(m["content"] for m in conversation if m["role"] == "user")
            if self.explode_on and self.explode_on in question:
                raise RuntimeError("backend failure for this prompt")
            turn = sum(1 for m in conversation if m["role"] == "assistant")
            replies = self.replies[question]
            out.append(Generation([], [1], replies[min(turn, len(replies) - 1)]))
        return out

    def sync_weights(self, state_dict: dict) -> None:
        return None


def _questions(suite: Suite) -> list[tuple[str, str]]:
    """(question, reference reply) per task, read from fresh environments."""
    out = []
    for task in suite.tasks:
        env = task.make_env()
        question, _ = env.reset(seed=task.seed)
        out.append((question, env.reference_action()))
    return out


def test_scripted_policy_is_a_model_backend() -> None:
    assert isinstance(ScriptedPolicy({}), ModelBackend)


@needs_rg
def test_perfect_policy_scores_everything_in_one_batched_round(tmp_path: Path) -> None:
    suite = load_suite("reasoning-gym", limit=10)
    policy = ScriptedPolicy({q: [ref] for q, ref in _questions(suite)})
    run = run_suite(policy, suite)
    write_suite_run(run, tmp_path)
    assert policy.calls == [10]  # every task's turn in one chat call
    assert run.stats["generate_calls"] == 1 and run.stats["max_batch"] == 10
    s = run.summary
    assert (s.n, s.successes, s.success_rate, s.mean_turns, s.format_error_rate, s.errors) == (10, 10, 1.0, 1.0, 0.0, 0)
    assert (s.ci_low, s.ci_high) == pytest.approx(wilson_interval(10, 10))
    record = read_run(tmp_path)
    assert [r.task_id for r in record.results["reasoning-gym"]] == [t.task_id for t in suite.tasks]
    assert record.summaries["reasoning-gym"] == s


@needs_rg
def test_retry_rounds_batch_only_the_tasks_still_running() -> None:
    suite = load_suite("reasoning-gym-retry", limit=5)
    qs = _questions(suite)
    # task 0 right at once, task 1 on the 2nd try, the rest never (and task 4 never uses answer tags)
    replies = {qs[0][0]: [qs[0][1]], qs[1][0]: ["<answer>nope</answer>", qs[1][1]],
               qs[2][0]: ["<answer>nope</answer>"], qs[3][0]: ["<answer>nope</answer>"], qs[4][0]: ["no tags"]}
    policy = ScriptedPolicy(replies)
    run = run_suite(policy, suite)
    assert policy.calls == [5, 4, 3]
    by_id = {r.task_id: r for r in run.results}
    assert [r.success for r in run.results] == [True, True, False, False, False]
    assert by_id[suite.tasks[1].task_id].turns == 2 and by_id[suite.tasks[2].task_id].turns == 3
    assert run.summary.mean_turns == pytest.approx((1 + 2 + 3 + 3 + 3) / 5)
    assert run.summary.format_error_rate == pytest.approx(3 / 12)
    transcript = by_id[suite.tasks[1].task_id].transcript
    assert [m["role"] for m in transcript] == ["system", "user", "assistant", "user", "assistant"]
    assert "attempt(s) left" in transcript[3]["content"]


@needs_rg
def test_a_failing_prompt_fails_only_its_task() -> None:
    suite = load_suite("reasoning-gym:basic_arithmetic", limit=4)
    qs = _questions(suite)
    policy = ScriptedPolicy({q: [ref] for q, ref in qs}, explode_on=qs[2][0])
    run = run_suite(policy, suite)
    assert [r.finish for r in run.results] == ["terminated", "terminated", "error", "terminated"]
    assert "backend failure" in run.results[2].error and not run.results[2].success
    assert run.summary.successes == 3 and run.summary.errors == 1
    assert policy.calls == [4, 1, 1, 1, 1]  # the batch failed, then one by one


@needs_rg
def test_max_concurrent_and_limit() -> None:
    suite = load_suite("reasoning-gym", limit=6)
    policy = ScriptedPolicy({q: [ref] for q, ref in _questions(suite)})
    run = run_suite(policy, suite, limit=5, max_concurrent=2, keep_transcripts=False)
    assert policy.calls == [2, 2, 1] and len(run.results) == 5
    assert all(r.transcript is None for r in run.results)
    assert "transcript" not in run.results[0].to_dict()
    with pytest.raises(EvaluationError):
        run_suite(policy, suite, max_concurrent=0)


@needs_rg
def test_batch_size_applies_for_the_run_only() -> None:
    suite = load_suite("reasoning-gym", limit=2)
    policy = ScriptedPolicy({q: [ref] for q, ref in _questions(suite)})
    run_suite(policy, suite, batch_size=3)
    run_suite(policy, dataclasses.replace(suite, batch_size=2))
    run_suite(policy, suite)
    assert policy.batch_sizes_seen == [3, 2, 7] and policy.max_batch_size == 7


@needs_rg
def test_progress_callback_sees_every_task() -> None:
    suite = load_suite("reasoning-gym", limit=3)
    seen = []
    run_suite(ScriptedPolicy({q: [ref] for q, ref in _questions(suite)}), suite,
              progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 3), (2, 3), (3, 3)]


# -- the tiny real model on every suite ------------------------------------------------------------------------------
TINY = SamplingParams(max_new_tokens=6, temperature=0.0)


def _check_real_run(run, n: int) -> None:
    assert len(run.results) == n and run.summary.n == n
    assert all(r.finish in ("terminated", "truncated") for r in run.results), [r.error for r in run.results]
    assert all(r.turns >= 1 and r.generated_tokens >= 1 for r in run.results)
    assert 0.0 <= run.summary.success_rate <= 1.0 and run.summary.ci_low <= run.summary.success_rate
    assert run.stats["max_batch"] == n  # the first round sends every task at once


@needs_bfcl
def test_tiny_model_on_bfcl(tiny_backend, tmp_path: Path) -> None:
    suite = load_suite("bfcl-multi-turn-base", limit=2)
    run = run_suite(tiny_backend, suite, sampling=TINY)
    write_suite_run(run, tmp_path)
    _check_real_run(run, 2)
    assert run.summary.successes == 0  # a random 2-layer model cannot solve BFCL
    for result in run.results:
        assert result.info["bfcl_error_type"] is not None and result.info["bfcl_decoded"] is not None
    rows = [json.loads(line) for line in (tmp_path / "bfcl-multi-turn-base.jsonl").read_text().splitlines()]
    assert [r["task_id"] for r in rows] == ["multi_turn_base_0", "multi_turn_base_1"]
    assert rows[0]["transcript"][1]["content"].startswith("Available tools")


@needs_rg
@pytest.mark.parametrize("name", ["reasoning-gym", "reasoning-gym-retry"])
def test_tiny_model_on_reasoning_gym(tiny_backend, name: str) -> None:
    run = run_suite(tiny_backend, load_suite(name, limit=5), sampling=TINY)
    _check_real_run(run, 5)


def test_tiny_model_on_a_jsonl_file(tiny_backend, tmp_path: Path) -> None:
    path = tmp_path / "mini.jsonl"
    path.write_text("".join(json.dumps({"question": f"What is {i} + {i}?", "answer": f"#### {2 * i}"}) + "\n"
                            for i in range(3)))
    run = run_suite(tiny_backend, load_suite(f"jsonl:{path}"), sampling=TINY)
    _check_real_run(run, 3)
    assert run.summary.mean_turns == 1.0
