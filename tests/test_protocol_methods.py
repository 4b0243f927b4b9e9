"""A method the server does not know is 501 (RFC 9110 9.1, 15.6.2), one it knows but a
path does not take 405 with Allow (15.5.6), alike on both of uvicorn's HTTP parsers:
raw bytes to a real server on loopback. httptools' parser answered an unknown method
with a 400 of its own (or passed one it knows, PROPFIND, to the app: 405), h11 passed
any to the app (405, or 404 where no route is)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from uvicorn.protocols.http.h11_impl import H11Protocol

from service.api.app import create_app
from service.api.protocol import ProblemH11Protocol, ProblemHttpToolsProtocol
from tests.conftest import make_settings, read_answer, serve_on_loopback, statuses

PROTOCOLS = [ProblemHttpToolsProtocol, ProblemH11Protocol]
IDS = ["httptools", "h11"]
GET = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
CLOSE = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
NOT_IMPLEMENTED = b"HTTP/1.1 501 Not Implemented"


@pytest.fixture(params=PROTOCOLS, ids=IDS)
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}")
    yield from serve_on_loopback(create_app(settings, workers=0), request.param)


def exchange(port: int, *reads: bytes) -> tuple[str, dict[str, str], bytes]:
    """The answer to ``reads``, each sent on its own, read until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for data in reads:
            s.sendall(data)
        return read_answer(s)


def assert_not_implemented(
    answer: tuple[str, dict[str, str], bytes], method: str
) -> dict[str, object]:
    status, headers, body = answer
    assert status == NOT_IMPLEMENTED.decode(), (status, body)
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"].lower() == "close"
    problem = json.loads(body)  # (one answer: the request after it is not read)
    assert problem["type"] == "https://plainfeed.dev/problems/method-not-implemented"
    assert problem["status"] == 501
    assert f"the method {method} " in problem["detail"], problem
    return problem


@pytest.mark.parametrize(
    ("method", "path"),
    [
        (b"FOO", b"/items"),  # a route of GET: h11's 405, httptools' 400
        (b"FOO", b"/no-such-page"),  # no route: h11's 404
        (b"PROPFIND", b"/items"),  # a method the parser knows: 405 on both
        (b"QUERY", b"/feeds"),
        (b"get", b"/healthz"),  # methods are case-sensitive (RFC 9110 9.1)
        (b"PRI", b"*"),  # an HTTP/2 client's preface, to an HTTP/1.1 server
        (b"M-SEARCH", b"*"),
    ],
    ids=["unknown", "unknown-no-route", "webdav", "query", "lowercase", "h2-preface", "ssdp"],
)
def test_an_unknown_method_is_a_501_problem_and_the_connection_closes(
    port: int, method: bytes, path: bytes
) -> None:
    raw = method + b" " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    assert_not_implemented(exchange(port, raw + GET), method.decode())
    assert statuses(port, raw + GET) == [NOT_IMPLEMENTED]


def test_an_unknown_method_with_a_body_is_a_501(port: int) -> None:
    body = b'{"url": "https://example.com/feed.xml"}'
    raw = b"SUBSCRIBE /feeds HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    raw += b"Content-Length: %d\r\n\r\n%s" % (len(body), body)
    assert_not_implemented(exchange(port, raw + GET), "SUBSCRIBE")


@pytest.mark.parametrize(
    ("method", "path", "allow"),
    [
        (b"DELETE", b"/healthz", "GET, HEAD, OPTIONS"),
        (b"PUT", b"/items", "GET, HEAD, OPTIONS"),
        (b"PATCH", b"/feeds", "GET, HEAD, OPTIONS, POST"),
        (b"TRACE", b"/healthz", "GET, HEAD, OPTIONS"),
    ],
)
def test_a_known_method_a_route_does_not_take_stays_a_405_with_allow(
    port: int, method: bytes, path: bytes, allow: str
) -> None:
    raw = method + b" " + path + b" HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"
    status, headers, body = exchange(port, raw + CLOSE)
    assert status == "HTTP/1.1 405 Method Not Allowed"
    assert headers["allow"] == allow
    assert headers["content-type"] == "application/problem+json"
    # The connection is kept: the request after it is answered too.
    assert body.endswith(b'{"status":"ok"}'), body
    assert json.loads(body[: body.index(b"}") + 1])["type"].endswith("/method-not-allowed")


