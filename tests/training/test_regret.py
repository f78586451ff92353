"""Regret estimator: properties (hypothesis), gates, and the paired difference on a scripted policy."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from training_envs import make_training_env, secret_of

from spade_core.models.base import SamplingParams
from spade_core.rollout import EpisodeRunner, RolloutConfig, ScriptedPolicy
from spade_core.training import (
    RegretConfig,
    RegretEstimator,
    TrainingConfigError,
    TrainingInputError,
    estimate_regret,
    paired_specs,
    regret_from_trajectories,
)

pairs = st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=24)
configs = st.builds(
    RegretConfig,
    prior_alpha=st.floats(0.1, 5), prior_beta=st.floats(0.1, 5), statistic=st.sampled_from(["mean", "lcb"]),
    z=st.floats(0, 3), learnability_weight=st.floats(0, 1), clamp_at_zero=st.booleans(),
)


def split(rows):
    return [float(h) for h, _ in rows], [float(u) for _, u in rows]


@given(pairs, configs)
def test_bounds(rows, config: RegretConfig) -> None:
    est = estimate_regret(*split(rows), config)
    assert 0.0 < est.p_hint < 1.0 and 0.0 < est.p_nohint < 1.0
    assert -1.0 < est.regret < 1.0 and -1.0 <= est.raw_regret <= 1.0
    assert abs(est.regret) <= abs(est.raw_regret) + 1e-12  # shrinkage pulls towards 0
    assert est.std_error >= 0.0 and est.lower_bound <= est.regret
    assert 0.0 <= est.learnability <= 1.0
    assert min(config.invalid_reward, config.no_hint_success_penalty, -1.0) <= est.reward <= 1.0
    if est.gate == "scored" and config.clamp_at_zero:
        assert est.reward >= 0.0


@given(pairs, configs, st.randoms(use_true_random=False))
def test_permuting_seed_pairs_does_not_change_the_estimate(rows, config: RegretConfig, rng) -> None:
    shuffled = list(rows)
    rng.shuffle(shuffled)
    a = estimate_regret(*split(rows), config).to_dict()
    b = estimate_regret(*split(shuffled), config).to_dict()
    assert a.keys() == b.keys()
    for key in a:
        assert a[key] == pytest.approx(b[key], abs=1e-12), key


@given(pairs)
def test_swapping_arms_negates_the_regret(rows) -> None:
    h, u = split(rows)
    assert estimate_regret(h, u).regret == pytest.approx(-estimate_regret(u, h).regret)


def test_gates() -> None:
    cfg = RegretConfig(no_hint_success_penalty=-0.3)
    assert estimate_regret([1, 0], [0, 0], valid=False).gate == "invalid"
    assert estimate_regret([1, 0], [0, 0], valid=False).reward == -1.0
    never = estimate_regret([0, 0, 0], [0, 0, 0], cfg)
    assert (never.gate, never.reward) == ("no_hint_success", -0.3)
    trivial = estimate_regret([1, 1, 1], [1, 1, 1], cfg)
    assert (trivial.gate, trivial.reward) == ("trivial", 0.0)
    misleading = estimate_regret([1, 0, 0, 0], [1, 1, 1, 0])
    assert misleading.misleading_hint and misleading.regret < 0 and misleading.reward == 0.0
    scored = estimate_regret([1, 1, 1, 1], [0, 0, 1, 0])
    assert scored.gate == "scored" and scored.reward == pytest.approx(scored.regret) == pytest.approx(3 / 6)


def test_shrinkage_standard_error_and_learnability_blend() -> None:
    h, u = [1.0] * 4 + [0.0] * 4, [0.0] * 8
    u[0] = 1.0
    est = estimate_regret(h, u)
    assert est.p_hint == pytest.approx(5 / 10) and est.p_nohint == pytest.approx(2 / 10)
    assert est.raw_regret == pytest.approx(3 / 8) and est.regret == pytest.approx(0.3)
    cov = sum((a - 0.5) * (b - 0.125) for a, b in zip(h, u)) / 8
    assert est.std_error == pytest.approx(((0.25 + 0.16 - 2 * cov) / 8) ** 0.5)
    lcb = estimate_regret(h, u, RegretConfig(statistic="lcb", z=1.0))
    assert lcb.reward == pytest.approx(max(est.regret - est.std_error, 0.0))
    blend = estimate_regret(h, u, RegretConfig(learnability_weight=0.5))
    assert blend.reward == pytest.approx(0.5 * 0.3 + 0.5 * 4 * 0.2 * 0.8)


def test_bad_inputs_and_config() -> None:
    with pytest.raises(TrainingInputError, match="one of each per seed"):
        estimate_regret([1, 0], [1])
    with pytest.raises(TrainingInputError, match=r"\[0, 1\]"):
        estimate_regret([2], [0])
    with pytest.raises(TrainingConfigError, match="statistic"):
        RegretConfig(statistic="median")


def hint_reader(prompt: str) -> str:
    """Scripted agent: uses the hint when it has one, otherwise always guesses 3."""
    found = re.search(r"The secret is (\d)", prompt)
    return found.group(1) if found else "3"


def test_regret_equals_the_paired_difference_on_a_scripted_policy(tiny_model_dir) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    runner = EpisodeRunner(ScriptedPolicy(tokenizer, hint_reader), RolloutConfig(sampling=SamplingParams(max_new_tokens=4)),
                           make_env=make_training_env)
    seeds = list(range(16))
    undefended = RegretConfig(k=16, objective="regret")
    estimate, trajectories = RegretEstimator(runner, undefended).estimate("test/SecretGuess", seeds)
    assert len(trajectories) == 32 and runner.generator.calls == 1  # all 2K episodes in one batched call
    expected = [1.0 - float(secret_of(s) == 3) for s in seeds]  # hinted always right; unhinted right iff secret 3
    assert 0 < sum(expected) < len(seeds)
    assert estimate.raw_regret == pytest.approx(sum(expected) / len(seeds))
    unhinted_wins = len(seeds) - sum(expected)
    assert estimate.regret == pytest.approx((16 - unhinted_wins) / (16 + 2))
    assert estimate.hinted_successes == 16 and estimate.gate == "scored" and estimate.reward > 0
    for t in trajectories:
        assert t.hinted == ("The secret is" in tokenizer.decode(t.prompt_ids))
    reordered = sorted(trajectories, key=lambda t: (-t.seed, t.hinted))
    assert regret_from_trajectories(reordered, undefended) == estimate


def test_the_defended_objective_plays_the_hint_alone_and_pays_nothing_for_a_hint_that_is_the_answer(
        tiny_model_dir) -> None:
    """SecretGuess's hint names the secret: the hint alone solves it, so the regret (about 0.9) earns nothing."""
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_dir)
    runner = EpisodeRunner(ScriptedPolicy(tokenizer, hint_reader), RolloutConfig(sampling=SamplingParams(max_new_tokens=4)),
                           make_env=make_training_env)
    estimate, trajectories = RegretEstimator(runner, RegretConfig(k=16)).estimate("test/SecretGuess", range(16))
    assert len(trajectories) == 48 and runner.generator.calls == 1  # 3K episodes, one batched call
    alone = [t for t in trajectories if t.hint_only]
    assert len(alone) == 16 and all(t.hinted and t.success for t in alone)
    for t in alone:  # the hint without the task: the observation is withheld
        prompt = tokenizer.decode(t.prompt_ids)
        assert "The secret is" in prompt and "Guess the secret digit (0-9)" not in prompt
    assert estimate.regret > 0.5 and estimate.hint_only_episodes == 16 and estimate.hint_only_successes == 16
    assert (estimate.gate, estimate.reward) == ("hint_only", 0.0)
    assert estimate.rates == {"hinted": 1.0, "unhinted": estimate.unhinted_successes / 16, "hint_only": 1.0}


