"""The TRL trainer backend: updates through SPADE's episode runner, masking, advantages as given, GRPOTrainer.train()
through the rollout function, checkpoints, configuration errors and the plugin."""

from __future__ import annotations

import dataclasses
import json

import pytest

pytest.importorskip("trl", reason="the TRL backend needs trl (pip install 'spade-rl[trl]'); CI installs it")

import torch

import spade_core  # noqa: F401 - registers the bundled spade/* environments
import spade_trainers.trl.plugin as trl_plugin
from spade_core.models.base import SamplingParams
from spade_core.plugins import PluginRegistry
from spade_core.plugins.backends import find_trainer_backend
from spade_core.rollout import EpisodeRunner, EpisodeSpec, RolloutConfig, Trajectory, Turn
from spade_core.training import (
    AdvantageConfig,
    AdvantageEstimator,
    CheckpointError,
    TrainerBackend,
    TrainingConfigError,
    TrainingInputError,
)
from spade_trainers.trl.backend import TRLTrainer, build_trl_trainer
from spade_trainers.trl.config import TRLTrainerConfig
from spade_trainers.trl.grpo import episode_prompt, spec_from_prompt
from spade_trainers.trl.sequences import TRLSequence, build_batch
from spade_trainers.trl.vllm_colocated import VLLMUnavailableError

ARITH = "spade/ArithmeticChain-v0"  # one turn
NIM = "spade/NimVersusBot-v0"  # many turns: the bot's replies are environment tokens inside the completion
MAX_COMPLETION = 64


def trainer_for(model_dir, tmp_path, **overrides) -> TRLTrainer:
    settings = {"learning_rate": 1e-2, "max_completion_length": MAX_COMPLETION, "num_generations": 2,
                "per_device_train_batch_size": 4, "device": "cpu", "output_dir": str(tmp_path / "trl-out")}
    settings.update(overrides)
    return build_trl_trainer(model_dir, config=settings)


def play(trainer: TRLTrainer, env_id: str, n: int = 4, seed: int = 0) -> list[Trajectory]:
    config = RolloutConfig(sampling=SamplingParams(max_new_tokens=4), max_context_tokens=600, seed=seed)
    runner = EpisodeRunner(trainer.generator, config)
    return runner.run([EpisodeSpec(env_id, seed=s % 2, group_id=f"g{s % 2}") for s in range(n)]).trajectories


def snapshot(trainer: TRLTrainer) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}


def changed(before: dict[str, torch.Tensor], trainer: TRLTrainer) -> list[str]:
    return [k for k, v in trainer.model.state_dict().items() if not torch.equal(before[k], v)]


def grads_of(trainer: TRLTrainer, trajectories, advantages) -> tuple[float, dict[str, torch.Tensor]]:
    trainer.model.zero_grad(set_to_none=True)
    loss = trainer.loss(trajectories, advantages)
    loss.backward()
    grads = {n: p.grad.detach().clone() for n, p in trainer.model.named_parameters() if p.grad is not None}
    trainer.model.zero_grad(set_to_none=True)
    return float(loss.detach()), grads


def with_tail(traj: Trajectory, tail: list[int], *, generated: bool, logprob: float = -1.0) -> Trajectory:
    """``traj`` plus ``tail`` tokens at the end: an environment reply (mask 0) or a generated turn (mask 1)."""
    n = len(traj.token_ids)
    turn = Turn(n, n, n + len(tail), "x") if generated else Turn(n, n + len(tail), n + len(tail), "")
    return dataclasses.replace(
        traj, token_ids=traj.token_ids + tail, loss_mask=traj.loss_mask + [int(generated)] * len(tail),
        logprobs=traj.logprobs + [logprob if generated else 0.0] * len(tail), turns=[*traj.turns, turn],
    )


