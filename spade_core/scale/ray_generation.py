"""Generation on Ray actors: the policy sampled by ``ray.generator_actors`` engines spread over a cluster.

- :class:`GeneratorHost` is the actor: it loads its own copy of the policy (transformers, or vLLM on the GPU Ray gives
  it) and answers ``generate``/``chat``/``score`` and weight pushes.
- :class:`RayGeneratorPool` is what the trainer and the self-play loop see: a model backend whose batches are split
  round-robin over the live actors (one seed per share, completions back in order; see
  :mod:`spade_core.models.batch_split`). The trainer pushes each update to it like to any separate engine; every
  actor gets the weights and every actor is verified on the probe batch (``score_each``).

An actor that dies or does not answer in ``timeout_s`` is replaced: the new actor loads the model and then replays
the latest pushed weights, so it never samples from a stale policy; its share of the batch is sampled again on a live
actor. Only when no actor can be had does generation fail, with :class:`~spade_core.models.errors.GenerationError`.
"""

from __future__ import annotations

import itertools
import os
import socket
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from spade_core.models.base import MAX_BATCH_SIZE, Generation, SamplingParams
from spade_core.models.batch_split import merge_round_robin, share_params, split_round_robin, with_batch_seed
from spade_core.models.errors import GenerationError
from spade_core.scale.errors import ScaleError
from spade_core.scale.ray_runtime import kill_actor, require_ray
from spade_core.seeding import engine_seed

ray = require_ray()
from ray.exceptions import GetTimeoutError, RayError  # noqa: E402 - after the check that says how to install Ray

ENGINE_KINDS = ("hf", "vllm")


class GeneratorHost:
    """The Ray actor body: one engine over its own copy of the policy."""

    def __init__(self, model_dir: str, kind: str, options: dict[str, Any], max_batch_size: int,
                 torch_threads: int) -> None:
        import torch

        if torch_threads > 0:
            torch.set_num_threads(torch_threads)
        self.kind = kind
        if kind == "vllm":
            from spade_core.models.vllm_backend import VLLMBackend

            # in this actor's process, on the GPU Ray assigned it; it never shares it with a trainer, so never sleeps
            self.engine: Any = VLLMBackend(model_dir, colocate=True, **options)
        else:
            from spade_core.models.hf_generator import HFGenerator

            device = "cuda" if torch.cuda.is_available() else "cpu"
            self.engine = HFGenerator.from_pretrained(model_dir, device=device, max_batch_size=max_batch_size,
                                                      **options)

    def location(self) -> dict[str, Any]:
        """Where this actor runs (node, host, pid) and what it samples with."""
        context = ray.get_runtime_context()
        return {"node_id": context.get_node_id(), "hostname": socket.gethostname(), "pid": os.getpid(),
                "engine": self.kind, "gpus": [str(g) for g in ray.get_gpu_ids()]}

    def generate(self, prompts: list[list[int]], params: SamplingParams) -> list[Generation]:
        return list(self.engine.generate(prompts, params))

    def chat(self, conversations: list[list[dict[str, str]]], params: SamplingParams) -> list[Generation]:
        return list(self.engine.chat(conversations, params))

    def score(self, sequences: list[list[int]]) -> list[list[float]]:
        return self.engine.score(sequences)

    def sync_weights(self, state_dict: dict[str, Any]) -> None:
        self.engine.sync_weights(state_dict)


_GeneratorActor = ray.remote(GeneratorHost)


@dataclass
class _Slot:
    index: int
    actor: Any
    location: dict[str, Any] = field(default_factory=dict)
    counts: Counter[str] = field(default_factory=Counter)


