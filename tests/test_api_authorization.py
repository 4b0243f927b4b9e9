"""A request of more than one Authorization header, to a route that reads it (the API
token's guard, the webhook, the WebSub callback): a 400 problem, on both of uvicorn's HTTP
parsers, raw bytes to a real server on loopback; where nothing reads it (another route, or
any without a token), taken as with one."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.api.app import create_app
from service.api.protocol import ProblemH11Protocol, ProblemHttpToolsProtocol
from tests.conftest import make_settings, read_answer, serve_on_loopback

TOKEN = "authorization-token"
RIGHT = b"Authorization: Bearer " + TOKEN.encode() + b"\r\n"
WRONG = b"Authorization: Bearer not-the-token\r\n"


@pytest.fixture(params=[ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"])
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}", api_token=TOKEN)
    yield from serve_on_loopback(create_app(settings, workers=0), request.param)


def send(port: int, head: bytes, fields: bytes, body: bytes = b"") -> tuple[int, Any]:
    """The status and JSON body of the answer to ``head`` with ``fields`` and ``body``."""
    raw = (
        head
        + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        + b"Content-Length: %d\r\nConnection: close\r\n" % len(body)
        + fields
        + b"\r\n"
        + body
    )
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(raw)
        status, _, answer = read_answer(s)
    return int(status.split()[1]), json.loads(answer) if answer else None


FEED = json.dumps({"url": "https://blog.example/feed"}).encode()


@pytest.mark.parametrize(
    ("head", "body"),
    [
        (b"POST /feeds", FEED),
        (b"DELETE /feeds/1", b""),
        (b"GET /subscribers", b""),
        (b"POST /items/1/retry", b""),
        (b"POST /webhooks/feed", FEED),
        # Its token stands in for a signature where the feed has no secret.
        (b"POST /websub/1", FEED),
    ],
)
@pytest.mark.parametrize(
    "fields",
    [RIGHT + WRONG, WRONG + RIGHT, RIGHT + RIGHT],
    ids=["right-first", "wrong-first", "same"],
)
def test_two_authorization_headers_are_a_400_problem(
    port: int, head: bytes, body: bytes, fields: bytes
) -> None:
    # The first was read: with the token first the request was served (201, 200), the
    # second header passed over, whichever of the two the client meant.
    status, problem = send(port, head, fields, body)
    assert status == 400, problem
    assert problem["type"].endswith("/ambiguous-credentials"), problem
    assert problem["title"] == "Ambiguous credentials"
    assert "2 Authorization headers" in problem["detail"]


def test_nothing_is_done_of_a_request_of_two(port: int) -> None:
    assert send(port, b"POST /feeds", RIGHT + WRONG, FEED)[0] == 400
    assert send(port, b"GET /feeds", b"")[1]["total"] == 0
    # One header, the token: as before.
    assert send(port, b"POST /feeds", RIGHT, FEED)[0] == 201
    assert send(port, b"POST /feeds", WRONG, FEED)[0] == 401
    # A route that reads no Authorization takes the request whatever it carries.
    assert send(port, b"GET /feeds", RIGHT + WRONG)[0] == 200


def test_the_400_is_declared_where_the_token_is_read(port: int) -> None:
    # The webhook's and the WebSub callback's read the token themselves (it may stand
    # in for a signature): their 400 said nothing of it.
    spec = httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=10).json()
    for path, method in (
        ("/feeds/{feed_id}", "delete"),
        ("/feeds", "post"),
        ("/webhooks/feed", "post"),
        ("/websub/{feed_id}", "post"),
    ):
        declared = spec["paths"][path][method]["responses"]["400"]
        assert "than one Authorization header" in declared["description"]
        assert "application/problem+json" in declared["content"]


@pytest.fixture(params=[ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"])
def open_port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    """A server with no API token: no route reads Authorization."""
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}", api_token=None)
    yield from serve_on_loopback(create_app(settings, workers=0), request.param)


def status_of(port: int, head: bytes, fields: bytes) -> int:
    """The status of the answer to ``head`` (a GET) with ``fields``, whatever its body."""
    raw = head + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + fields + b"\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(raw)
        return int(read_answer(s)[0].split()[1])


def test_two_are_no_error_where_no_credential_is_read(port: int) -> None:
    # Refused where the credential is read, not everywhere: where nothing is decided by
    # it there is nothing ambiguous, and infrastructure in front of a service does send
    # a duplicated Authorization; a public read or a health check refusing it would
    # fail for no credential at stake.
    for head in (b"GET /feeds", b"GET /healthz", b"GET /feed.atom", b"GET /openapi.json"):
        assert status_of(port, head, RIGHT + WRONG) == 200, head


def test_two_are_no_error_where_no_token_is_set(open_port: int) -> None:
    # The guard of the write routes, and the webhooks', read nothing without a token.
    status, feed = send(open_port, b"POST /feeds", RIGHT + WRONG, FEED)
    assert status == 201 and feed["id"] == 1, feed
    assert send(open_port, b"DELETE /feeds/1", WRONG + WRONG)[0] == 204
    # The WebSub callback answers as without them (a JSON body is no feed document).
    alone = send(open_port, b"POST /websub/1", b"", FEED)
    assert send(open_port, b"POST /websub/1", RIGHT + WRONG, FEED) == alone
    assert alone[0] == 422, alone
