"""The reference trainer backend: pure PyTorch + transformers, correct before fast; runs on CPU in tests.

By default it trains the policy in place and samples from the very same module (its :class:`HFGenerator` shares it,
so weight sync is free). Given a separate ``generator`` (a colocated vLLM engine), every update releases the
engine's memory while it steps, pushes the new weights (LoRA adapters merged), and verifies the push by scoring a
probe batch with both (``spade_core.training.weight_sync``); a push that does not verify stops the run. Forward
passes run with dropout off so that, before the first optimiser step of an update, the importance ratio to the
sampler's logprobs is 1 up to numerics.

Across data-parallel ranks the weights are whole replicas (``sharding="replicate"``) or FSDP2 shards
(``sharding="fsdp"``, ``spade_core.training.sharding``: full fine-tuning of models too large to replicate; it needs a
separate generator, since a sharded module cannot sample on one rank alone).
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np
import torch

from spade_core.heap import release_free_memory
from spade_core.models.decoding import ContextCache
from spade_core.models.hf_generator import HFGenerator
from spade_core.models.scoring import decoder_and_head, next_token_logprobs
from spade_core.rollout.trajectory import Trajectory
from spade_core.training.backend import backend_config, load_policy, trainable_items
from spade_core.training.checkpoint import (
    atomic_checkpoint,
    loop_state_json,
    read_safetensors,
    read_state,
    restore_rng,
    write_state,
)
from spade_core.training.data_parallel import DataParallel
from spade_core.training.errors import CheckpointError, TrainingConfigError
from spade_core.training.lora import load_trained_weights, require_same_lora, wrap_lora
from spade_core.training.sharding import (
    ShardingError,
    full_tensor,
    load_states,
    save_states,
    shard_model,
)
from spade_core.training.weight_sync import chunk_weights, policy_weights, probe_sequences, push_and_verify
from spade_trainers.reference.config import ReferenceTrainerConfig
from spade_trainers.reference.loss import PackedBatch, clipped_pg_loss, head_logprobs, pack, row_logprobs

CHECKPOINT_FORMAT = 1
MIN_CONTEXT_TOKENS = 32  # shorter contexts run with the trained part (a separate no-gradient pass is not worth it)
MODEL_DIR = "model"
REFERENCE_DIR = "reference"


class ReferenceTrainer:
    """Clipped, masked policy-gradient updates with AdamW on a transformers causal LM (optionally LoRA).

    Construction calls ``torch.manual_seed(config.seed)`` (like HF's ``set_seed``) so a run is reproducible;
    checkpoints restore the global RNG states.
    """

    name = "reference"

    def __init__(self, model: Any, tokenizer: Any, config: ReferenceTrainerConfig | None = None, *,
                 generator: Any | None = None, data_parallel: DataParallel | None = None) -> None:
        self.config = config or ReferenceTrainerConfig()
        self.data_parallel = data_parallel  # several processes (see spade_core.training.data_parallel)
        cfg = self.config
        self.sharded = cfg.sharding == "fsdp"
        if self.sharded and data_parallel is None:
            raise TrainingConfigError("sharding='fsdp' shards the model across data-parallel ranks: launch several "
                                      "processes (torchrun / accelerate launch), or use sharding='replicate'")
        if self.sharded and generator is None:
            raise TrainingConfigError("sharding='fsdp': a sharded module cannot sample on one rank alone; pass a "
                                      "separate generator (in self-play: model.generator=vllm or hf_engine)")
        self.device = _resolve_device(cfg.device)
        if cfg.precision == "bf16" or (cfg.precision == "auto" and self.device.type == "cuda"):
            self.autocast_dtype: torch.dtype | None = torch.bfloat16
        else:
            self.autocast_dtype = None
        torch.manual_seed(cfg.seed)
        self.tokenizer = tokenizer
        # fp32 master weights (bf16 only under autocast); a frozen LoRA base may be kept in bf16 to halve its memory
        if self.sharded:  # fp32 where it is (rank 0's CPU, or the meta device elsewhere); shard_model places shards
            model = model.to(dtype=torch.float32)
        else:
            model = model.to(device=self.device, dtype=cfg.lora.torch_base_dtype if cfg.lora else torch.float32)
        if cfg.lora is not None:
            model = wrap_lora(model, cfg.lora)
        if cfg.gradient_checkpointing:
            model.gradient_checkpointing_enable()
            if cfg.lora is not None:
                model.enable_input_require_grads()
            _allow_context_under_checkpointing(model)
        _disable_dropout(model)
        self._contexts = _ContextStore()
        self.model = model
        self.reference = None
        if cfg.kl_coef > 0 and cfg.lora is None:
            self.reference = copy.deepcopy(model).eval().requires_grad_(False)
        trainable = [p for p in model.parameters() if p.requires_grad]
        if not trainable:
            raise TrainingConfigError("the model has no trainable parameters")
        if self.sharded:  # every rank gets its shards of rank 0's weights
            shard_model(model, data_parallel.world, self.device)
            if self.reference is not None:
                shard_model(self.reference, data_parallel.world, self.device)
        elif data_parallel is not None:
            data_parallel.broadcast_parameters(trainable)
        self.parameters = [p for p in model.parameters() if p.requires_grad]  # FSDP replaced them with shards
        self.optimizer = torch.optim.AdamW(self.parameters, lr=cfg.learning_rate, betas=tuple(cfg.betas),
                                           eps=cfg.adam_eps, weight_decay=cfg.weight_decay)
        self._own_generator = HFGenerator(model, tokenizer, max_batch_size=cfg.generator_max_batch_size,
                                          autocast_dtype=self.autocast_dtype, kv_cache_mb=cfg.generator_kv_cache_mb,
                                          decode_threads=cfg.generator_decode_threads)
        self._generator = generator if generator is not None else self._own_generator
        pad = tokenizer.pad_token_id
        self.pad_token_id = int(pad if pad is not None else self._own_generator.pad_token_id)
        self._step = 0
        self.optimizer_steps = 0

    # -- TrainerBackend --------------------------------------------------------------------------------------
    @property
    def generator(self) -> Any:
        return self._generator

    @property
    def step(self) -> int:
        return self._step

    def update(self, trajectories: Sequence[Trajectory], advantages: Sequence[float]) -> dict[str, float]:
        """One update: ``mini_batches`` optimiser steps per epoch over the trainable trajectories."""
        started = time.perf_counter()
        self._own_generator.forget_prefix()  # its kept keys and values belong to the weights this update changes
        release_free_memory()  # the sampler's freed key/value buffers, before gradients and activations are allocated
        items = trainable_items(trajectories, advantages)
        external = self._generator is not self._own_generator
        probe = probe_sequences([t for t, _ in items], self.config.sync_probe_sequences) if external else []
        before = self._own_generator.score(probe) if probe else []
        if external and hasattr(self._generator, "sleep"):
            self._generator.sleep()
        try:
            totals, steps_taken = self._optimise(items)
        finally:
            sync = self._push_weights(probe, before) if external else {}  # never leave the engine without weights
        self._step += 1
        tokens = max(totals["tokens"], 1.0)
        trainable = [t for t, _ in items]
        return sync | {
            "step": float(self._step),
            "optimizer_steps": float(steps_taken),
            "sequences": float(len(items)),
            "skipped_sequences": float(len(trajectories) - len(items)),
            "generated_tokens": float(sum(t.num_generated_tokens for t in trainable)),
            "loss": totals["loss"],
            "pg_loss": totals["pg_loss"],
            "kl": totals["kl"] / tokens,
            "ratio_mean": totals["ratio_sum"] / tokens,
            "ratio_max": totals["ratio_max"],
            "clip_frac_low": totals["clipped_low"] / tokens,
            "clip_frac_high": totals["clipped_high"] / tokens,
            "sampler_logprob_abs_diff": totals["abs_lp_diff"] / tokens,
            "grad_norm": totals["grad_norm"],
            "advantage_mean": float(np.mean([a for _, a in items])) if items else 0.0,
            "reward_mean": float(np.mean([t.reward for t in trainable])) if trainable else 0.0,
            "learning_rate": float(self.optimizer.param_groups[0]["lr"]),
            "seconds": time.perf_counter() - started,
        }

    def _optimise(self, items: list[tuple[Trajectory, float]]) -> tuple[dict[str, float], int]:
        """``mini_batches`` optimiser steps per epoch; returns summed loss statistics and the steps taken."""
        cfg = self.config
        totals: dict[str, float] = {"loss": 0.0, "pg_loss": 0.0, "kl": 0.0, "tokens": 0.0, "ratio_sum": 0.0,
                                    "ratio_max": 0.0, "clipped_low": 0.0, "clipped_high": 0.0, "abs_lp_diff": 0.0,
                                    "grad_norm": 0.0}
        steps_taken = 0
        self.model.train()
        for _ in range(cfg.epochs):
            for mini in _split(items, cfg.mini_batches):
                if not mini:
                    continue
                tokens_in_step = sum(t.num_generated_tokens for t, _ in mini)
                normaliser = (len(mini) * cfg.max_completion_tokens if cfg.normaliser == "constant"
                              else max(tokens_in_step, 1))
                work = mini if cfg.kl_coef > 0 else [(t, a) for t, a in mini if a != 0.0]
                if not work:
                    continue  # every advantage is 0 and there is no KL term: the gradient is exactly zero
                self.optimizer.zero_grad(set_to_none=True)
                local = self.data_parallel.shard(work) if self.data_parallel else work
                rounds = math.ceil(len(local) / cfg.micro_batch_size)
                if self.sharded:  # every rank runs as many forward/backward passes as the largest share
                    rounds = math.ceil(math.ceil(len(work) / self.data_parallel.world) / cfg.micro_batch_size)
                for index in range(rounds):
                    micro = local[index * cfg.micro_batch_size:(index + 1) * cfg.micro_batch_size]
                    padding = not micro
                    batch_items = micro or work[:1]  # padding: a real batch whose gradient is multiplied by 0
                    batch = pack([t for t, _ in batch_items], [a for _, a in batch_items],
                                 self.pad_token_id).to(self.device)
                    parts = self._loss(batch, float(normaliser))
                    (parts.loss * 0.0 if padding else parts.loss).backward()
                    release_free_memory()  # this backward's temporaries, before the next context and forward
                    if padding:
                        continue
                    totals["loss"] += float(parts.loss.detach())
                    totals["pg_loss"] += float(parts.pg_sum) / normaliser
                    totals["kl"] += float(parts.kl_sum)
                    totals["tokens"] += float(parts.tokens)
                    totals["ratio_sum"] += float(parts.ratio_sum)
                    totals["ratio_max"] = max(totals["ratio_max"], float(parts.ratio_max))
                    totals["clipped_low"] += float(parts.clipped_low)
                    totals["clipped_high"] += float(parts.clipped_high)
                    totals["abs_lp_diff"] += float(parts.abs_logprob_diff_sum)
                if self.data_parallel and not self.sharded:  # FSDP sums the gradient shards itself
                    self.data_parallel.all_reduce_gradients(self.parameters)
                limit = cfg.max_grad_norm if cfg.max_grad_norm is not None else float("inf")
                grad_norm = torch.nn.utils.clip_grad_norm_(self.parameters, limit)
                totals["grad_norm"] = max(totals["grad_norm"], float(full_tensor(grad_norm)))
                self._contexts.clear()  # the contexts were computed with the weights this step changes
                self.optimizer.step()
                self.optimizer.zero_grad(set_to_none=True)
                self.optimizer_steps += 1
                steps_taken += 1
        self._contexts.clear()
        self.model.eval()
        if self.data_parallel:
            totals = self.data_parallel.all_reduce_totals(totals, maxima=("ratio_max", "grad_norm"))
        return totals, steps_taken

    def loss(self, trajectories: Sequence[Trajectory], advantages: Sequence[float]) -> torch.Tensor:
        """The loss of one optimiser step over these trajectories, with its graph (no step taken; for tests)."""
        batch = pack(list(trajectories), list(advantages), self.pad_token_id).to(self.device)
        cfg = self.config
        normaliser = (len(trajectories) * cfg.max_completion_tokens if cfg.normaliser == "constant"
                      else max(sum(t.num_generated_tokens for t in trajectories), 1))
        self._contexts.clear()
        try:
            return self._loss(batch, float(normaliser)).loss
        finally:
            self._contexts.clear()

    def sequence_logprobs(self, trajectories: Sequence[Trajectory]) -> list[list[float]]:
        """The current policy's logprob of every token after the first (aligned with ``token_ids[1:]``)."""
        batch = pack(list(trajectories), [0.0] * len(trajectories), self.pad_token_id).to(self.device)

        def pick(logits: torch.Tensor, targets: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
            return row_logprobs(logits, targets, rows, batch.distributions)

        with torch.no_grad(), self._autocast():
            logprobs = next_token_logprobs(self.model, batch.input_ids, batch.attention_mask, pick)
        return [logprobs[i, : len(t.token_ids) - 1].tolist() for i, t in enumerate(trajectories)]

    def policy_state_dict(self) -> dict[str, torch.Tensor]:
        """The policy's weights under the base model's own names (LoRA adapters merged in), for a generator.

        Sharded, the whole weights are gathered on every rank (all ranks call this together)."""
        return dict(policy_weights(self.model, lora=self.config.lora is not None))

    def policy_state_chunks(self) -> Iterator[dict[str, torch.Tensor]]:
        """:meth:`policy_state_dict` in pieces of about ``push_chunk_mb``, each computed (adapters merged, shards
        gathered) only when its turn comes, so a push never holds a second full copy of the model."""
        return chunk_weights(policy_weights(self.model, lora=self.config.lora is not None), self.config.push_chunk_mb)

    def _push_weights(self, probe: list[list[int]], before: list[list[float]]) -> dict[str, float]:
        metrics, _ = push_and_verify(self._generator, self.policy_state_chunks(), probe=probe, before=before,
                                     trainer_scores=self._own_generator.score, tolerance=self.config.sync_tolerance)
        return metrics

    # -- checkpoints ----------------------------------------------------------------------------------------
    @property
    def collective_checkpoints(self) -> bool:
        """True when every rank must take part in :meth:`save` (sharded weights are gathered to rank 0)."""
        return self.sharded

    def save(self, directory: str | Path, *, loop_state: Mapping[str, Any] | None = None) -> Path:
        """Write weights, optimiser, RNG states and ``loop_state`` (JSON) to ``directory`` atomically.

        Sharded, all ranks call this together and rank 0 writes whole tensors: the model folder is a plain
        ``save_pretrained`` model, and the optimiser state is keyed by parameter name, so a run can resume on
        another number of ranks."""
        loop_json = loop_state_json(loop_state)
        weights = reference = None
        optimizer_state: Any = self.optimizer.state_dict()
        if self.sharded:
            weights, optimizer_state = save_states(self.model, self.optimizer)
            reference = save_states(self.reference, None)[0] if self.reference is not None else None
            if not self.data_parallel.is_driver:
                return Path(directory)
        with atomic_checkpoint(directory) as tmp:
            self.model.save_pretrained(tmp / MODEL_DIR, state_dict=weights)
            self.tokenizer.save_pretrained(tmp / MODEL_DIR)
            if self.reference is not None:
                self.reference.save_pretrained(tmp / REFERENCE_DIR, state_dict=reference)
            write_state(tmp, {"optimizer": optimizer_state}, {
                "format": CHECKPOINT_FORMAT, "backend": self.name, "step": self._step,
                "optimizer_steps": self.optimizer_steps, "lora": self.config.lora is not None,
                "sharding": self.config.sharding, "config": self.config.to_dict(), "loop_state": loop_json,
            })
        return Path(directory)

    def load(self, directory: str | Path) -> dict[str, Any]:
        """Restore a checkpoint from :meth:`save` into this trainer; return the saved ``loop_state``."""
        source = Path(directory)
        state, tensors = read_state(source, backend=self.name, version=CHECKPOINT_FORMAT, model_dir=MODEL_DIR)
        require_same_lora(state, lora=self.config.lora is not None, source=source)
        saved_sharding = state.get("sharding", "replicate")
        if saved_sharding != self.config.sharding:
            raise CheckpointError(f"{source}: saved with sharding={saved_sharding!r}, but this trainer has "
                                  f"sharding={self.config.sharding!r}; their optimiser states differ, so resume with "
                                  "the same setting")
        try:
            if self.sharded:
                load_states(self.model, read_safetensors(source / MODEL_DIR), self.optimizer, tensors["optimizer"])
                if self.reference is not None and (source / REFERENCE_DIR).exists():
                    load_states(self.reference, read_safetensors(source / REFERENCE_DIR))
            else:
                load_trained_weights(self.model, source / MODEL_DIR, lora=self.config.lora is not None)
                if self.reference is not None and (source / REFERENCE_DIR).exists():
                    load_trained_weights(self.reference, source / REFERENCE_DIR, lora=False)
                self.optimizer.load_state_dict(tensors["optimizer"])
        except (ValueError, KeyError, ShardingError) as exc:
            raise CheckpointError(f"{source}: the saved state does not fit this model: {exc}") from exc
        restore_rng(tensors, state)
        self._step = int(state["step"])
        self.optimizer_steps = int(state["optimizer_steps"])
        self.model.eval()
        if self._generator is not self._own_generator:
            self._push_weights(probe=[], before=[])  # the engine must sample from what was restored
        return dict(state.get("loop_state") or {})

    def close(self) -> None:
        """Nothing to release: the model, optimiser and own generator live in this process and go with it."""

    # -- internals -------------------------------------------------------------------------------------------
    def _autocast(self) -> Any:
        if self.autocast_dtype is None:
            return nullcontext()
        return torch.autocast(device_type=self.device.type, dtype=self.autocast_dtype)

    def _policy_logprobs(self, model: Any, batch: PackedBatch, *, only_trained: bool = False,
                         context_key: str = "policy") -> torch.Tensor:
        """Per-token logprobs ``[B, T-1]``, each row's under the distribution its tokens were sampled from.

        With ``only_trained``, vocabulary logits are computed only where the loss mask is 1 (others are 0): a
        designer prompt of thousands of tokens times a 49k vocabulary would otherwise need gigabytes of logits per
        sequence for tokens that carry no loss. Unless ``context_gradient``, the context every row shares before
        its first trained position (the prompt) also runs without gradient, once (:class:`_ContextStore`): only
        the trained part of each sequence keeps activations for backward. ``context_key`` names the weights the
        context was computed with (the policy, or the reference for the KL term)."""
        if only_trained and self.sharded:
            return self._trained_logprobs_sharded(model, batch)
        decoder = decoder_and_head(model) if only_trained else None
        targets = batch.input_ids[:, 1:]
        if decoder is None:
            with self._autocast():
                logits = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask).logits[:, :-1]
            rows = torch.arange(targets.shape[0], device=targets.device)[:, None].expand_as(targets)
            picked = row_logprobs(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), rows.reshape(-1),
                                  batch.distributions)
            return picked.view(targets.shape)
        decoder_module, head = decoder
        rows, cols = torch.nonzero(batch.loss_mask_next > 0, as_tuple=True)
        split = 0 if self.config.context_gradient or not len(cols) else int(cols.min())
        with self._autocast():
            if split >= MIN_CONTEXT_TOKENS:
                context = self._contexts.context(context_key, decoder_module, batch.input_ids[:, :split])
                positions = torch.arange(split, batch.input_ids.shape[1], device=self.device)[None]
                hidden = decoder_module(input_ids=batch.input_ids[:, split:], attention_mask=batch.attention_mask,
                                        position_ids=positions.expand(batch.input_ids.shape[0], -1),
                                        past_key_values=context, use_cache=False).last_hidden_state
            else:
                split = 0
                hidden = decoder_module(input_ids=batch.input_ids,
                                        attention_mask=batch.attention_mask).last_hidden_state
            picked = head_logprobs(head, hidden[rows, cols - split], targets[rows, cols], rows, batch.distributions)
        out = torch.zeros(batch.loss_mask_next.shape, dtype=picked.dtype, device=picked.device)
        return out.index_put((rows, cols), picked)

    def _trained_logprobs_sharded(self, model: Any, batch: PackedBatch) -> torch.Tensor:
        """:meth:`_policy_logprobs` with ``only_trained`` on a sharded model, which runs only as a whole (its root
        gathers the embeddings and head): logits only at the positions where some row is trained."""
        trained = batch.loss_mask_next > 0
        keep = torch.nonzero(trained.any(dim=0), as_tuple=True)[0]
        with self._autocast():
            logits = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask, logits_to_keep=keep).logits
        targets = batch.input_ids[:, 1:][:, keep]
        rows = torch.arange(targets.shape[0], device=targets.device)[:, None].expand_as(targets)
        picked = row_logprobs(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), rows.reshape(-1),
                              batch.distributions).view(targets.shape)
        out = torch.zeros(trained.shape, dtype=picked.dtype, device=picked.device)
        out[:, keep] = picked
        return out * trained

    def _loss(self, batch: PackedBatch, normaliser: float) -> Any:
        cfg = self.config
        logprobs = self._policy_logprobs(self.model, batch, only_trained=True)
        ref = None
        if cfg.kl_coef > 0:
            with torch.no_grad():
                if self.reference is not None:
                    ref = self._policy_logprobs(self.reference, batch, only_trained=True, context_key="reference")
                else:
                    with self.model.disable_adapter():
                        ref = self._policy_logprobs(self.model, batch, only_trained=True, context_key="reference")
        return clipped_pg_loss(
            logprobs, batch.sampler_logprobs_next, batch.advantages, batch.loss_mask_next,
            clip_eps_low=cfg.clip_eps_low, clip_eps_high=cfg.clip_eps_high, normaliser=normaliser,
            ref_logprobs=ref, kl_coef=cfg.kl_coef,
        )


