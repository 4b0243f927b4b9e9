"""The scheme a proxy in front of the service may set: X-Forwarded-Proto, which uvicorn
takes from a trusted address (its proxy headers, by default from loopback), as the
request's scheme, and so of every URL the API writes from the request's (a page's
``next`` link). uvicorn takes "ws" and "wss" too: "X-Forwarded-Proto: ws" made the links
of a plain HTTP request "ws://...", which no client of the API can follow. Only "http"
and "https" name the scheme of an HTTP request; a field of any other value is as none,
the scheme the connection's (an earlier field is not taken in its place: the proxy
nearest the service wrote the last)."""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

_FIELD = b"x-forwarded-proto"
_SCHEMES = frozenset({b"http", b"https"})


class ForwardedScheme:
    """Drops an HTTP request's X-Forwarded-Proto fields when the one uvicorn's proxy
    headers read (the last) is no HTTP scheme, before they read it: it wraps the
    application uvicorn gives the HTTP protocols (service.api.protocol), which every
    server of the service runs, outside uvicorn's own wrapping of it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            sent = [v for k, v in scope["headers"] if k == _FIELD]
            if sent and sent[-1].strip() not in _SCHEMES:
                scope["headers"] = [(k, v) for k, v in scope["headers"] if k != _FIELD]
        await self.app(scope, receive, send)
