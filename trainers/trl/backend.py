"""The TRL trainer backend: SPADE's trainer interface on top of TRL 1.16's ``GRPOTrainer`` (docs/design.md §6).

Two ways in, one loss (TRL's ``compute_loss``: fused LM head, clipped surrogate, ``loss_type`` aggregation, KL):

- :meth:`TRLTrainer.update` (what ``SelfPlay`` calls) lays SPADE trajectories out as TRL batches itself: one
  sequence per trajectory, prompt = the first prompt, completion = every later token (agent turns *and*
  environment replies), ``tool_mask`` (TRL's internal name for ``env_mask``) = the trajectory's ``loss_mask`` over
  the completion, ``old_per_token_logps`` = the sampler's logprobs, ``advantages`` = SPADE's per-role advantages as
  given. It then runs TRL's ``compute_loss`` per micro-batch and steps the optimiser. TRL's own
  ``_generate_and_score_completions`` is not involved, so nothing renormalises advantages per prompt group and no
  batch-size divisibility by ``num_generations`` applies.
- :meth:`TRLTrainer.train_on_episodes` (or a ``GRPOTrainer`` you build with :func:`make_rollout_func`) runs
  ``GRPOTrainer.train()``: TRL calls the rollout function with the dataset's prompts (each already repeated G
  times), which plays the episodes with SPADE's ``EpisodeRunner`` and returns ``prompt_ids``/``completion_ids``/
  ``logprobs``/``env_mask`` plus rewards and SPADE advantages as extra fields. :class:`SpadeGRPOTrainer` overrides
  ``_generate_and_score_completions`` to swap TRL's group-normalised advantages for SPADE's and TRL's recomputed
  old logprobs for the sampler's.

The generator is an ``HFGenerator`` sharing the trained module (CPU, or GPU without vLLM: weight sync is free), or
with ``use_vllm`` TRL's colocated vLLM engine (weights pushed with TRL's ``sync_weights`` after every update).
vLLM is never imported unless ``use_vllm`` is set.
"""

from __future__ import annotations

import shutil
import tempfile
import time
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import torch

from spade_core.models.base import ModelBackend, TokenDistribution
from spade_core.models.hf_generator import HFGenerator
from spade_core.rollout.runner import EpisodeRunner
from spade_core.rollout.specs import EpisodeSpec, RolloutConfig
from spade_core.rollout.trajectory import Trajectory
from spade_core.training.advantages import AdvantageConfig, AdvantageEstimator
from spade_core.training.backend import backend_config, load_policy, trainable_items
from spade_core.training.checkpoint import (
    atomic_checkpoint,
    loop_state_json,
    read_state,
    restore_rng,
    write_state,
)
from spade_core.training.data_parallel import DataParallel
from spade_core.training.errors import CheckpointError, TrainingConfigError, TrainingInputError
from spade_core.training.lora import load_trained_weights, require_same_lora, wrap_lora
from spade_core.training.weight_sync import chunk_weights, policy_weights, probe_sequences, push_and_verify
from spade_trainers.trl.config import TRLTrainerConfig
from spade_trainers.trl.grpo import episode_dataset, grpo_trainer_class, import_trl, make_rollout_func
from spade_trainers.trl.scoring import Scoring
from spade_trainers.trl.sequences import (
    MicroBatch,
    TRLSequence,
    batch_rows,
    build_batch,
    masked_copies,
    padded_rows,
    rows_of,
    spade_reward,
)
from spade_trainers.trl.vllm_colocated import TRLColocatedVLLM, check_vllm_runtime

CHECKPOINT_FORMAT = 1
MODEL_DIR = "model"


