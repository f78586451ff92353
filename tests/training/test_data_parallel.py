"""Data-parallel updates over two real processes (torchrun, gloo): replicas stay identical and the update equals
the one-process update over the same batch."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import torch
from data_parallel_worker import SETTINGS
from launch_ranks import launch_ranks

from spade_core.training.data_parallel import DataParallel, DataParallelDriver, DataParallelError
from spade_trainers.reference.backend import build_reference_trainer
from spade_trainers.reference.config import ReferenceTrainerConfig

HERE = Path(__file__).resolve().parent


def test_two_ranks_match_one_process(tiny_model_dir: Path, tmp_path: Path) -> None:
    result = launch_ranks(2, HERE / "data_parallel_worker.py", str(tiny_model_dir), str(tmp_path), pythonpath=HERE)
    assert result.returncode == 0, result.stderr[-3000:]
    rank0 = torch.load(tmp_path / "rank0.pt")
    rank1 = torch.load(tmp_path / "rank1.pt")
    assert all(torch.equal(rank0[k], rank1[k]) for k in rank0)  # the replicas never drift
    with open(tmp_path / "batch.pkl", "rb") as handle:
        trajectories, advantages, metrics = pickle.load(handle)
    assert metrics["data_parallel_ranks"] == 2.0 and metrics["optimizer_steps"] == 2.0
    single = build_reference_trainer(tiny_model_dir, config=ReferenceTrainerConfig(**SETTINGS))
    before = {k: v.detach().clone() for k, v in single.model.state_dict().items()}
    expected = single.update(trajectories, advantages)
    after = single.model.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)
    for key, value in after.items():
        # Adam's first steps are ~lr * sign(grad): summation order across ranks moves them by ~1e-6 of 2e-2
        assert torch.allclose(rank0[key], value, atol=2e-5), key
    assert metrics["loss"] == pytest.approx(expected["loss"], rel=1e-5, abs=1e-7)
    assert metrics["generated_tokens"] == expected["generated_tokens"]


def test_one_process_has_no_group_and_a_half_configured_launch_says_what_is_missing(monkeypatch) -> None:
    monkeypatch.delenv("WORLD_SIZE", raising=False)
    assert DataParallel.from_env() is None
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.delenv("MASTER_ADDR", raising=False)
    monkeypatch.setenv("RANK", "0")
    with pytest.raises(DataParallelError, match="MASTER_ADDR"):
        DataParallel.from_env()


def test_only_rank_zero_drives() -> None:
    with pytest.raises(DataParallelError, match="follower"):
        DataParallelDriver(object(), DataParallel(rank=1, world=2))


def test_every_rank_samples_its_share_and_a_follower_error_reaches_the_driver(tiny_model_dir: Path,
                                                                               tmp_path: Path) -> None:
    """torchrun, 2 ranks: the driver's generator spreads batches over both replicas and returns them in order."""
    from data_parallel_sampling_worker import GREEDY, GROUP, PROMPTS

    from spade_core.models.hf_generator import HFGenerator

    result = launch_ranks(2, HERE / "data_parallel_sampling_worker.py", str(tiny_model_dir), str(tmp_path),
                          pythonpath=HERE)
    assert result.returncode == 0, result.stderr[-3000:]
    with open(tmp_path / "sampling.pkl", "rb") as handle:
        results = pickle.load(handle)
    alone = HFGenerator.from_pretrained(tiny_model_dir, device="cpu")
    expected = alone.generate(PROMPTS, GREEDY)
    # greedy completions from two ranks equal one process's, in prompt order
    assert [g.prompt_ids for g in results["greedy"]] == PROMPTS
    assert [g.completion_ids for g in results["greedy"]] == [g.completion_ids for g in expected]
    chats = alone.chat([[{"role": "user", "content": "hi"}], [{"role": "user", "content": "yo"}]], GREEDY)
    assert [g.completion_ids for g in results["chat"]] == [g.completion_ids for g in chats]
    # a GRPO group split over ranks: each rank samples with its own seed, so the halves are not copies of each other
    group = results["group"]
    assert [g.prompt_ids for g in group] == GROUP
    by_rank = [tuple(tuple(g.completion_ids) for g in group[rank::2]) for rank in (0, 1)]
    assert by_rank[0] != by_rank[1]
    assert all(len(g.logprobs) == len(g.completion_ids) for g in group)
    assert results["empty"] == []
    # rank 1's failure is raised on the driver with its message, and the group goes on serving
    assert "load failed on 1 of 2 ranks" in results["load_error"]
    assert "rank 1: UnreadableCheckpoint" in results["load_error"] and "permission denied" in results["load_error"]
    assert [g.completion_ids for g in results["after_error"]] == [g.completion_ids for g in expected[:3]]