class _ContextStore:
    """Keys and values of the contexts of one optimiser step, computed without gradient and shared.

    A micro-batch's context (its rows' tokens before the first trained position) is computed once: the prefix all
    its rows share runs as one row, and a prefix it shares with the previous micro-batch's (a repair prompt starts
    with the first attempt's prompt; designer prompts start with the same worked example) is not recomputed at
    all. Valid only while the weights stay the same: :meth:`clear` at every optimiser step."""

    def __init__(self) -> None:
        self._last: dict[str, tuple[list[int], ContextCache]] = {}

    def clear(self) -> None:
        self._last.clear()

    @torch.no_grad()
    def context(self, key: str, decoder: Any, ids: torch.Tensor) -> ContextCache:
        """A frozen cache of ``ids`` (``[B, L]``, no padding) for ``decoder``'s weights named ``key``."""
        rows = ids.tolist()
        shared = _common_prefix(rows)
        # taken out of the store, not read: a context that is not reused is freed before its successor is computed,
        # and a reused prefix's views are replaced layer by layer as the extension concatenates onto them
        previous_ids, previous = self._last.pop(key, ([], None))
        reuse = _common_prefix([previous_ids, rows[0][:shared]]) if previous is not None else 0
        if reuse >= MIN_CONTEXT_TOKENS:
            cache = previous.prefix(reuse)
        else:
            cache, reuse = ContextCache(), 0
        del previous
        if shared > reuse:
            _extend(decoder, cache, ids[:1, reuse:shared], reuse)
        cache.freeze()
        self._last[key] = (rows[0][:shared], cache)
        batch = cache.expand(len(rows))
        if ids.shape[1] > shared:
            _extend(decoder, batch, ids[:, shared:], shared)
        return batch.freeze()