def test_update_trains_the_tiny_model_through_the_episode_runner(tiny_model_dir, tmp_path) -> None:
    trainer = trainer_for(tiny_model_dir, tmp_path)
    assert isinstance(trainer, TrainerBackend) and trainer.name == "trl"
    assert trainer.generator.model is trainer.model  # the runner samples from the trained module: sync is free
    trajectories = play(trainer, NIM)
    assert all(len(t.turns) > 1 and t.trainable for t in trajectories)  # multi-turn, env tokens inside
    before = snapshot(trainer)
    metrics = trainer.update(trajectories, [1.0, -1.0, 0.5, -0.5])
    assert changed(before, trainer)
    assert metrics["step"] == 1.0 == trainer.step and metrics["optimizer_steps"] == 1.0
    assert metrics["sequences"] == 4.0 and metrics["grad_norm"] > 0
    assert metrics["generated_tokens"] == sum(t.num_generated_tokens for t in trajectories)
    # the sampler's logprobs are the old policy and match the trainer's forward before the step (on-policy)
    assert metrics["sampler_logprob_abs_diff"] < 1e-4 and metrics["ratio_mean"] == pytest.approx(1.0, abs=1e-4)
    json.dumps(metrics)
    # the generator now samples from the updated weights: the same rollout gives other logprobs
    again = play(trainer, NIM)
    assert [t.completion_logprobs for t in again] != [t.completion_logprobs for t in trajectories]


def test_a_separate_generator_gets_the_new_weights_after_each_update(tiny_model_dir, tmp_path) -> None:
    from spade_core.models.hf_generator import HFGenerator

    engine = HFGenerator.from_pretrained(tiny_model_dir)  # its own copy of the weights, like a vLLM engine
    trainer = build_trl_trainer(tiny_model_dir, config={"learning_rate": 1e-2, "device": "cpu",
                                                        "output_dir": str(tmp_path / "out")}, generator=engine)
    assert trainer.generator is engine and engine.model is not trainer.model
    metrics = trainer.update(play(trainer, ARITH), [1.0, -1.0, 0.5, -0.5])
    mine = trainer.model.state_dict()
    assert all(torch.equal(mine[k], v) for k, v in engine.model.state_dict().items())
    # the push was verified on a probe batch: the engine scores like the updated trainer, not like the old weights
    assert metrics["sync_ok"] == 1.0 and metrics["sync_mean_abs_diff"] < 1e-5 and metrics["sync_update_shift"] > 0


def test_a_push_that_misses_tensors_stops_training(tiny_model_dir, tmp_path) -> None:
    from spade_core.models.hf_generator import HFGenerator
    from spade_core.training.weight_sync import WeightSyncMismatchError

    class EmbeddingsOnly(HFGenerator):
        def sync_weights(self, state_dict):
            super().sync_weights({k: v for k, v in state_dict.items() if "embed" in k or "norm" in k})

    base = HFGenerator.from_pretrained(tiny_model_dir)
    engine = EmbeddingsOnly(base.model, base.tokenizer)
    trainer = build_trl_trainer(tiny_model_dir, config={"learning_rate": 1e-2, "device": "cpu",
                                                        "output_dir": str(tmp_path / "out")}, generator=engine)
    with pytest.raises(WeightSyncMismatchError, match="weight push not verified"):
        trainer.update(play(trainer, ARITH), [1.0, -1.0, 0.5, -0.5])


def test_lora_trains_adapters_only_pushes_merged_weights_and_resumes(tiny_model_dir, tmp_path) -> None:
    from spade_core.models.hf_generator import HFGenerator

    engine = HFGenerator.from_pretrained(tiny_model_dir)  # a separate engine: it needs the merged weights
    settings = {"learning_rate": 1e-2, "device": "cpu", "beta": 0.05, "output_dir": str(tmp_path / "out"),
                "lora": {"r": 4, "alpha": 8}}
    trainer = build_trl_trainer(tiny_model_dir, config=settings, generator=engine)
    trainable = {n for n, p in trainer.model.named_parameters() if p.requires_grad}
    assert trainable and all("lora_" in n for n in trainable)
    batch = play(trainer, ARITH)
    base_before = {k: v.detach().clone() for k, v in trainer.model.state_dict().items() if "lora_" not in k}
    engine_before = {k: v.detach().clone() for k, v in engine.model.state_dict().items()}
    metrics = trainer.update(batch, [1.0, -1.0, 0.5, -0.5])
    after = trainer.model.state_dict()
    assert all(torch.equal(v, after[k]) for k, v in base_before.items())  # the frozen base did not move
    # the KL term ran against the adapter-free base; the push of merged weights verified
    assert metrics["trl/kl"] >= 0 and metrics["sync_ok"] == 1.0 and metrics["sync_update_shift"] > 0
    pushed = engine.model.state_dict()
    assert any(not torch.equal(engine_before[k], pushed[k]) for k in pushed)  # the merged adapters reached it
    path = trainer.save(tmp_path / "ckpt")
    fresh = build_trl_trainer(tiny_model_dir, config=settings, generator=HFGenerator.from_pretrained(tiny_model_dir))
    fresh.load(path)
    trainer.update(batch, [-1.0, 1.0, 0.5, -0.5])
    fresh.update(batch, [-1.0, 1.0, 0.5, -0.5])
    mine = trainer.model.state_dict()
    assert all(torch.allclose(mine[k], v, atol=1e-6) for k, v in fresh.model.state_dict().items())
    full = trainer_for(tiny_model_dir, tmp_path)
    with pytest.raises(CheckpointError, match="lora=True.*lora=False"):
        full.load(path)


