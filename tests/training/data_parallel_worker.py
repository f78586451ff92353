"""One rank of the data-parallel update test (launched by torchrun from test_data_parallel.py).

Rank 0 plays episodes on the tiny model, drives one update through DataParallelDriver and saves the batch; every
rank saves its trainable parameters afterwards so the test can compare them with a one-process update."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import torch
from training_envs import make_training_env

from spade_core.models.base import SamplingParams
from spade_core.rollout import EpisodeRunner, EpisodeSpec, RolloutConfig
from spade_core.training.data_parallel import DataParallel, DataParallelDriver, serve
from spade_trainers.reference.backend import build_reference_trainer
from spade_trainers.reference.config import ReferenceTrainerConfig

SETTINGS = {"device": "cpu", "learning_rate": 1e-2, "max_completion_tokens": 8, "micro_batch_size": 2,
            "mini_batches": 2}


def main(model_dir: str, out: str) -> None:
    torch.set_num_threads(1)
    group = DataParallel.from_env()
    assert group is not None and group.world == 2
    trainer = build_reference_trainer(model_dir, config=ReferenceTrainerConfig(**SETTINGS), data_parallel=group)
    if group.is_driver:
        runner = EpisodeRunner(trainer.generator, RolloutConfig(sampling=SamplingParams(max_new_tokens=3)),
                               make_env=make_training_env)
        specs = [EpisodeSpec("test/TwoTurnDigits", seed=0, group_id="g") for _ in range(7)]
        trajectories = runner.run(specs, seed=3).trajectories
        advantages = [1.0 if i % 3 else -1.0 for i in range(len(trajectories))]
        driver = DataParallelDriver(trainer, group)
        metrics = driver.update(trajectories, advantages)
        driver.close()
        with open(Path(out) / "batch.pkl", "wb") as handle:
            pickle.dump((trajectories, advantages, metrics), handle)
    else:
        updates = serve(trainer, group)
        assert updates == 1
    state = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
    torch.save(state, Path(out) / f"rank{group.rank}.pt")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    DataParallel.from_env().leave()  # every rank, last