class RayGeneratorPool:
    """``num_actors`` generator actors behind one model backend (see the module docstring)."""

    name = "ray-generators"

    def __init__(self, model_dir: str, *, kind: str = "hf", num_actors: int = 2, actor_cpus: float = 1.0,
                 actor_gpus: float = 0.0, options: dict[str, Any] | None = None, max_batch_size: int = MAX_BATCH_SIZE,
                 timeout_s: float = 1800.0, seed: int = 0) -> None:
        from spade_core.models.loading import load_tokenizer

        if kind not in ENGINE_KINDS:
            raise ScaleError(f"generator actors run one of {ENGINE_KINDS}, got {kind!r}")
        if num_actors < 1:
            raise ScaleError(f"ray.generator_actors must be >= 1 to start a pool, got {num_actors}")
        self.model_dir = str(model_dir)
        self.kind = kind
        self.timeout_s = float(timeout_s)
        self.tokenizer = load_tokenizer(model_dir)
        self._options = dict(options or {})
        self._seed = seed
        self._max_batch_size = max_batch_size
        self._actor_options: dict[str, Any] = {"num_cpus": actor_cpus, "num_gpus": actor_gpus, "max_restarts": 0,
                                               "scheduling_strategy": "SPREAD"}
        self._threads = max(1, int(actor_cpus)) if actor_gpus == 0 else 0
        self._pushes = itertools.count()
        self._latest: dict[str, tuple[int, Any]] = {}  # weight name -> (push number, object ref of its chunk)
        self.replaced = 0
        self.slots = [_Slot(i, self._new_actor(i)) for i in range(num_actors)]
        for slot in self.slots:
            self._locate(slot)

    # -- ModelBackend -------------------------------------------------------------------------------------------
    def generate(self, prompts: Sequence[Sequence[int]], params: SamplingParams) -> list[Generation]:
        """One completion per prompt, the batch split over the actors."""
        return self._sample("generate", [[int(t) for t in p] for p in prompts], params)

    def chat(self, conversations: Sequence[Sequence[dict[str, str]]], params: SamplingParams) -> list[Generation]:
        """One completion per conversation (each actor applies the chat template), the batch split over the actors."""
        return self._sample("chat", [[dict(m) for m in c] for c in conversations], params)

    def sync_weights(self, state_dict: dict[str, Any]) -> None:
        """Send ``state_dict`` (whole or a chunk of a push) to every actor; it is kept for replacement actors."""
        if not state_dict:
            return
        ref = ray.put({k: v.detach().to("cpu") for k, v in state_dict.items()})
        number = next(self._pushes)
        for key in state_dict:
            self._latest[key] = (number, ref)
        self._call_all("sync_weights", ref)

    def score(self, sequences: Sequence[Sequence[int]]) -> list[list[float]]:
        """The first actor's logprob of every token after the first of each sequence."""
        return self.score_each(sequences)[0]

    def score_each(self, sequences: Sequence[Sequence[int]]) -> list[list[list[float]]]:
        """Every actor's scores of ``sequences`` (so a weight push is verified on each engine)."""
        probe = [[int(t) for t in s] for s in sequences]
        return self._call_all("score", probe)

    # -- bookkeeping --------------------------------------------------------------------------------------------
    def take_stats(self) -> list[dict[str, Any]]:
        """Per actor: where it runs and what it did since the last call (sequences, tokens, times replaced)."""
        out = []
        for slot in self.slots:
            out.append({"actor": slot.index, **slot.location, **dict(sorted(slot.counts.items()))})
            slot.counts.clear()
        return out

    def shutdown(self) -> None:
        """Kill every generator actor (their engines and memory go with them)."""
        for slot in self.slots:
            kill_actor(slot.actor)
        self.slots = []

    # -- internals ----------------------------------------------------------------------------------------------
    def _new_actor(self, index: int) -> Any:
        options = {"seed": engine_seed(self._seed, index)} | self._options if self.kind == "vllm" else self._options
        return _GeneratorActor.options(**self._actor_options).remote(
            self.model_dir, self.kind, options, self._max_batch_size, self._threads)

    def _locate(self, slot: _Slot) -> None:
        try:  # the constructor loads the model, so this waits until the engine is ready
            slot.location = ray.get(slot.actor.location.remote(), timeout=self.timeout_s)
        except (RayError, GetTimeoutError) as exc:
            raise ScaleError(f"generator actor {slot.index} did not start: {type(exc).__name__}: {exc}") from exc

    def _replace(self, slot: _Slot, reason: str) -> None:
        """A fresh actor for ``slot`` with the latest pushed weights (raises :class:`GenerationError` if none)."""
        kill_actor(slot.actor)  # usually gone already
        slot.counts["replaced"] += 1
        self.replaced += 1
        slot.actor = self._new_actor(slot.index)
        try:
            self._locate(slot)
            for _, ref in sorted({number: ref for number, ref in self._latest.values()}.items()):
                ray.get(slot.actor.sync_weights.remote(ref), timeout=self.timeout_s)
        except (ScaleError, RayError, GetTimeoutError) as exc:
            raise GenerationError(f"generator actor {slot.index} was lost ({reason}) and could not be replaced: "
                                  f"{type(exc).__name__}: {exc}") from exc

    def _call_all(self, method: str, *args: Any) -> list[Any]:
        """``method(*args)`` on every actor at once; the answers in actor order."""
        answers = self._call_each(method, {slot.index: args for slot in self.slots})
        return [answers[slot.index] for slot in self.slots]

    def _call_each(self, method: str, calls: dict[int, tuple[Any, ...]]) -> dict[int, Any]:
        """``method`` on the actors in ``calls`` (index -> arguments), all at once; a lost actor is replaced and
        asked again, any other failure raises :class:`GenerationError`."""
        refs = {index: getattr(self.slots[index].actor, method).remote(*args) for index, args in calls.items()}
        answers = {}
        for index, ref in refs.items():
            slot = self.slots[index]
            try:
                answers[index] = ray.get(ref, timeout=self.timeout_s)
            except (RayError, GetTimeoutError) as exc:
                if not _actor_lost(exc):
                    raise GenerationError(f"generator actor {index} failed in {method}: "
                                          f"{type(exc).__name__}: {exc}") from exc
                self._replace(slot, f"{type(exc).__name__} in {method}")
                answers[index] = self._call(slot, method, *calls[index])
        return answers

    def _call(self, slot: _Slot, method: str, *args: Any) -> Any:
        """``method`` on ``slot``'s actor; a lost actor is replaced and the call made once more."""
        for attempt in range(2):
            try:
                return ray.get(getattr(slot.actor, method).remote(*args), timeout=self.timeout_s)
            except (RayError, GetTimeoutError) as exc:
                if attempt == 1 or not _actor_lost(exc):
                    raise GenerationError(f"generator actor {slot.index} failed in {method}: "
                                          f"{type(exc).__name__}: {exc}") from exc
                self._replace(slot, f"{type(exc).__name__} in {method}")
        raise AssertionError("unreachable")

    def _sample(self, kind: str, inputs: list[Any], params: SamplingParams) -> list[Generation]:
        if not inputs:
            return []
        params = with_batch_seed(params)
        shares = split_round_robin(inputs, len(self.slots))
        calls = {index: (share, share_params(params, index)) for index, share in enumerate(shares) if share}
        answers = self._call_each(kind, calls)
        results = [answers.get(index, []) for index in range(len(shares))]
        for index, share in enumerate(shares):
            self.slots[index].counts["sequences"] += len(share)
            self.slots[index].counts["tokens"] += sum(len(g.completion_ids) for g in results[index])
        return merge_round_robin(results, len(inputs))


def _actor_lost(exc: BaseException) -> bool:
    """True when the actor itself is gone or stuck (not when the engine raised an error of its own)."""
    from ray.exceptions import ActorDiedError, ActorUnavailableError, RayActorError

    return isinstance(exc, (ActorDiedError, ActorUnavailableError, RayActorError, GetTimeoutError))
