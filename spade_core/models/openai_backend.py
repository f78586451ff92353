"""The ``openai`` backend: any OpenAI-compatible endpoint (vLLM or llama.cpp servers, ``transformers serve``, hosted
APIs) through the official ``openai`` client, with retries, timeouts and a concurrency limit.

Token ids and logprobs come back only where the server provides them: ``completion_ids``/``prompt_ids`` are filled
from a vLLM server's ``token_ids``/``prompt_token_ids`` (ask for them with ``extra_body={"return_token_ids": True}``)
and ``logprobs`` when ``logprobs=True`` and the server honours it; otherwise they are empty lists. Re-tokenising the
text is not done on purpose: it does not give the sampled ids back, and a trainer must not mistake it for them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from spade_core.models.base import Generation, SamplingParams
from spade_core.models.errors import BackendError, BackendUnavailableError

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"


class OpenAIBackend:
    """Chat and completion requests against an OpenAI-compatible server, run concurrently, results in order.

    ``max_retries`` and ``timeout_s`` go to the ``openai`` client (it retries connection errors, 408, 409, 429 and
    5xx with exponential backoff). A request that still fails returns a :class:`Generation` with
    ``finish_reason="error"`` and the reason in ``error``; configuration problems that would fail every request
    (server unreachable, bad API key, unknown model) raise :class:`BackendUnavailableError` instead.
    """

    name = "openai"

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 120.0,
        max_retries: int = 3,
        max_concurrency: int = 8,
        logprobs: bool = False,
        tokenizer: Any = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - exercised only where openai is absent
            raise BackendUnavailableError("the openai backend needs the `openai` package: pip install openai") from exc
        if max_concurrency < 1:
            raise BackendError(f"max_concurrency must be >= 1, got {max_concurrency}")
        self._openai = openai
        self.base_url = base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
        self.client = openai.OpenAI(
            base_url=self.base_url,
            api_key=api_key or os.environ.get(API_KEY_ENV) or "EMPTY",  # local servers accept any key
            timeout=timeout_s,
            max_retries=max_retries,
        )
        self.model = model or self._only_served_model()
        self.max_concurrency = max_concurrency
        self.logprobs = logprobs
        self.extra_body = dict(extra_body or {})
        if isinstance(tokenizer, (str, os.PathLike)):
            from spade_core.models.loading import load_tokenizer

            tokenizer = load_tokenizer(tokenizer)
        self.tokenizer = tokenizer

    # -- ModelBackend --------------------------------------------------------------------------------------
    def chat(self, conversations: Sequence[Sequence[dict[str, str]]], params: SamplingParams) -> list[Generation]:
        """One chat completion per conversation (the server applies its chat template)."""
        return self._run([list(c) for c in conversations], params, self._chat_one)

    def generate(self, prompts: Sequence[Sequence[int]], params: SamplingParams) -> list[Generation]:
        """Raw completions from token ids: decoded with ``tokenizer`` when one was given, else sent as ids (vLLM)."""
        payloads: list[Any] = []
        for ids in prompts:
            ids = [int(i) for i in ids]
            payloads.append((ids, self.tokenizer.decode(ids) if self.tokenizer is not None else ids))
        return self._run(payloads, params, self._complete_one)

    def sync_weights(self, state_dict: dict[str, Any]) -> None:
        """Not possible through the OpenAI API: the weights live in the server process."""
        raise BackendError(
            "the openai backend cannot load new weights into a remote server; use the hf or vllm backend for"
            " training, or reload the server with the new checkpoint"
        )

    # -- requests ------------------------------------------------------------------------------------------
    def _run(self, payloads: list[Any], params: SamplingParams, one: Any) -> list[Generation]:
        if not payloads:
            return []
        if len(payloads) == 1 or self.max_concurrency == 1:
            return [self._guarded(one, p, params) for p in payloads]
        with ThreadPoolExecutor(max_workers=min(self.max_concurrency, len(payloads))) as pool:
            return list(pool.map(lambda p: self._guarded(one, p, params), payloads))

    def _guarded(self, one: Any, payload: Any, params: SamplingParams) -> Generation:
        openai = self._openai
        try:
            return one(payload, params)
        except openai.APIConnectionError as exc:
            if isinstance(exc, openai.APITimeoutError):
                return _error_generation(payload, f"timed out after retries: {exc}")
            raise BackendUnavailableError(
                f"cannot reach the OpenAI-compatible server at {self.base_url} ({exc}); start it or fix base_url"
            ) from exc
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise BackendUnavailableError(f"{self.base_url} refused the API key: {exc}") from exc
        except openai.NotFoundError as exc:
            raise BackendUnavailableError(
                f"{self.base_url} does not serve model {self.model!r} (or the endpoint): {exc}"
            ) from exc
        except openai.APIStatusError as exc:
            return _error_generation(payload, f"HTTP {exc.status_code}: {exc.message}")

    def _common(self, params: SamplingParams) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, "max_tokens": params.max_new_tokens,
                                  "temperature": params.temperature, "top_p": params.top_p}
        if params.stop:
            kwargs["stop"] = list(params.stop)
        if params.seed is not None:
            kwargs["seed"] = params.seed
        extra = dict(self.extra_body)
        if params.top_k:
            extra["top_k"] = params.top_k  # not in the OpenAI schema; vLLM and llama.cpp servers accept it
        if extra:
            kwargs["extra_body"] = extra
        return kwargs

    def _chat_one(self, messages: list[dict[str, str]], params: SamplingParams) -> Generation:
        kwargs = self._common(params)
        if self.logprobs:
            kwargs["logprobs"] = True
        response = self.client.chat.completions.create(messages=messages, **kwargs)
        choice = response.choices[0]
        logprobs: list[float] = []
        content = getattr(getattr(choice, "logprobs", None), "content", None)
        if content:
            logprobs = [float(item.logprob) for item in content]
        return Generation(
            prompt_ids=_ids(getattr(response, "prompt_token_ids", None) or _extra(choice, "prompt_token_ids")),
            completion_ids=_ids(_extra(choice, "token_ids")),
            text=choice.message.content or "",
            logprobs=logprobs,
            finish_reason=_finish(choice.finish_reason),
        )

    def _complete_one(self, payload: tuple[list[int], Any], params: SamplingParams) -> Generation:
        ids, prompt = payload
        kwargs = self._common(params)
        if self.logprobs:
            kwargs["logprobs"] = 1
        response = self.client.completions.create(prompt=prompt, **kwargs)
        choice = response.choices[0]
        logprobs: list[float] = []
        token_logprobs = getattr(getattr(choice, "logprobs", None), "token_logprobs", None)
        if token_logprobs:
            logprobs = [float(x) for x in token_logprobs if x is not None]
        return Generation(
            prompt_ids=ids,
            completion_ids=_ids(_extra(choice, "token_ids")),
            text=choice.text or "",
            logprobs=logprobs,
            finish_reason=_finish(choice.finish_reason),
        )

    def _only_served_model(self) -> str:
        """The model id when the server serves exactly one (vLLM, llama.cpp); else ask the caller to name one."""
        openai = self._openai
        try:
            models = [m.id for m in self.client.models.list()]
        except openai.APIConnectionError as exc:
            raise BackendUnavailableError(
                f"cannot reach the OpenAI-compatible server at {self.base_url} ({exc}); start it or fix base_url"
            ) from exc
        except openai.APIError as exc:
            raise BackendError(f"{self.base_url} cannot list its models ({exc}); pass model=... explicitly") from exc
        if len(models) != 1:
            raise BackendError(
                f"{self.base_url} serves {len(models)} models ({models[:10]}); pass model=... to pick one"
            )
        return models[0]


def _extra(obj: Any, key: str) -> Any:
    extra = getattr(obj, "model_extra", None) or {}
    return extra.get(key)


def _ids(value: Any) -> list[int]:
    return [int(i) for i in value] if isinstance(value, list) else []


def _finish(reason: str | None) -> str:
    return "length" if reason == "length" else "stop"


def _error_generation(payload: Any, message: str) -> Generation:
    prompt_ids = payload[0] if isinstance(payload, tuple) else []
    return Generation(prompt_ids=list(prompt_ids), completion_ids=[], text="", finish_reason="error", error=message)
