"""The openai backend against a canned OpenAI-compatible server on 127.0.0.1: request handling that a slow or
flaky server exposes (no duplicate generation, which failures are retried), token counts from ``usage``, streaming,
and the options reaching the backend from the one model-spec loader."""

from __future__ import annotations

import pytest
from canned_openai_server import CannedServer, tokenize

from spade_core.models.base import SamplingParams
from spade_core.models.errors import BackendError, BackendUnavailableError
from spade_core.models.openai_backend import OpenAIBackend, OpenAIOptions
from spade_core.models.resolve import LoadOptions
from spade_core.plugins.backends import load_backend

HELLO = [{"role": "user", "content": "hi"}]
ANSWER = "The module is below.\n```python\nENV_SPEC = {}\n```\n" * 20


def reply(messages: list[dict[str, str]]) -> str:
    return ANSWER


def test_token_counts_come_from_usage_when_the_server_returns_no_ids() -> None:
    with CannedServer(reply) as server:
        backend = load_backend(server.spec)
        (gen,) = backend.chat([HELLO], SamplingParams(max_new_tokens=4096))
    assert gen.completion_ids == [] and gen.text == ANSWER and gen.finish_reason == "stop"
    assert gen.num_tokens == len(tokenize(ANSWER)) > 0


def test_max_tokens_cuts_and_reports_length() -> None:
    with CannedServer(reply) as server:
        (gen,) = load_backend(server.spec).chat([HELLO], SamplingParams(max_new_tokens=7))
    assert gen.finish_reason == "length" and gen.num_tokens == 7 and ANSWER.startswith(gen.text)


def test_a_slow_answer_is_not_requested_twice() -> None:
    with CannedServer(reply, delay_s=1.5) as server:
        backend = OpenAIBackend(server.model, base_url=server.base_url, timeout_s=0.3, max_retries=3)
        (gen,) = backend.chat([HELLO], SamplingParams(max_new_tokens=16))
        posts = server.log.posts("/chat/completions")
    assert gen.finish_reason == "error" and "not sent again" in (gen.error or "")
    assert len(posts) == 1 and backend.requests_sent == 1


def test_a_slow_but_streaming_server_is_waited_for() -> None:
    with CannedServer(reply, delay_s=0.6) as server:
        options = OpenAIOptions(timeout_s=5.0, stream=True)
        backend = load_backend(server.spec, LoadOptions(openai=options))
        (gen,) = backend.chat([HELLO], SamplingParams(max_new_tokens=4096))
        (cut,) = backend.chat([HELLO], SamplingParams(max_new_tokens=5))
        assert all(body["stream"] for body in server.log.posts("/chat/completions"))
    assert gen.text == ANSWER and gen.finish_reason == "stop" and gen.num_tokens == len(tokenize(ANSWER))
    assert cut.finish_reason == "length" and cut.num_tokens == 5


@pytest.mark.parametrize("status", [429, 500, 503])
def test_failures_the_server_did_not_run_are_retried(status: int) -> None:
    with CannedServer(reply, fail_first=2, fail_status=status) as server:
        backend = OpenAIBackend(server.model, base_url=server.base_url, max_retries=2)
        (gen,) = backend.chat([HELLO], SamplingParams(max_new_tokens=8))
        assert gen.error is None and len(server.log.posts("/chat/completions")) == 3


def test_retries_are_bounded_and_the_last_error_is_reported() -> None:
    with CannedServer(reply, fail_first=10, fail_status=503) as server:
        backend = OpenAIBackend(server.model, base_url=server.base_url, max_retries=1)
        (gen,) = backend.chat([HELLO], SamplingParams(max_new_tokens=8))
        assert gen.finish_reason == "error" and "HTTP 503" in (gen.error or "")
        assert len(server.log.posts("/chat/completions")) == 2


def test_a_client_error_is_not_retried() -> None:
    with CannedServer(reply, fail_first=5, fail_status=400) as server:
        backend = OpenAIBackend(server.model, base_url=server.base_url, max_retries=3)
        (gen,) = backend.chat([HELLO], SamplingParams(max_new_tokens=8))
        assert gen.finish_reason == "error" and len(server.log.posts("/chat/completions")) == 1


def test_an_unknown_model_is_a_typed_error_naming_the_server() -> None:
    with CannedServer(reply) as server:
        backend = load_backend(f"openai:other-model@{server.base_url}")
        with pytest.raises(BackendUnavailableError, match="does not serve model 'other-model'"):
            backend.chat([HELLO], SamplingParams(max_new_tokens=4))


def test_the_only_served_model_is_picked_when_none_is_named() -> None:
    with CannedServer(reply) as server:
        backend = load_backend(f"openai:@{server.base_url}")
        assert backend.model == server.model


def test_concurrency_limit_keeps_order() -> None:
    seen: list[str] = []

    def echo(messages: list[dict[str, str]]) -> str:
        seen.append(messages[-1]["content"])
        return messages[-1]["content"].upper()

    with CannedServer(echo) as server:
        backend = load_backend(server.spec, LoadOptions(openai=OpenAIOptions(max_concurrency=3)))
        gens = backend.chat([[{"role": "user", "content": f"m{i}"}] for i in range(7)], SamplingParams())
    assert [g.text for g in gens] == [f"M{i}" for i in range(7)] and sorted(seen) == sorted(f"m{i}" for i in range(7))


@pytest.mark.parametrize("bad", [{"timeout_s": 0}, {"max_retries": -1}, {"max_concurrency": 0}])
def test_bad_options_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(BackendError):
        OpenAIOptions(**bad)
