"""The ``openai`` backend: any OpenAI-compatible endpoint (vLLM or llama.cpp servers, ``transformers serve``, hosted
APIs) through the official ``openai`` client, with retries, timeouts and a concurrency limit (:class:`OpenAIOptions`,
settable from ``spade design``/``spade eval`` options and self-play's ``designer.openai`` section).

A generation is never requested twice while the first request may still be running on the server: only failures
that prove the server did not start it are retried (no connection, 429, 5xx), with exponential backoff. A request
that outlives ``timeout_s`` is reported as a failed generation, not sent again. With ``stream`` the timeout bounds
the wait for the *next* chunk instead of the whole answer, so a slow but working server is never cut off.

Token ids and logprobs come back only where the server provides them: ``completion_ids``/``prompt_ids`` are filled
from a vLLM server's ``token_ids``/``prompt_token_ids`` (ask for them with ``extra_body={"return_token_ids": True}``)
and ``logprobs`` when ``logprobs=True`` and the server honours it; otherwise they are empty lists and the token count
comes from the response's ``usage`` (``Generation.usage_tokens``). Re-tokenising the text is not done on purpose: it
does not give the sampled ids back, and a trainer must not mistake it for them.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from spade_core.models.base import Generation, SamplingParams
from spade_core.models.errors import BackendError, BackendUnavailableError

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENV = "OPENAI_BASE_URL"
CONNECT_TIMEOUT_S = 10.0
RETRY_STATUSES = (429, 500, 502, 503, 504)
MAX_BACKOFF_S = 30.0


@dataclass(frozen=True)
class OpenAIOptions:
    """Request handling for an OpenAI-compatible server (the one home of these defaults)."""

    timeout_s: float = 1800.0  # the longest wait for an answer (for the next chunk with stream): long, since a
    # request that times out is not sent again (the server may still be generating it)
    max_retries: int = 3  # retries of requests the server provably did not run: no connection, 429, 5xx
    max_concurrency: int = 8  # requests in flight at once
    stream: bool = False  # stream the answer: timeout_s then bounds the silence between chunks, not the whole answer

    def __post_init__(self) -> None:
        if not self.timeout_s > 0:
            raise BackendError(f"timeout_s must be > 0, got {self.timeout_s}")
        if self.max_retries < 0:
            raise BackendError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.max_concurrency < 1:
            raise BackendError(f"max_concurrency must be >= 1, got {self.max_concurrency}")


class OpenAIBackend:
    """Chat and completion requests against an OpenAI-compatible server, run concurrently, results in order.

    Request handling follows ``options`` (:class:`OpenAIOptions`); ``timeout_s``, ``max_retries``,
    ``max_concurrency`` and ``stream`` override single fields. A request that still fails returns a
    :class:`Generation` with ``finish_reason="error"`` and the reason in ``error``; configuration problems that would
    fail every request (server unreachable, bad API key, unknown model) raise :class:`BackendUnavailableError`.
    """

    name = "openai"

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        options: OpenAIOptions | None = None,
        timeout_s: float | None = None,
        max_retries: int | None = None,
        max_concurrency: int | None = None,
        stream: bool | None = None,
        logprobs: bool = False,
        tokenizer: Any = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> None:
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - exercised only where openai is absent
            raise BackendUnavailableError("the openai backend needs the `openai` package: pip install openai") from exc
        given = {"timeout_s": timeout_s, "max_retries": max_retries, "max_concurrency": max_concurrency,
                 "stream": stream}
        self.options = replace(options or OpenAIOptions(), **{k: v for k, v in given.items() if v is not None})
        self._openai = openai
        self.base_url = base_url or os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL
        self.client = openai.OpenAI(
            base_url=self.base_url,
            api_key=api_key or os.environ.get(API_KEY_ENV) or "EMPTY",  # local servers accept any key
            timeout=openai.Timeout(self.options.timeout_s, connect=min(CONNECT_TIMEOUT_S, self.options.timeout_s)),
            max_retries=0,  # retries are ours: only requests the server provably did not run are sent again
        )
        self.model = model or self._only_served_model()
        self.logprobs = logprobs
        self.extra_body = dict(extra_body or {})
        if isinstance(tokenizer, (str, os.PathLike)):
            from spade_core.models.loading import load_tokenizer

            tokenizer = load_tokenizer(tokenizer)
        self.tokenizer = tokenizer
        self.requests_sent = 0  # HTTP requests, retries included (a generation is sent once unless retried)
        self._count_lock = threading.Lock()

    @property
    def max_concurrency(self) -> int:
        return self.options.max_concurrency

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

    def _send(self, one: Any, payload: Any, params: SamplingParams) -> Generation:
        with self._count_lock:
            self.requests_sent += 1
        return one(payload, params)

    def _guarded(self, one: Any, payload: Any, params: SamplingParams) -> Generation:
        """One generation; retried only when the server provably did not run the request."""
        openai = self._openai
        for attempt in range(self.options.max_retries + 1):
            last = attempt == self.options.max_retries
            try:
                return self._send(one, payload, params)
            except openai.APITimeoutError as exc:
                if _never_sent(exc) and not last:
                    _backoff(attempt)  # the connection never opened: nothing was sent
                    continue
                if _never_sent(exc):
                    raise BackendUnavailableError(
                        f"cannot connect to the OpenAI-compatible server at {self.base_url} within "
                        f"{CONNECT_TIMEOUT_S:g} s; start it or fix the URL") from exc
                return _error_generation(payload, (
                    f"timed out: no answer within timeout_s={self.options.timeout_s:g} s; not sent again, since the "
                    "server may "
                    "still be generating it: raise the timeout, or stream the answer (stream: true)"))
            except openai.APIConnectionError as exc:
                if _never_sent(exc):
                    if not last:
                        _backoff(attempt)
                        continue
                    raise BackendUnavailableError(
                        f"cannot reach the OpenAI-compatible server at {self.base_url} ({exc}); start it or fix the "
                        "URL") from exc
                return _error_generation(payload, f"the connection failed mid-request ({exc.__cause__ or exc}); "
                                                  "not sent again, since the server may have started it")
            except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
                raise BackendUnavailableError(f"{self.base_url} refused the API key: {exc}") from exc
            except openai.NotFoundError as exc:
                raise BackendUnavailableError(
                    f"{self.base_url} does not serve model {self.model!r} (or the endpoint): {exc}"
                ) from exc
            except openai.APIStatusError as exc:
                if exc.status_code in RETRY_STATUSES and not last:
                    _backoff(attempt, exc.response.headers.get("retry-after"))
                    continue
                return _error_generation(payload, f"HTTP {exc.status_code}: {exc.message}")
        raise AssertionError("unreachable: the last attempt returns or raises")

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
        if self.options.stream:
            kwargs["stream"] = True
            kwargs["stream_options"] = {"include_usage": True}
        return kwargs

    def _chat_one(self, messages: list[dict[str, str]], params: SamplingParams) -> Generation:
        kwargs = self._common(params)
        if self.logprobs:
            kwargs["logprobs"] = True
        response = self.client.chat.completions.create(messages=messages, **kwargs)
        if self.options.stream:
            return _from_stream(response, chat=True)
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
            usage_tokens=_usage(response),
        )

    def _complete_one(self, payload: tuple[list[int], Any], params: SamplingParams) -> Generation:
        ids, prompt = payload
        kwargs = self._common(params)
        if self.logprobs:
            kwargs["logprobs"] = 1
        response = self.client.completions.create(prompt=prompt, **kwargs)
        if self.options.stream:
            generation = _from_stream(response, chat=False)
            generation.prompt_ids = ids
            return generation
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
            usage_tokens=_usage(response),
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
                f"{self.base_url} serves {len(models)} models ({models[:10]}); name one: openai:<model>@<url>"
            )
        return models[0]


def _never_sent(exc: BaseException) -> bool:
    """Whether the transport failed while connecting (so the server never saw the request). The ``openai`` client
    wraps its HTTP library's ``ConnectError``/``ConnectTimeout`` (httpx or a fork of it); matched by name."""
    cause = exc.__cause__ or exc.__context__
    return type(cause).__name__ in ("ConnectError", "ConnectTimeout")