class TRLTrainer:
    """SPADE's :class:`~spade_core.training.backend.TrainerBackend` over TRL's ``GRPOTrainer``.

    ``self.grpo`` is the :class:`SpadeGRPOTrainer`; its optimiser (AdamW from ``GRPOConfig``) is created once and
    shared by :meth:`update` and :meth:`train_on_episodes`. Construction seeds the global RNGs with
    ``config.seed`` (TRL's ``set_seed``); checkpoints restore them.
    """

    name = "trl"

    def __init__(self, model: Any, tokenizer: Any, config: TRLTrainerConfig | None = None, *,
                 generator: ModelBackend | None = None, data_parallel: DataParallel | None = None) -> None:
        self.config = cfg = config or TRLTrainerConfig()
        self.data_parallel = data_parallel  # several processes, one replica each (spade_core.training.data_parallel)
        trl = import_trl()
        use_cuda = _use_cuda(cfg)
        if cfg.use_vllm:
            check_vllm_runtime()
            if generator is not None:
                raise TrainingConfigError("pass either use_vllm=True (TRL's colocated engine) or a generator, not both")
        if tokenizer.pad_token_id is None:
            tokenizer.pad_token = tokenizer.eos_token
        self.tokenizer = tokenizer
        self._own_output_dir = cfg.output_dir is None
        self.output_dir = cfg.output_dir or tempfile.mkdtemp(prefix="spade-trl-")
        if self._own_output_dir:
            weakref.finalize(self, shutil.rmtree, self.output_dir, True)
        kwargs = cfg.grpo_kwargs(output_dir=self.output_dir, use_cuda=use_cuda)
        try:
            args = trl.GRPOConfig(**kwargs)
        except TypeError as exc:
            raise TrainingConfigError(f"grpo_overrides: {exc}; see trl.GRPOConfig for the fields") from exc
        except ValueError as exc:
            raise TrainingConfigError(f"TRL rejected the configuration: {exc}") from exc
        model = model.to(dtype=torch.float32)  # fp32 master weights; bf16 only under autocast
        if cfg.lora is not None:  # TRL sees a peft model: the adapter-free base is its KL reference
            model = wrap_lora(model, cfg.lora)
            if cfg.gradient_checkpointing:
                model.enable_input_require_grads()  # checkpointed blocks need inputs that require grad
        trainer_cls = grpo_trainer_class()
        self.grpo = trainer_cls(
            model=model, reward_funcs=[spade_reward], args=args, processing_class=tokenizer,
            train_dataset=episode_dataset([EpisodeSpec("placeholder", seed=0)]),
        )
        self.model = self.grpo.model
        self.device = self.grpo.accelerator.device
        heads = [self.model] + ([self.grpo.ref_model] if self.grpo.ref_model is not None else [])
        self._configured = TokenDistribution(cfg.temperature, cfg.top_k, cfg.top_p)  # train() rollouts
        self._scoring = Scoring(self.grpo, heads, self._configured)
        self.grpo.create_optimizer()
        self.optimizer = self.grpo.optimizer
        self.parameters = [p for p in self.model.parameters() if p.requires_grad]
        if not self.parameters:
            raise TrainingConfigError("the model has no trainable parameters")
        if data_parallel is not None:
            data_parallel.broadcast_parameters(self.parameters)
        from transformers import get_scheduler

        self.lr_scheduler = get_scheduler(cfg.lr_scheduler_type, self.optimizer, num_warmup_steps=cfg.warmup_steps,
                                          num_training_steps=max(cfg.max_steps, 1))
        self.pad_token_id = int(tokenizer.pad_token_id)
        self._external = generator is not None  # a separate engine (e.g. SPADE's colocated VLLMBackend)
        autocast = torch.bfloat16 if args.bf16 else None
        self._scorer = HFGenerator(self.model, tokenizer, max_batch_size=cfg.generator_max_batch_size,
                                   autocast_dtype=autocast, kv_cache_mb=cfg.generator_kv_cache_mb,
                                   decode_threads=cfg.generator_decode_threads)  # also the trainer's view for weight-push checks
        if generator is not None:
            self._generator: ModelBackend = generator
        elif cfg.use_vllm:
            self._generator = TRLColocatedVLLM(self.grpo, tokenizer)
        else:
            self._generator = self._scorer
        self.model.eval()
        self._step = 0
        self.optimizer_steps = 0

    # -- TrainerBackend --------------------------------------------------------------------------------------
    @property
    def generator(self) -> ModelBackend:
        return self._generator

    @property
    def step(self) -> int:
        return self._step

    def update(self, trajectories: Sequence[Trajectory], advantages: Sequence[float]) -> dict[str, float]:
        """One update with TRL's loss over the trainable trajectories, advantages exactly as given.

        Each optimiser step covers ``per_device_train_batch_size * gradient_accumulation_steps`` sequences, in
        micro-batches of at most ``per_device_train_batch_size`` that never mix sampling distributions (the fused LM
        head scores each at its own); the whole batch is passed ``num_iterations`` times. Micro-batch losses are
        weighted so that a step's loss is the ``loss_type`` aggregate over the whole step however it was split
        (``dr_grpo``: token sum / (sequences x ``max_completion_length``); ``grpo``: mean of sequence means;
        ``bnpo``/``dapo``: token mean). Zero-advantage sequences stay in (they count in the normalisers); when every
        advantage is 0 and no KL or entropy term applies, no step is taken since the gradient is exactly 0."""
        started = time.perf_counter()
        items = trainable_items(trajectories, advantages)
        cfg = self.config
        totals = {"loss": 0.0, "grad_norm": 0.0}
        steps_taken = 0
        drift: dict[str, float] = {}
        sync: dict[str, float] = {}
        gradient_free = cfg.beta == 0 and not getattr(self.grpo, "_entropy_bonus_enabled", False)
        if items and not (gradient_free and all(a == 0.0 for _, a in items)):
            parts = self._prepare(items)
            if cfg.check_sampler_logprobs and (self.data_parallel is None or self.data_parallel.is_driver):
                drift = self._sampler_drift(parts)  # a metric: the driver's is the one reported
            windows = self._windows(parts)
            probe = probe_sequences([t for t, _ in items], cfg.sync_probe_sequences) if self._external else []
            before = self._scorer.score(probe) if probe else []
            if self._external and hasattr(self._generator, "sleep"):
                self._generator.sleep()  # a colocated engine frees its GPU memory while the trainer steps
            self.grpo._metrics["train"].clear()
            self.model.train()
            try:
                for _ in range(cfg.num_iterations):
                    for window in windows:
                        loss, norm = self._optimizer_step(window)
                        totals["loss"] += loss
                        totals["grad_norm"] = max(totals["grad_norm"], norm)
                        steps_taken += 1
            finally:
                self.model.eval()
                self._scoring.set(self._configured)
                sync = self._push_weights(probe, before)  # never leave a sleeping engine without weights
        self._step += 1
        trl_metrics = {f"trl/{k}": float(np.mean(v)) for k, v in self.grpo._metrics["train"].items() if v}
        self.grpo._metrics["train"].clear()
        trainable = [t for t, _ in items]
        return {
            "step": float(self._step),
            "optimizer_steps": float(steps_taken),
            "sequences": float(len(items)),
            "skipped_sequences": float(len(trajectories) - len(items)),
            "generated_tokens": float(sum(t.num_generated_tokens for t in trainable)),
            "loss": totals["loss"],
            "grad_norm": totals["grad_norm"],
            "advantage_mean": float(np.mean([a for _, a in items])) if items else 0.0,
            "reward_mean": float(np.mean([t.reward for t in trainable])) if trainable else 0.0,
            "learning_rate": float(self.optimizer.param_groups[0]["lr"]),
            "seconds": time.perf_counter() - started,
            **drift,
            **sync,
            **trl_metrics,
        }

    def loss(self, trajectories: Sequence[Trajectory], advantages: Sequence[float]) -> torch.Tensor:
        """TRL's loss over these trajectories as one micro-batch, with its graph (no step taken; for tests)."""
        if len(trajectories) != len(advantages):
            raise TrainingInputError(f"loss: {len(trajectories)} trajectories but {len(advantages)} advantages")
        parts = self._prepare(list(zip(trajectories, [float(a) for a in advantages])))
        if len(parts) != 1:
            raise TrainingInputError("loss: the trajectories were sampled from different distributions (temperature, "
                                     "top-k, top-p); pass one group")
        (batch, distribution), = parts
        was_training = self.model.training
        self.model.train()
        self.grpo.current_gradient_accumulation_steps = 1
        try:
            self._scoring.set(distribution)
            batch = {**batch, "num_items_in_batch": self._dapo_items(batch["tool_mask"].sum(), 1)}
            with self.grpo.compute_loss_context_manager():
                return self.grpo.compute_loss(self.model, batch)
        finally:
            self._scoring.set(self._configured)
            if not was_training:
                self.model.eval()

    def train_on_episodes(self, specs: Sequence[EpisodeSpec], *, max_steps: int = 1,
                          rollout_config: RolloutConfig | None = None,
                          advantages: AdvantageEstimator | AdvantageConfig | None = None,
                          seat: int = 0) -> dict[str, Any]:
        """Run ``GRPOTrainer.train()`` for ``max_steps`` optimiser steps over these episodes (each played
        ``num_generations`` times per step) through :func:`make_rollout_func` and this backend's generator.

        The default rollout samples with the config's ``temperature``/``top_p``/``top_k`` and at most
        ``min(max_completion_length, 256)`` tokens per turn. Returns TRL's train metrics plus ``rollout`` (the
        :class:`SpadeRolloutFunc`, holding the last batch's trajectories and advantages)."""
        if max_steps < 1:
            raise TrainingConfigError(f"train_on_episodes: max_steps must be >= 1, got {max_steps}")
        rollout_config = rollout_config or self._rollout_config()
        sampled = rollout_config.sampling.distribution.scoring
        if sampled != self._configured.scoring:
            raise TrainingConfigError(
                f"train_on_episodes: the rollout samples from {sampled}, but GRPOTrainer scores under the config's "
                f"{self._configured} (TRLTrainerConfig.temperature/top_k/top_p); make them equal"
            )
        runner = EpisodeRunner(self.generator, rollout_config)
        rollout = make_rollout_func(runner, advantages=advantages, seat=seat)
        grpo = self.grpo
        grpo.train_dataset = episode_dataset(specs)
        grpo.rollout_func = rollout
        grpo.args.max_steps = max_steps
        grpo._buffered_inputs = None
        try:
            output = grpo.train()
        finally:
            grpo.rollout_func = None
            self.model.eval()
        self.optimizer = grpo.optimizer
        self.optimizer_steps += int(grpo.state.global_step)
        return {**{k: v for k, v in output.metrics.items()}, "global_step": grpo.state.global_step,
                "rollout": rollout}

    # -- checkpoints ----------------------------------------------------------------------------------------
    def save(self, directory: str | Path, *, loop_state: Mapping[str, Any] | None = None) -> Path:
        """Write weights, optimiser, scheduler, RNG states and ``loop_state`` (JSON) to ``directory`` atomically."""
        loop_json = loop_state_json(loop_state)
        with atomic_checkpoint(directory) as tmp:
            self.model.save_pretrained(tmp / MODEL_DIR)
            self.tokenizer.save_pretrained(tmp / MODEL_DIR)
            write_state(tmp, {"optimizer": self.optimizer.state_dict(), "lr_scheduler": self.lr_scheduler.state_dict()},
                        {"format": CHECKPOINT_FORMAT, "backend": self.name, "step": self._step,
                         "optimizer_steps": self.optimizer_steps, "lora": self.config.lora is not None,
                         "config": self.config.to_dict(), "loop_state": loop_json})
        return Path(directory)

    def load(self, directory: str | Path) -> dict[str, Any]:
        """Restore a checkpoint from :meth:`save` into this trainer; return the saved ``loop_state``."""
        source = Path(directory)
        state, tensors = read_state(source, backend=self.name, version=CHECKPOINT_FORMAT, model_dir=MODEL_DIR)
        require_same_lora(state, lora=self.config.lora is not None, source=source)
        load_trained_weights(self.model, source / MODEL_DIR, lora=self.config.lora is not None)
        try:
            self.optimizer.load_state_dict(tensors["optimizer"])
            self.lr_scheduler.load_state_dict(tensors["lr_scheduler"])
        except (ValueError, KeyError) as exc:
            raise CheckpointError(f"{source}: the optimizer state does not fit this model: {exc}") from exc
        restore_rng(tensors, state)
        self._step = int(state["step"])
        self.optimizer_steps = int(state["optimizer_steps"])
        self.model.eval()
        self._push_weights()  # the engine must sample from what was restored
        return dict(state.get("loop_state") or {})

    def close(self) -> None:
        """Remove the temporary output directory this backend created (if any)."""
        if self._own_output_dir:
            shutil.rmtree(self.output_dir, ignore_errors=True)

    # -- internals -------------------------------------------------------------------------------------------
    def _rollout_config(self) -> RolloutConfig:
        from spade_core.models.base import SamplingParams

        cfg = self.config
        sampling = SamplingParams(max_new_tokens=min(cfg.max_completion_length, 256), temperature=cfg.temperature,
                                  top_p=cfg.top_p, top_k=cfg.top_k)
        return RolloutConfig(sampling=sampling, seed=cfg.seed)

    def _push_weights(self, probe: list[list[int]] | None = None,
                      before: list[list[float]] | None = None) -> dict[str, float]:
        """Make a separate sampler sample from the current weights, verified on ``probe`` (scored ``before`` the
        update) as in ``spade_core.training.weight_sync``; a shared HFGenerator needs nothing."""
        if self._external:
            pieces = chunk_weights(policy_weights(self.model, lora=self.config.lora is not None),
                                   self.config.push_chunk_mb)
            metrics, _ = push_and_verify(self._generator, pieces, probe=probe or [], before=before or [],
                                         trainer_scores=self._scorer.score, tolerance=self.config.sync_tolerance)
            return metrics
        if self.config.use_vllm:
            self._generator.sync_weights({})
        return {}

    def _prepare(self, items: Sequence[tuple[Trajectory, float]]) -> list[tuple[dict[str, torch.Tensor], float]]:
        """One TRL batch per sampling distribution (in first-seen order), with reference logprobs when ``beta`` > 0."""
        groups: dict[TokenDistribution, list[tuple[Trajectory, float]]] = {}
        for t, a in items:
            groups.setdefault(t.distribution.scoring, []).append((t, a))
        parts = []
        try:
            for distribution, group in groups.items():
                self._scoring.set(distribution)
                sequences = [TRLSequence.from_trajectory(t, a, pad_token_id=self.pad_token_id) for t, a in group]
                batch = build_batch(sequences, pad_token_id=self.pad_token_id, device=self.device)
                if self.config.beta > 0:
                    batch["ref_per_token_logps"] = self._reference_logprobs(batch)
                parts.append((batch, distribution))
        finally:
            self._scoring.set(self._configured)
        return parts

    def _dapo_items(self, tokens: torch.Tensor, micro_batches: int) -> torch.Tensor:
        """``num_items_in_batch`` such that TRL's dapo/cispo normaliser equals ``tokens`` (TRL rescales it by
        ``gradient_accumulation / steps_per_generation`` for a generation batch spanning several steps, and divides
        it by the number of processes)."""
        processes = self.data_parallel.world if self.data_parallel else 1
        return tokens.float() * self.grpo.args.steps_per_generation * processes / micro_batches

    def _share(self, window: list[MicroBatch]) -> list[tuple[MicroBatch, dict[str, Any]]]:
        """This process's micro-batches of an optimiser step, with their rows.

        Across processes, TRL's loss gathers per-sequence statistics at every call, so every rank makes as many calls
        as the rank with the most micro-batches, each of ``per_device_train_batch_size`` rows: short micro-batches
        are padded, and missing ones filled, with masked copies of a real row (they add nothing to the loss)."""
        group = self.data_parallel
        if group is None:
            return [(m, rows_of(m.batch, m.start, m.end)) for m in window]
        size = self.config.per_device_train_batch_size
        rounds = -(-len(window) // group.world)
        mine = window[group.rank::group.world]
        out = [(m, padded_rows(rows_of(m.batch, m.start, m.end), size)) for m in mine]
        first = window[0]
        for _ in range(rounds - len(mine)):
            out.append((first, masked_copies(rows_of(first.batch, first.start, first.start + 1), size)))
        return out

    def _windows(self, parts: Sequence[tuple[dict[str, torch.Tensor], float]]) -> list[list[MicroBatch]]:
        """Optimiser steps of ``per_device * gradient_accumulation`` sequences, as micro-batches of one distribution."""
        cfg = self.config
        per_step = cfg.per_device_train_batch_size * cfg.gradient_accumulation_steps
        order = [(g, row) for g, (batch, _) in enumerate(parts) for row in range(batch_rows(batch))]
        windows = []
        for first in range(0, len(order), per_step):
            chunk = order[first:first + per_step]
            micro: list[MicroBatch] = []
            for g in dict.fromkeys(g for g, _ in chunk):
                rows = [row for gg, row in chunk if gg == g]
                batch, distribution = parts[g]
                for s in range(rows[0], rows[-1] + 1, cfg.per_device_train_batch_size):
                    micro.append(MicroBatch(batch, distribution, s, min(s + cfg.per_device_train_batch_size,
                                                                   rows[-1] + 1)))
            windows.append(micro)
        return windows

    def _optimizer_step(self, window: list[MicroBatch]) -> tuple[float, float]:
        grpo = self.grpo
        grpo.current_gradient_accumulation_steps = len(window)
        sequences = sum(m.end - m.start for m in window)
        tokens = sum(m.tokens for m in window)
        items = self._dapo_items(torch.tensor(tokens, device=self.device), len(window))
        self.optimizer.zero_grad(set_to_none=True)
        total = 0.0
        group = self.data_parallel
        for m, micro in self._share(window):
            self._scoring.set(m.distribution)
            micro["num_items_in_batch"] = items
            with grpo.compute_loss_context_manager():
                loss = grpo.compute_loss(self.model, micro)
            # TRL normalises each micro-batch by its own size (grpo/dr_grpo) or token count (bnpo) and divides by
            # the number of micro-batches; reweight so the step's loss is the aggregate over the whole window.
            if self.config.loss_type in ("grpo", "dr_grpo"):
                loss = loss * (batch_rows(micro) * len(window) / sequences)
            elif self.config.loss_type == "bnpo":
                loss = loss * (max(m.tokens, 1.0) * len(window) / max(tokens, 1.0))
            grpo.accelerator.backward(loss)
            total += float(loss.detach())
        if group is not None:  # summed: each rank's losses are already weighted against the whole step
            group.all_reduce_gradients(self.parameters)
            total = group.all_reduce_totals({"loss": total})["loss"]
        limit = self.config.max_grad_norm if self.config.max_grad_norm is not None else float("inf")
        norm = torch.nn.utils.clip_grad_norm_(self.parameters, limit)
        self.optimizer.step()
        self.lr_scheduler.step()
        self.optimizer.zero_grad(set_to_none=True)
        self.optimizer_steps += 1
        grpo.state.global_step += 1
        return total, float(norm)

    def _forward_logprobs(self, model: Any, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
        input_ids = torch.cat([batch["prompt_ids"], batch["completion_ids"]], dim=1)
        attention = torch.cat([batch["prompt_mask"], batch["completion_mask"]], dim=1)
        logps, _, _ = self.grpo._get_per_token_logps_and_entropies(
            model, input_ids, attention, batch["completion_ids"].size(1),
            batch_size=self.config.per_device_train_batch_size)
        return logps

    @torch.no_grad()
    def _sampler_drift(self, parts: Sequence[tuple[dict[str, torch.Tensor], float]]) -> dict[str, float]:
        """How far the trainer's logprobs are from the sampler's on trained tokens, before any step (a vLLM/HF
        mismatch or stale weights show up here)."""
        total, tokens, worst, ratio = 0.0, 0.0, 0.0, 0.0
        try:
            for batch, distribution in parts:
                self._scoring.set(distribution)
                logps = self._forward_logprobs(self.model, batch)
                mask = (batch["completion_mask"] * batch["tool_mask"]).float()
                delta = (logps - batch["old_per_token_logps"]) * mask
                total += float(delta.abs().sum())
                worst = max(worst, float(delta.abs().max()))
                ratio += float((torch.exp(delta.clamp(-20, 20)) * mask).sum())
                tokens += float(mask.sum())
        finally:
            self._scoring.set(self._configured)
        tokens = max(tokens, 1.0)
        return {"sampler_logprob_abs_diff": total / tokens, "sampler_logprob_max_diff": worst,
                "ratio_mean": ratio / tokens}

    @torch.no_grad()
    def _reference_logprobs(self, batch: Mapping[str, torch.Tensor]) -> torch.Tensor:
        grpo = self.grpo
        if grpo.ref_model is not None:
            return self._forward_logprobs(grpo.ref_model, batch)
        with self.model.disable_adapter():  # PEFT: the frozen base is the reference
            return self._forward_logprobs(self.model, batch)


def _use_cuda(cfg: TRLTrainerConfig) -> bool:
    if cfg.device == "cuda" and not torch.cuda.is_available():
        raise TrainingConfigError("device 'cuda' requested but CUDA is not available; use device='cpu' or 'auto'")
    return cfg.device == "cuda" or (cfg.device == "auto" and torch.cuda.is_available())


def build_trl_trainer(
    model: Any,
    tokenizer: Any | None = None,
    config: TRLTrainerConfig | Mapping[str, Any] | None = None,
    *,
    generator: ModelBackend | None = None,
    data_parallel: DataParallel | None = None,
    **overrides: Any,
) -> TRLTrainer:
    """Plugin factory: ``model`` is a ``save_pretrained`` path or a loaded causal LM; ``config`` a
    :class:`TRLTrainerConfig` or a mapping of its fields; keyword overrides replace single fields. ``generator``
    (optional) is a separate sampler (e.g. SPADE's colocated ``VLLMBackend``): it is put to ``sleep()`` (if it has
    one) during optimiser steps and gets the full state dict through ``sync_weights`` after each update.
    ``data_parallel``: this process's place among several (torchrun); each rank trains its share of each step."""
    cfg = backend_config(TRLTrainerConfig, config, overrides, "trl-trainer")
    if cfg.use_vllm:
        check_vllm_runtime()
    model, tokenizer = load_policy(model, tokenizer, factory="build_trl_trainer")
    return TRLTrainer(model, tokenizer, cfg, generator=generator, data_parallel=data_parallel)

