"""A request asking to upgrade to h2c (Java's HttpClient and Ktor ask on every request,
curl --http2 too) is served as HTTP/1.1, its Upgrade ignored (RFC 9110 7.8), while a
WebSocket upgrade goes to uvicorn's WebSocket protocol as before: raw bytes to a real
server on loopback, through each of uvicorn's HTTP protocols; and heads.IgnoredUpgrade,
what the httptools parser is fed of a head, however it is split."""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.api.app import create_app
from service.api.heads import IgnoredUpgrade
from service.api.protocol import MAX_HEAD_BYTES, ProblemH11Protocol, ProblemHttpToolsProtocol
from tests.conftest import make_settings, read_answer, serve_on_loopback

CHECK = json.dumps({"markdown": "It is 1.5x faster.", "explainer": "It is 2.5x faster."}).encode()
H2C = (  # (as Java's HttpClient and curl --http2 send it)
    b"Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n"
    b"HTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n"
)
JSON = b"Content-Type: application/json\r\n"
WEBSOCKET = (
    b"GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


@pytest.fixture(params=[ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"])
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}")
    yield from serve_on_loopback(create_app(settings, workers=0), request.param)


def _request(target: bytes, extra: bytes = b"", body: bytes | None = None) -> bytes:
    method = b"GET" if body is None else b"POST"
    head = method + b" " + target + b" HTTP/1.1\r\nHost: x\r\n" + extra
    if body is None:
        return head + b"\r\n"
    return head + JSON + b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _chunked(target: bytes, extra: bytes, body: bytes) -> bytes:
    head = b"POST " + target + b" HTTP/1.1\r\nHost: x\r\n" + extra + JSON
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(body[i : i + 7]), body[i : i + 7]) for i in range(0, len(body), 7)
    )
    return head + b"Transfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n"


def _read_one(s: socket.socket, buffered: bytearray) -> tuple[str, Any]:
    """The status line and JSON body of the next answer on ``s`` (by its Content-Length),
    leaving what was read after it in ``buffered``."""
    while b"\r\n\r\n" not in buffered:
        chunk = s.recv(65536)
        assert chunk, f"closed before an answer: {bytes(buffered)!r}"
        buffered += chunk
    head, _, _ = bytes(buffered).partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    end = len(head) + 4 + int(headers["content-length"])
    while len(buffered) < end:
        chunk = s.recv(65536)
        assert chunk, "closed in the midst of an answer"
        buffered += chunk
    body = bytes(buffered[len(head) + 4 : end])
    del buffered[:end]
    return status, json.loads(body)


def _exchange(port: int, *requests: bytes, at_once: bool = False) -> list[tuple[str, Any]]:
    """The answers to ``requests`` on one connection: each sent after the answer before
    it, or all in one write (pipelined)."""
    answers: list[tuple[str, Any]] = []
    buffered = bytearray()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        if at_once:
            s.sendall(b"".join(requests))
        for raw in requests:
            if not at_once:
                s.sendall(raw)
            answers.append(_read_one(s, buffered))
    return answers


def test_a_post_asking_for_h2c_gets_the_answer_without_it_and_keeps_its_connection(
    port: int,
) -> None:
    # The httptools parser, told of an upgrade, ended the request at its head: the app
    # read an empty body, the body was parsed as the next request (a 400), and the
    # connection closed.
    plain = _exchange(port, _request(b"/check", body=CHECK))
    for ask in (_request(b"/check", H2C, CHECK), _chunked(b"/check", H2C, CHECK)):
        answers = _exchange(port, ask, _request(b"/healthz", H2C), _request(b"/healthz"))
        assert answers[0] == plain[0]
        assert answers[0][0] == "HTTP/1.1 200 OK" and answers[0][1]["counts"]["unsupported"] == 1
        assert answers[1:] == [("HTTP/1.1 200 OK", {"status": "ok"})] * 2


def test_a_get_asking_for_h2c_is_served_as_http_1_1(port: int) -> None:
    assert (
        _exchange(port, _request(b"/healthz", H2C), _request(b"/healthz", H2C))
        == [("HTTP/1.1 200 OK", {"status": "ok"})] * 2
    )


