"""One rank of the data-parallel sampling test (launched by torchrun from test_data_parallel.py).

Rank 0 samples through :class:`ShardedGenerator` (every rank generates its share with its own replica), then asks
every rank to load a checkpoint that rank 1 cannot read, and samples again to show the group is still serving."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import torch

from spade_core.errors import SpadeError
from spade_core.models.base import SamplingParams
from spade_core.training.data_parallel import DataParallel, DataParallelDriver, DataParallelError, serve
from spade_trainers.reference.backend import build_reference_trainer
from spade_trainers.reference.config import ReferenceTrainerConfig

PROMPTS = [[5, 6, 7], [8, 9], [10, 11, 12, 13], [14], [15, 16]]
GROUP = [[20, 21, 22]] * 6  # a GRPO group: one prompt sampled six times
GREEDY = SamplingParams(max_new_tokens=4, temperature=0.0)
SAMPLED = SamplingParams(max_new_tokens=6, temperature=1.0, seed=11)


class UnreadableCheckpoint(SpadeError):
    """Raised by rank 1's trainer to stand in for a checkpoint only that rank cannot read."""


def main(model_dir: str, out: str) -> None:
    torch.set_num_threads(1)
    group = DataParallel.from_env()
    assert group is not None and group.world == 2
    trainer = build_reference_trainer(model_dir, config=ReferenceTrainerConfig(device="cpu"), data_parallel=group)
    if not group.is_driver:
        def unreadable(directory: str) -> dict:
            raise UnreadableCheckpoint(f"{directory}: permission denied on this rank")

        trainer.load = unreadable
        serve(trainer, group)
        return
    driver = DataParallelDriver(trainer, group)
    results: dict[str, object] = {
        "greedy": driver.generator.generate(PROMPTS, GREEDY),
        "chat": driver.generator.chat([[{"role": "user", "content": "hi"}], [{"role": "user", "content": "yo"}]],
                                      GREEDY),
        "group": driver.generator.generate(GROUP, SAMPLED),
        "empty": driver.generator.generate([], GREEDY),
    }
    driver.save(Path(out) / "checkpoint")
    try:
        driver.load(Path(out) / "checkpoint")
    except DataParallelError as exc:
        results["load_error"] = str(exc)
    results["after_error"] = driver.generator.generate(PROMPTS[:3], GREEDY)
    driver.close()
    with open(Path(out) / "sampling.pkl", "wb") as handle:
        pickle.dump(results, handle)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
    DataParallel.from_env().leave()  # every rank, last
