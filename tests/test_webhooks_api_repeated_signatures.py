"""A delivery that gives a header its signature is read from more than once (RFC 9110
5.3: each is one field): a 400 problem and nothing stored, on both of uvicorn's HTTP
parsers, raw bytes to a real server on loopback. The last of two was read, whichever the
sender, or a proxy adding its own, meant."""

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

TOKEN = "repeated-signatures-token"
SECRET = "s3cret-shared-with-the-monitor"
NOW = int(time.time())  # (the refusals below come before a timestamp's age is read)
# Small: a refusal before the body is read closes the connection on the rest of it.
FEED_BYTES = (
    b'<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title>'
    b"<link>https://pytorch.org/blog/</link><description>d</description><item>"
    b"<title>A post</title><link>https://pytorch.org/blog/a-post/</link>"
    b"<description>It is 1.5x faster.</description></item></channel></rss>"
)


@pytest.fixture(params=[ProblemHttpToolsProtocol, ProblemH11Protocol], ids=["httptools", "h11"])
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}", api_token=TOKEN)
    for port in serve_on_loopback(create_app(settings, workers=0), request.param):
        r = httpx.post(
            f"http://127.0.0.1:{port}/feeds",
            json={"url": "https://pytorch.org/blog/feed/", "secret": SECRET},
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=10,
        )
        assert r.status_code == 201 and r.json()["id"] == 1, r.text
        yield port


def post(
    port: int, fields: list[tuple[str, str]], path: str = "/webhooks/feed?feed_id=1"
) -> tuple[int, Any]:
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


def stored(port: int) -> int:
    r = httpx.get(f"http://127.0.0.1:{port}/deliveries", timeout=10)
    return int(r.json()["total"])


HUB = signatures.sign_hub(SECRET, FEED_BYTES)
HUB_WRONG = signatures.sign_hub("not-the-secret", FEED_BYTES)
STANDARD = signatures.standard_headers(SECRET, "msg-1", FEED_BYTES, timestamp=NOW)
OTHER = signatures.standard_headers(SECRET, "msg-2", FEED_BYTES, timestamp=NOW - 1)


def standard(**twice: str) -> list[tuple[str, str]]:
    """The Standard Webhooks headers of msg-1, each header named in ``twice`` given again
    with that value after it."""
    fields = list(STANDARD.items())
    return fields + [(name.replace("_", "-"), value) for name, value in twice.items()]


CASES: dict[str, list[tuple[str, str]]] = {
    "hub-256-right-first": [("X-Hub-Signature-256", HUB), ("X-Hub-Signature-256", HUB_WRONG)],
    "hub-256-wrong-first": [("X-Hub-Signature-256", HUB_WRONG), ("X-Hub-Signature-256", HUB)],
    "hub-256-same": [("X-Hub-Signature-256", HUB), ("x-hub-signature-256", HUB)],
    "hub": [("X-Hub-Signature", HUB), ("X-Hub-Signature", HUB_WRONG)],
    "miniflux": [("X-Miniflux-Signature", HUB[7:]), ("X-Miniflux-Signature", HUB[7:])],
    # (msg-2's signature does not verify msg-1: the last id was the one read.)
    "webhook-id": standard(webhook_id="msg-2"),
    "webhook-id-same": standard(webhook_id="msg-1"),
    "webhook-timestamp": standard(webhook_timestamp=str(NOW - 1)),
    # Two signatures are one field, space-separated (the case below, served).
    "webhook-signature": standard(webhook_signature=OTHER["webhook-signature"]),
}


@pytest.mark.parametrize("fields", CASES.values(), ids=CASES.keys())
def test_a_signature_header_given_twice_is_a_400_and_nothing_is_stored(
    port: int, fields: list[tuple[str, str]]
) -> None:
    status, problem = post(port, fields)
    assert status == 400, problem
    assert problem["type"].endswith("/ambiguous-signature"), problem
    assert problem["title"] == "Ambiguous signature"
    name = fields[-1][0].lower()
    assert f"2 {signatures.SIGNED_FIELDS[name]} headers" in problem["detail"]
    assert ("space-separated" in problem["detail"]) == (name == "webhook-signature")
    assert stored(port) == 0


def test_signatures_space_separated_in_one_field_are_taken(port: int) -> None:
    # Signed now: a timestamp of the module's import is stale (over the 300 s tolerance)
    # by the time a whole suite reaches this test.
    now = int(time.time())
    fresh = signatures.standard_headers(SECRET, "msg-1", FEED_BYTES, timestamp=now)
    other = signatures.standard_headers(SECRET, "msg-2", FEED_BYTES, timestamp=now - 1)
    # Standard Webhooks: several signatures (a key rotation) in one webhook-signature.
    wrong = signatures.sign_standard("not-the-secret", "msg-1", now, FEED_BYTES)
    both = f"{wrong} {fresh['webhook-signature']}"
    fields = [(k, v) for k, v in fresh.items() if k != "webhook-signature"]
    status, answer = post(port, [*fields, ("webhook-signature", both)])
    assert status == 202, answer
    # Two schemes, each given once: as before.
    status, answer = post(port, [("X-Hub-Signature-256", HUB), *other.items()])
    assert status == 202, answer  # (msg-2: its own delivery)
    assert stored(port) == 2


def test_a_websub_delivery_of_two_signatures_is_a_400(port: int) -> None:
    fields = [("X-Hub-Signature", HUB), ("X-Hub-Signature", HUB)]
    status, problem = post(port, fields, "/websub/1")
    assert status == 400, problem  # (before the 410 of a feed with no subscription)
    assert problem["type"].endswith("/ambiguous-signature")
    assert post(port, fields[:1], "/websub/1")[0] == 410


def test_the_400_is_declared(port: int) -> None:
    spec: dict[str, Any] = httpx.get(f"http://127.0.0.1:{port}/openapi.json", timeout=10).json()
    for path in ("/webhooks/feed", "/websub/{feed_id}"):
        declared = spec["paths"][path]["post"]["responses"]["400"]["description"]
        assert "a signature header given twice" in declared
