"""Request targets other than a path (service.api.targets) and blank lines between
requests, answered alike by both of uvicorn's HTTP parsers: raw bytes to a real server
on loopback."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.api.app import create_app
from service.api.protocol import ProblemH11Protocol, ProblemHttpToolsProtocol
from tests.conftest import exchange, make_settings, read_answer, serve_on_loopback, statuses

PROTOCOLS = [ProblemHttpToolsProtocol, ProblemH11Protocol]
IDS = ["httptools", "h11"]
CLOSING = (b"connection", b"close")
CLOSE = b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"


@pytest.fixture(params=PROTOCOLS, ids=IDS)
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}")
    yield from serve_on_loopback(create_app(settings, workers=0), request.param)


async def _echo(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An application that answers what the protocol made of the request."""
    if scope["type"] != "http":
        return
    headers = dict(scope["headers"])
    seen = {
        "method": scope["method"],
        "path": scope["path"],
        "raw_path": scope["raw_path"].decode("latin-1"),
        "query": scope["query_string"].decode("latin-1"),
        "host": headers.get(b"host", b"").decode("latin-1"),
    }
    body = json.dumps(seen).encode()
    length = (b"content-length", str(len(body)).encode())
    # (A 2xx to CONNECT opens a tunnel, which has no answer's body.)
    status = 405 if scope["method"] == "CONNECT" else 200
    await send({"type": "http.response.start", "status": status, "headers": [length, CLOSING]})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(params=PROTOCOLS, ids=IDS)
def echo_port(request: pytest.FixtureRequest) -> Iterator[int]:
    yield from serve_on_loopback(_echo, request.param)


def test_connect_is_a_405_problem_and_the_connection_closes(port: int) -> None:
    # httptools refused it (400, the parser's "Invalid HTTP request received."), h11
    # routed "example.com:443" (404) and kept the connection for a tunnel's bytes.
    raw = b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"
    status, headers, body = exchange(port, raw + b"\x16\x03\x01 a TLS hello" + CLOSE)
    assert status == "HTTP/1.1 405 Method Not Allowed"
    assert headers["content-type"] == "application/problem+json"
    assert headers["allow"] == ""  # no method is taken for a tunnel
    assert headers["connection"].lower() == "close"
    problem = json.loads(body)  # (one answer: nothing after the CONNECT is read)
    assert problem["type"].endswith("/method-not-allowed")
    assert problem["status"] == 405
    assert "no proxy" in problem["detail"]


def test_connect_reaches_the_app_with_its_authority(echo_port: int) -> None:
    raw = b"CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"
    status, _, body = exchange(echo_port, raw)
    assert status.startswith("HTTP/1.1 405"), status
    seen = json.loads(body)
    assert (seen["method"], seen["path"]) == ("CONNECT", "example.com:443")


def test_options_asterisk_names_the_server_s_methods(port: int) -> None:
    status, headers, body = exchange(port, b"OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n" + CLOSE)
    assert status == "HTTP/1.1 200 OK"  # (was a 404 of "/*")
    assert body.endswith(b'{"status":"ok"}')  # the connection was kept: CLOSE answered
    allowed = set(headers["allow"].split(", "))
    assert {"GET", "HEAD", "POST", "DELETE", "OPTIONS"} <= allowed
    assert headers["content-length"] == "0"


def test_asterisk_of_another_method_is_a_400_problem(port: int) -> None:
    status, headers, body = exchange(port, b"GET * HTTP/1.1\r\nHost: x\r\n\r\n" + CLOSE)
    assert status == "HTTP/1.1 400 Bad Request"
    assert headers["content-type"] == "application/problem+json"
    assert json.loads(body.partition(b"}")[0] + b"}")["type"].endswith("/bad-http-request")