def test_an_unknown_method_sent_a_byte_at_a_time_is_a_501(port: int) -> None:
    # The parser saw the first byte alone and refused it, before the method was whole.
    raw = b"\r\nMKCALENDAR /items HTTP/1.1\r\nHost: x\r\n\r\n"
    reads = [raw[i : i + 1] for i in range(len(raw))]
    assert_not_implemented(exchange(port, *reads), "MKCALENDAR")


@pytest.mark.parametrize("cut", [1, 2, 3, 4])
def test_a_known_method_split_over_reads_is_served(port: int, cut: int) -> None:
    status, _, body = exchange(port, CLOSE[:cut], CLOSE[cut:])
    assert status == "HTTP/1.1 200 OK"
    assert json.loads(body) == {"status": "ok"}


def test_a_long_unknown_method_is_named_short(port: int) -> None:
    method = b"X" * 5000
    problem = assert_not_implemented(
        exchange(port, method + b" /items HTTP/1.1\r\nHost: x\r\n\r\n"), "X" * 40 + "..."
    )
    assert len(str(problem["detail"])) < 300


@pytest.mark.parametrize(
    "raw",
    [
        # The head is read whole before the method is refused: a head that does not
        # parse is the parser's 400, whatever its method.
        b"FOO /items HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n",
        b"FOO /items HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n",
        # A method is a token (RFC 9110 5.6.2).
        b"FO(O /items HTTP/1.1\r\nHost: x\r\n\r\n",
        b"FOO\t/items HTTP/1.1\r\nHost: x\r\n\r\n",
        b" /items HTTP/1.1\r\nHost: x\r\n\r\n",
    ],
    ids=["bad-header", "framed-twice", "not-a-token", "tab", "no-method"],
)
def test_a_head_that_does_not_parse_is_a_400_whatever_its_method(port: int, raw: bytes) -> None:
    status, headers, body = exchange(port, raw + GET)
    assert status == "HTTP/1.1 400 Bad Request", (status, body)
    assert headers["content-type"] == "application/problem+json"
    assert json.loads(body)["type"].endswith("/bad-http-request")


@pytest.mark.parametrize("cut", [1, 2, 3])
def test_a_head_with_no_method_token_split_over_reads_is_a_400(port: int, cut: int) -> None:
    # Under httptools the held start of the line was cleared before it was fed: the
    # parser saw nothing, no answer came, and the connection waited for its head's time.
    raw = b"GET@/items HTTP/1.1\r\nHost: x\r\n\r\n"
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.sendall(raw[:cut])
        time.sleep(0.3)  # (two reads of the server: sent at once, they were one)
        s.sendall(raw[cut:])
        status, headers, body = read_answer(s)
    assert status == "HTTP/1.1 400 Bad Request", (status, body)
    assert headers["content-type"] == "application/problem+json"


def test_an_unknown_method_of_a_transfer_coding_not_decoded_is_the_coding_s_501(
    port: int,
) -> None:
    # h11 refuses the coding before it gives the head: the coding's 501 on both.
    raw = b"FOO /items HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
    status, _, body = exchange(port, raw + b"0\r\n\r\n" + GET)
    assert status == NOT_IMPLEMENTED.decode()
    assert json.loads(body)["type"].endswith("/transfer-coding-not-implemented")


def test_the_app_answers_an_unknown_method_501_under_another_server(tmp_path: Path) -> None:
    # uvicorn's own h11 protocol gives the app any method: the app answers it itself.
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}")
    for port in serve_on_loopback(create_app(settings, workers=0), H11Protocol):
        status, headers, body = exchange(
            port, b"FOO /items HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        assert status == NOT_IMPLEMENTED.decode()
        assert headers["content-type"] == "application/problem+json"
        assert json.loads(body)["type"].endswith("/method-not-implemented")
        status, headers, _ = exchange(
            port, b"DELETE /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        )
        assert status == "HTTP/1.1 405 Method Not Allowed"
        assert headers["allow"] == "GET, HEAD, OPTIONS"
