"""The reference trainer backend: real updates, masked gradients, accumulation, KL, LoRA, checkpoints, plugin."""

from __future__ import annotations

import json

import pytest
import torch
from training_envs import make_training_env

import spade_trainers.reference.plugin as reference_plugin
from spade_core.models.base import SamplingParams
from spade_core.plugins import PluginRegistry
from spade_core.plugins.backends import find_trainer_backend
from spade_core.rollout import EpisodeRunner, EpisodeSpec, RolloutConfig
from spade_core.training import (
    AdvantageConfig,
    AdvantageEstimator,
    CheckpointError,
    TrainerBackend,
    TrainingConfigError,
    TrainingInputError,
    UnknownTrainerBackendError,
)
from spade_trainers.reference.backend import ReferenceTrainer, build_reference_trainer
from spade_trainers.reference.config import LoraSettings, ReferenceTrainerConfig


def trainer_for(model_dir, **overrides) -> ReferenceTrainer:
    overrides.setdefault("learning_rate", 1e-2)
    overrides.setdefault("max_completion_tokens", 8)
    return build_reference_trainer(model_dir, config=ReferenceTrainerConfig(device="cpu"), **overrides)


def rollouts(trainer: ReferenceTrainer, seed: int, env_id: str = "test/TwoTurnDigits", n: int = 8, tokens: int = 3):
    runner = EpisodeRunner(trainer.generator, RolloutConfig(sampling=SamplingParams(max_new_tokens=tokens)),
                           make_env=make_training_env)
    return runner.run([EpisodeSpec(env_id, seed=0, group_id="g") for _ in range(n)], seed=seed).trajectories


def with_signal(trajectories) -> tuple[list, list[float]]:
    """Trajectories plus advantages that are never all zero (alternating +-1 if the rewards tie)."""
    adv = AdvantageEstimator(AdvantageConfig("dr_grpo")).compute(trajectories)
    if not any(adv):
        adv = [1.0 if i % 2 else -1.0 for i in range(len(trajectories))]
    return trajectories, adv


def snapshot(trainer: ReferenceTrainer) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}


def test_is_a_trainer_backend_and_an_update_changes_parameters(tiny_model_dir) -> None:
    trainer = trainer_for(tiny_model_dir)
    assert isinstance(trainer, TrainerBackend)
    before = snapshot(trainer)
    metrics = trainer.update(*with_signal(rollouts(trainer, 0)))
    after = snapshot(trainer)
    assert any(not torch.equal(before[k], after[k]) for k in before)
    assert metrics["step"] == 1.0 and metrics["optimizer_steps"] == 1.0 and metrics["sequences"] == 8.0
    assert metrics["grad_norm"] > 0 and trainer.step == 1
    json.dumps(metrics)


def test_sampler_and_trainer_logprobs_agree_on_generated_tokens(tiny_model_dir) -> None:
    trainer = trainer_for(tiny_model_dir)
    trajectories = rollouts(trainer, 1)
    for traj, trained in zip(trajectories, trainer.sequence_logprobs(trajectories)):
        for pos in range(1, len(traj.token_ids)):
            if traj.loss_mask[pos]:
                assert trained[pos - 1] == pytest.approx(traj.logprobs[pos], abs=1e-4)
    metrics = trainer.update(*with_signal(trajectories))
    assert metrics["ratio_mean"] == pytest.approx(1.0, abs=1e-4)  # on-policy before the first step
    assert metrics["sampler_logprob_abs_diff"] < 1e-4