@pytest.mark.parametrize(
    ("target", "path", "query"),
    [
        (b"http://real.example/items/1?limit=2", "/items/1", "limit=2"),
        (b"HTTP://real.example", "/", ""),  # no path: httptools' URL had none (400)
        (b"https://real.example?a=1", "/", "a=1"),
        (b"http://real.example/a%20b", "/a b", ""),
    ],
    ids=["path-and-query", "no-path", "query-no-path", "escaped"],
)
def test_an_absolute_form_target_is_its_path_on_its_host(
    echo_port: int, target: bytes, path: str, query: str
) -> None:
    # h11 gave the app the whole URL as the path ("/http://..." was a 404). RFC 9112
    # 3.2.2: the Host sent with it is ignored for the target's.
    raw = b"GET " + target + b" HTTP/1.1\r\nHost: other.example\r\nConnection: close\r\n\r\n"
    status, _, body = exchange(echo_port, raw)
    assert status.startswith("HTTP/1.1 200"), status
    seen = json.loads(body)
    assert (seen["path"], seen["query"], seen["host"]) == (path, query, "real.example")
    assert seen["raw_path"] == path.replace(" ", "%20")


@pytest.mark.parametrize(
    ("target", "fault"),
    [
        (b"http:///healthz", "no host"),
        (b"http://:80/healthz", "no host"),
        (b"http://?a=1", "no host"),
        (b"http://u@x/healthz", "user info"),
        (b"https://u:secret@x/healthz", "user info"),
        (b"http://@/healthz", "user info"),
    ],
)
def test_an_absolute_form_target_of_no_host_or_with_user_info_is_a_400_problem(
    port: int, target: bytes, fault: str
) -> None:
    # RFC 9110 4.2.1: a recipient must reject an http URI of an empty host; 4.2.4: user
    # info should be an error (it hides the host from a reader; a password in a request
    # line is written to every log). Both parsers served them as their path's own (200).
    raw = b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n" + GET
    status, headers, body = exchange(port, raw)
    assert status == "HTTP/1.1 400 Bad Request"
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    problem = json.loads(body)
    assert problem["type"].endswith("/bad-http-request") and fault in problem["detail"]
    assert b"secret" not in body


@pytest.mark.parametrize(
    "target",
    [b"http://[::1]:8080/healthz", b"http://x:80/healthz", b"http://[fe80::1%25eth0]:8080/healthz"],
)
def test_an_absolute_form_target_of_a_bracketed_host_or_a_port_is_routed(
    port: int, target: bytes
) -> None:
    raw = b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    assert exchange(port, raw)[0] == "HTTP/1.1 200 OK"


def test_an_absolute_form_target_is_routed(port: int) -> None:
    raw = b"GET http://x/healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    status, _, body = exchange(port, raw)
    assert status == "HTTP/1.1 200 OK"
    assert json.loads(body) == {"status": "ok"}


GET = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
CHECK = json.dumps({"markdown": "It is 1.5x faster.", "explainer": "It is 1.5x faster."})
POST = (
    b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    b"Content-Length: %d\r\n\r\n%s" % (len(CHECK), CHECK.encode())
)


@pytest.mark.parametrize(
    "raw",
    [
        GET + b"\r\n" + CLOSE,
        GET + b"\r\n\r\n\n" + GET + b"\r\n" + CLOSE,
        POST + b"\r\n" + CLOSE,  # an old client's CRLF after a POST's body (RFC 9112 2.2)
    ],
    ids=["one-crlf", "blank-lines-twice", "after-a-body"],
)
def test_blank_lines_between_pipelined_requests_are_skipped(port: int, raw: bytes) -> None:
    # h11 answered the CRLF with a 400 (RFC 9112 2.2: a server should ignore at least
    # one empty line before a request line); httptools skipped it.
    assert statuses(port, raw) == [b"HTTP/1.1 200 OK"] * (raw.count(b"HTTP/1.1\r\n"))


