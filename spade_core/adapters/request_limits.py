"""An ASGI layer that bounds HTTP requests before the application sees them: a body larger than the limit is refused
while it is read (at once when its ``Content-Length`` says so), and requests past the concurrency cap are refused
without being read. WebSocket connections pass through (uvicorn's ``ws_max_size`` bounds their messages)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class RequestLimits:
    """``app`` behind a request-body limit and a cap on HTTP requests in progress."""

    def __init__(self, app: ASGIApp, *, max_body_bytes: int, max_concurrent: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_concurrent = max_concurrent
        self.active = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.active >= self.max_concurrent:
            await _reply(send, 503, f"the server has {self.active} requests in progress (cap {self.max_concurrent}, "
                                    "ServeConfig.max_concurrent_requests); try again later")
            return
        self.active += 1
        try:
            body = await self._body(scope, receive, send)
            if body is not None:
                await self.app(scope, _replay(body, receive), send)
        finally:
            self.active -= 1

    async def _body(self, scope: Scope, receive: Receive, send: Send) -> bytes | None:
        """The whole body if it is within the limit; else None, with the 413 already sent."""
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > self.max_body_bytes):
            await self._too_large(send, f"Content-Length {declared[:20].decode('latin-1')!r}")
            return None
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body_bytes:
                await self._too_large(send, f"over {size} bytes sent so far")
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    async def _too_large(self, send: Send, seen: str) -> None:
        await _reply(send, 413, f"the request body is too large ({seen}); the limit is {self.max_body_bytes} bytes "
                                "(the largest action, JSON-escaped, with its envelope)")


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the application the body already read, then the client's later messages."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replay


async def _reply(send: Send, status: int, detail: str) -> None:
    payload = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": payload})