@pytest.mark.parametrize("loss_type", ["dr_grpo", pytest.param("grpo", marks=pytest.mark.slow),
                                       pytest.param("dapo", marks=pytest.mark.slow)])
def test_two_processes_take_the_one_process_update(tiny_model_dir, tmp_path, loss_type) -> None:
    """torchrun, 2 ranks (gloo): each rank computes TRL's loss on its share of every step (7 sequences in steps of
    4: the last share is padded with masked rows), gradients are summed, and the replicas land on the weights one
    process reaches with the same two updates."""
    import pickle
    from pathlib import Path

    from launch_ranks import launch_ranks
    from trl_data_parallel_worker import SETTINGS

    here = Path(__file__).resolve().parent
    result = launch_ranks(2, here / "trl_data_parallel_worker.py", str(tiny_model_dir), str(tmp_path), loss_type,
                          pythonpath=here)
    assert result.returncode == 0, result.stderr[-3000:]
    with open(tmp_path / "batch.pkl", "rb") as handle:
        trajectories, advantages, metrics = pickle.load(handle)
    rank0, rank1 = torch.load(tmp_path / "rank0.pt"), torch.load(tmp_path / "rank1.pt")
    assert all(torch.equal(rank0[k], rank1[k]) for k in rank0)  # the replicas never drift
    single = build_trl_trainer(tiny_model_dir, config={**SETTINGS, "loss_type": loss_type,
                                                       "output_dir": str(tmp_path / "single")})
    before = snapshot(single)
    expected = [single.update(trajectories, advantages), single.update(trajectories, [-a for a in advantages])]
    assert changed(before, single)
    for key, value in single.model.state_dict().items():
        assert torch.allclose(rank0[key], value, atol=1e-6), key
    for got, want in zip(metrics, expected):
        assert got["data_parallel_ranks"] == 2.0 and got["optimizer_steps"] == want["optimizer_steps"] == 2.0
        assert got["loss"] == pytest.approx(want["loss"], rel=1e-5, abs=1e-8)
        assert got["grad_norm"] == pytest.approx(want["grad_norm"], rel=1e-5)


def test_env_mask_is_the_completion_loss_mask(tiny_model_dir, tmp_path) -> None:
    trainer = trainer_for(tiny_model_dir, tmp_path)
    trajectories = play(trainer, NIM, n=2)
    sequences = [TRLSequence.from_trajectory(t, 1.0, pad_token_id=trainer.pad_token_id) for t in trajectories]
    batch = build_batch(sequences, pad_token_id=trainer.pad_token_id)
    for row, t in enumerate(trajectories):
        n = len(t.completion_ids)
        assert sequences[row].prompt_ids == t.prompt_ids and sequences[row].completion_ids == t.completion_ids
        assert batch["tool_mask"][row, :n].tolist() == t.completion_mask and 0 in t.completion_mask
        assert batch["tool_mask"][row, n:].sum() == 0 and batch["completion_mask"][row, :n].all()
        lp = batch["old_per_token_logps"][row, :n]
        assert torch.allclose(lp, torch.tensor(t.completion_logprobs) * torch.tensor(t.completion_mask))
    assert int(batch["num_items_in_batch"]) == sum(t.num_generated_tokens for t in trajectories)


