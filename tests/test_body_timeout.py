"""A request body must arrive whole within PLAINFEED_BODY_TIMEOUT seconds: raw bytes to a
real server on loopback, through each of uvicorn's HTTP protocols. uvicorn has no timeout
of its own on a body: a client that declared one and sent nothing held a connection and a
server task for good."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from service.api.app import create_app
from service.api.limits import MAX_REQUEST_BODY, BodyTimeout
from service.api.protocol import ProblemH11Protocol, ProblemHttpToolsProtocol
from service.config import Settings
from tests.conftest import exchange, make_settings, read_answer, serve_on_loopback

TIMEOUT = 1.0


@pytest.fixture(params=[ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"])
def protocol(request: pytest.FixtureRequest) -> type[asyncio.Protocol]:
    return request.param  # type: ignore[no-any-return]


def serve(app: object, protocol: type[asyncio.Protocol]) -> Iterator[int]:
    return serve_on_loopback(app, protocol)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}", body_timeout=TIMEOUT)


@pytest.fixture
def port(settings: Settings, protocol: type[asyncio.Protocol]) -> Iterator[int]:
    yield from serve(create_app(settings, workers=0), protocol)


def stalled(port: int, head: bytes, part: bytes = b"") -> tuple[float, str, dict[str, str], bytes]:
    """Send a request head (and ``part`` of its body), then nothing: seconds until the
    answer is complete and the connection closed, and the answer."""
    start = time.monotonic()
    status, headers, body = exchange(port, head + part, timeout=TIMEOUT + 10)
    return time.monotonic() - start, status, headers, body


def assert_timeout_problem(status: str, headers: dict[str, str], body: bytes) -> None:
    assert status.startswith("HTTP/1.1 408"), status
    assert headers["content-type"] == "application/problem+json"
    assert headers["connection"] == "close"
    problem = json.loads(body)
    assert problem["status"] == 408
    assert problem["type"].endswith("/request-timeout")
    assert problem["title"] == "Request body timeout"
    assert "PLAINFEED_BODY_TIMEOUT" in problem["detail"]
    assert problem["instance"] == "/check"


@pytest.mark.parametrize("part", [b"", b'{"text": "It is'], ids=["nothing", "some"])
def test_a_declared_body_that_never_comes_is_408(port: int, part: bytes) -> None:
    head = (
        b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n"
    )
    took, status, headers, body = stalled(port, head, part)
    assert_timeout_problem(status, headers, body)
    assert TIMEOUT * 0.9 <= took < TIMEOUT + 5


def test_a_review_form_that_stalls_gets_an_html_page(port: int) -> None:
    """The item page's review form is a browser's post: its 408 was the API's problem
    JSON, shown to a person as raw JSON, where the form's other errors are pages."""
    head = (
        b"POST /ui/items/1/review HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/x-www-form-urlencoded\r\nAccept: text/html\r\n"
        b"Content-Length: 100\r\n\r\n"
    )
    took, status, headers, body = stalled(port, head, b"action=appr")
    assert status.startswith("HTTP/1.1 408"), status
    assert headers["content-type"].startswith("text/html"), headers
    assert headers["connection"] == "close"
    assert headers["content-security-policy"]  # a page, with the pages' headers
    page = body.decode()
    assert "<html" in page and "PLAINFEED_BODY_TIMEOUT" in page, page
    assert TIMEOUT * 0.9 <= took < TIMEOUT + 5


def test_a_review_form_refused_by_the_body_limits_gets_an_html_page(port: int) -> None:
    """The same for the body cap and a compressed body (service.api.limits.BodyLimit)."""
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    url = f"http://127.0.0.1:{port}/ui/items/1/review"
    big = {**form, "Content-Length": str(MAX_REQUEST_BODY + 1)}
    gz = {**form, "Content-Encoding": "gzip"}
    for headers, status in ((big, 413), (gz, 415)):
        head = "".join(f"{k}: {v}\r\n" for k, v in headers.items())
        length = "" if "Content-Length" in headers else "Content-Length: 3\r\n"
        got, answer, body = exchange(
            port,
            f"POST /ui/items/1/review HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
            f"{head}{length}\r\nabc".encode(),
        )
        assert got.startswith(f"HTTP/1.1 {status}"), (url, got, body)
        assert answer["content-type"].startswith("text/html"), (status, answer)
        assert b"<html" in body


def test_a_chunked_body_that_stops_is_408(port: int) -> None:
    head = (
        b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n"
    )
    took, status, headers, body = stalled(port, head, b'5\r\n{"tex\r\n')
    assert_timeout_problem(status, headers, body)
    assert took < TIMEOUT + 5


