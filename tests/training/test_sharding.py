"""FSDP sharding (``sharding="fsdp"``) over two real processes (torchrun, gloo, FSDP2 on CPU).

The sharded update equals the one-process update, every push to a rank's engine verifies, a checkpoint saved from
shards is a plain ``save_pretrained`` model, and a reload followed by the same update reproduces it exactly."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest
import torch
from fsdp_worker import SETTINGS
from launch_ranks import launch_ranks

from spade_core.training.data_parallel import DataParallel
from spade_core.training.errors import TrainingConfigError
from spade_trainers.reference.backend import build_reference_trainer
from spade_trainers.reference.config import LoraSettings, ReferenceTrainerConfig

HERE = Path(__file__).resolve().parent


def _launch(ranks: int, *args: str) -> None:
    result = launch_ranks(ranks, HERE / "fsdp_worker.py", *args, pythonpath=HERE)
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.fixture(scope="module")
def fsdp_run(tiny_model_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("fsdp")
    _launch(2, str(tiny_model_dir), str(out))
    with open(out / "fsdp.pkl", "rb") as handle:
        return out, pickle.load(handle)


def _max_diff(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> float:
    assert set(a) <= set(b)
    return max(float((a[k] - b[k]).abs().max()) for k in a)


def test_a_sharded_update_equals_the_one_process_update(fsdp_run: tuple[Path, dict], tiny_model_dir: Path) -> None:
    _, run = fsdp_run
    single = build_reference_trainer(tiny_model_dir, config=ReferenceTrainerConfig(**SETTINGS))
    before = {k: v.detach().clone() for k, v in single.model.state_dict().items()}
    expected = single.update(run["trajectories"], run["advantages"])
    assert _max_diff(before, single.model.state_dict()) > 1e-3  # the update moved the weights
    # Adam's first steps are ~lr * sign(grad): summation order across ranks moves them by ~1e-5 of 1e-2
    assert _max_diff(run["after_first"], single.model.state_dict()) < 5e-5
    first = run["first"]
    assert first["optimizer_steps"] == expected["optimizer_steps"] == 2.0
    assert first["loss"] == pytest.approx(expected["loss"], rel=1e-4, abs=1e-6)
    assert first["kl"] == pytest.approx(expected["kl"], rel=1e-3)  # the sharded reference model serves the KL term
    assert first["grad_norm"] == pytest.approx(expected["grad_norm"], rel=1e-4)
    assert first["data_parallel_ranks"] == 2.0


def test_each_push_of_gathered_shards_verifies(fsdp_run: tuple[Path, dict]) -> None:
    out, run = fsdp_run
    for metrics in (run["first"], run["again"]):
        assert metrics["sync_ok"] == 1.0 and metrics["sync_mean_abs_diff"] < 1e-5
        assert metrics["sync_update_shift"] > 0  # the probe saw the policy move, so a stale engine would be caught
    rank0, rank1 = torch.load(out / "rank0.pt"), torch.load(out / "rank1.pt")
    assert all(torch.equal(rank0[k], rank1[k]) for k in rank0)  # both ranks gather the same whole weights
    assert all(torch.equal(rank0[k], run["engine"][k]) for k in rank0)  # and the engine got exactly those


def test_a_sharded_push_arrives_in_chunks_that_cover_every_weight(fsdp_run: tuple[Path, dict]) -> None:
    from collections import Counter

    _, run = fsdp_run
    pushes = run["pushes"]  # first update, second update, reload, update again: four pushes, each in pieces
    assert len(pushes) > 4  # 0.1 MB pieces of a 0.4 MB model
    assert Counter(key for chunk in pushes for key in chunk) == dict.fromkeys(run["engine"], 4)


def test_a_sharded_checkpoint_is_a_plain_model_and_resumes_exactly(fsdp_run: tuple[Path, dict]) -> None:
    from transformers import AutoModelForCausalLM

    out, run = fsdp_run
    saved = AutoModelForCausalLM.from_pretrained(out / "checkpoint" / "model").state_dict()
    assert _max_diff(run["after_first"], saved) == 0.0
    assert run["loop_state"] == {"iteration": 0}
    assert all(torch.equal(run["reloaded"][k], run["after_first"][k]) for k in run["reloaded"])
    # the same second update after the reload lands on the same weights: the AdamW moments came back too
    assert _max_diff(run["engine"], run["after_second"]) == 0.0
    assert _max_diff(run["after_first"], run["after_second"]) > 1e-3


def test_a_sharded_checkpoint_resumes_on_another_number_of_ranks(fsdp_run: tuple[Path, dict],
                                                                  tiny_model_dir: Path) -> None:
    out, run = fsdp_run
    _launch(3, str(tiny_model_dir), str(out), "resume")  # saved by 2 ranks, loaded by 3
    with open(out / "resume.pkl", "rb") as handle:
        resumed = pickle.load(handle)
    assert resumed["metrics"]["sync_ok"] == 1.0
    # the same second update from the reloaded weights and AdamW moments; only the summation order differs
    assert _max_diff(resumed["engine"], run["after_second"]) < 1e-6


def test_shards_streamed_from_the_files_equal_shards_shared_from_rank_zero(fsdp_run: tuple[Path, dict],
                                                                            tiny_model_dir: Path) -> None:
    """Every rank starts with its weights on the meta device; rank 0 reads each tensor from the safetensors and
    scatters it. The first update then lands exactly where it did when rank 0 loaded the whole model."""
    from spade_core.models.loading import load_model
    from spade_core.training.sharding import can_stream_weights

    meta = load_model(tiny_model_dir, device="cpu", weights=False).model
    assert all(p.is_meta for p in meta.parameters()) and not any(b.is_meta for b in meta.buffers())
    assert meta.lm_head.weight is meta.model.embed_tokens.weight  # tied as in the loaded model
    assert can_stream_weights(meta, tiny_model_dir)
    out, run = fsdp_run
    _launch(2, str(tiny_model_dir), str(out), "stream")
    with open(out / "stream.pkl", "rb") as handle:
        streamed = pickle.load(handle)
    assert streamed["metrics"]["sync_ok"] == 1.0
    assert _max_diff(streamed["engine"], run["after_first"]) == 0.0


def test_a_checkpoint_with_other_weight_names_cannot_be_streamed(tiny_model_dir: Path, tmp_path: Path) -> None:
    from safetensors.torch import load_file, save_file

    from spade_core.models.loading import load_model
    from spade_core.training.sharding import can_stream_weights

    meta = load_model(tiny_model_dir, device="cpu", weights=False).model
    renamed = {f"transformer.{k}": v for k, v in load_file(str(tiny_model_dir / "model.safetensors")).items()}
    save_file(renamed, str(tmp_path / "model.safetensors"))
    assert not can_stream_weights(meta, tmp_path)  # the loop then has rank 0 load the whole model instead
    assert not can_stream_weights(meta, tmp_path / "empty")


def test_a_replicated_trainer_refuses_a_sharded_checkpoint(fsdp_run: tuple[Path, dict], tiny_model_dir: Path) -> None:
    from spade_core.training.errors import CheckpointError

    out, _ = fsdp_run
    trainer = build_reference_trainer(tiny_model_dir, config=ReferenceTrainerConfig(**SETTINGS))
    with pytest.raises(CheckpointError, match="sharding='fsdp'.*sharding='replicate'"):
        trainer.load(out / "checkpoint")


def test_fsdp_settings_that_cannot_work_are_refused_up_front(tiny_model_dir: Path) -> None:
    with pytest.raises(TrainingConfigError, match="LoRA"):
        ReferenceTrainerConfig(sharding="fsdp", lora=LoraSettings(r=4))
    with pytest.raises(TrainingConfigError, match="sharding must be one of"):
        ReferenceTrainerConfig(sharding="zero3")
    with pytest.raises(TrainingConfigError, match="several processes"):
        build_reference_trainer(tiny_model_dir, config=ReferenceTrainerConfig(sharding="fsdp", device="cpu"))
    with pytest.raises(TrainingConfigError, match="separate generator"):
        build_reference_trainer(tiny_model_dir, config=ReferenceTrainerConfig(sharding="fsdp", device="cpu"),
                                data_parallel=DataParallel(rank=0, world=2))
