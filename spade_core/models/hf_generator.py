"""``HFGenerator``: an in-process transformers causal LM behind the :class:`ModelBackend` interface.

It is the reference backend's generator and the CPU fallback everywhere. Trajectories need exact token ids and the
sampler's logprobs, so it runs its own decoding loop (left-padded batches, KV cache, finished rows dropped from the
batch) instead of ``model.generate``:

- the logprob of each sampled token is taken under the distribution it was actually drawn from (temperature, top-k
  and top-p applied, :mod:`spade_core.models.distribution`); with ``temperature == 0`` (greedy) it is the
  untempered model logprob. Every ``Generation`` records that distribution, which trainers score it under;
- sampling uses a private ``torch.Generator`` seeded from ``SamplingParams.seed`` (the same prompts and seed give the
  same completions); with ``seed=None`` the seed is drawn from torch's global RNG, so ``torch.manual_seed`` (and a
  trainer checkpoint that restores RNG states) still makes a run reproducible;
- a completion stops at an EOS token (kept in ``completion_ids``, left out of ``text``) or when its text contains a
  stop string (``text`` is cut before it; ``completion_ids`` keep every sampled token);
- a prompt that cannot be run (empty, longer than the model's context) yields a ``Generation`` with
  ``finish_reason="error"`` instead of failing the whole batch;
- every row's keys and values are kept after the call (:mod:`spade_core.models.kv_sessions`, bounded by
  ``kv_cache_mb``), so the next turn of a multi-turn episode prefills only the tokens new to it; rows with different
  kept lengths share a batch (ragged, left-padded, masked), and the results are those of the full-history path;
- decode steps run on ``decode_threads`` intra-op CPU threads (default 1: on a shared CPU each small op's barrier
  across threads costs more than the op), prefill on torch's setting.
"""

from __future__ import annotations

import contextlib
import inspect
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from spade_core.models import decoding
from spade_core.models.base import (
    DEFAULT_DECODE_THREADS,
    DEFAULT_KV_CACHE_MB,
    MAX_BATCH_SIZE,
    Generation,
    SamplingParams,
    TokenDistribution,
)
from spade_core.models.distribution import sample_tokens, token_logprobs
from spade_core.models.errors import GenerationError, WeightSyncError
from spade_core.models.kv_sessions import MIB, KeptSequence, KVSessions, Match
from spade_core.models.scoring import next_token_logprobs

MIN_SHARED_PREFIX = 32  # shorter common prefixes are not worth a separate forward pass


@dataclass
class GeneratorStats:
    """Running totals since the generator was built (for throughput metrics and batching checks)."""

    calls: int = 0
    sequences: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    forward_passes: int = 0
    shared_prefix_tokens: int = 0  # prompt tokens not recomputed because the batch shares them
    prefilled_tokens: int = 0  # prompt tokens run through the model (padding not counted)
    reused_tokens: int = 0  # prompt tokens taken from kept keys and values of an earlier call (kv_sessions)
    kv_evictions: int = 0  # kept sequences dropped to stay within the byte budget (recomputed when next needed)
    seconds: float = 0.0

    def as_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


