"""The ``vllm`` backend: vLLM's offline engine in this process, GPU only, behind the same interface as ``hf``.

vLLM is imported only when the backend is constructed; on a machine without it (or without a CUDA GPU) the
constructor raises :class:`BackendUnavailableError` saying how to get it, and importing this module stays cheap.
Returns exact prompt/completion token ids and the sampler's logprob of every sampled token.

Colocated with a trainer on the same GPU (``colocate=True``), the engine runs in this process
(``external_launcher``) with sleep mode: :meth:`sleep` releases its weights and KV cache while the trainer steps,
:meth:`sync_weights` wakes the weights and loads the trainer's tensors, and the KV cache comes back on the next
generation. :meth:`score` returns the engine's logprob of every token of given sequences, which is how the trainer
verifies each push (``spade_core.training.weight_sync``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from spade_core.models.base import Generation, SamplingParams
from spade_core.models.errors import BackendError, BackendUnavailableError
from spade_core.models.loading import load_tokenizer, resolve_model_dir
from spade_core.seeding import share_seed

PROCESSED_LOGPROBS = "processed_logprobs"
INSTALL_HINT = "pip install 'spade-rl[gpu]' (vLLM) on a Linux machine with an NVIDIA GPU and CUDA"


def _import_vllm() -> Any:
    try:
        import vllm
    except ImportError as exc:
        raise BackendUnavailableError(
            f"the vllm backend needs the `vllm` package, which is not installed: {INSTALL_HINT}"
        ) from exc
    return vllm


class VLLMBackend:
    """Batched generation with vLLM's ``LLM`` engine (prefix caching on; one completion per prompt)."""

    name = "vllm"

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        dtype: str = "auto",
        gpu_memory_utilization: float = 0.85,
        max_model_len: int | None = None,
        tensor_parallel_size: int = 1,
        seed: int = 0,
        enable_prefix_caching: bool = True,
        cache_dir: str | os.PathLike[str] | None = None,
        colocate: bool = False,
        sleep_level: int = 2,
        **engine_kwargs: Any,
    ) -> None:
        vllm = _import_vllm()
        import torch

        if not torch.cuda.is_available():
            raise BackendUnavailableError(
                "the vllm backend needs a CUDA GPU and none is visible here; use the hf backend on CPU, or "
                + INSTALL_HINT
            )
        self.directory = resolve_model_dir(model, cache_dir=cache_dir)
        self._vllm = vllm
        kwargs: dict[str, Any] = {
            "model": str(self.directory), "dtype": dtype, "gpu_memory_utilization": gpu_memory_utilization,
            "tensor_parallel_size": tensor_parallel_size, "seed": seed, "enable_prefix_caching": enable_prefix_caching,
            **engine_kwargs,
        }
        if max_model_len is not None:
            kwargs["max_model_len"] = max_model_len
        if sleep_level not in (1, 2):
            raise BackendError(f"sleep_level must be 1 (keep weights in CPU memory) or 2 (discard them), got {sleep_level}")
        self.colocate = colocate
        self.sleep_level = sleep_level
        self._weights_asleep = False
        self._kv_asleep = False
        if colocate:
            # one in-process engine sharing the trainer's GPU; vLLM's external launcher reads the torch.distributed
            # variables even for a single process
            for key, value in (("RANK", "0"), ("LOCAL_RANK", "0"), ("WORLD_SIZE", "1"), ("MASTER_ADDR", "127.0.0.1"),
                               ("MASTER_PORT", str(_free_port()))):
                os.environ.setdefault(key, value)
            kwargs.setdefault("distributed_executor_backend", "external_launcher")
            kwargs.setdefault("enable_sleep_mode", True)
        # the logprob of each token under the distribution it was drawn from (temperature, top-k, top-p applied and
        # renormalised): SPADE's TokenDistribution rule, which trainers score it under again
        if kwargs.setdefault("logprobs_mode", PROCESSED_LOGPROBS) != PROCESSED_LOGPROBS:
            raise BackendError(f"logprobs_mode={kwargs['logprobs_mode']!r}: trainers score tokens under the sampling "
                               f"distribution, so the engine must report {PROCESSED_LOGPROBS!r} (leave it unset)")
        try:
            self.llm = vllm.LLM(**kwargs)
        except Exception as exc:  # engine start-up fails in many ways; keep the cause
            raise BackendError(f"vLLM could not start on {self.directory}: {type(exc).__name__}: {exc}") from exc
        self.tokenizer = load_tokenizer(self.directory)

    def generate(self, prompts: Sequence[Sequence[int]], params: SamplingParams) -> list[Generation]:
        """One completion per prompt of token ids, batched by the engine."""
        if not prompts:
            return []
        self._ready_for_generation()
        return engine_generate(self.llm, prompts, params)

    def chat(self, conversations: Sequence[Sequence[dict[str, str]]], params: SamplingParams) -> list[Generation]:
        """Apply the tokenizer's chat template, then :meth:`generate`."""
        return self.generate(chat_token_ids(self.tokenizer, conversations), params)

    def score(self, sequences: Sequence[Sequence[int]]) -> list[list[float]]:
        """The engine's logprob of every token after the first of each sequence (its prompt logprobs)."""
        if not sequences:
            return []
        from vllm.inputs import TokensPrompt

        self._ready_for_generation()
        params = self._vllm.SamplingParams(max_tokens=1, temperature=1.0, prompt_logprobs=0)
        requests = [TokensPrompt(prompt_token_ids=[int(i) for i in ids]) for ids in sequences]
        outputs = self.llm.generate(requests, params, use_tqdm=False)
        scores = []
        for ids, out in zip(sequences, outputs):
            entries = out.prompt_logprobs or []
            scores.append([float(entries[i][int(ids[i])].logprob) for i in range(1, len(ids))])
        return scores

    def sleep(self) -> None:
        """Release the KV cache (and, at ``sleep_level`` 2, the weights) while the trainer uses the GPU."""
        if not self.colocate or self._kv_asleep:
            return
        self.llm.sleep(level=self.sleep_level)
        self._kv_asleep = True
        self._weights_asleep = self.sleep_level == 2

    def _ready_for_generation(self) -> None:
        if self._weights_asleep:
            raise BackendError("the vLLM engine released its weights in sleep(); push them with sync_weights() "
                               "before generating")
        if self._kv_asleep:
            self.llm.wake_up(tags=["kv_cache"])
            self._kv_asleep = False

    def sync_weights(self, state_dict: dict[str, Any]) -> None:
        """Load new weights into the engine's model (same process) and drop the now-stale prefix cache."""
        items = list(state_dict.items())
        if self._weights_asleep:
            import torch

            torch.cuda.empty_cache()
            self.llm.wake_up(tags=["weights"])
            self._weights_asleep = False

        def load(model: Any) -> None:
            model.load_weights(items)

        try:
            # in-process (colocated) the worker calls `load` on its model directly; an engine in another process
            # needs the callable pickled, which vLLM allows only with VLLM_ALLOW_INSECURE_SERIALIZATION=1
            self.llm.apply_model(load)
        except Exception as exc:  # keep the engine's own reason
            hint = "" if self.colocate else " (an engine in its own process needs VLLM_ALLOW_INSECURE_SERIALIZATION=1)"
            raise BackendError(f"could not load new weights into vLLM: {type(exc).__name__}: {exc}{hint}") from exc
        if not self._kv_asleep:  # sleep() already dropped the prefix cache with the KV cache
            self.llm.reset_prefix_cache()


