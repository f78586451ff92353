"""Weight pushes to a separate generator are verified by scoring a probe batch with both (the vLLM path's check,
exercised on CPU with a separate HFGenerator, including a generator that silently loads only some tensors)."""

from __future__ import annotations

import copy

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st
from training_envs import make_training_env

from spade_core.models.base import SamplingParams
from spade_core.models.hf_generator import HFGenerator
from spade_core.rollout import EpisodeRunner, EpisodeSpec, RolloutConfig
from spade_core.training.weight_sync import WeightSyncMismatchError, compare_logprobs, require_agreement
from spade_trainers.reference.backend import ReferenceTrainer, build_reference_trainer
from spade_trainers.reference.config import LoraSettings, ReferenceTrainerConfig

rows = st.lists(st.lists(st.floats(-20, 0), min_size=1, max_size=12), min_size=1, max_size=4)


@given(rows)
def test_an_engine_that_scores_like_the_trainer_passes(scores) -> None:
    agreement = compare_logprobs(scores, scores, scores)
    assert agreement.ok and agreement.mean_abs_diff == 0.0
    assert agreement.tokens == sum(len(r) for r in scores)


@given(rows, st.floats(0.5, 3.0))
def test_an_engine_left_on_the_old_weights_is_caught(old, shift) -> None:
    new = [[x - shift for x in row] for row in old]
    agreement = compare_logprobs(old, new, old, tolerance=0.05)  # the engine still scores like the old policy
    assert agreement.stale and not agreement.ok
    with pytest.raises(WeightSyncMismatchError, match="old weights"):
        require_agreement(agreement, engine="vllm")


def test_scores_of_different_shapes_are_an_error() -> None:
    with pytest.raises(WeightSyncMismatchError, match="scored 1 tokens"):
        compare_logprobs([[0.0]], [[0.0, 0.0]])
    with pytest.raises(WeightSyncMismatchError, match="count"):
        compare_logprobs([[0.0]], [])


class PartialLoadGenerator(HFGenerator):
    """An engine whose weight loader only takes embeddings and norms (the bug the check exists for)."""

    def sync_weights(self, state_dict):
        super().sync_weights({k: v for k, v in state_dict.items() if "embed" in k or "norm" in k})


def trainer_with(model_dir, generator_cls=HFGenerator, lora=None, lr=1e-2) -> ReferenceTrainer:
    base = build_reference_trainer(model_dir, config=ReferenceTrainerConfig(device="cpu"), learning_rate=lr)
    engine_model = copy.deepcopy(base.model)  # a separate engine, as vLLM is: same weights, its own copy
    generator = generator_cls(engine_model, base.tokenizer)
    return ReferenceTrainer(copy.deepcopy(base.model), base.tokenizer,
                            ReferenceTrainerConfig(device="cpu", learning_rate=lr, max_completion_tokens=8, lora=lora),
                            generator=generator)


def play(trainer: ReferenceTrainer, seed: int = 0):
    runner = EpisodeRunner(trainer.generator, RolloutConfig(sampling=SamplingParams(max_new_tokens=3)),
                           make_env=make_training_env)
    trajectories = runner.run([EpisodeSpec("test/TwoTurnDigits", seed=0, group_id="g") for _ in range(6)],
                              seed=seed).trajectories
    return trajectories, [1.0 if i % 2 else -1.0 for i in range(len(trajectories))]


def test_a_full_push_is_verified_and_the_engine_samples_the_new_policy(tiny_model_dir) -> None:
    trainer = trainer_with(tiny_model_dir)
    assert trainer.generator is not trainer._own_generator
    metrics = trainer.update(*play(trainer))
    assert metrics["sync_ok"] == 1.0 and metrics["sync_mean_abs_diff"] < 1e-5
    assert metrics["sync_update_shift"] > 0.1  # lr 1e-2 moves the policy: the check had something to detect
    engine = trainer.generator.model.state_dict()
    for key, value in trainer.model.state_dict().items():
        assert torch.equal(engine[key], value)


def test_a_push_that_misses_tensors_stops_the_run(tiny_model_dir) -> None:
    trainer = trainer_with(tiny_model_dir, PartialLoadGenerator)
    with pytest.raises(WeightSyncMismatchError, match="weight push not verified") as info:
        trainer.update(*play(trainer))
    assert "nats/token" in str(info.value) and "parameter names" in str(info.value)


def test_lora_adapters_are_merged_into_the_pushed_weights(tiny_model_dir) -> None:
    trainer = trainer_with(tiny_model_dir, lora=LoraSettings(r=4, alpha=8))
    metrics = trainer.update(*play(trainer))
    assert metrics["sync_ok"] == 1.0 and metrics["sync_mean_abs_diff"] < 1e-4
    assert metrics["sync_update_shift"] > 0.0
    pushed = trainer.policy_state_dict()
    assert not any("lora_" in k or "base_layer" in k for k in pushed)
    assert set(pushed) <= set(trainer.generator.model.state_dict())


@pytest.mark.parametrize("base_dtype", ["fp32", "bf16"])
def test_pushing_merged_adapters_leaves_the_frozen_base_untouched(tiny_model_dir, base_dtype: str) -> None:
    """Merged weights are computed beside the model: merging in place and back would leave rounding error in the
    frozen base at every push (in bf16, as large as the adapters' own updates)."""
    trainer = trainer_with(tiny_model_dir, lora=LoraSettings(r=4, alpha=8, base_dtype=base_dtype))
    frozen = {k: v.detach().clone() for k, v in trainer.model.state_dict().items() if "lora_" not in k}
    for _ in range(2):
        assert trainer.update(*play(trainer))["sync_ok"] == 1.0
    after = trainer.model.state_dict()
    assert all(torch.equal(value, after[key]) for key, value in frozen.items())
    lora_b = [v for k, v in after.items() if "lora_B" in k]
    assert any(float(v.abs().max()) > 0 for v in lora_b)  # the adapters did train


def test_a_push_goes_in_pieces_of_the_configured_size() -> None:
    from spade_core.training.weight_sync import chunk_weights

    weights = [(f"w{i}", torch.zeros(256, dtype=torch.float32)) for i in range(10)]  # 1 KiB each
    pieces = list(chunk_weights(iter(weights), 3 / 1024))  # ~3 KiB pieces
    assert [len(p) for p in pieces] == [3, 3, 3, 1]
    assert [k for p in pieces for k in p] == [name for name, _ in weights]
    assert list(chunk_weights(iter([]), 1.0)) == []


def test_resume_pushes_the_restored_weights_to_the_engine(tiny_model_dir, tmp_path) -> None:
    trainer = trainer_with(tiny_model_dir)
    trainer.update(*play(trainer))
    trainer.save(tmp_path / "ckpt")
    fresh = trainer_with(tiny_model_dir)
    fresh.load(tmp_path / "ckpt")
    engine = fresh.generator.model.state_dict()
    for key, value in trainer.model.state_dict().items():
        assert torch.equal(engine[key], value)
