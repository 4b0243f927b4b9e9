"""Range read as RFC 9110 14.2 says, for the static mounts (Starlette's FileResponse, the
only responses that serve ranges): a Range of a unit other than bytes is ignored (a
server MUST), and so is one whose ranges do not parse ("bytes=abc", "bytes=5-1": a server
MAY ignore or refuse it); the whole file is sent, 200. Starlette answered both 400 in
plain text ("Only support bytes range"), the one error of the service that was no
problem document. A range the file cannot satisfy stays 416 with its Content-Range, its
empty text/plain body a problem document.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from starlette.responses import FileResponse, MalformedRangeHeader, RangeNotSatisfiable
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.api.problems import MEDIA_TYPE, PROBLEM_BASE


def _ignored(value: str) -> bool:
    """Whether a Range ``value`` is to be ignored: FileResponse would refuse it as
    malformed whatever the file's size (its own parser, given the largest size, so that
    only a range no file satisfies is left to it)."""
    try:
        FileResponse._parse_range_header(value, sys.maxsize)
    except MalformedRangeHeader:
        return True
    except RangeNotSatisfiable:
        return False
    return False


def _unsatisfiable(path: str, content_range: str) -> bytes:
    return json.dumps(
        {
            "type": PROBLEM_BASE + "range-not-satisfiable",
            "title": "Range not satisfiable",
            "status": 416,
            "detail": f"the Range asks for bytes the file does not have ({content_range})",
            "instance": path,
        }
    ).encode()


class RangeRequests:
    """Drops a Range header FileResponse would refuse as malformed, before any route or
    mount reads it; answers its 416 with a problem body. Requests with no Range pass as
    they are."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = scope.get("headers", [])
        ranges = [v for k, v in headers if k == b"range"]
        if not ranges:
            await self.app(scope, receive, send)
            return
        if any(_ignored(v.decode("latin-1")) for v in ranges):
            scope = dict(scope)
            scope["headers"] = [(k, v) for k, v in headers if k != b"range"]
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, _ProblemOf416(scope, send))


class _ProblemOf416:
    """A ``send`` that gives a 416 answer a problem body in place of its own."""

    def __init__(self, scope: Scope, send: Send) -> None:
        self.scope, self.send, self.replaced = scope, send, False

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start" and message["status"] == 416:
            self.replaced = True
            kept = [
                (k, v)
                for k, v in message.get("headers", [])
                if k.lower() not in (b"content-type", b"content-length")
            ]
            content_range = next(
                (v.decode("latin-1") for k, v in kept if k.lower() == b"content-range"), ""
            )
            body = _unsatisfiable(self.scope.get("path", ""), content_range)
            start: dict[str, Any] = {
                **message,
                "headers": [
                    *kept,
                    (b"content-type", MEDIA_TYPE.encode()),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
            await self.send(start)
            await self.send({"type": "http.response.body", "body": body})
            return
        if self.replaced:
            return  # (the 416's own body: empty, and already answered)
        await self.send(message)