def test_masked_tokens_carry_no_gradient(tiny_model_dir, tmp_path) -> None:
    """Environment tokens (mask 0) change neither the loss nor any gradient: not their identity (a trailing
    environment reply) nor their sampler logprobs; the same tokens with mask 1 do."""
    trainer = trainer_for(tiny_model_dir, tmp_path)
    (traj,) = play(trainer, NIM, n=1)
    vocab = trainer.model.get_output_embeddings().weight.shape[0]
    tail_a, tail_b = [5, 6, 7, 8], [vocab - 1, vocab - 2, 11, 12]
    a = with_tail(traj, tail_a, generated=False)
    b = with_tail(traj, tail_b, generated=False)
    env_positions = [i for i, m in enumerate(b.loss_mask) if m == 0]
    b = dataclasses.replace(b, logprobs=[-30.0 if i in env_positions else x for i, x in enumerate(b.logprobs)])
    loss_a, grads_a = grads_of(trainer, [a], [1.0])
    loss_b, grads_b = grads_of(trainer, [b], [1.0])
    assert loss_a == loss_b and grads_a.keys() == grads_b.keys() and grads_a
    assert all(torch.equal(grads_a[k], grads_b[k]) for k in grads_a)
    loss_c, grads_c = grads_of(trainer, [with_tail(traj, tail_a, generated=True)], [1.0])
    assert loss_c != loss_a and any(not torch.equal(grads_a[k], grads_c[k]) for k in grads_a)


def test_advantages_are_used_as_given_not_renormalised_per_group(tiny_model_dir, tmp_path) -> None:
    """One GRPO group with equal advantages: TRL's per-group normalisation would zero them; SPADE's stand."""
    trainer = trainer_for(tiny_model_dir, tmp_path)
    trajectories = [dataclasses.replace(t, group_id="same") for t in play(trainer, ARITH)]
    advantages = [0.5, 0.5, 0.5, 0.5]
    # on-policy the ratio is 1, so the dr_grpo loss is -sum_i A_i * n_i / (N * max_completion_length)
    expected = -sum(a * t.num_generated_tokens for a, t in zip(advantages, trajectories)) / (4 * MAX_COMPLETION)
    assert float(trainer.loss(trajectories, advantages).detach()) == pytest.approx(expected, rel=1e-4)
    doubled = float(trainer.loss(trajectories, [2 * a for a in advantages]).detach())
    assert doubled == pytest.approx(2 * expected, rel=1e-4)
    before = snapshot(trainer)
    metrics = trainer.update(trajectories, advantages)
    assert changed(before, trainer) and metrics["advantage_mean"] == 0.5


def test_untrainable_trajectories_and_zero_advantages_are_skipped(tiny_model_dir, tmp_path) -> None:
    trainer = trainer_for(tiny_model_dir, tmp_path)
    trajectories = play(trainer, ARITH)
    failed = dataclasses.replace(trajectories[0], failure="env_error", error="boom")
    before = snapshot(trainer)
    metrics = trainer.update([failed, *trajectories[1:]], [5.0, 0.0, 0.0, 0.0])
    assert not changed(before, trainer)
    assert metrics["skipped_sequences"] == 1.0 and metrics["optimizer_steps"] == 0.0 and trainer.step == 1
    with pytest.raises(TrainingInputError, match="advantages"):
        trainer.update(trajectories, [1.0])
    with pytest.raises(TrainingInputError, match="finite"):
        trainer.update(trajectories[:1], [float("nan")])


def test_each_trajectory_is_scored_at_its_own_sampling_temperature(tiny_model_dir, tmp_path) -> None:
    """The designer samples at 0.8 and the agent at 1.0: TRL's fused head is switched per temperature group, so the
    trainer's logprobs match the sampler's for both in one update."""
    trainer = trainer_for(tiny_model_dir, tmp_path)
    cool = EpisodeRunner(trainer.generator, RolloutConfig(sampling=SamplingParams(max_new_tokens=4, temperature=0.5)))
    mixed = cool.run([EpisodeSpec(ARITH, seed=s) for s in range(2)]).trajectories + play(trainer, ARITH, n=2)
    assert sorted({t.temperature for t in mixed}) == [0.5, 1.0]
    metrics = trainer.update(mixed, [1.0, -1.0, 1.0, -1.0])
    assert metrics["sampler_logprob_abs_diff"] < 1e-4 and metrics["optimizer_steps"] == 1.0
    wrong = [dataclasses.replace(t, temperature=1.0) for t in mixed[:2]]  # logprobs drawn at 0.5, scored at 1.0
    assert trainer.update(wrong, [1.0, -1.0])["sampler_logprob_abs_diff"] > 1e-2