class HFGenerator:
    """Batched sampling from a transformers causal LM with exact ids and sampler logprobs.

    ``model`` may be the trainer's own module (then :meth:`sync_weights` is a no-op) or a separate copy.
    ``max_batch_size`` bounds how many sequences share one forward pass; larger requests are chunked.
    ``autocast_dtype`` (e.g. ``torch.bfloat16`` on GPU) runs forwards under autocast, as a trainer that computes its
    logprobs under the same autocast needs for sampler and trainer logprobs to agree.
    ``share_prefix`` computes a prompt prefix shared by a whole batch once; ``fast_decoding`` uses the growing KV
    cache and grouped-query decode attention of :mod:`spade_core.models.decoding` (both exact; off only to measure).
    ``kv_cache_mb`` bounds the keys and values kept between calls (:mod:`spade_core.models.kv_sessions`), so a
    prompt that extends an earlier sequence (the next turn of an episode, a repair prompt) prefills only its new
    tokens; 0 turns keeping off (every call prefills its whole prompts). Keeping needs ``fast_decoding`` and a model
    it supports. ``decode_threads`` caps the intra-op CPU threads of the decode steps (prefill keeps torch's
    setting; 0: torch's setting throughout; see :data:`~spade_core.models.base.DEFAULT_DECODE_THREADS`).
    """

    name = "hf"

    def __init__(
        self,
        model: Any,
        tokenizer: Any,
        *,
        device: str | torch.device | None = None,
        max_batch_size: int = MAX_BATCH_SIZE,
        extra_eos_token_ids: Iterable[int] = (),
        autocast_dtype: torch.dtype | None = None,
        share_prefix: bool = True,
        fast_decoding: bool = True,
        kv_cache_mb: float = DEFAULT_KV_CACHE_MB,
        decode_threads: int = DEFAULT_DECODE_THREADS,
    ) -> None:
        if max_batch_size < 1:
            raise GenerationError(f"max_batch_size must be >= 1, got {max_batch_size}")
        if decode_threads < 0:
            raise GenerationError(f"decode_threads must be >= 0 (0: torch's own setting), got {decode_threads}")
        self.decode_threads = decode_threads
        self.model = model
        self.tokenizer = tokenizer
        if device is not None:
            self.device = torch.device(device)
            model.to(self.device)
        else:
            self.device = next(model.parameters()).device
        self.max_batch_size = max_batch_size
        self.autocast_dtype = autocast_dtype
        self.share_prefix = share_prefix
        self.fast_decoding = fast_decoding
        self.eos_token_ids = frozenset(_eos_ids(model, tokenizer)) | frozenset(extra_eos_token_ids)
        if not self.eos_token_ids:
            raise GenerationError("the tokenizer has no eos_token_id and the model's generation_config names none")
        pad = tokenizer.pad_token_id
        self.pad_token_id = int(pad if pad is not None else min(self.eos_token_ids))
        config = getattr(model, "config", None)
        self.max_positions: int | None = getattr(config, "max_position_embeddings", None)
        base = model.get_base_model() if hasattr(model, "get_base_model") else model
        self._logits_to_keep = "logits_to_keep" in inspect.signature(base.forward).parameters
        self.stats = GeneratorStats()
        self.sessions = KVSessions(int(kv_cache_mb * MIB))

    @classmethod
    def from_pretrained(
        cls, path: str | Path, *, device: str | None = None, dtype: torch.dtype | None = None, **kwargs: Any
    ) -> HFGenerator:
        """Load a ``save_pretrained`` directory (model + tokenizer) into a new generator."""
        from transformers import AutoModelForCausalLM, AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(path)
        model = AutoModelForCausalLM.from_pretrained(path, dtype=dtype or torch.float32)
        return cls(model, tokenizer, device=device or "cpu", **kwargs)

    # -- ModelBackend --------------------------------------------------------------------------------------
    def generate(self, prompts: Sequence[Sequence[int]], params: SamplingParams) -> list[Generation]:
        """One completion per prompt; prompts are chunked into batches of at most ``max_batch_size``."""
        _check_params(params)
        started = time.perf_counter()
        results: list[Generation | None] = [None] * len(prompts)
        runnable: list[int] = []
        for i, prompt in enumerate(prompts):
            ids = [int(t) for t in prompt]
            problem = self._prompt_problem(ids, params)
            if problem is not None:
                results[i] = Generation(ids, [], "", [], finish_reason="error", error=problem)
            else:
                runnable.append(i)
        seed = params.seed if params.seed is not None else int(torch.randint(0, 2**62, (1,)).item())
        rng = torch.Generator(device=self.device)
        rng.manual_seed(seed)
        # Similar lengths share a batch (less padding); the order is fixed by the input, so runs stay reproducible.
        runnable.sort(key=lambda i: len(prompts[i]))
        if self.sessions.enabled:
            self.sessions.check_version(self._weights_version())
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.inference_mode():
                for start in range(0, len(runnable), self.max_batch_size):
                    chunk = runnable[start:start + self.max_batch_size]
                    outs = self._generate_batch([[int(t) for t in prompts[i]] for i in chunk], params, rng)
                    for i, gen in zip(chunk, outs):
                        results[i] = gen
        finally:
            if was_training:
                self.model.train()
        done = [g for g in results if g is not None]
        self.stats.calls += 1
        self.stats.sequences += len(done)
        self.stats.prompt_tokens += sum(len(g.prompt_ids) for g in done)
        self.stats.completion_tokens += sum(len(g.completion_ids) for g in done)
        self.stats.seconds += time.perf_counter() - started
        return done

    def chat(self, conversations: Sequence[Sequence[dict[str, str]]], params: SamplingParams) -> list[Generation]:
        """Apply the tokenizer's chat template (with the generation prompt) to each conversation, then generate."""
        return self.generate([self.encode_chat(c) for c in conversations], params)

    def encode_chat(self, messages: Sequence[dict[str, str]], *, add_generation_prompt: bool = True) -> list[int]:
        """Token ids of a conversation rendered with the tokenizer's chat template."""
        if not getattr(self.tokenizer, "chat_template", None):
            raise GenerationError(
                "the tokenizer has no chat_template; set tokenizer.chat_template or pass token ids to generate()"
            )
        ids = self.tokenizer.apply_chat_template(
            list(messages), add_generation_prompt=add_generation_prompt, tokenize=True, return_dict=False
        )
        return [int(t) for t in ids]

    def score(self, sequences: Sequence[Sequence[int]]) -> list[list[float]]:
        """The model's logprob (temperature 1) of every token after the first of each sequence (for sync checks)."""
        results: list[list[float]] = []
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():  # not inference_mode: a sharded (FSDP) trainer module gathers weights in place
                for start in range(0, len(sequences), self.max_batch_size):
                    chunk = [[int(t) for t in s] for s in sequences[start:start + self.max_batch_size]]
                    results.extend(self._score_batch(chunk))
        finally:
            if was_training:
                self.model.train()
        return results

    def _score_batch(self, sequences: list[list[int]]) -> list[list[float]]:
        width = max(len(s) for s in sequences)
        ids = torch.full((len(sequences), width), self.pad_token_id, dtype=torch.long)
        mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for row, seq in enumerate(sequences):
            ids[row, :len(seq)] = torch.tensor(seq, dtype=torch.long)
            mask[row, :len(seq)] = 1
        ids, mask = ids.to(self.device), mask.to(self.device)
        autocast = (torch.autocast(device_type=self.device.type, dtype=self.autocast_dtype)
                    if self.autocast_dtype is not None else contextlib.nullcontext())
        with autocast:
            logprobs = next_token_logprobs(self.model, ids, mask, _untempered_logprobs)
        return [logprobs[row, : len(seq) - 1].tolist() for row, seq in enumerate(sequences)]

    def sync_weights(self, state_dict: dict[str, Any]) -> None:
        """Load new weights; a no-op when every tensor already is this model's own (a shared trainer module).

        Keys must be a subset of the model's (a LoRA adapter's keys, or a full state dict); unknown keys raise
        :class:`WeightSyncError` rather than being dropped silently.
        """
        if not state_dict:
            return
        own = self.model.state_dict()
        unknown = sorted(k for k in state_dict if k not in own)
        if unknown:
            raise WeightSyncError(
                f"sync_weights: {len(unknown)} key(s) are not in the generator's model, e.g. {unknown[:3]}; "
                "send the state dict of the same architecture (and the same LoRA wrapping) as the generator"
            )
        if all(_same_storage(v, own[k]) for k, v in state_dict.items()):
            return
        self.sessions.clear()
        with torch.no_grad():
            for key, value in state_dict.items():
                target = own[key]
                if tuple(value.shape) != tuple(target.shape):
                    raise WeightSyncError(
                        f"sync_weights: {key} has shape {tuple(value.shape)}, the generator expects {tuple(target.shape)}"
                    )
                target.copy_(value.to(device=target.device, dtype=target.dtype))

    # -- internals -------------------------------------------------------------------------------------------
    def _prompt_problem(self, ids: list[int], params: SamplingParams) -> str | None:
        if not ids:
            return "empty prompt: pass at least one token id"
        vocab = self._vocab_size()
        bad = [t for t in ids if t < 0 or t >= vocab]
        if bad:
            return f"prompt has token ids outside the vocabulary [0, {vocab}): {bad[:5]}"
        if self.max_positions is not None and len(ids) >= self.max_positions:
            return f"prompt has {len(ids)} tokens; the model's context is {self.max_positions}"
        return None

    def _vocab_size(self) -> int:
        return int(self.model.get_output_embeddings().weight.shape[0])

    def _forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, position_ids: torch.Tensor,
                 cache: Any) -> Any:
        kwargs: dict[str, Any] = {
            "input_ids": input_ids, "attention_mask": attention_mask, "position_ids": position_ids,
            "past_key_values": cache, "use_cache": True,
        }
        if self._logits_to_keep:
            kwargs["logits_to_keep"] = 1
        self.stats.forward_passes += 1
        if self.autocast_dtype is None:
            return self.model(**kwargs)
        with torch.autocast(device_type=self.device.type, dtype=self.autocast_dtype):
            return self.model(**kwargs)

    def _generate_batch(self, prompts: list[list[int]], params: SamplingParams,
                        rng: torch.Generator) -> list[Generation]:
        if not self.fast_decoding:
            return self._decode_batch(prompts, params, rng, None)
        # the cache is sized once for the longest prompt and every new token (not grown by doubling: a designer
        # batch of ~4k-token prompts would otherwise hold up to twice the key/value memory it needs)
        capacity = max(len(p) for p in prompts) + params.max_new_tokens
        if self.max_positions is not None:
            capacity = min(capacity, self.max_positions)
        with decoding.fast_decoding(self.model, capacity) as cache:
            return self._decode_batch(prompts, params, rng, cache)

    def _prefill(self, prompts: list[list[int]], cache: Any) -> tuple[Any, torch.Tensor, torch.Tensor]:
        """Run the prompts through the model; return the output, the attention mask and the last positions.

        Rows are left-padded. Where the generator keeps earlier sequences' keys and values (:mod:`.kv_sessions`),
        each prompt starts from the kept sequence sharing its longest prefix and only the rest is computed
        (:meth:`_prefill_kept`); otherwise a prefix shared by every prompt is computed once (:meth:`_prefill_shared`),
        whichever saves more tokens.
        """
        n = len(prompts)
        shared = _shared_prefix_length(prompts) if n > 1 and self.share_prefix else 0
        if shared < MIN_SHARED_PREFIX:
            shared = 0
        matches = self._kept_matches(prompts, cache)
        if sum(m.length for m in matches) > shared * (n - 1):
            return self._prefill_kept(prompts, matches, cache)
        return self._prefill_shared(prompts, shared, cache)

    def _prefill_shared(self, prompts: list[list[int]], shared: int,
                        cache: Any) -> tuple[Any, torch.Tensor, torch.Tensor]:
        """A prefix shared by every prompt (a system prompt, a worked example) is computed once and its cache
        repeated across the batch; the rest of each prompt is left-padded after it (the attention mask hides the gap
        and positions skip it, so every row sees exactly its own prompt)."""
        n = len(prompts)
        if shared:
            ids = torch.tensor([prompts[0][:shared]], dtype=torch.long, device=self.device)
            ones = torch.ones((1, shared), dtype=torch.long, device=self.device)
            out = self._forward(ids, ones, torch.arange(shared, device=self.device)[None], cache)
            cache = out.past_key_values
            cache.batch_repeat_interleave(n)
        rests = [p[shared:] for p in prompts]
        out, attention, positions = self._prefill_rests(rests, [shared] * n, shared, cache)
        self.stats.shared_prefix_tokens += shared * (n - 1)
        self.stats.prefilled_tokens += shared
        return out, attention, positions

    def _prefill_kept(self, prompts: list[list[int]], matches: list[Match],
                      cache: Any) -> tuple[Any, torch.Tensor, torch.Tensor]:
        """Each row starts from its kept states (ragged lengths, right-aligned after left padding), then its new
        tokens are left-padded after them: ``[pad | kept | pad | new]``, the mask hiding both gaps and positions
        counting only real tokens, so every row sees exactly its own prompt."""
        taken: dict[int, KeptSequence] = {}
        for match in matches:
            if match.key is not None and match.key not in taken:
                taken[match.key] = self.sessions.take(match.key)
        rows = [None if m.key is None else [(k[:, :m.length], v[:, :m.length]) for k, v in taken[m.key].layers]
                for m in matches]
        kept = max(m.length for m in matches)
        rests = [p[m.length:] for p, m in zip(prompts, matches)]
        # the layout is wider than the longest prompt where long kept parts meet long new parts
        cache.capacity += kept + max(len(r) for r in rests) - max(len(p) for p in prompts)
        cache.start_left_padded(rows, kept)
        del taken, rows  # the batch's cache holds copies; the entries' memory is free again
        self.stats.reused_tokens += sum(m.length for m in matches)
        return self._prefill_rests(rests, [m.length for m in matches], kept, cache)

    def _prefill_rests(self, rests: list[list[int]], before: list[int], offset: int,
                       cache: Any) -> tuple[Any, torch.Tensor, torch.Tensor]:
        """Forward each row's remaining tokens, left-padded after the ``offset`` positions the cache holds (of which
        the last ``before[row]`` are that row's)."""
        n = len(rests)
        width = max(len(r) for r in rests)
        input_ids = torch.full((n, width), self.pad_token_id, dtype=torch.long)
        attention = torch.zeros((n, offset + width), dtype=torch.long)
        for row, rest in enumerate(rests):
            input_ids[row, width - len(rest):] = torch.tensor(rest, dtype=torch.long)
            attention[row, offset - before[row]:offset] = 1
            attention[row, offset + width - len(rest):] = 1
        input_ids, attention = input_ids.to(self.device), attention.to(self.device)
        positions = (attention.cumsum(-1) - 1).clamp(min=0)[:, offset:]
        out = self._forward(input_ids, attention, positions, cache)
        self.stats.prefilled_tokens += sum(len(r) for r in rests)
        return out, attention, positions[:, -1:]

    def forget_prefix(self) -> None:
        """Drop every kept key and value (the weights are about to change)."""
        self.sessions.clear()

    def _weights_version(self) -> int:
        """Changes whenever any parameter is written in place (an optimiser step, a weight push, a load)."""
        return sum(p._version for p in self.model.parameters())

    def _keeps(self, cache: Any) -> bool:
        return self.sessions.enabled and isinstance(cache, decoding.GrowingKVCache)

    def _kept_matches(self, prompts: list[list[int]], cache: Any) -> list[Match]:
        """Per prompt, the kept sequence sharing its longest prefix (leaving the prompt's last token to compute)."""
        if not self._keeps(cache):
            return [Match(None, 0)] * len(prompts)
        return [self.sessions.match(p, len(p) - 1) for p in prompts]

    def _keep_row(self, cache: Any, row: int, attention: torch.Tensor, ids: list[int]) -> None:
        """Keep one finished row's states (its prompt and the completion tokens fed back) for a later call."""
        positions = attention[row].nonzero().squeeze(-1)
        if positions.numel() != len(ids):
            raise GenerationError(f"row {row} holds {positions.numel()} positions for {len(ids)} ids; the attention "
                                  "mask and the cache disagree (a bug in the decoding loop)")
        self.stats.kv_evictions += self.sessions.put(ids, cache.row_states(row, positions))

    def _decode_batch(self, prompts: list[list[int]], params: SamplingParams, rng: torch.Generator,
                      cache: Any) -> list[Generation]:
        width = max(len(p) for p in prompts)
        limit = params.max_new_tokens
        if self.max_positions is not None:
            limit = min(limit, self.max_positions - width)
        if limit <= 0:
            return [Generation(p, [], "", [], finish_reason="length") for p in prompts]

        out, attention, positions = self._prefill(prompts, cache)
        with decoding.intra_op_threads(self.decode_threads, self.device):
            return self._decode_steps(prompts, params, rng, out, attention, positions, limit)

    def _decode_steps(self, prompts: list[list[int]], params: SamplingParams, rng: torch.Generator, out: Any,
                      attention: torch.Tensor, positions: torch.Tensor, limit: int) -> list[Generation]:
        """Sample one token per live row per forward until every row has finished (rows leave the batch as they
        finish, their states kept for a later call)."""
        n = len(prompts)
        completions: list[list[int]] = [[] for _ in range(n)]
        logprobs: list[list[float]] = [[] for _ in range(n)]
        finish: list[str | None] = [None] * n
        cut_text: list[str | None] = [None] * n
        active = list(range(n))  # original row of each current batch row
        distribution = params.distribution
        cache = out.past_key_values
        can_prune = hasattr(cache, "batch_select_indices")
        keeping = self._keeps(cache)
        for step in range(limit):
            logits = out.logits[:, -1, :].float()
            tokens, token_logprobs = sample_tokens(logits, distribution, rng)
            keep: list[int] = []
            tok_list, lp_list = tokens.tolist(), token_logprobs.tolist()
            for b, row in enumerate(active):
                completions[row].append(tok_list[b])
                logprobs[row].append(lp_list[b])
                if tok_list[b] in self.eos_token_ids:
                    finish[row] = "stop"
                elif params.stop and self._hit_stop(row, completions[row], params.stop, cut_text):
                    finish[row] = "stop"
                elif step + 1 >= limit:
                    finish[row] = "length"
                else:
                    keep.append(b)
                if keeping and finish[row] is not None:  # its states up to the last fed token leave the batch
                    self._keep_row(cache, b, attention, prompts[row] + completions[row][:-1])
            if not keep:
                break
            next_tokens = tokens[:, None]
            attention = torch.cat([attention, torch.ones((len(active), 1), dtype=torch.long, device=self.device)], 1)
            positions = positions + 1
            if len(keep) < len(active) and can_prune:
                index = torch.tensor(keep, device=self.device)
                try:
                    cache.batch_select_indices(index)
                except (AttributeError, NotImplementedError, RuntimeError):
                    can_prune = False
                else:
                    next_tokens, attention, positions = next_tokens[index], attention[index], positions[index]
                    active = [active[b] for b in keep]
            out = self._forward(next_tokens, attention, positions, cache)

        results = []
        for row, prompt in enumerate(prompts):
            ids = completions[row]
            text = cut_text[row]
            if text is None:
                body = ids[:-1] if ids and ids[-1] in self.eos_token_ids else ids
                text = self.tokenizer.decode(body, skip_special_tokens=True)
            results.append(Generation(prompt, ids, text, logprobs[row], finish_reason=finish[row] or "length",
                                      distribution=distribution))
        return results

    def _hit_stop(self, row: int, ids: list[int], stops: tuple[str, ...], cut_text: list[str | None]) -> bool:
        """True when the completion's text now contains a stop string; records the text cut before it."""
        window = max(len(s) for s in stops) + 4
        tail = self.tokenizer.decode(ids[-window:], skip_special_tokens=True)
        if not any(s in tail for s in stops):
            return False
        text = self.tokenizer.decode(ids, skip_special_tokens=True)
        hits = [text.find(s) for s in stops if s in text]
        if not hits:
            return False
        cut_text[row] = text[:min(hits)]
        return True


