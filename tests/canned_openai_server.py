"""A real OpenAI-compatible HTTP server on 127.0.0.1 that answers with canned completions chosen per prompt.

It speaks the parts of the API SPADE uses (``GET /v1/models``, ``POST /v1/chat/completions`` and
``/v1/completions``, plain or streamed as server-sent events) and honours what a real server honours: ``max_tokens``
cuts the answer (``finish_reason: "length"``), ``stop`` strings end it, ``usage`` counts tokens, and no token ids
are returned (like most hosted servers). Tokens are counted the way byte-level BPE tokenizers split code: GPT-2's
pre-tokenisation, with words of more than four characters counted as several tokens, which gives 3.0-3.2
characters per token on the bundled worked examples (the Llama/Qwen/SmolLM2 tokenizers give 3.2-3.5: this counts a
few more tokens than a real server would, so a budget that suffices here suffices there).

For fault injection it can wait before answering (``delay_s``) and fail the first requests with a status code.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_PIECES = re.compile(r"'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]{1,3}| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+")

Responder = Callable[[list[dict[str, str]]], str]
"""Chooses the canned answer for a conversation (a raw completion prompt arrives as one user message)."""


def tokenize(text: str) -> list[str]:
    """The answer split into tokens (see the module docstring); joining them gives the text back."""
    tokens: list[str] = []
    for piece in _PIECES.findall(text):
        if len(piece.strip()) > 4 and piece.strip().isalpha():
            tokens += [piece[i:i + 4] for i in range(0, len(piece), 4)]
        else:
            tokens.append(piece)
    return tokens


@dataclass
class ServerLog:
    """What the server saw: every request body, by path."""

    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, path: str, body: dict[str, Any]) -> None:
        with self.lock:
            self.requests.append((path, body))

    def posts(self, suffix: str) -> list[dict[str, Any]]:
        with self.lock:
            return [body for path, body in self.requests if path.endswith(suffix)]


class CannedServer:
    """``with CannedServer(responder) as server:`` serves at ``server.base_url`` (``http://127.0.0.1:PORT/v1``)."""

    def __init__(self, responder: Responder, *, model: str = "canned-designer", delay_s: float = 0.0,
                 fail_first: int = 0, fail_status: int = 503) -> None:
        self.responder = responder
        self.model = model
        self.delay_s = delay_s
        self.fail_first = fail_first
        self.fail_status = fail_status
        self.log = ServerLog()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "start the server first"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def spec(self) -> str:
        """The model spec that names this server: ``openai:<model>@<base_url>``."""
        return f"openai:{self.model}@{self.base_url}"

    def __enter__(self) -> CannedServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # http.server dispatches on this name
                if self.path.rstrip("/").endswith("/models"):
                    self._json(200, {"object": "list", "data": [{"id": server.model, "object": "model"}]})
                else:
                    self._json(404, {"error": {"message": f"no route {self.path}"}})

            def do_POST(self) -> None:  # http.server dispatches on this name
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                server.log.add(self.path, body)
                if len(server.log.requests) <= server.fail_first:
                    self._json(server.fail_status, {"error": {"message": "injected failure"}})
                    return
                if server.delay_s:
                    time.sleep(server.delay_s)
                chat = self.path.endswith("/chat/completions")
                if not chat and not self.path.endswith("/completions"):
                    self._json(404, {"error": {"message": f"no route {self.path}"}})
                    return
                if body.get("model") != server.model:
                    self._json(404, {"error": {"message": f"model {body.get('model')!r} not found"}})
                    return
                messages = body["messages"] if chat else [{"role": "user", "content": str(body.get("prompt"))}]
                text, finish, used = server.answer(messages, body)
                prompt_tokens = sum(len(tokenize(m.get("content") or "")) for m in messages)
                usage = {"prompt_tokens": prompt_tokens, "completion_tokens": used,
                         "total_tokens": prompt_tokens + used}
                if body.get("stream"):
                    self._stream(chat, text, finish, usage, body)
                    return
                choice: dict[str, Any] = {"index": 0, "finish_reason": finish}
                if chat:
                    choice["message"] = {"role": "assistant", "content": text}
                else:
                    choice["text"] = text
                self._json(200, {"id": "canned-1", "object": "chat.completion" if chat else "text_completion",
                                 "created": int(time.time()), "model": server.model, "choices": [choice],
                                 "usage": usage})

            def _json(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, chat: bool, text: str, finish: str, usage: dict[str, int], body: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                kind = "chat.completion.chunk" if chat else "text_completion"
                pieces = [text[i:i + 400] for i in range(0, len(text), 400)] or [""]
                for i, piece in enumerate(pieces):
                    last = i == len(pieces) - 1
                    choice: dict[str, Any] = {"index": 0, "finish_reason": finish if last else None}
                    if chat:
                        choice["delta"] = {"content": piece}
                    else:
                        choice["text"] = piece
                    self._event({"id": "canned-1", "object": kind, "created": 0, "model": server.model,
                                 "choices": [choice]})
                if (body.get("stream_options") or {}).get("include_usage"):
                    self._event({"id": "canned-1", "object": kind, "created": 0, "model": server.model,
                                 "choices": [], "usage": usage})
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
                self.close_connection = True

            def _event(self, payload: dict[str, Any]) -> None:
                self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")
                self.wfile.flush()

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._httpd is not None
        self._httpd.shutdown()
        self._httpd.server_close()

    def answer(self, messages: list[dict[str, str]], body: dict[str, Any]) -> tuple[str, str, int]:
        """The canned text for ``messages`` after ``stop`` and ``max_tokens``: (text, finish_reason, tokens)."""
        text = self.responder(messages)
        finish = "stop"
        stops = body.get("stop") or []
        for stop in [stops] if isinstance(stops, str) else stops:
            if stop and stop in text:
                text = text[: text.index(stop)]
        tokens = tokenize(text)
        limit = body.get("max_tokens")
        if isinstance(limit, int) and len(tokens) > limit:
            tokens, finish = tokens[:limit], "length"
        return "".join(tokens), finish, len(tokens)
