"""One rank of the FSDP test (launched by torchrun from test_sharding.py).

Both ranks shard the tiny model (FSDP2, gloo) and sample with a separate engine each. Rank 0 plays episodes, then
every rank takes one update (pushed to and verified against its engine), saves a checkpoint together, takes a second
update, reloads the checkpoint and takes the second update again. With ``resume`` (run on 3 ranks), the ranks load
that 2-rank checkpoint and take the second update once more; with ``stream``, every rank starts from the meta device
(weights read from the model folder's files) and takes the first update again."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import torch
from training_envs import make_training_env

from spade_core.models.base import SamplingParams
from spade_core.models.hf_generator import HFGenerator
from spade_core.models.loading import load_model
from spade_core.rollout import EpisodeRunner, EpisodeSpec, RolloutConfig
from spade_core.training.data_parallel import DataParallel, DataParallelDriver, serve
from spade_trainers.reference.backend import build_reference_trainer
from spade_trainers.reference.config import ReferenceTrainerConfig

# context_gradient: a sharded model always backpropagates through the prompt, so the one-process update it is
# compared with does too
SETTINGS = {"device": "cpu", "learning_rate": 1e-2, "max_completion_tokens": 8, "micro_batch_size": 2,
            "mini_batches": 2, "kl_coef": 0.05, "context_gradient": True}


def pushed(engine: HFGenerator) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in engine.model.state_dict().items()}


def main(model_dir: str, out: str, mode: str = "train") -> None:
    torch.set_num_threads(1)
    group = DataParallel.from_env()
    assert group is not None and group.world == (3 if mode == "resume" else 2)
    engine = HFGenerator.from_pretrained(model_dir, device="cpu")
    pushes: list[list[str]] = []  # the keys of each sync_weights call: a sharded push arrives in chunks
    load = engine.sync_weights
    engine.sync_weights = lambda state: (pushes.append(sorted(state)), load(state))[1]
    config = ReferenceTrainerConfig(sharding="fsdp", push_chunk_mb=0.1, **SETTINGS)
    # "train" and "resume": only rank 0 loads the weights and shares them out; the others build the architecture
    # on the meta device. "stream": every rank starts on the meta device and the shards are read from the files.
    loaded = load_model(model_dir, device="cpu", weights=group.is_driver and mode != "stream")
    trainer = build_reference_trainer(loaded.model, loaded.tokenizer, config=config, generator=engine,
                                      data_parallel=group)
    if mode in ("resume", "stream"):
        replay(trainer, group, engine, Path(out), mode)
        return
    if not group.is_driver:
        assert serve(trainer, group) == 3
        torch.save(trainer.policy_state_dict(), Path(out) / "rank1.pt")  # after the driver released the group
        return
    driver = DataParallelDriver(trainer, group)
    runner = EpisodeRunner(driver.generator, RolloutConfig(sampling=SamplingParams(max_new_tokens=3)),
                           make_env=make_training_env)
    specs = [EpisodeSpec("test/TwoTurnDigits", seed=0, group_id="g") for _ in range(7)]
    trajectories = runner.run(specs, seed=3).trajectories
    advantages = [1.0 if i % 3 else -1.0 for i in range(len(trajectories))]
    first = driver.update(trajectories, advantages)
    after_first = pushed(engine)  # gathering the shards would need every rank; the engine holds the verified push
    driver.save(Path(out) / "checkpoint", loop_state={"iteration": 0})
    second_advantages = [-a for a in advantages]
    driver.update(trajectories, second_advantages)
    after_second = pushed(engine)
    loop_state = driver.load(Path(out) / "checkpoint")
    reloaded = pushed(engine)
    again = driver.update(trajectories, second_advantages)
    driver.close()
    torch.save(trainer.policy_state_dict(), Path(out) / "rank0.pt")
    with open(Path(out) / "fsdp.pkl", "wb") as handle:
        pickle.dump({"trajectories": trajectories, "advantages": advantages, "first": first, "again": again,
                     "after_first": after_first, "after_second": after_second, "reloaded": reloaded,
                     "loop_state": loop_state, "engine": pushed(engine),
                     "pushes": pushes}, handle)


def replay(trainer: object, group: DataParallel, engine: HFGenerator, out: Path, mode: str) -> None:
    """``stream``: the first update again; ``resume``: the checkpoint, then the second update again."""
    if not group.is_driver:
        serve(trainer, group)
        return
    with open(out / "fsdp.pkl", "rb") as handle:
        run = pickle.load(handle)
    driver = DataParallelDriver(trainer, group)
    advantages = run["advantages"]
    if mode == "resume":
        driver.load(out / "checkpoint")
        advantages = [-a for a in advantages]
    metrics = driver.update(run["trajectories"], advantages)
    driver.close()
    with open(out / f"{mode}.pkl", "wb") as handle:
        pickle.dump({"metrics": metrics, "engine": pushed(engine)}, handle)


if __name__ == "__main__":
    main(*sys.argv[1:])
    DataParallel.from_env().leave()  # every rank, last
