"""A request the HTTP parser refuses gets a problem details body, like every other error:
raw bytes to a real server on loopback, through each of uvicorn's HTTP protocols."""

from __future__ import annotations

import asyncio
import email.utils
import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

from service.api.app import create_app
from service.api.protocol import (
    MAX_HEAD_BYTES,
    ProblemH11Protocol,
    ProblemHttpToolsProtocol,
    http_protocol,
)
from service.config import Settings
from tests.conftest import exchange, read_answer, serve_on_loopback


@pytest.fixture(params=[ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"])
def port(request: pytest.FixtureRequest, settings: Settings) -> Iterator[int]:
    yield from serve_on_loopback(create_app(settings, workers=0), request.param)


@pytest.mark.parametrize(
    "raw",
    [
        b"NOT HTTP AT ALL\r\n\r\n",
        b"GET / HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n",
        b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n",
    ],
    ids=["garbage", "header-without-colon", "nul-in-target"],
)
def test_a_request_that_does_not_parse_gets_a_problem_body(port: int, raw: bytes) -> None:
    status, headers, body = exchange(port, raw)
    assert status.startswith("HTTP/1.1 400")
    assert headers["content-type"] == "application/problem+json"
    assert int(headers["content-length"]) == len(body)
    problem = json.loads(body)
    assert problem["status"] == 400
    assert problem["type"].endswith("/bad-http-request")
    assert problem["title"] == "Malformed HTTP request"
    assert problem["detail"]


def test_a_request_that_parses_is_served_as_before(port: int) -> None:
    status, headers, body = exchange(
        port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    assert status.startswith("HTTP/1.1 200")
    assert headers["content-type"] == "application/json"
    assert json.loads(body)


def _big_head(size: int, end: bytes = b"\r\n\r\n") -> bytes:
    return b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"y" * size + end


def test_a_request_head_over_the_cap_is_a_431_problem(port: int) -> None:
    # httptools read a header of any size into memory (64 MiB was served), and h11 one
    # that came whole (its 16 KiB bound is of a head still incomplete).
    status, headers, body = exchange(port, _big_head(MAX_HEAD_BYTES + 4096))
    assert status.startswith("HTTP/1.1 431"), status
    assert headers["content-type"] == "application/problem+json"
    assert json.loads(body)["type"].endswith("/headers-too-large")


def test_heads_are_counted_one_request_at_a_time_and_bodies_not(port: int) -> None:
    # A head within the cap, its blank line split across reads, is served; the next
    # request's head is counted from its own start, and over the cap it is refused.
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(_big_head(MAX_HEAD_BYTES - 1024, b"\r\n\r"))
        s.sendall(b"\n")
        s.recv(65536)
        s.sendall(_big_head(MAX_HEAD_BYTES - 1024))
        s.recv(65536)
        s.sendall(_big_head(MAX_HEAD_BYTES + 1024))
        status, _, _ = read_answer(s)
    assert status.startswith("HTTP/1.1 431"), status
    # A body sent with its head in one write is no part of the head.
    body = json.dumps({"markdown": "It is 1.5x faster. " * 10_000, "explainer": "1.5x"})
    raw = (
        b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Connection: close\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body.encode())
    )
    status, _, answer = exchange(port, raw)
    assert status.startswith("HTTP/1.1 200"), (status, answer[:300])


@pytest.fixture(params=[ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"])
def quick_port(request: pytest.FixtureRequest, settings: Settings) -> Iterator[int]:
    """A server whose request heads have half a second to arrive."""
    quick = type("Quick", (request.param,), {"head_seconds": 0.5})
    yield from serve_on_loopback(create_app(settings, workers=0), quick)


@pytest.mark.parametrize(
    "sent", [b"", b"GET /healthz HTTP/1.1\r\nHost: x\r\n"], ids=["nothing", "half a head"]
)
def test_a_head_not_whole_in_time_is_a_408_problem(quick_port: int, sent: bytes) -> None:
    # A head sent a header every few seconds held its connection for good (uvicorn
    # bounds only the wait between requests), as did a connection that sent nothing.
    with socket.create_connection(("127.0.0.1", quick_port), timeout=10) as s:
        s.sendall(sent)
        time.sleep(0.3)
        s.sendall(b"X-A: b\r\n" if sent else b"")
        status, headers, body = read_answer(s)
    assert status.startswith("HTTP/1.1 408"), status
    assert headers["content-type"] == "application/problem+json"
    problem = json.loads(body)
    assert problem["type"].endswith("/request-timeout")
    assert problem["title"] == "Request head timeout"  # not "Request body timeout"
    assert problem["status"] == 408


def test_the_head_clock_stops_at_the_head_s_end(quick_port: int) -> None:
    # A body slower than the head's time (it has PLAINFEED_BODY_TIMEOUT), and a second
    # request on the connection after a pause, are served.
    body = json.dumps({"markdown": "It is 1.5x faster.", "explainer": "1.5x"}).encode()
    head = (
        b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n" % len(body)
    )
    with socket.create_connection(("127.0.0.1", quick_port), timeout=10) as s:
        s.sendall(head + body[:5])
        time.sleep(1.0)
        s.sendall(body[5:])
        first = s.recv(65536)
        time.sleep(1.0)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, _, _ = read_answer(s)
    assert first.startswith(b"HTTP/1.1 200"), first[:200]
    assert status.startswith("HTTP/1.1 200"), status


def test_serve_uses_the_protocol_uvicorn_would_pick() -> None:
    # uvicorn's "auto" prefers httptools, which uvicorn[standard] installs.
    assert http_protocol() is ProblemHttpToolsProtocol


@pytest.fixture
def quick_h11_port(settings: Settings) -> Iterator[int]:
    quick = type("Quick", (ProblemH11Protocol,), {"head_seconds": 0.5})
    yield from serve_on_loopback(create_app(settings, workers=0), quick)


def test_a_head_of_bare_line_feeds_ends_at_its_blank_line(quick_h11_port: int) -> None:
    # h11 takes lines ended by LF alone: such a head was counted (and timed) through its
    # body and the idle time after its answer, a 431 or a 408 on a request it served.
    body = json.dumps({"markdown": "It is 1.5x faster. " * 5_000, "explainer": "1.5x"})
    with socket.create_connection(("127.0.0.1", quick_h11_port), timeout=10) as s:
        s.sendall(
            b"POST /check HTTP/1.1\nHost: x\nContent-Type: application/json\n"
            b"Content-Length: %d\n\n%s" % (len(body), body.encode())
        )
        first = s.recv(65536)
        time.sleep(1.0)
        s.sendall(b"GET /healthz HTTP/1.1\nHost: x\nConnection: close\n\n")
        status, _, _ = read_answer(s)
    assert first.startswith(b"HTTP/1.1 200"), first[:200]
    assert status.startswith("HTTP/1.1 200"), status


async def _slow_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An application that answers each request after a second: longer than the quick
    servers' head time (the protocol is what is tested, not the service's routes)."""
    if scope["type"] != "http":
        return
    await asyncio.sleep(1.0)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"served"})


@pytest.mark.parametrize("protocol", [ProblemHttpToolsProtocol, ProblemH11Protocol])
def test_a_head_pipelined_during_an_answer_does_not_cut_it_off(protocol: type[Any]) -> None:
    # The head after a request being served, begun and not ended: its clock ran out while
    # the request was served, and its 408 was written as that request's answer.
    quick = type("Quick", (protocol,), {"head_seconds": 0.5})
    for port in serve_on_loopback(_slow_app, quick):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            time.sleep(0.1)
            s.sendall(b"GET /b HTTP/1.1\r\nHo")
            data = b""
            while not data.endswith(b"0\r\n\r\n") and (chunk := s.recv(65536)):
                data += chunk
        assert data.startswith(b"HTTP/1.1 200"), data[:200]
        assert b"served" in data


@pytest.mark.parametrize("protocol", [ProblemHttpToolsProtocol, ProblemH11Protocol])
def test_a_head_over_the_cap_pipelined_during_an_answer_is_refused_after_it(
    protocol: type[Any],
) -> None:
    # Its 431 was written at once, read as the answer of the request being served.
    for port in serve_on_loopback(_slow_app, protocol):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            time.sleep(0.1)
            s.sendall(_big_head(MAX_HEAD_BYTES + 1024, b""))
            data = b""
            while chunk := s.recv(65536):
                data += chunk
        first, _, rest = data.partition(b"0\r\n\r\n")
        assert first.startswith(b"HTTP/1.1 200") and b"served" in first, data[:200]
        if protocol is ProblemHttpToolsProtocol:  # (h11 bounds it itself, with a 400)
            assert rest.startswith(b"HTTP/1.1 431"), rest[:200]


@pytest.mark.parametrize(
    "base", [ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"]
)
@pytest.mark.parametrize(
    ("seconds", "head", "expected"),
    [
        (30.0, _big_head(MAX_HEAD_BYTES + 1024), "431"),
        (0.5, b"GET /healthz HTTP/1.1\r\nHost: x\r\n", "408"),
    ],
    ids=["too-large", "too-slow"],
)
def test_blank_lines_before_a_head_do_not_end_it(
    settings: Settings, base: Any, seconds: float, head: bytes, expected: str
) -> None:
    # Both protocols skip empty lines before a request line (RFC 9112 2.2); the head
    # count took "\r\n\r\n" for a head's end, and the head after it was read unbounded
    # in size and time.
    quick = type("Quick", (base,), {"head_seconds": seconds})
    for port in serve_on_loopback(create_app(settings, workers=0), quick):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"\r\n\r\n")
            time.sleep(0.1)
            s.sendall(head)
            try:
                for _ in range(5):  # headers trickled: past the head's time in all
                    time.sleep(0.3)
                    s.sendall(b"X-A: b\r\n")
                s.sendall(b"Connection: close\r\n\r\n")
            except OSError:
                pass  # refused and closed meanwhile
            status, _, _ = read_answer(s)
        assert status.startswith("HTTP/1.1 " + expected), status


@pytest.mark.parametrize(
    "raw",
    [
        b"NOT HTTP AT ALL\r\n\r\n",  # (the parser's 400)
        b"GET /healthz HTTP/1.1\r\n\r\n",  # no Host: 400
        b"GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n",  # 505
        b"BREW /healthz HTTP/1.1\r\nHost: x\r\n\r\n",  # 501
        b"POST /check HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",  # 501
        b"GET http:///items HTTP/1.1\r\nHost: x\r\n\r\n",  # the target's 400
    ],
    ids=["garbage", "no-host", "http2", "unknown-method", "gzip-coding", "no-authority"],
)
def test_a_refused_head_carries_date_and_server_as_the_app_s_answers(port: int, raw: bytes) -> None:
    # RFC 9110 6.6.1: an origin server with a clock sends Date on a 4xx (and may on a
    # 5xx). uvicorn's h11 protocol wrote its own 400 with neither Date nor Server.
    _, served, _ = exchange(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    status, headers, body = exchange(port, raw)
    assert status[9] in "45", status
    assert headers["content-type"] == "application/problem+json", body
    assert headers["server"] == served["server"]
    sent = email.utils.parsedate_to_datetime(headers["date"])
    assert abs(sent.timestamp() - time.time()) < 60
    assert headers["date"].endswith(" GMT")  # (IMF-fixdate, RFC 9110 5.6.7)
