"""The openai backend against a real OpenAI-compatible server: ``transformers serve`` on 127.0.0.1 serving the tiny
local model (no hand-written fake of the API). Slow-ish (~15 s, mostly the server's start-up)."""

from __future__ import annotations

import http.server
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="transformers serve needs the transformers[serving] extra")
pytest.importorskip("uvicorn", reason="transformers serve needs the transformers[serving] extra")

from spade_core.models.base import ModelBackend, SamplingParams
from spade_core.models.errors import BackendError, BackendUnavailableError
from spade_core.models.openai_backend import OpenAIBackend
from spade_core.models.tiny import build_tiny_model

START_TIMEOUT_S = 180
_LOCAL: dict[str, tuple] = {}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"transformers serve exited with {proc.returncode}:\n{log.read_text()[-4000:]}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.3)
    raise RuntimeError(f"transformers serve did not become healthy in {START_TIMEOUT_S} s:\n{log.read_text()[-4000:]}")


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_model(tmp_path_factory.mktemp("tiny") / "model")


@pytest.fixture(scope="module")
def server(tiny_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``transformers serve <tiny model dir>`` on a free loopback port; yields the ``/v1`` base URL."""
    work = tmp_path_factory.mktemp("serve")
    port = _free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_HOME": str(work / "hf"), "HF_HUB_CACHE": str(work / "hf" / "hub"),
           "TRANSFORMERS_VERBOSITY": "error", "TOKENIZERS_PARALLELISM": "false"}
    (work / "hf" / "hub").mkdir(parents=True)
    log = work / "serve.log"
    cmd = [sys.executable, "-m", "transformers.cli.transformers", "serve", str(tiny_dir),
           "--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        _wait_healthy(f"http://127.0.0.1:{port}", proc, log)
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


def _local_model(tiny_dir: Path) -> tuple:
    """The same model loaded in this process (tokenizer, model), to check what the server answered."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    if str(tiny_dir) not in _LOCAL:
        model = AutoModelForCausalLM.from_pretrained(tiny_dir, dtype=torch.float32).eval()
        _LOCAL[str(tiny_dir)] = (AutoTokenizer.from_pretrained(tiny_dir), model)
    return _LOCAL[str(tiny_dir)]


def _local_greedy(tiny_dir: Path, messages: list[dict[str, str]], max_new_tokens: int) -> str:
    import torch

    tok, model = _local_model(tiny_dir)
    inputs = tok.apply_chat_template(messages, add_generation_prompt=True, return_tensors="pt", return_dict=True)
    with torch.no_grad():
        out = model.generate(**inputs, max_new_tokens=max_new_tokens, do_sample=False)
    return tok.decode(out[0, inputs["input_ids"].shape[1]:], skip_special_tokens=True)


def test_chat_batch_matches_local_greedy_generation(server: str, tiny_dir: Path) -> None:
    backend = OpenAIBackend(str(tiny_dir), base_url=server, max_concurrency=3, timeout_s=60, max_retries=1)
    assert isinstance(backend, ModelBackend)
    conversations = [[{"role": "user", "content": f"Compute {i} + {i}."}] for i in range(4)]
    params = SamplingParams(max_new_tokens=8, temperature=0.0)
    generations = backend.chat(conversations, params)
    assert len(generations) == 4
    for conv, gen in zip(conversations, generations):
        assert gen.error is None and gen.finish_reason in ("stop", "length")
        assert gen.text == _local_greedy(tiny_dir, conv, 8)  # the server really ran this model, in request order
        assert gen.completion_ids == [] and gen.logprobs == []  # transformers serve returns neither


def test_concurrency_limit_keeps_order_and_overlaps_requests(server: str, tiny_dir: Path) -> None:
    backend = OpenAIBackend(str(tiny_dir), base_url=server, max_concurrency=2, timeout_s=60, max_retries=0)
    conversations = [[{"role": "user", "content": "yes"}], [{"role": "user", "content": "no"}]] * 2
    gens = backend.chat(conversations, SamplingParams(max_new_tokens=4, temperature=0.0))
    assert [g.text for g in gens[:2]] == [g.text for g in gens[2:]]
    assert backend.chat([], SamplingParams()) == []


def test_timeout_becomes_an_error_generation(server: str, tiny_dir: Path) -> None:
    backend = OpenAIBackend(str(tiny_dir), base_url=server, timeout_s=0.001, max_retries=0)
    (gen,) = backend.chat([[{"role": "user", "content": "hi"}]], SamplingParams(max_new_tokens=64))
    assert gen.finish_reason == "error" and "timed out" in (gen.error or "")


def test_unreachable_server_raises_a_typed_error() -> None:
    port = _free_port()  # nothing listens there
    backend = OpenAIBackend("m", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0, timeout_s=5)
    with pytest.raises(BackendUnavailableError, match="cannot reach"):
        backend.chat([[{"role": "user", "content": "hi"}]], SamplingParams(max_new_tokens=2))


def test_sync_weights_is_refused_with_a_reason(server: str, tiny_dir: Path) -> None:
    backend = OpenAIBackend(str(tiny_dir), base_url=server)
    with pytest.raises(BackendError, match="cannot load new weights"):
        backend.sync_weights({})


class _FlakyProxy(http.server.BaseHTTPRequestHandler):
    """Fault injection in front of the real server: the first ``failures`` POSTs get 503, the rest are forwarded."""

    failures = 0
    seen = 0
    upstream = ""

    def do_POST(self) -> None:  # http.server naming
        type(self).seen += 1
        body = self.rfile.read(int(self.headers.get("content-length", 0)))
        if type(self).seen <= type(self).failures:
            self.send_response(503)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"error": {"message": "injected outage"}}')
            return
        req = urllib.request.Request(self.upstream + self.path, data=body, method="POST",
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as resp:
            payload = resp.read()
            self.send_response(resp.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


def test_retries_get_through_transient_server_errors(server: str, tiny_dir: Path) -> None:
    handler = type("Proxy", (_FlakyProxy,), {"failures": 2, "seen": 0, "upstream": server.removesuffix("/v1")})
    proxy = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=proxy.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{proxy.server_address[1]}/v1"
        flaky = OpenAIBackend(str(tiny_dir), base_url=url, max_retries=0, timeout_s=60)
        (failed,) = flaky.chat([[{"role": "user", "content": "hi"}]], SamplingParams(max_new_tokens=3, temperature=0))
        assert failed.finish_reason == "error" and "503" in (failed.error or "")
        handler.seen = 0
        patient = OpenAIBackend(str(tiny_dir), base_url=url, max_retries=3, timeout_s=60)
        (ok,) = patient.chat([[{"role": "user", "content": "hi"}]], SamplingParams(max_new_tokens=3, temperature=0))
        assert ok.error is None and handler.seen == 3  # two injected 503s, then the real answer
    finally:
        proxy.shutdown()
        proxy.server_close()


def test_generate_from_token_ids_uses_the_completions_endpoint(server: str, tiny_dir: Path) -> None:
    import torch

    backend = OpenAIBackend(str(tiny_dir), base_url=server, tokenizer=tiny_dir, max_retries=0, timeout_s=60)
    tok, model = _local_model(tiny_dir)
    ids = tok("Compute (((61 * 43) + 10) + 90).").input_ids
    (gen,) = backend.generate([ids], SamplingParams(max_new_tokens=6, temperature=0.0))
    with torch.no_grad():
        out = model.generate(torch.tensor([ids]), attention_mask=torch.ones(1, len(ids), dtype=torch.long),
                             max_new_tokens=6, do_sample=False)
    assert gen.error is None and gen.prompt_ids == ids
    assert gen.text == tok.decode(out[0, len(ids):], skip_special_tokens=True)
