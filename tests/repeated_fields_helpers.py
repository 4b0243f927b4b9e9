"""What the tests of a header given twice to the webhooks (tests/test_webhooks_api_repeated_*.py)
share: a real server on loopback, on either of uvicorn's HTTP parsers, its feeds registered,
and a small feed document posted as raw bytes, so that a header can be given more than once
(no HTTP client sends that)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx

from service.api.app import create_app
from service.api.protocol import ProblemH11Protocol, ProblemHttpToolsProtocol
from tests.conftest import exchange, make_settings, serve_on_loopback

# For @pytest.fixture(params=PROTOCOLS, ids=PROTOCOL_IDS): uvicorn's two HTTP parsers.
PROTOCOLS = [ProblemHttpToolsProtocol, ProblemH11Protocol]
PROTOCOL_IDS = ["httptools", "h11"]
SECRET = "s3cret-shared-with-the-monitor"
# Small: a refusal before the body is read closes the connection on the rest of it.
FEED_BYTES = (
    b'<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title>'
    b"<link>https://pytorch.org/blog/</link><description>d</description><item>"
    b"<title>A post</title><link>https://pytorch.org/blog/a-post/</link>"
    b"<description>It is 1.5x faster.</description></item></channel></rss>"
)


def serve_with_feeds(
    tmp_path: Path, protocol: type[Any], token: str, feeds: Sequence[dict[str, str]]
) -> Iterator[int]:
    """The port of a server on loopback (SQLite under ``tmp_path``, ``token`` its API
    token) once ``feeds`` are registered, their ids 1, 2, ... in that order."""
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}", api_token=token)
    for port in serve_on_loopback(create_app(settings, workers=0), protocol):
        for i, feed in enumerate(feeds, 1):
            r = httpx.post(
                f"http://127.0.0.1:{port}/feeds",
                json=feed,
                headers={"Authorization": f"Bearer {token}"},
                timeout=10,
            )
            assert r.status_code == 201 and r.json()["id"] == i, r.text
        yield port


def post(
    port: int, fields: list[tuple[str, str]], path: str = "/webhooks/feed?feed_id=1"
) -> tuple[int, Any]:
    """The status and JSON body of the answer to the feed document posted with ``fields``
    to ``path`` (the webhook of feed 1 unless said)."""
    head = "".join(f"{name}: {value}\r\n" for name, value in fields)
    raw = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/rss+xml\r\n"
        f"Content-Length: {len(FEED_BYTES)}\r\nConnection: close\r\n{head}\r\n"
    ).encode() + FEED_BYTES
    status, _, answer = exchange(port, raw)
    return int(status.split()[1]), json.loads(answer)


def refused_by_websub(port: int, fields: list[tuple[str, str]]) -> Any:
    """The problem of the WebSub delivery to feed 1 posted with ``fields``: a 400, which
    comes before the 410 of a feed with no subscription (the first field alone is a 410)."""
    status, problem = post(port, fields, "/websub/1")
    assert status == 400, problem
    assert post(port, fields[:1], "/websub/1")[0] == 410
    return problem


def declared_400s(port: int) -> list[str]:
    """What the OpenAPI document says of a 400 of POST /webhooks/feed and /websub/{feed_id}."""
    spec: dict[str, Any] = httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=10).json()
    return [
        spec["paths"][path]["post"]["responses"]["400"]["description"]
        for path in ("/webhooks/feed", "/websub/{feed_id}")
    ]