def test_blank_lines_in_reads_of_their_own_are_skipped(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(b"\r\n")  # before the first request, then between two
        s.sendall(GET)
        assert s.recv(65536).startswith(b"HTTP/1.1 200")
        s.sendall(b"\r")
        s.sendall(b"\n\r\n")
        s.sendall(CLOSE)
        status, _, _ = read_answer(s)
    assert status == "HTTP/1.1 200 OK"


@pytest.mark.parametrize(
    ("coding", "status"),
    [
        (b"gzip, chunked", b"HTTP/1.1 501 Not Implemented"),
        (b"GZIP ,chunked", b"HTTP/1.1 501 Not Implemented"),
        (b"gzip\r\nTransfer-Encoding: chunked", b"HTTP/1.1 501 Not Implemented"),
        (b"deflate, br, chunked", b"HTTP/1.1 501 Not Implemented"),
        # Chunked not last: the body's length cannot be told, a 400 (RFC 9112 6.3).
        (b"gzip", b"HTTP/1.1 400 Bad Request"),
        (b"chunked, gzip", b"HTTP/1.1 400 Bad Request"),
    ],
    ids=["gzip-chunked", "case-and-space", "two-fields", "three", "gzip-alone", "gzip-last"],
)
def test_a_transfer_coding_not_decoded_is_a_501_problem_and_the_connection_closes(
    port: int, coding: bytes, status: bytes
) -> None:
    # RFC 9112 6.1: a server SHOULD answer 501 to a transfer coding it does not know.
    # httptools undid the chunked coding and gave the app the body still gzipped (422),
    # h11 answered 400; the request after it on the connection is not served.
    chunk = CHECK.encode()
    raw = (
        b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: " + coding + b"\r\n\r\n"
        b"%x\r\n%s\r\n0\r\n\r\n" % (len(chunk), chunk) + GET
    )
    assert statuses(port, raw) == [status]
    if status.endswith(b"501 Not Implemented"):
        _, headers, body = exchange(port, raw)
        assert headers["content-type"] == "application/problem+json"
        problem = json.loads(body)
        assert problem["type"].endswith("/transfer-coding-not-implemented")
        first = coding.split(b",")[0].split(b"\r")[0].strip().lower().decode()
        assert problem["status"] == 501 and first in problem["detail"], problem


def test_a_body_framed_two_ways_is_a_400_and_the_connection_closes(port: int) -> None:
    # h11 read it by its Transfer-Encoding (422 of an empty body) and served the request
    # after it on the same connection: RFC 9112 6.1 has the connection closed.
    raw = (
        b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + GET
    )
    assert statuses(port, raw) == [b"HTTP/1.1 400 Bad Request"]


@pytest.mark.parametrize(
    ("refused", "status"),
    [
        (b"FOO /items HTTP/1.1\r\nHost: x\r\n\r\n", b"HTTP/1.1 501 Not Implemented"),
        (
            b"POST /check HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            b"HTTP/1.1 501 Not Implemented",
        ),
        (b"GET http://u@x/healthz HTTP/1.1\r\nHost: x\r\n\r\n", b"HTTP/1.1 400 Bad Request"),
        (b"GET /healthz HTTP/1.1\r\nHost: x\r\nNo colon\r\n\r\n", b"HTTP/1.1 400 Bad Request"),
    ],
    ids=["unknown-method", "transfer-coding", "user-info", "bad-header"],
)
def test_a_head_refused_after_pipelined_requests_is_answered_after_them(
    port: int, refused: bytes, status: bytes
) -> None:
    # httptools wrote the refusal as soon as it read the head, before the answers of the
    # requests before it, and closed the connection: the first request's answer was the
    # refusal, the others lost. (h11 holds a request until the one before is answered.)
    raw = GET + POST + refused + GET
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(raw)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    found = re.findall(rb"HTTP/1\.1 [1-5]\d\d [A-Za-z ]*", data)
    assert found == [b"HTTP/1.1 200 OK", b"HTTP/1.1 200 OK", status]
    _, _, rest = data.partition(b"\r\n\r\n")
    assert rest.startswith(b'{"status":"ok"}HTTP/1.1 200 OK')
    assert data.rpartition(b"\r\n\r\n")[2].startswith(b'{"type": "https://plainfeed.dev/')


@pytest.mark.parametrize(
    ("head", "fault"),
    [
        (b"GET /healthz HTTP/1.1\r\n", "needs a Host"),
        (b"GET http://x/healthz HTTP/1.1\r\n", "needs a Host"),  # (absolute form too)
        (b"GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n", "more than one Host"),
        (b"GET /healthz HTTP/1.1\r\nHost: a b/c\r\n", "no host[:port]"),
        (b"GET /healthz HTTP/1.1\r\nHost: user@x\r\n", "no host[:port]"),
        (b"GET /healthz HTTP/1.1\r\nHost: x/healthz\r\n", "no host[:port]"),
        (b"GET /healthz HTTP/1.1\r\nHost: x:80:80\r\n", "no host[:port]"),
        (b"GET /healthz HTTP/1.1\r\nHost: x\xff\r\n", "no host[:port]"),
        (b"GET /healthz HTTP/1.0\r\nHost: a\r\nHost: b\r\n", "more than one Host"),
        # An IPv6 zone ID is written after "%25", of one or more characters (RFC 6874).
        (b"GET /healthz HTTP/1.1\r\nHost: [fe80::1%25]:8080\r\n", "no host[:port]"),
        (b"GET /healthz HTTP/1.1\r\nHost: [fe80::1%eth0]:8080\r\n", "no host[:port]"),
        # The Host comes before the coding (h11 refuses it first).
        (
            b"POST /check HTTP/1.1\r\nHost: a b\r\nTransfer-Encoding: gzip, chunked\r\n",
            "no host[:port]",
        ),
    ],
    ids=[
        "none",
        "none-absolute",
        "two",
        "space",
        "user",
        "path",
        "ports",
        "byte",
        "two-1.0",
        "empty-zone",
        "zone-unescaped",
        "coding",
    ],
)
def test_a_missing_repeated_or_malformed_host_is_a_400_problem(
    port: int, head: bytes, fault: str
) -> None:
    # RFC 9112 3.2: a server MUST answer 400 to an HTTP/1.1 request with no Host, and to
    # any with more than one or one of an invalid value. httptools served all of them,
    # h11 the malformed ones (200).
    raw = head + b"\r\n" + GET
    status, headers, body = exchange(port, raw)
    assert status == "HTTP/1.1 400 Bad Request", (status, body)
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    problem = json.loads(body)  # (one answer: the request after it is not read)
    assert problem["type"].endswith("/bad-http-request") and fault in problem["detail"], problem


@pytest.mark.parametrize(
    "head",
    [
        b"GET /healthz HTTP/1.0\r\n",  # HTTP/1.0 needs none
        b"GET /healthz HTTP/1.1\r\nHost:\r\n",  # a target of no authority (RFC 9112 3.2)
        b"GET /healthz HTTP/1.1\r\nHost: [::1]:8000\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: [fe80::1%25eth0]:8080\r\n",  # a zone ID (RFC 6874)
        b"GET /healthz HTTP/1.1\r\nHost: [fe80::1%25en%2F0]\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:8000 \r\n",
        b"GET /healthz HTTP/1.1\r\nHost: xn--bcher-kva.example\r\n",
        b"GET /healthz HTTP/1.1\r\nHost: my_host.local:\r\n",
    ],
    ids=[
        "1.0",
        "empty",
        "ipv6",
        "ipv6-zone",
        "ipv6-zone-escaped",
        "ipv4-port",
        "idna",
        "underscore-empty-port",
    ],
)
def test_a_host_of_a_host_and_port_is_served(port: int, head: bytes) -> None:
    status, _, body = exchange(port, head + b"Connection: close\r\n\r\n")
    assert status == "HTTP/1.1 200 OK", (status, body)
    assert json.loads(body) == {"status": "ok"}