def engine_generate(llm: Any, prompts: Sequence[Sequence[int]], params: SamplingParams) -> list[Generation]:
    """One completion per prompt from a vLLM ``LLM``: exact ids and the sampler's logprob of each sampled token (the
    engine must run with ``logprobs_mode="processed_logprobs"``, as :class:`VLLMBackend` and TRL's colocated engine
    do)."""
    import vllm
    from vllm.inputs import TokensPrompt

    sampling = [
        vllm.SamplingParams(
            max_tokens=params.max_new_tokens, temperature=params.temperature, top_p=params.top_p,
            top_k=max(params.top_k, 0), stop=list(params.stop) or None, seed=seed,
            logprobs=0,  # 0 = only the sampled token's logprob
        )
        for seed in request_seeds(params.seed, len(prompts))
    ]
    requests = [TokensPrompt(prompt_token_ids=[int(i) for i in ids]) for ids in prompts]
    generations = []
    for request, out in zip(requests, llm.generate(requests, sampling, use_tqdm=False)):
        completion = out.outputs[0]
        ids = list(completion.token_ids)
        logprobs = [float(entry[token].logprob) for token, entry in zip(ids, completion.logprobs or [])]
        generations.append(Generation(
            prompt_ids=list(request["prompt_token_ids"]), completion_ids=ids, text=completion.text,
            logprobs=logprobs, finish_reason="length" if completion.finish_reason == "length" else "stop",
            distribution=params.distribution,
        ))
    return generations


def request_seeds(seed: int | None, n: int) -> list[int | None]:
    """A seed for each of ``n`` requests of one batch seeded with ``seed`` (``None``: the engine's own RNG).

    vLLM seeds each request on its own, so one seed for the whole batch would make identical prompts (a GRPO
    group) sample identical completions; each request gets a seed of its own instead, derived from ``seed``."""
    if seed is None:
        return [None] * n
    return [share_seed(seed, index) % 2**63 for index in range(n)]


def chat_token_ids(tokenizer: Any, conversations: Sequence[Sequence[dict[str, str]]]) -> list[list[int]]:
    """Each conversation rendered with the tokenizer's chat template (with the generation prompt), as token ids."""
    rendered = [tokenizer.apply_chat_template(list(c), add_generation_prompt=True, tokenize=True)
                for c in conversations]
    return [list(r["input_ids"] if isinstance(r, dict) else r) for r in rendered]


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