def _backoff(attempt: int, retry_after: str | None = None) -> None:
    delay = min(MAX_BACKOFF_S, 0.5 * 2 ** attempt)
    try:
        if retry_after is not None:
            delay = min(MAX_BACKOFF_S, max(0.0, float(retry_after)))
    except ValueError:
        pass
    time.sleep(delay)


def _usage(response: Any) -> int | None:
    tokens = getattr(getattr(response, "usage", None), "completion_tokens", None)
    return int(tokens) if isinstance(tokens, int) and tokens >= 0 else None


def _from_stream(stream: Any, chat: bool) -> Generation:
    """One generation from a stream of chunks; a stream that breaks off is a failed generation (not resent: the
    server may have run it to the end)."""
    text: list[str] = []
    ids: list[int] = []
    logprobs: list[float] = []
    finish: str | None = None
    usage = None
    chunks = 0
    try:
        for chunk in stream:
            chunks += 1
            usage = _usage(chunk) if getattr(chunk, "usage", None) is not None else usage
            for choice in chunk.choices or ():
                ids.extend(_ids(_extra(choice, "token_ids")))
                finish = choice.finish_reason or finish
                if chat:
                    text.append(getattr(getattr(choice, "delta", None), "content", None) or "")
                    content = getattr(getattr(choice, "logprobs", None), "content", None)
                    logprobs.extend(float(item.logprob) for item in content or ())
                else:
                    text.append(choice.text or "")
                    token_logprobs = getattr(getattr(choice, "logprobs", None), "token_logprobs", None)
                    logprobs.extend(float(x) for x in token_logprobs or () if x is not None)
    except Exception as exc:  # the transport's errors vary by library; any break ends this generation only
        return Generation(prompt_ids=[], completion_ids=[], text="".join(text), finish_reason="error",
                          error=f"the stream broke off after {chunks} chunks ({type(exc).__name__}: {exc}); not "
                                "sent again, since the server may have finished it")
    return Generation(prompt_ids=[], completion_ids=ids, text="".join(text), logprobs=logprobs,
                      finish_reason=_finish(finish), usage_tokens=usage)


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