def test_gradients_are_exactly_zero_on_masked_tokens(tiny_model_dir) -> None:
    """Vocabulary logits exist only for generated tokens (so masked positions cannot carry gradient), and every one
    of them with a non-zero advantage gets a gradient."""
    trainer = trainer_for(tiny_model_dir)
    trajectories, adv = with_signal(rollouts(trainer, 2))
    captured = {}

    def keep_logits(module, args, output):
        output.retain_grad()
        captured["logits"] = output

    handle = trainer.model.get_output_embeddings().register_forward_hook(keep_logits)
    try:
        trainer.loss(trajectories, adv).backward()
    finally:
        handle.remove()
    grad = captured["logits"].grad  # [N, V]: one row per generated token, in (row, position) order
    expected_rows = [(row, pos) for row, traj in enumerate(trajectories)
                     for pos in range(len(traj.token_ids) - 1) if traj.loss_mask[pos + 1] == 1]
    assert grad.shape[0] == len(expected_rows)
    for index, (row, _) in enumerate(expected_rows):
        if adv[row] != 0:
            assert grad[index].abs().sum() > 0
    assert any(0 in t.loss_mask[t.prompt_length:] for t in trajectories)  # environment tokens were in there


def test_masked_tokens_do_not_move_the_parameter_gradient(tiny_model_dir) -> None:
    trainer = trainer_for(tiny_model_dir)
    trajectories, adv = with_signal(rollouts(trainer, 3))

    def param_grads(batch):
        trainer.model.zero_grad(set_to_none=True)
        trainer.loss(batch, adv).backward()
        return [p.grad.clone() for p in trainer.parameters]

    reference = param_grads(trajectories)
    perturbed = []
    for t in trajectories:
        copy = t.from_dict(t.to_dict())
        for pos, m in enumerate(copy.loss_mask):
            if m == 0 and pos >= copy.prompt_length:
                copy.logprobs[pos] = -7.5  # a sampler logprob on an environment token must not matter
        perturbed.append(copy)
    assert all(torch.equal(a, b) for a, b in zip(reference, param_grads(perturbed)))


def test_gradient_accumulation_matches_one_big_batch(tiny_model_dir) -> None:
    trajectories, adv = with_signal(rollouts(trainer_for(tiny_model_dir), 4))
    results = []
    for micro in (8, 3, 1):
        # adam_eps=1 makes the first step ~linear in the gradient (Adam's g/|g| would amplify float noise)
        trainer = trainer_for(tiny_model_dir, micro_batch_size=micro, max_grad_norm=None, learning_rate=1.0,
                              adam_eps=1.0)
        before = snapshot(trainer)
        trainer.update(trajectories, adv)
        results.append(snapshot(trainer))
    # summation order differs between micro-batch sizes (and between CPUs' vector units): a few float32 ulps of the
    # parameter's size apart, while the step itself moves the parameters by far more than that
    ulps = {key: 4 * torch.finfo(torch.float32).eps * max(1.0, before[key].abs().max().item()) for key in before}
    moved = max((results[0][key] - before[key]).abs().max().item() / ulps[key] for key in before)
    assert moved > 100, "the step is too small for the comparison to tell accumulation from one batch"
    for other in results[1:]:
        for key in results[0]:
            assert torch.allclose(results[0][key], other[key], rtol=0, atol=ulps[key]), key


def test_zero_advantages_and_failures_take_no_step(tiny_model_dir) -> None:
    trainer = trainer_for(tiny_model_dir)
    trajectories = rollouts(trainer, 5)
    before = snapshot(trainer)
    metrics = trainer.update(trajectories, [0.0] * len(trajectories))
    assert metrics["optimizer_steps"] == 0.0 and all(torch.equal(before[k], v) for k, v in snapshot(trainer).items())
    failed = trajectories[0].from_dict({**trajectories[0].to_dict(), "failure": "env_error", "error": "x"})
    assert trainer.update([failed], [1.0])["skipped_sequences"] == 1.0
    with pytest.raises(TrainingInputError, match="advantages"):
        trainer.update(trajectories, [0.0])
    with pytest.raises(TrainingInputError, match="finite"):
        trainer.update(trajectories[:1], [float("nan")])


def test_kl_to_the_frozen_reference_grows_as_the_policy_moves(tiny_model_dir) -> None:
    trainer = trainer_for(tiny_model_dir, kl_coef=0.1)
    first = trainer.update(*with_signal(rollouts(trainer, 6)))
    assert first["kl"] == pytest.approx(0.0, abs=1e-6)
    second = trainer.update(*with_signal(rollouts(trainer, 7)))
    assert second["kl"] > 0.0
    assert all(not p.requires_grad for p in trainer.reference.parameters())