@pytest.mark.parametrize("loss_type", ["dr_grpo", "grpo", "dapo"])
def test_gradient_accumulation_matches_one_big_batch(tiny_model_dir, tmp_path, loss_type) -> None:
    """Micro-batches of 3 and 1 sequences accumulated into one step land where one batch of four does."""
    sgd = {"loss_type": loss_type, "max_grad_norm": None, "grpo_overrides": {"optim": "sgd"}}  # a step = lr * grad
    whole = trainer_for(tiny_model_dir, tmp_path, **sgd)
    trajectories = play(whole, NIM)
    advantages = [1.0, -1.0, 0.5, -0.25]
    split = trainer_for(tiny_model_dir, tmp_path, per_device_train_batch_size=3, gradient_accumulation_steps=2, **sgd)
    assert whole.update(trajectories, advantages)["optimizer_steps"] == 1.0
    assert split.update(trajectories, advantages)["optimizer_steps"] == 1.0
    expected = snapshot(whole)
    assert all(torch.allclose(expected[k], v, atol=1e-6) for k, v in split.model.state_dict().items())
    twice = trainer_for(tiny_model_dir, tmp_path, per_device_train_batch_size=1, gradient_accumulation_steps=2,
                        num_iterations=2)
    assert twice.update(trajectories, advantages)["optimizer_steps"] == 4.0  # 2 steps per pass, 2 passes


def test_grpo_trainer_train_drives_the_episode_runner_through_rollout_func(tiny_model_dir, tmp_path) -> None:
    trainer = trainer_for(tiny_model_dir, tmp_path)
    # An EMA baseline above every reward: all advantages are equal and negative, which TRL's per-group
    # normalisation would turn into zeros; a parameter change shows SPADE's advantages reached the loss.
    estimator = AdvantageEstimator(AdvantageConfig("ema"))
    estimator.baseline.initial = 2.0
    specs = [EpisodeSpec(NIM, seed=3), EpisodeSpec(NIM, seed=4)]
    rollout = RolloutConfig(sampling=SamplingParams(max_new_tokens=4), max_context_tokens=600, seed=0)
    before = snapshot(trainer)
    out = trainer.train_on_episodes(specs, max_steps=1, rollout_config=rollout, advantages=estimator)
    played = out["rollout"].last_trajectories
    assert out["global_step"] == 1 and len(played) == 4  # 2 prompts x num_generations=2, one generation batch
    assert {t.env_id for t in played} == {NIM} and {t.seed for t in played} == {3, 4}
    assert len({t.group_id for t in played}) == 2 and all(a < 0 for a in out["rollout"].last_advantages)
    assert changed(before, trainer)
    # TRL received env_mask: it counts only the policy's tokens as completion length, not the bot's replies
    logged = next(entry for entry in trainer.grpo.state.log_history if "completions/mean_length" in entry)
    generated = [t.num_generated_tokens for t in played]
    assert logged["completions/mean_length"] == pytest.approx(sum(generated) / 4)
    assert all(len(t.completion_ids) > n for t, n in zip(played, generated))
    assert trainer.optimizer_steps == 1 and trainer.step == 0  # update() calls are counted separately
    before = snapshot(trainer)  # update() goes on with the same optimiser (now wrapped by accelerate)
    assert trainer.update(played, [1.0, -1.0, 0.5, -0.5])["optimizer_steps"] == 1.0
    assert changed(before, trainer) and trainer.step == 1 and trainer.optimizer_steps == 2


def test_episode_prompts_round_trip() -> None:
    spec = EpisodeSpec(ARITH, seed=7, hinted=True, env_kwargs={"terms": 2})
    parsed = spec_from_prompt(episode_prompt(spec), group_id="g", episode_id="e")
    assert (parsed.env_id, parsed.seed, parsed.hinted, dict(parsed.env_kwargs)) == (ARITH, 7, True, {"terms": 2})
    assert spec_from_prompt(ARITH, group_id="g", episode_id="e").env_id == ARITH
    with pytest.raises(TrainingInputError, match="episode_prompt"):
        spec_from_prompt('{"seed": 1}', group_id="g", episode_id="e")


