"""uvicorn's HTTP protocols, answering a request they cannot parse the way the API answers
every error: a problem details body (RFC 9457), not uvicorn's plain text.

A request line or header block that does not parse never reaches the application: the
protocol answers 400 itself, and a client that reads every error as JSON would choke on
"Invalid HTTP request received.". Each protocol class keeps its own framing (the h11 state
machine, httptools' raw bytes) and changes only the body and its type.
"""

from __future__ import annotations

import asyncio
import json

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from service.api.problems import MEDIA_TYPE, PROBLEM_BASE

try:  # uvicorn[standard] brings httptools, which uvicorn prefers; h11 is always there
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools is a dependency of uvicorn[standard]
    HttpToolsProtocol = None  # type: ignore[assignment,misc]


def bad_request_body(msg: str) -> bytes:
    """The problem document for a request the HTTP parser refused (``msg``: uvicorn's)."""
    return json.dumps(
        {
            "type": PROBLEM_BASE + "bad-http-request",
            "title": "Malformed HTTP request",
            "status": 400,
            "detail": msg,
        }
    ).encode()


class ProblemH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a problem details body on a request it cannot parse."""

    def send_400_response(self, msg: str) -> None:
        body = bad_request_body(msg)
        headers = [
            (b"content-type", MEDIA_TYPE.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        for event in (
            h11.Response(status_code=400, headers=headers, reason=b"Bad Request"),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event))  # type: ignore[arg-type]
        self.transport.close()


if HttpToolsProtocol is not None:

    class ProblemHttpToolsProtocol(HttpToolsProtocol):
        """uvicorn's httptools protocol with a problem details body on a request it cannot
        parse."""

        def send_400_response(self, msg: str) -> None:
            body = bad_request_body(msg)
            content = [b"HTTP/1.1 400 Bad Request\r\n"]
            for name, value in self.server_state.default_headers:
                content.extend([name, b": ", value, b"\r\n"])
            content += [
                b"content-type: " + MEDIA_TYPE.encode() + b"\r\n",
                b"content-length: " + str(len(body)).encode() + b"\r\n",
                b"connection: close\r\n\r\n",
                body,
            ]
            self.transport.write(b"".join(content))
            self.transport.close()


def http_protocol() -> type[asyncio.Protocol]:
    """The protocol class to give uvicorn's ``http`` setting: httptools' when installed
    (what uvicorn's "auto" picks), else h11's."""
    if HttpToolsProtocol is not None:
        return ProblemHttpToolsProtocol
    return ProblemH11Protocol  # pragma: no cover