def _shared_prefix_length(prompts: list[list[int]]) -> int:
    """Tokens every prompt starts with, leaving each at least one token of its own (its last logits are needed)."""
    first = prompts[0]
    limit = min(len(p) for p in prompts) - 1
    length = 0
    while length < limit and all(p[length] == first[length] for p in prompts):
        length += 1
    return length


def _check_params(params: SamplingParams) -> None:
    if params.max_new_tokens < 0:
        raise GenerationError(f"max_new_tokens must be >= 0, got {params.max_new_tokens}")
    _ = params.distribution  # temperature, top_k and top_p are checked where the distribution is defined
    if any(not s for s in params.stop):
        raise GenerationError("stop strings must be non-empty")


def _eos_ids(model: Any, tokenizer: Any) -> set[int]:
    ids: set[int] = set()
    if tokenizer.eos_token_id is not None:
        ids.add(int(tokenizer.eos_token_id))
    config = getattr(model, "generation_config", None)
    value = getattr(config, "eos_token_id", None)
    if isinstance(value, int):
        ids.add(value)
    elif isinstance(value, (list, tuple)):
        ids.update(int(v) for v in value)
    return ids


def _same_storage(a: Any, b: torch.Tensor) -> bool:
    return isinstance(a, torch.Tensor) and a.device == b.device and a.data_ptr() == b.data_ptr() and a.shape == b.shape


def _untempered_logprobs(logits: torch.Tensor, targets: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
    """``log p(target)`` at temperature 1 over the whole vocabulary (what :meth:`HFGenerator.score` reports)."""
    return token_logprobs(logits, targets, TokenDistribution())