def test_checkpoint_save_load_restores_weights_optimizer_and_step(tiny_model_dir, tmp_path) -> None:
    first = trainer_for(tiny_model_dir, tmp_path)
    batch1, batch2 = play(first, ARITH, seed=1), play(first, ARITH, seed=2)
    advantages = [1.0, -1.0, 0.5, -0.5]
    first.update(batch1, advantages)
    path = first.save(tmp_path / "ckpt", loop_state={"iteration": 3, "pool": ["a"]})
    assert path.is_dir() and not list(tmp_path.glob(".ckpt.*"))
    second = trainer_for(tiny_model_dir, tmp_path)
    assert changed(snapshot(first), second)  # a fresh trainer starts from the initial weights
    assert second.load(path) == {"iteration": 3, "pool": ["a"]}
    assert second.step == 1 and not changed(snapshot(first), second)
    first.update(batch2, advantages)
    second.update(batch2, advantages)  # same Adam moments: the same next step
    after = snapshot(first)
    assert all(torch.allclose(after[k], v, atol=1e-6) for k, v in second.model.state_dict().items())
    first.save(path)  # overwriting an existing checkpoint is atomic too
    assert second.load(path) == {}
    with pytest.raises(CheckpointError, match="missing"):
        second.load(tmp_path / "nowhere")
    with pytest.raises(CheckpointError, match="JSON"):
        first.save(tmp_path / "bad", loop_state={"x": object()})


def test_config_errors_name_the_setting(tiny_model_dir, tmp_path) -> None:
    config = TRLTrainerConfig.from_mapping({"learning_rate": 1e-5, "loss_type": "dapo", "grpo_overrides": {}})
    assert config.learning_rate == 1e-5 and TRLTrainerConfig.from_mapping(config.to_dict()) == config
    with pytest.raises(TrainingConfigError, match=r"unknown trl-trainer setting\(s\) \['lr'\]; known: .*learning_rate"):
        TRLTrainerConfig.from_mapping({"lr": 1e-5})
    with pytest.raises(TrainingConfigError, match="loss_type"):
        TRLTrainerConfig(loss_type="sapo-ish")
    with pytest.raises(TrainingConfigError, match="num_generations"):
        TRLTrainerConfig(num_generations=1)
    with pytest.raises(TrainingConfigError, match="max_steps"):
        TRLTrainerConfig(lr_scheduler_type="cosine")
    with pytest.raises(TrainingConfigError, match="repeats.*beta"):
        TRLTrainerConfig(grpo_overrides={"beta": 0.1})
    with pytest.raises(TrainingConfigError, match="GRPOConfig"):
        trainer_for(tiny_model_dir, tmp_path, grpo_overrides={"no_such_field": 1})
    with pytest.raises(TrainingConfigError, match="unknown trl-trainer setting"):
        build_trl_trainer(tiny_model_dir, config={"device": "cpu"}, bogus=1)


def test_use_vllm_without_cuda_is_a_specific_error(tiny_model_dir) -> None:
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA; the error is for CPU-only machines")
    with pytest.raises(VLLMUnavailableError, match="CUDA GPU.*use_vllm=False"):
        build_trl_trainer(tiny_model_dir, config={"use_vllm": True})
    assert issubclass(VLLMUnavailableError, TrainingConfigError)
    with pytest.raises(TrainingConfigError, match="use_vllm needs device"):
        TRLTrainerConfig(use_vllm=True, device="cpu")


def test_plugin_registers_the_backend_by_name(tiny_model_dir, tmp_path) -> None:
    registry = PluginRegistry(load_entry_points=False)
    assert registry.register(trl_plugin, "trl_trainer")
    factory = find_trainer_backend("trl", registry)
    assert factory is build_trl_trainer
    built = factory(tiny_model_dir, config={"device": "cpu", "output_dir": str(tmp_path / "out")})
    assert isinstance(built, TRLTrainer) and built.config.loss_type == "dr_grpo"
