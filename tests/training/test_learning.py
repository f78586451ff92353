"""The reference backend learns: on a task with a real signal, the tiny model's mean reward rises clearly."""

from __future__ import annotations

from training_envs import make_training_env

from spade_core.models.base import SamplingParams
from spade_core.rollout import EpisodeRunner, EpisodeSpec, RolloutConfig
from spade_core.training import AdvantageConfig, AdvantageEstimator
from spade_trainers.reference.backend import build_reference_trainer
from spade_trainers.reference.config import ReferenceTrainerConfig

STEPS = 20
GROUP = 32


def test_mean_reward_rises_over_a_few_dozen_steps(tiny_model_dir) -> None:
    """Reward 1 when the reply starts with a digit: ~3% for the random model; GRPO-style updates must find it."""
    trainer = build_reference_trainer(tiny_model_dir, config=ReferenceTrainerConfig(
        device="cpu", learning_rate=3e-2, max_completion_tokens=1, micro_batch_size=GROUP, seed=0))
    runner = EpisodeRunner(trainer.generator, RolloutConfig(sampling=SamplingParams(max_new_tokens=1)),
                           make_env=make_training_env)
    estimator = AdvantageEstimator(AdvantageConfig("dr_grpo"))
    means = []
    for step in range(STEPS):
        batch = runner.run([EpisodeSpec("test/FirstDigit", seed=step, group_id="g") for _ in range(GROUP)],
                           seed=step).trajectories
        means.append(sum(t.reward for t in batch) / len(batch))
        trainer.update(batch, estimator.compute(batch))
    start, end = sum(means[:4]) / 4, sum(means[-4:]) / 4
    assert start < 0.2, means
    assert end >= 0.6 and end - start >= 0.4, means