def _extend(decoder: Any, cache: ContextCache, ids: torch.Tensor, start: int) -> None:
    positions = torch.arange(start, start + ids.shape[1], device=ids.device)[None].expand(ids.shape[0], -1)
    decoder(input_ids=ids, position_ids=positions, past_key_values=cache, use_cache=False)


def _common_prefix(rows: Sequence[Sequence[int]]) -> int:
    """How many leading tokens every row shares."""
    if not rows:
        return 0
    first, length = rows[0], min(len(r) for r in rows)
    for n in range(length):
        if any(r[n] != first[n] for r in rows[1:]):
            return n
    return length


def build_reference_trainer(
    model: Any,
    tokenizer: Any | None = None,
    config: ReferenceTrainerConfig | Mapping[str, Any] | None = None,
    *,
    generator: Any | None = None,
    data_parallel: DataParallel | None = None,
    **overrides: Any,
) -> ReferenceTrainer:
    """Plugin factory: ``model`` is a ``save_pretrained`` path or a loaded causal LM; ``config`` a config or a
    mapping of its fields; keyword overrides replace single fields; ``generator`` a separate sampling engine."""
    cfg = backend_config(ReferenceTrainerConfig, config, overrides, "reference-trainer")
    model, tokenizer = load_policy(model, tokenizer, factory="build_reference_trainer")
    return ReferenceTrainer(model, tokenizer, cfg, generator=generator, data_parallel=data_parallel)


