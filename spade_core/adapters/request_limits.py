"""An ASGI layer that bounds requests before the application sees them: a body larger than the limit is refused
while it is read (at once when its ``Content-Length`` says so), HTTP requests past the concurrency cap are refused
without being read, and a client past its WebSocket session quota is closed with code 1013 (uvicorn's
``ws_max_size`` bounds WebSocket messages). Every connection is served with its client
(:data:`~spade_core.adapters.admission.current_client`) set, for the worker-slot quotas."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from spade_core.adapters.admission import BadClientId, client_key, current_client

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]


class RequestLimits:
    """``app`` behind a request-body limit, a cap on HTTP requests in progress and a WebSocket quota per client."""

    def __init__(self, app: ASGIApp, *, max_body_bytes: int, max_concurrent: int, sessions_per_client: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_concurrent = max_concurrent
        self.sessions_per_client = sessions_per_client
        self.active = 0
        self.sockets: Counter[str] = Counter()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        try:
            client = client_key(scope)
        except BadClientId as err:
            await _refuse(scope, send, receive, 400, 1008, str(err))
            return
        current_client.set(client)
        if scope["type"] == "websocket":
            await self._socket(client, scope, receive, send)
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

    async def _socket(self, client: str, scope: Scope, receive: Receive, send: Send) -> None:
        if self.sockets[client] >= self.sessions_per_client:
            await _refuse(scope, send, receive, 429, 1013, f"this client has {self.sockets[client]} sessions open "
                                                            "(ServeConfig.sessions_per_client); close one, retry")
            return
        self.sockets[client] += 1
        try:
            await self.app(scope, receive, send)
        finally:
            self.sockets[client] -= 1
            if self.sockets[client] <= 0:
                del self.sockets[client]

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


async def _refuse(scope: Scope, send: Send, receive: Receive, status: int, ws_code: int, detail: str) -> None:
    """An HTTP error reply, or for a WebSocket an accepted connection closed at once with ``ws_code`` and the reason
    (WebSocket close reasons hold at most 123 bytes)."""
    if scope["type"] == "http":
        await _reply(send, status, detail)
        return
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    await send(dict(type="websocket.close", code=ws_code, reason=detail.encode()[:123].decode("utf-8", "ignore")))


async def _reply(send: Send, status: int, detail: str) -> None:
    payload = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": payload})
