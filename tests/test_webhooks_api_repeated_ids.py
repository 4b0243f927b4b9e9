"""A delivery that gives a header its id is read from (webhook-id, X-GitHub-Delivery) more
than once (RFC 9110 5.3: each is one field): a 400 problem and nothing stored, on both of
uvicorn's HTTP parsers, raw bytes to a real server on loopback. The last of two was the
delivery's id, whichever the sender, or a proxy adding its own, meant; a replay under the
other was a second delivery."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from service import signatures
from service.api.app import create_app
from service.api.protocol import ProblemH11Protocol, ProblemHttpToolsProtocol
from tests.conftest import make_settings, read_answer, serve_on_loopback

TOKEN = "repeated-ids-token"
SECRET = "s3cret-shared-with-the-monitor"
BEARER = ("Authorization", f"Bearer {TOKEN}")
# Small: a refusal before the body is read closes the connection on the rest of it.
FEED_BYTES = (
    b'<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title>'
    b"<link>https://pytorch.org/blog/</link><description>d</description><item>"
    b"<title>A post</title><link>https://pytorch.org/blog/a-post/</link>"
    b"<description>It is 1.5x faster.</description></item></channel></rss>"
)
HUB = signatures.sign_hub(SECRET, FEED_BYTES)


@pytest.fixture(params=[ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"])
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}", api_token=TOKEN)
    for port in serve_on_loopback(create_app(settings, workers=0), request.param):
        for i, feed in enumerate(
            [
                {"url": "https://pytorch.org/blog/feed/"},  # 1: the token stands for it
                {"url": "https://signed.example/feed/", "secret": SECRET},  # 2
            ],
            1,
        ):
            r = httpx.post(
                f"http://127.0.0.1:{port}/feeds",
                json=feed,
                headers={"Authorization": f"Bearer {TOKEN}"},
                timeout=10,
            )
            assert r.status_code == 201 and r.json()["id"] == i, r.text
        yield port


def post(port: int, fields: list[tuple[str, str]], path: str) -> tuple[int, Any]:
    """The status and JSON body of the answer to the feed document posted with ``fields``."""
    head = "".join(f"{name}: {value}\r\n" for name, value in fields)
    raw = (
        f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/rss+xml\r\n"
        f"Content-Length: {len(FEED_BYTES)}\r\nConnection: close\r\n{head}\r\n"
    ).encode() + FEED_BYTES
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(raw)
        status, _, answer = read_answer(s)
    return int(status.split()[1]), json.loads(answer)


def stored(port: int) -> list[str]:
    """The external ids of the deliveries stored."""
    r = httpx.get(f"http://127.0.0.1:{port}/deliveries", timeout=10)
    return [d["external_id"] for d in r.json()["items"]]


UNSIGNED = "/webhooks/feed?feed_id=1"
SIGNED = "/webhooks/feed?feed_id=2"
CASES: dict[str, tuple[str, list[tuple[str, str]], str]] = {
    "github": (UNSIGNED, [("X-GitHub-Delivery", "d-1"), ("X-GitHub-Delivery", "d-2")], "2 X"),
    # The same value twice: refused as well (ingest.refuse_repeated_ids says why).
    "github-same": (UNSIGNED, [("X-GitHub-Delivery", "d-1"), ("x-github-delivery", "d-1")], "2 X"),
    "github-signed": (
        SIGNED,
        [("X-Hub-Signature-256", HUB), ("X-GitHub-Delivery", "d-1"), ("X-GitHub-Delivery", "d-2")],
        "2 X",
    ),
    # Unsigned, webhook-id is the id alone: it was "ambiguous-signature", of no signature.
    "webhook-id": (UNSIGNED, [("webhook-id", "msg-1"), ("webhook-id", "msg-2")], "2 webhook-id"),
    "both": (
        UNSIGNED,
        [
            ("webhook-id", "m"),
            ("webhook-id", "m"),
            ("X-GitHub-Delivery", "d"),
            ("X-GitHub-Delivery", "d"),
        ],
        "2 webhook-id, 2 X-GitHub-Delivery",
    ),
}


@pytest.mark.parametrize(("path", "fields", "count"), CASES.values(), ids=CASES.keys())
def test_a_delivery_id_given_twice_is_a_400_and_nothing_is_stored(
    port: int, path: str, fields: list[tuple[str, str]], count: str
) -> None:
    status, problem = post(port, [BEARER, *fields], path)
    assert status == 400, problem
    assert problem["type"].endswith("/ambiguous-delivery-id"), problem
    assert problem["title"] == "Ambiguous delivery id"
    assert f"the request has {count}" in problem["detail"]
    assert stored(port) == []


def test_each_id_header_once_is_taken(port: int) -> None:
    # Two headers of an id, each given once: as before (webhook-id is read first).
    fields = [BEARER, ("webhook-id", "msg-1"), ("X-GitHub-Delivery", "d-1")]
    status, answer = post(port, fields, UNSIGNED)
    assert status == 202, answer
    assert stored(port) == ["webhook-id:msg-1"]
    # A Standard Webhooks id given twice with its signature stays a signature's problem.
    signed = signatures.standard_headers(SECRET, "msg-2", FEED_BYTES, timestamp=int(time.time()))
    status, problem = post(port, [*signed.items(), ("webhook-id", "msg-3")], SIGNED)
    assert status == 400 and problem["type"].endswith("/ambiguous-signature"), problem


def test_a_websub_delivery_of_two_ids_is_a_400(port: int) -> None:
    fields = [("X-GitHub-Delivery", "d-1"), ("X-GitHub-Delivery", "d-2")]
    status, problem = post(port, fields, "/websub/1")
    assert status == 400, problem  # (before the 410 of a feed with no subscription)
    assert problem["type"].endswith("/ambiguous-delivery-id")
    assert post(port, fields[:1], "/websub/1")[0] == 410


def test_the_400_is_declared(port: int) -> None:
    spec: dict[str, Any] = httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=10).json()
    for path in ("/webhooks/feed", "/websub/{feed_id}"):
        declared = spec["paths"][path]["post"]["responses"]["400"]["description"]
        assert "a delivery-id header (webhook-id, X-GitHub-Delivery) given twice" in declared
