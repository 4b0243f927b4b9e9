"""OPTIONS of a path (RFC 9110 9.3.7): a success naming what the target takes, on both of
uvicorn's HTTP parsers, raw bytes to a real server on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from service.api.app import create_app
from service.api.protocol import ProblemH11Protocol, ProblemHttpToolsProtocol
from tests.conftest import exchange, make_settings, serve_on_loopback

TOKEN = "options-token"


@pytest.fixture(params=[ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"])
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}", api_token=TOKEN)
    yield from serve_on_loopback(create_app(settings, workers=0), request.param)


def options(port: int, path: str) -> tuple[str, dict[str, str], bytes]:
    raw = f"OPTIONS {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
    return exchange(port, raw)


@pytest.mark.parametrize(
    ("path", "allow"),
    [
        ("/feeds", "GET, HEAD, OPTIONS, POST"),
        ("/feeds/1", "DELETE, GET, HEAD, OPTIONS, PATCH"),  # (no such feed: a route's path)
        ("/webhooks/feed", "OPTIONS, POST"),  # a write route: no token asked
        ("/healthz", "GET, HEAD, OPTIONS"),
        ("/openapi.json", "GET, HEAD, OPTIONS"),
        ("/", "GET, HEAD, OPTIONS"),
        ("/ui/items/1/review", "OPTIONS, POST"),
        ("/static/style.css", "GET, HEAD, OPTIONS"),
    ],
)
def test_options_of_a_route_is_a_204_naming_its_methods(port: int, path: str, allow: str) -> None:
    # It was a 405 with the same methods in Allow (and a problem body): OPTIONS refused.
    status, headers, body = options(port, path)
    assert status == "HTTP/1.1 204 No Content", (status, body)
    assert headers["allow"] == allow
    assert body == b""
    assert "content-length" not in headers  # (RFC 9110 8.6: none in a 204)


@pytest.mark.parametrize(
    ("path", "media"),
    [
        ("/nothing/here", "application/problem+json"),
        ("/static/nothing.css", "application/problem+json"),
        ("/ui/nothing/here", "text/html"),  # the page of any other /ui address: no page
    ],
)
def test_options_where_nothing_is_served_is_the_404_of_get(
    port: int, path: str, media: str
) -> None:
    status, headers, body = options(port, path)
    assert status == "HTTP/1.1 404 Not Found", (status, body)
    assert "allow" not in headers
    assert headers["content-type"].split(";")[0] == media
    if media == "application/problem+json":
        assert json.loads(body)["type"].endswith("/not-found")


def test_another_method_a_route_lacks_is_still_a_405(port: int) -> None:
    raw = b"PUT /feeds HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    status, headers, body = exchange(port, raw)
    assert status == "HTTP/1.1 405 Method Not Allowed"
    assert headers["allow"] == "GET, HEAD, OPTIONS, POST"
    assert json.loads(body)["type"].endswith("/method-not-allowed")


def refused(port: int, method: str, path: str) -> tuple[str, dict[str, str], bytes]:
    raw = f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    return exchange(port, raw.encode())


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("PUT", "/feeds"),
        ("PUT", "/feeds/1"),
        ("GET", "/webhooks/feed"),
        ("DELETE", "/healthz"),
        ("POST", "/openapi.json"),
        ("POST", "/"),
        ("GET", "/ui/items/1/review"),
        ("PUT", "/ui/items/1/review"),
        ("POST", "/static/style.css"),
        ("DELETE", "/static-offline-docs/swagger-ui.css"),
    ],
)
def test_a_405_names_the_methods_options_names(port: int, method: str, path: str) -> None:
    # RFC 9110 10.2.1: Allow lists the methods the target supports, one set for a path.
    # The 405 named no OPTIONS, which is a 204 there.
    status, headers, _ = refused(port, method, path)
    assert status == "HTTP/1.1 405 Method Not Allowed"
    allow = options(port, path)[1]["allow"]
    assert "OPTIONS" in allow.split(", ")
    assert headers["allow"] == allow


@pytest.mark.parametrize(
    "path",
    [
        "/static/style.css",
        "/static-offline-docs/swagger-ui.css",  # the documentation pages' assets
        "/static/nothing.css",  # (GET is a 404 there: the mount's methods all the same)
    ],
)
def test_a_static_mount_refuses_another_method_naming_get_and_head(port: int, path: str) -> None:
    # Its Allow was empty: StaticFiles' own was replaced by the app's routes' (none).
    status, headers, body = refused(port, "POST", path)
    assert status == "HTTP/1.1 405 Method Not Allowed"
    # OPTIONS is a 204 where the mount holds the file, the 404 of GET where it does not.
    served = path != "/static/nothing.css"
    assert headers["allow"] == ("GET, HEAD, OPTIONS" if served else "GET, HEAD")
    assert json.loads(body)["type"].endswith("/method-not-allowed")


def ask(port: int, method: str, path: str, body: bytes = b"") -> tuple[str, dict[str, str], bytes]:
    head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n"
    head += "Content-Type: application/json\r\n" if body else ""
    raw = f"{head}Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode() + body
    return exchange(port, raw)


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/items/abc", "HTTP/1.1 422 Unprocessable Entity"),
        ("/items/0", "HTTP/1.1 422 Unprocessable Entity"),
        ("/items/%201", "HTTP/1.1 422 Unprocessable Entity"),  # " 1"
        ("/items/99999999999", "HTTP/1.1 422 Unprocessable Entity"),  # past the column
        ("/items/abc/explainer", "HTTP/1.1 422 Unprocessable Entity"),
        ("/feeds/abc", "HTTP/1.1 422 Unprocessable Entity"),
        ("/deliveries/1.0", "HTTP/1.1 422 Unprocessable Entity"),
        ("/ui/items/abc", "HTTP/1.1 404 Not Found"),  # a page: "There is no item 'abc'"
    ],
)
def test_options_of_a_malformed_id_is_what_get_answers(port: int, path: str, status: str) -> None:
    # It was a 204 naming GET among the methods, which refused the same address.
    got = ask(port, "GET", path)
    answer = options(port, path)
    assert answer[0] == got[0] == status, answer
    assert "allow" not in answer[1]
    assert answer[1]["content-type"] == got[1]["content-type"]
    assert answer[2] == got[2]


def test_options_of_a_malformed_id_of_the_review_form_is_its_404_page(port: int) -> None:
    posted = ask(port, "POST", "/ui/items/abc/review", b"action=approve")
    status, headers, body = options(port, "/ui/items/abc/review")
    assert status == posted[0] == "HTTP/1.1 404 Not Found", posted
    assert headers["content-type"].startswith("text/html") and b"no item" in body


def test_an_id_with_leading_zeros_is_the_id_for_get_and_options(port: int) -> None:
    """ "/feeds/001" is feed 1, as the pages read "/ui/items/001" (4185857): OPTIONS of it
    names the methods, as of "/feeds/1"; a row id no row has is GET's 404, not OPTIONS's."""
    created = ask(port, "POST", "/feeds", b'{"url": "https://a.example/feed"}')
    assert created[0] == "HTTP/1.1 201 Created", created
    one, padded = ask(port, "GET", "/feeds/1"), ask(port, "GET", "/feeds/001")
    assert padded[0] == "HTTP/1.1 200 OK" and padded[2] == one[2]
    assert options(port, "/feeds/001")[1]["allow"] == options(port, "/feeds/1")[1]["allow"]
    missing = ask(port, "GET", "/items/007")
    assert json.loads(missing[2])["detail"] == "no item with id 7"
    assert options(port, "/items/007")[0] == "HTTP/1.1 204 No Content"
