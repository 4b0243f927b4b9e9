"""A request's HTTP version, answered alike by both of uvicorn's HTTP parsers: raw bytes
to a real server on loopback. 1.0 and 1.1 are served, a later 1.x as 1.1 (RFC 9110 2.5),
another major version is 505 (15.6.6) and a request line of no version (HTTP/0.9's)
400. httptools' parser refused 1.2 and 3.0 (400) and served 2.0 and a line of no version
as 1.1; h11 served 1.2, 2.0 and 3.7."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.api.app import create_app
from service.api.protocol import ProblemH11Protocol, ProblemHttpToolsProtocol
from tests.conftest import make_settings, serve_on_loopback
from tests.test_protocol_methods import exchange, statuses

GET = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.fixture(params=[ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"])
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}")
    yield from serve_on_loopback(create_app(settings, workers=0), request.param)


@pytest.mark.parametrize("version", [b"1.0", b"1.1", b"1.2", b"1.9"])
def test_a_version_1_is_served(port: int, version: bytes) -> None:
    raw = (
        b"GET /healthz HTTP/"
        + version
        + b"\r\nHost: x\r\n\r\n"
        + GET.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n")
    )
    # (Kept alive, as 1.1: the request after it is answered too.)
    expected = 1 if version == b"1.0" else 2
    assert statuses(port, raw) == [b"HTTP/1.1 200 OK"] * expected


@pytest.mark.parametrize("version", [b"2.0", b"3.0", b"3.7", b"0.9", b"9.9"])
def test_another_major_version_is_a_505_problem(port: int, version: bytes) -> None:
    raw = b"GET /healthz HTTP/" + version + b"\r\nHost: x\r\n\r\n"
    status, headers, body = exchange(port, raw + GET)
    assert status == "HTTP/1.1 505 HTTP Version Not Supported", (status, body)
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"].lower() == "close"
    problem = json.loads(body)  # (one answer: the request after it is not read)
    assert problem["type"] == "https://plainfeed.dev/problems/http-version-not-supported"
    assert problem["status"] == 505 and f"HTTP/{version.decode()}" in problem["detail"]


def test_a_version_sent_a_byte_at_a_time_is_read(port: int) -> None:
    raw = b"GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n"
    status, _, _ = exchange(port, *[raw[i : i + 1] for i in range(len(raw))])
    assert status == "HTTP/1.1 505 HTTP Version Not Supported"
    raw = b"GET /healthz HTTP/1.2\r\nHost: x\r\nConnection: close\r\n\r\n"
    status, _, body = exchange(port, *[raw[i : i + 1] for i in range(len(raw))])
    assert status == "HTTP/1.1 200 OK" and json.loads(body) == {"status": "ok"}


@pytest.mark.parametrize(
    "raw",
    [
        b"GET /healthz\r\n\r\n",  # HTTP/0.9's request line
        b"FOO /healthz\r\n\r\n",
        b"GET /healthz HTTP/1.2\r\n\r\n",  # a later 1.x is 1.1: it needs a Host
    ],
    ids=["no-version", "no-version-unknown-method", "1.2-no-host"],
)
def test_a_line_of_no_version_or_a_1_x_without_host_is_a_400(port: int, raw: bytes) -> None:
    status, headers, body = exchange(port, raw + GET)
    assert status == "HTTP/1.1 400 Bad Request", (status, body)
    assert headers["content-type"] == "application/problem+json"
    assert json.loads(body)["type"].endswith("/bad-http-request")


def test_a_target_naming_a_version_is_no_version(port: int) -> None:
    raw = b"GET /healthz?v=HTTP/2.0 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    status, _, body = exchange(port, raw)
    assert status == "HTTP/1.1 200 OK" and json.loads(body) == {"status": "ok"}