def _resolve_device(name: str) -> torch.device:
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    device = torch.device(name)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise TrainingConfigError(f"device {name!r} requested but CUDA is not available; use device='cpu' or 'auto'")
    return device


def _allow_context_under_checkpointing(model: torch.nn.Module) -> None:
    """Let checkpointed decoder layers read a :class:`ContextCache`. transformers drops ``past_key_values`` under
    gradient checkpointing because recomputing a layer would append its keys to the cache a second time; a frozen
    context cache is never written to, so recomputation reads exactly what the first pass read."""
    for module in model.modules():
        if hasattr(module, "_can_checkpoint_with_cache"):
            module._can_checkpoint_with_cache = True


def _disable_dropout(model: torch.nn.Module) -> None:
    """Policy-gradient ratios need the same forward as the sampler: no dropout anywhere."""
    for module in model.modules():
        if isinstance(module, torch.nn.Dropout):
            module.p = 0.0
    config = getattr(model, "config", None)
    for name in ("attention_dropout", "hidden_dropout", "dropout"):
        if config is not None and isinstance(getattr(config, name, None), float):
            setattr(config, name, 0.0)


def _split(items: list[Any], parts: int) -> list[list[Any]]:
    """``parts`` contiguous chunks of near-equal size (earlier ones one longer)."""
    size, extra = divmod(len(items), parts)
    out, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        out.append(items[start:end])
        start = end
    return out


__all__ = ["ReferenceTrainer", "build_reference_trainer"]
