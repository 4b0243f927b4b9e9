"""ASGI middleware for what every route shares: a cap on request bodies and on the time
they take to arrive, a connection closed after an answer to a body never asked for, and
HEAD answered as GET without the body (RFC 9110 9.3.2)."""

from __future__ import annotations

import asyncio
import time

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# Above the largest body a route takes (the webhook's 10 MiB feed document): anything
# bigger is refused before it is buffered in memory. A post or an explainer has no bound
# of its own below it: the settings bound their cleaned length (a 413).
MAX_REQUEST_BODY = 16 * 1024 * 1024


class BodyLimit:
    """A request body over ``limit`` bytes is a 413 problem: refused from its
    Content-Length before it is read, else as soon as the bytes read pass the cap. A
    compressed one (Content-Encoding) is a 415."""

    def __init__(self, app: ASGIApp, limit: int = MAX_REQUEST_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit
        headers = dict(scope.get("headers", ()))
        length = headers.get(b"content-length", b"")
        coding = headers.get(b"content-encoding", b"").strip().lower()
        if coding not in (b"", b"identity"):
            # A compressed body (gzip from a monitor) read as it is was "not a feed", or
            # "not valid JSON": say what is wrong. Not decoded here: the signatures are
            # over the bytes sent, and a small gzip body can stand for gigabytes.
            receive = _refusing(
                415,
                f"Content-Encoding {coding.decode('latin-1')!r} is not taken: send the "
                "body uncompressed",
            )
        elif length.isdigit() and int(length) > limit:
            receive = _refusing(413, f"body of {int(length)} bytes is over the {limit}-byte cap")
        else:
            receive = _counting(receive, limit)
        await self.app(scope, receive, send)


def _refusing(status: int, detail: str) -> Receive:
    async def receive() -> Message:
        # Raised where the route reads its body, so the problem handlers answer it (a
        # route that reads no body answers as usual).
        raise HTTPException(status, detail)

    return receive


def _counting(receive: Receive, limit: int) -> Receive:
    seen = 0

    async def counted() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise HTTPException(413, f"body is over the {limit}-byte cap")
        return message

    return counted


class BodyTimeout:
    """A request body not received whole within ``seconds`` of the request reaching the
    app (its headers read) is a 408 problem, and the connection is closed (RFC 9110
    15.5.9). Only the body is bounded: what the route does after reading it, and a
    streamed answer, take as long as they take. Pure ASGI: Starlette's BaseHTTPMiddleware
    would run the route in a task of its own and buffer streamed answers."""

    def __init__(self, app: ASGIApp, seconds: float) -> None:
        self.app = app
        self.seconds = seconds

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and _declares_body(scope):
            receive = _timed(receive, self.seconds)
        await self.app(scope, receive, send)


def _declares_body(scope: Scope) -> bool:
    """Whether the request says a body follows (a Content-Length over 0, or chunked). One
    that does not is answered by uvicorn's receive at once: nothing to wait for, and a
    streamed answer's wait for a disconnect (by receive) must not be cut short."""
    headers = dict(scope.get("headers", ()))
    if b"chunked" in headers.get(b"transfer-encoding", b"").lower():
        return True
    length = headers.get(b"content-length", b"").strip()
    return length.isdigit() and int(length) > 0


def _timed(receive: Receive, seconds: float) -> Receive:
    deadline = time.monotonic() + seconds
    whole = False

    async def timed() -> Message:
        nonlocal whole
        if whole:  # the body is in: a later receive waits for the disconnect, unbounded
            return await receive()
        try:
            message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            # Raised where the route reads its body, as BodyLimit's 413 is; the problem
            # handler answers it with Connection: close, and uvicorn closes the connection.
            raise HTTPException(
                408,
                f"the request body did not arrive whole within {seconds:g} seconds "
                "(PLAINFEED_BODY_TIMEOUT)",
                headers={"Connection": "close"},
            ) from None
        if message["type"] != "http.request" or not message.get("more_body", False):
            whole = True
        return message

    return timed


class UnaskedBodyClose:
    """A request that waits to be told to send its body (Expect: 100-continue) and is
    answered without the body asked for (a 413 from its Content-Length, a 415, a 404)
    closes its connection (RFC 9110 10.1.1): told no 100 Continue, its client sends no
    body, and uvicorn, still waiting on it, read the client's next request on the
    connection as that body, and the connection hung. Outermost, to see whether the
    server's ``receive`` (which sends the 100) was called."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = dict(scope.get("headers", ())) if scope["type"] == "http" else {}
        waits = headers.get(b"expect", b"").strip().lower() == b"100-continue"
        if not (waits and _declares_body(scope)):
            await self.app(scope, receive, send)
            return
        asked = False

        async def asking() -> Message:
            nonlocal asked
            asked = True
            return await receive()

        async def closing(message: Message) -> None:
            if message["type"] == "http.response.start" and not asked:
                kept = [(k, v) for k, v in message.get("headers", ()) if k.lower() != b"connection"]
                message = {**message, "headers": [*kept, (b"connection", b"close")]}
            await send(message)

        await self.app(scope, asking, closing)


class HeadAsGet:
    """HEAD runs the GET route and sends its status and headers (Content-Length, ETag,
    Last-Modified included) without the body: FastAPI routes declare GET only."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return

        async def headers_only(message: Message) -> None:
            if message["type"] == "http.response.body":
                if message.get("more_body", False):
                    return  # the rest of a streamed body: nothing is sent for HEAD
                message = {"type": "http.response.body", "body": b"", "more_body": False}
            await send(message)

        await self.app({**scope, "method": "GET"}, receive, headers_only)
