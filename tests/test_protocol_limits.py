"""The request head's limits as settings (PLAINFEED_MAX_HEAD_BYTES, PLAINFEED_HEAD_TIMEOUT),
blank lines between requests, and heads read at once with the body before them: raw
bytes to a real server on loopback (and `plainfeed serve` as a process)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.api.app import create_app
from service.api.heads import BodyEnd, HeadCount
from service.api.protocol import (
    MAX_HEAD_BYTES,
    ProblemH11Protocol,
    ProblemHttpToolsProtocol,
    bounded,
    http_protocol,
)
from service.config import Settings
from tests.conftest import exchange, make_settings, read_statuses, serve_on_loopback, statuses
from tests.procs import READY, on_a_free_port, plainfeed, plainfeed_env, wait_ready

SMALL = 8 * 1024  # a cap under the default's 64 KiB


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """One database: what is tested is the HTTP protocol, not the store."""
    return make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}")


def _head(size: int, end: bytes = b"\r\n\r\n", path: bytes = b"/healthz") -> bytes:
    return b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nX-Big: " + b"y" * size + end


@pytest.fixture(params=["httptools", "h11"])
def small_port(request: pytest.FixtureRequest, settings: Settings) -> Iterator[int]:
    """A server given PLAINFEED_MAX_HEAD_BYTES 8 KiB and PLAINFEED_HEAD_TIMEOUT 0.5 s."""
    limited = settings.model_copy(update={"max_head_bytes": SMALL, "head_timeout": 0.5})
    protocol = http_protocol(limited)
    if request.param == "h11":
        protocol = bounded(ProblemH11Protocol, SMALL, 0.5)
    yield from serve_on_loopback(create_app(limited, workers=0), protocol)


def test_the_settings_bound_the_head_in_size_and_time(small_port: int) -> None:
    served = exchange(small_port, _head(SMALL - 1024, b"\r\nConnection: close\r\n\r\n"))
    assert served[0].startswith("HTTP/1.1 200")  # under the cap: served
    status, _, body = exchange(small_port, _head(SMALL + 1024))  # over this cap, not the default
    assert status.startswith("HTTP/1.1 431") or status.startswith("HTTP/1.1 400"), status
    if status.startswith("HTTP/1.1 431"):  # (h11 refuses a head that came in pieces, 400)
        assert f"over {SMALL} bytes (PLAINFEED_MAX_HEAD_BYTES)" in json.loads(body)["detail"]
    # A head begun and nothing more: the clock runs out.
    status, _, body = exchange(small_port, b"GET /healthz HTTP/1.1\r\n")
    assert status.startswith("HTTP/1.1 408"), status
    assert "within 0.5 seconds (PLAINFEED_HEAD_TIMEOUT)" in json.loads(body)["detail"]


def test_without_settings_the_protocol_keeps_the_defaults() -> None:
    assert http_protocol() is ProblemHttpToolsProtocol
    assert (ProblemHttpToolsProtocol.max_head_bytes, ProblemHttpToolsProtocol.head_seconds) == (
        MAX_HEAD_BYTES,
        30.0,
    )


@pytest.mark.slow
def test_plainfeed_serve_takes_the_head_cap_from_its_setting(tmp_path: Path) -> None:
    env = plainfeed_env(f"sqlite:///{tmp_path / 'plainfeed.db'}", max_head_bytes=SMALL)

    def serve_on(port: int) -> Any:
        return plainfeed("serve", tmp_path, env, "--port", str(port), "--workers", "0")

    with on_a_free_port(serve_on, READY) as (server, port):
        wait_ready(server, f"http://127.0.0.1:{port}")
        status, _, _ = exchange(port, _head(SMALL + 1024), timeout=30)
    assert status.startswith("HTTP/1.1 431"), status


@pytest.mark.parametrize(
    "base", [ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"]
)
def test_a_stray_crlf_after_an_answer_leaves_the_keep_alive_close(
    settings: Settings, base: Any
) -> None:
    # The CRLF started the head's clock (here 3 s, 30 by default) and stopped uvicorn's
    # keep-alive close (here 0.3 s, 5 by default): the connection ended in a 408 answer
    # to no request; it is closed as an idle one is, saying nothing. (h11 answered it
    # with a 400.)
    protocol = bounded(base, MAX_HEAD_BYTES, 3.0)
    for port in serve_on_loopback(
        create_app(settings, workers=0), protocol, timeout_keep_alive=0.3
    ):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(65536).startswith(b"HTTP/1.1 200")
            s.sendall(b"\r\n")
            assert read_statuses(s) == []  # closed, no 408
        # A request after the blank line is served as before (the parser skips it).
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            assert s.recv(65536).startswith(b"HTTP/1.1 200")
            s.sendall(b"\r\n")
            s.sendall(b"\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert read_statuses(s) == [b"HTTP/1.1 200 OK"]


@pytest.mark.parametrize(
    "base", [ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"]
)
def test_blank_lines_first_on_a_connection_do_not_stop_its_clock(
    settings: Settings, base: Any
) -> None:
    # The clock runs from the connection's start (there is no keep-alive close yet):
    # blank lines sent every so often must not stop it, or they held it for good.
    protocol = bounded(base, MAX_HEAD_BYTES, 0.5)
    for port in serve_on_loopback(create_app(settings, workers=0), protocol):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            try:
                for _ in range(6):  # past the head's time in all
                    s.sendall(b"\r\n")
                    time.sleep(0.2)
            except OSError:
                pass  # answered and closed meanwhile
            assert read_statuses(s) == [b"HTTP/1.1 408 Request Timeout"]


def _post(body: bytes, *, chunked: bool = False) -> bytes:
    head = b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    if chunked:
        chunks = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in (body[:7], body[7:]) if c)
        return head + b"Transfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n"
    return head + b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


CHECK = json.dumps({"markdown": "It is 1.5x faster.", "explainer": "It is 1.5x faster."}).encode()
BEFORE = {
    "get": b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
    "content-length": _post(CHECK),
    "chunked": _post(CHECK, chunked=True),
}


@pytest.mark.parametrize("before", BEFORE.values(), ids=BEFORE.keys())
def test_a_head_read_with_the_request_before_it_is_counted(
    settings: Settings, before: bytes
) -> None:
    # A head over the cap that came in the same read as the end of the request before
    # it went uncounted (the parser said where that request ended only in its midst),
    # and was served.
    protocol = bounded(ProblemHttpToolsProtocol, SMALL, 30.0)
    for port in serve_on_loopback(create_app(settings, workers=0), protocol):
        answers = statuses(port, before + _head(SMALL + 1024))
        assert answers == [b"HTTP/1.1 200 OK", b"HTTP/1.1 431 Request Header Fields Too Large"]


def test_requests_read_at_once_under_the_cap_are_all_served(settings: Settings) -> None:
    protocol = bounded(ProblemHttpToolsProtocol, SMALL, 30.0)
    close = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    for port in serve_on_loopback(create_app(settings, workers=0), protocol):
        raw = b"".join(BEFORE.values()) + _head(SMALL - 1024) + close
        assert statuses(port, raw) == [b"HTTP/1.1 200 OK"] * 5


def test_body_end_finds_the_end_of_a_body_however_it_is_split() -> None:
    chunked = BEFORE["chunked"].partition(b"\r\n\r\n")[2]
    headers = [(b"transfer-encoding", b"chunked")]
    for body, hdrs in ((chunked, headers), (CHECK, [(b"content-length", b"%d" % len(CHECK))])):
        whole = BodyEnd(hdrs)
        assert whole.take(body + b"GET / HTTP/1.1") == len(body)
        piecewise, taken = BodyEnd(hdrs), 0
        for i in range(len(body)):  # a byte a read
            taken += piecewise.take(body[i : i + 1])
        assert taken == len(body)
        assert piecewise.take(b"GET") == 0
    trailers = b"3;ext=1\r\nabc\r\n0\r\nX-Trailer: 1\r\n\r\n"
    assert BodyEnd(headers).take(trailers + b"GET") == len(trailers)


def test_head_count_reads_blank_lines_before_a_head_as_no_head() -> None:
    head = HeadCount(100)
    assert head.read(b"\r\n\r\n") == 4 and not head.begun and head.reading
    assert head.read(b"GET / HTTP/1.1\r\n\r\nbody") == len(b"GET / HTTP/1.1\r\n\r\n")
    assert head.begun and not head.reading and head.bytes == 18
    assert head.read(b"more") == 0