def test_lora_trains_only_the_adapters_and_uses_the_base_as_reference(tiny_model_dir, tmp_path) -> None:
    trainer = trainer_for(tiny_model_dir, lora=LoraSettings(r=4, alpha=8), kl_coef=0.05)
    names = {n for n, p in trainer.model.named_parameters() if p.requires_grad}
    assert names and all("lora_" in n for n in names)
    before = snapshot(trainer)
    trainer.update(*with_signal(rollouts(trainer, 8)))
    trainer.update(*with_signal(rollouts(trainer, 9)))
    after = snapshot(trainer)
    changed = {k for k in before if not torch.equal(before[k], after[k])}
    assert changed and all("lora_" in k for k in changed)
    trainer.save(tmp_path / "ckpt")
    assert (tmp_path / "ckpt" / "model" / "adapter_config.json").exists()
    fresh = trainer_for(tiny_model_dir, lora=LoraSettings(r=4, alpha=8), kl_coef=0.05)
    fresh.load(tmp_path / "ckpt")
    assert all(torch.equal(after[k], v) for k, v in snapshot(fresh).items())
    with pytest.raises(CheckpointError, match="lora"):
        trainer_for(tiny_model_dir).load(tmp_path / "ckpt")


def test_lora_on_a_bf16_base_trains_fp32_adapters_on_policy(tiny_model_dir) -> None:
    trainer = trainer_for(tiny_model_dir, lora=LoraSettings(r=4, alpha=8, base_dtype="bf16"))
    dtypes = {n: p.dtype for n, p in trainer.model.named_parameters()}
    assert {d for n, d in dtypes.items() if "lora_" in n} == {torch.float32}
    assert {d for n, d in dtypes.items() if "lora_" not in n} == {torch.bfloat16}
    trajectories = rollouts(trainer, 4)
    before = snapshot(trainer)
    metrics = trainer.update(*with_signal(trajectories))
    assert metrics["sampler_logprob_abs_diff"] < 1e-3  # sampler and trainer share the bf16 module
    changed = {k for k, v in snapshot(trainer).items() if not torch.equal(before[k], v)}
    assert changed and all("lora_" in k for k in changed)
    with pytest.raises(TrainingConfigError, match="base_dtype"):
        LoraSettings(base_dtype="fp8")


def test_checkpoint_resume_is_exact(tiny_model_dir, tmp_path) -> None:
    """Train N steps, checkpoint, train M more; versus restore into a fresh trainer and train M: identical."""
    def train(trainer, estimator, steps):
        for step in steps:
            batch = rollouts(trainer, seed=100 + step, env_id="test/FirstDigit", n=6, tokens=2)
            trainer.update(batch, estimator.compute(batch))

    n, m = 2, 2
    trainer = trainer_for(tiny_model_dir)
    estimator = AdvantageEstimator(AdvantageConfig("ema"))
    train(trainer, estimator, range(n))
    trainer.save(tmp_path / "ckpt", loop_state={"iteration": n, "advantages": estimator.state_dict()})
    torch.randn(3)  # disturb the global RNG: resume must not depend on it
    train(trainer, estimator, range(n, n + m))
    continued = snapshot(trainer)

    resumed = trainer_for(tiny_model_dir)
    loop = resumed.load(tmp_path / "ckpt")
    assert loop["iteration"] == n and resumed.step == n
    estimator2 = AdvantageEstimator(AdvantageConfig("ema"))
    estimator2.load_state_dict(loop["advantages"])
    train(resumed, estimator2, range(loop["iteration"], n + m))
    restored = snapshot(resumed)
    assert continued.keys() == restored.keys()
    assert all(torch.equal(continued[k], restored[k]) for k in continued)
    assert estimator2.state_dict() == estimator.state_dict()


