"""One rank of the TRL data-parallel test (launched by torchrun from test_trl_backend.py).

Rank 0 plays episodes on the tiny model and drives two updates through DataParallelDriver; every rank saves its
trainable parameters afterwards so the test can compare them with one process taking the same updates."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import torch

import spade_core  # noqa: F401 - registers the bundled spade/* environments
from spade_core.models.base import SamplingParams
from spade_core.rollout import EpisodeRunner, EpisodeSpec, RolloutConfig
from spade_core.training.data_parallel import DataParallel, DataParallelDriver, serve
from spade_trainers.trl.backend import build_trl_trainer

SETTINGS = {"learning_rate": 1e-2, "max_completion_length": 64, "num_generations": 2, "device": "cpu",
            "per_device_train_batch_size": 2, "gradient_accumulation_steps": 2, "beta": 0.05}


def main(model_dir: str, out: str, loss_type: str) -> None:
    torch.set_num_threads(1)
    group = DataParallel.from_env()
    assert group is not None and group.world == 2
    settings = {**SETTINGS, "loss_type": loss_type, "output_dir": str(Path(out) / f"trl{group.rank}")}
    trainer = build_trl_trainer(model_dir, config=settings, data_parallel=group)
    if group.is_driver:
        driver = DataParallelDriver(trainer, group)
        runner = EpisodeRunner(driver.generator, RolloutConfig(sampling=SamplingParams(max_new_tokens=4), seed=0))
        specs = [EpisodeSpec("spade/ArithmeticChain-v0", seed=i % 2, group_id=f"g{i % 2}") for i in range(7)]
        trajectories = runner.run(specs).trajectories
        advantages = [1.0 if i % 3 else -1.0 for i in range(len(trajectories))]
        metrics = [driver.update(trajectories, advantages), driver.update(trajectories, [-a for a in advantages])]
        driver.close()
        with open(Path(out) / "batch.pkl", "wb") as handle:
            pickle.dump((trajectories, advantages, metrics), handle)
    else:
        assert serve(trainer, group) == 2
    torch.save({k: v.detach().clone() for k, v in trainer.model.state_dict().items()}, Path(out) / f"rank{group.rank}.pt")


if __name__ == "__main__":
    main(*sys.argv[1:])
    DataParallel.from_env().leave()  # every rank, last