def test_a_slow_body_within_the_bound_is_served(
    settings: Settings, protocol: type[asyncio.Protocol]
) -> None:
    # A bound of 10 s for a body sent over some 1.5 s: with 1 s for 0.6 s, a busy machine
    # slept the sender past the bound, and the body was refused as too slow.
    bound = 10 * TIMEOUT
    settings = settings.model_copy(update={"body_timeout": bound})
    payload = json.dumps({"text": "It is 1.10x faster.", "explainer": "It is 1.10x faster."})
    raw = payload.encode()
    head = (
        b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Connection: close\r\nContent-Length: " + str(len(raw)).encode() + b"\r\n\r\n"
    )
    for port in serve(create_app(settings, workers=0), protocol):
        with socket.create_connection(("127.0.0.1", port), timeout=bound + 10) as s:
            s.sendall(head)
            for i in range(0, len(raw), len(raw) // 3 + 1):  # in 3 parts, 0.5 s apart
                time.sleep(TIMEOUT / 2)
                s.sendall(raw[i : i + len(raw) // 3 + 1])
            status, _, body = read_answer(s)
    assert status.startswith("HTTP/1.1 200"), body
    assert json.loads(body)["ok"] is True


def test_a_request_without_a_body_is_not_bounded(port: int) -> None:
    # A keep-alive connection that sends its next request later is not a stalled body.
    with socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT + 10) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        assert s.recv(65536).startswith(b"HTTP/1.1 200")
        time.sleep(TIMEOUT * 1.5)
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, _, _ = read_answer(s)
    assert status.startswith("HTTP/1.1 200")


def test_a_large_body_within_the_cap_is_read_whole(settings: Settings) -> None:
    # The default bound, and a body just under the 16 MiB cap: read to its end and
    # judged on its content (a name too long), not cut short as too slow.
    settings = settings.model_copy(
        update={"body_timeout": Settings.model_fields["body_timeout"].default}
    )
    raw = json.dumps({"url": "https://example.com/feed", "name": "x" * (MAX_REQUEST_BODY - 100)})
    assert len(raw) <= MAX_REQUEST_BODY
    for port in serve(create_app(settings, workers=0), ProblemHttpToolsProtocol):
        r = httpx.post(
            f"http://127.0.0.1:{port}/feeds",
            content=raw,
            headers={"content-type": "application/json"},
            timeout=60,
        )
        assert r.status_code == 422, r.text
        assert r.json()["type"].endswith("/validation-error")


async def _slow_stream(request: Request) -> StreamingResponse:
    await request.body()

    async def parts() -> AsyncIterator[bytes]:
        for i in range(3):
            await asyncio.sleep(TIMEOUT * 0.6)
            yield f"part {i}\n".encode()

    return StreamingResponse(parts(), media_type="text/plain")


async def _slow_answer(request: Request) -> Response:
    body = await request.body()
    await asyncio.sleep(TIMEOUT * 1.5)
    return Response(body, media_type="text/plain")


def test_a_response_may_take_longer_than_the_bound(protocol: type[asyncio.Protocol]) -> None:
    # The bound is on receiving the body only: a long answer, streamed or not, after a
    # body that came in time, is sent whole.
    app = BodyTimeout(
        Starlette(
            routes=[
                Route("/stream", _slow_stream, methods=["POST"]),
                Route("/slow", _slow_answer, methods=["POST"]),
            ]
        ),
        seconds=TIMEOUT,
    )
    for port in serve(app, protocol):
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            r = client.post("/stream", content=b"hello")
            assert r.status_code == 200
            assert r.text == "part 0\npart 1\npart 2\n"
            r = client.post("/slow", content=b"hello")
            assert r.status_code == 200
            assert r.text == "hello"


def test_the_bound_is_a_setting(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'x.db'}"
    assert make_settings(url).body_timeout == 30.0
    for bad in (0, -1, 1e9):
        with pytest.raises(ValueError):
            make_settings(url, body_timeout=bad)


def test_the_408_is_documented_where_a_body_is_read(settings: Settings) -> None:
    spec = create_app(settings, workers=0).openapi()
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if "requestBody" in op:
                if path.startswith("/ui/"):  # a page's form: its errors are pages
                    assert op["responses"]["408"]["content"] == {"text/html": {}}
                    continue
                assert op["responses"]["408"]["content"] == {
                    "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
                }, f"{method} {path}"
    assert "408" in spec["paths"]["/check"]["post"]["responses"]