def test_checkpoint_errors_are_actionable(tiny_model_dir, tmp_path) -> None:
    trainer = trainer_for(tiny_model_dir)
    with pytest.raises(CheckpointError, match="missing"):
        trainer.load(tmp_path)
    with pytest.raises(CheckpointError, match="JSON"):
        trainer.save(tmp_path / "x", loop_state={"bad": object()})
    path = trainer.save(tmp_path / "ok")
    trainer.save(path)  # overwriting an existing checkpoint is atomic and allowed
    assert (path / "trainer_state.json").exists() and not list(tmp_path.glob(".ok*"))


def test_config_from_mapping_and_errors() -> None:
    cfg = ReferenceTrainerConfig.from_mapping({"learning_rate": 3e-4, "lora": {"r": 2, "target_modules": ["q_proj"]},
                                               "betas": [0.9, 0.95]})
    assert cfg.lora == LoraSettings(r=2, target_modules=("q_proj",)) and cfg.betas == (0.9, 0.95)
    assert ReferenceTrainerConfig.from_mapping(cfg.to_dict()) == cfg
    with pytest.raises(TrainingConfigError, match="unknown"):
        ReferenceTrainerConfig.from_mapping({"learning_rat": 1})
    with pytest.raises(TrainingConfigError, match="clip_eps_low"):
        ReferenceTrainerConfig(clip_eps_low=1.5)


def test_plugin_registers_the_backend_by_name(tiny_model_dir) -> None:
    registry = PluginRegistry(load_entry_points=False)
    assert registry.register(reference_plugin, "reference_trainer")
    factory = find_trainer_backend("reference", registry)
    assert factory is build_reference_trainer
    assert isinstance(factory(tiny_model_dir, config={"device": "cpu"}), ReferenceTrainer)
    with pytest.raises(UnknownTrainerBackendError, match="reference"):
        find_trainer_backend("nope", registry)


def test_bf16_autocast_keeps_fp32_master_weights_and_matching_sampler(tiny_model_dir) -> None:
    """The GPU precision path (bf16 autocast), exercised on CPU: sampler and trainer share the autocast."""
    trainer = trainer_for(tiny_model_dir, precision="bf16")
    assert trainer.autocast_dtype is torch.bfloat16 and trainer.generator.autocast_dtype is torch.bfloat16
    before = snapshot(trainer)
    metrics = trainer.update(*with_signal(rollouts(trainer, 10)))
    assert all(p.dtype == torch.float32 for p in trainer.model.parameters())
    assert any(not torch.equal(before[k], v) for k, v in snapshot(trainer).items())
    assert metrics["sampler_logprob_abs_diff"] < 0.05 and abs(metrics["ratio_mean"] - 1.0) < 0.05


def test_the_prompt_runs_without_gradient_and_scores_like_the_full_forward(tiny_model_dir) -> None:
    """The context before the first generated token is a frozen key/value cache: the loss is the full forward's, the
    gradient leaves out only the prompt's keys and values (``context_gradient`` keeps them), and gradient
    checkpointing reads the frozen cache exactly."""
    trajectories, advantages = with_signal(rollouts(trainer_for(tiny_model_dir), 2))
    assert min(t.prompt_length for t in trajectories) > 32  # long enough for the context pass

    def loss_and_grads(**overrides):
        trainer = trainer_for(tiny_model_dir, **overrides)
        trainer.model.train()
        loss = trainer.loss(trajectories, advantages)
        loss.backward()
        return float(loss), {n: p.grad.clone() for n, p in trainer.model.named_parameters() if p.grad is not None}

    split, split_grads = loss_and_grads()
    exact, exact_grads = loss_and_grads(context_gradient=True)
    checkpointed, checkpointed_grads = loss_and_grads(gradient_checkpointing=True)
    assert split == pytest.approx(exact, abs=1e-6) == pytest.approx(checkpointed, abs=1e-6)
    assert any(not torch.allclose(split_grads[n], exact_grads[n], atol=1e-7) for n in split_grads)
    assert all(torch.allclose(split_grads[n], checkpointed_grads[n], atol=1e-6) for n in split_grads)