def test_paired_specs_and_failed_pairs() -> None:
    specs = paired_specs("test/SecretGuess", [3, 5])
    assert [(s.seed, s.hinted) for s in specs] == [(3, True), (3, False), (5, True), (5, False)]
    with pytest.raises(TrainingInputError, match="has no unhinted episode"):
        from spade_core.models.base import TokenDistribution
        from spade_core.rollout import single_turn_trajectory

        lone = single_turn_trajectory([1], [2], [0.0], distribution=TokenDistribution(), role="agent", group_id="g",
                                      episode_id="e")
        lone.seed, lone.hinted = 1, True
        regret_from_trajectories([lone])


def test_environment_errors_in_most_pairs_make_the_environment_invalid(tiny_model_dir) -> None:
    from transformers import AutoTokenizer

    runner = EpisodeRunner(ScriptedPolicy(AutoTokenizer.from_pretrained(tiny_model_dir), hint_reader),
                           make_env=make_training_env)
    estimate, trajectories = RegretEstimator(runner, RegretConfig(k=4)).estimate("test/BrokenHint")
    assert all(t.failure == "env_error" for t in trajectories if t.hinted)
    assert all(t.failure is None for t in trajectories if not t.hinted)
    assert (estimate.gate, estimate.reward, estimate.failed_pairs, estimate.pairs) == ("invalid", -1.0, 4, 0)
