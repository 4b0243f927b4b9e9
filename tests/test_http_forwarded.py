"""The scheme of the URLs the API writes from a request (a listing's ``next`` link) when a
proxy's X-Forwarded-Proto names it, which uvicorn takes from loopback: an HTTP scheme
alone. Both of uvicorn's HTTP parsers, a real server on loopback."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service.api.app import create_app
from service.api.protocol import ProblemH11Protocol, ProblemHttpToolsProtocol
from tests.conftest import exchange, make_settings, serve_on_loopback


@pytest.fixture(params=[ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"])
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}")
    for port in serve_on_loopback(create_app(settings, workers=0), request.param):
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            for n in (1, 2):
                r = client.post("/feeds", json={"url": f"https://blog{n}.example/feed"})
                assert r.status_code == 201, r.text
        yield port


def next_link(port: int, *protos: bytes) -> str:
    """The ``next`` link of the first page of feeds, asked with these X-Forwarded-Proto
    fields."""
    fields = b"".join(b"X-Forwarded-Proto: %s\r\n" % p for p in protos)
    raw = b"GET /feeds?limit=1 HTTP/1.1\r\nHost: api.example\r\n%sConnection: close\r\n\r\n"
    status, _, body = exchange(port, raw % fields)
    assert status == "HTTP/1.1 200 OK", (status, body)
    link = httpx.Response(200, content=body).json()["next"]
    assert isinstance(link, str)
    return link


@pytest.mark.parametrize(
    "proto",
    [b"ws", b"wss", b"javascript", b"file", b"garbage", b"HTTPS", b"https, http", b"ws "],
)
def test_a_forwarded_proto_of_no_http_scheme_is_ignored(port: int, proto: bytes) -> None:
    # uvicorn took "ws" and "wss" as the scheme of an HTTP request: its links were
    # "ws://api.example/feeds?offset=1&limit=1".
    assert next_link(port, proto) == "http://api.example/feeds?offset=1&limit=1"


def test_the_last_forwarded_proto_is_read_and_ignored_when_it_is_no_http_scheme(
    port: int,
) -> None:
    assert next_link(port, b"https", b"wss") == "http://api.example/feeds?offset=1&limit=1"
    assert next_link(port, b"wss", b"https") == "https://api.example/feeds?offset=1&limit=1"


@pytest.mark.parametrize("proto", [b"https", b"http"])
def test_a_forwarded_http_scheme_is_taken(port: int, proto: bytes) -> None:
    expected = f"{proto.decode()}://api.example/feeds?offset=1&limit=1"
    assert next_link(port, proto) == expected
    assert next_link(port) == "http://api.example/feeds?offset=1&limit=1"


@pytest.mark.parametrize(
    ("proto", "scheme"), [(b"ws", "http"), (b"wss", "http"), (b"https", "https")]
)
def test_the_location_of_a_slash_redirect_is_of_an_http_scheme(
    port: int, proto: bytes, scheme: str
) -> None:
    # The router's redirect of "/feeds/" to "/feeds" writes the request's own URL: it was
    # "Location: ws://api.example/feeds".
    raw = b"GET /feeds/ HTTP/1.1\r\nHost: api.example\r\nX-Forwarded-Proto: %s\r\n"
    status, headers, _ = exchange(port, raw % proto + b"Connection: close\r\n\r\n")
    assert status == "HTTP/1.1 307 Temporary Redirect"
    assert headers["location"] == f"{scheme}://api.example/feeds"