def test_requests_pipelined_after_an_h2c_upgrade_are_all_answered(port: int) -> None:
    # What was read at once with the head asking for h2c (its body, the requests after
    # it) went with the parser's upgrade: dropped, or read as a request of its own.
    requests = [
        _request(b"/check", H2C, CHECK),
        _request(b"/healthz", H2C),
        _chunked(b"/check", H2C, CHECK),
        _request(b"/no-such-route"),
    ]
    answers = _exchange(port, *requests, at_once=True)
    assert [status for status, _ in answers] == [
        "HTTP/1.1 200 OK",
        "HTTP/1.1 200 OK",
        "HTTP/1.1 200 OK",
        "HTTP/1.1 404 Not Found",
    ]
    assert answers[0] == answers[2] and answers[1][1] == {"status": "ok"}


def test_the_head_after_an_h2c_request_is_counted_as_any(port: int) -> None:
    big = _request(b"/healthz", b"X-Big: " + b"y" * (MAX_HEAD_BYTES + 1024) + b"\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(_request(b"/check", H2C, CHECK))
        assert _read_one(s, bytearray())[0] == "HTTP/1.1 200 OK"
        s.sendall(big)
        status, _, _ = read_answer(s)
    assert status.startswith("HTTP/1.1 431"), status


def test_an_h2c_upgrade_is_no_warning_and_a_websocket_upgrade_is_as_before(port: int) -> None:
    # A WebSocket handshake still goes to uvicorn's WebSocket protocol (no route takes
    # it: 403, where the same request over HTTP is a 404); an upgrade ignored is logged
    # by neither protocol (uvicorn warned "Unsupported upgrade request." on each one).
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logger = logging.getLogger("uvicorn.error")
    logger.addHandler(handler)
    try:
        assert _exchange(port, _request(b"/healthz", H2C))[0][0] == "HTTP/1.1 200 OK"
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(WEBSOCKET)
            status, _, _ = read_answer(s)
    finally:
        logger.removeHandler(handler)
    assert status.startswith("HTTP/1.1 403"), status
    assert not [r for r in records if r.levelno >= logging.WARNING], records


HEAD = (
    b"POST /check HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
    b"UPGRADE: h2c\r\nX-Upgrade: kept\r\nUpgrade:h2c, websocket\r\nupgrade: websocket\r\n"
    b"Content-Length: 2\r\n\r\n"
)
WITHOUT = (
    b"POST /check HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
    b"X-Upgrade: kept\r\nupgrade: websocket\r\nContent-Length: 2\r\n\r\n"
)


def test_ignored_upgrade_leaves_out_each_upgrade_but_websocket_however_split() -> None:
    assert IgnoredUpgrade(b"websocket").feed(HEAD) == WITHOUT
    for cut in range(1, len(HEAD)):
        split = IgnoredUpgrade(b"websocket")
        assert split.feed(HEAD[:cut]) + split.feed(HEAD[cut:]) == WITHOUT, cut
    bytewise = IgnoredUpgrade(b"websocket")
    assert b"".join(bytewise.feed(HEAD[i : i + 1]) for i in range(len(HEAD))) == WITHOUT
    # With no WebSocket protocol (no library) uvicorn takes no upgrade: none is kept.
    assert IgnoredUpgrade(None).feed(HEAD) == WITHOUT.replace(b"upgrade: websocket\r\n", b"")


def test_ignored_upgrade_passes_on_what_the_parser_refuses_or_is_no_upgrade() -> None:
    # A line ended by a bare LF is the parser's to refuse (400), as it was; a line that
    # starts as an Upgrade header's and is another's ("Upgrade-Insecure-Requests") is
    # kept, however split; so is "Upgrade:" anywhere but a line's start.
    odd = b"GET / HTTP/1.1\r\nUpgrade: h2c\nUpgrade-Insecure-Requests: 1\r\nX: Upgrade: h2c\r\n\r\n"
    assert IgnoredUpgrade(b"websocket").feed(odd) == odd
    for cut in range(1, len(odd)):
        split = IgnoredUpgrade(b"websocket")
        assert split.feed(odd[:cut]) + split.feed(odd[cut:]) == odd, cut
