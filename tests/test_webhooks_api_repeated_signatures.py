"""A delivery that gives a header its signature is read from more than once (RFC 9110
5.3: each is one field): a 400 problem and nothing stored, on both of uvicorn's HTTP
parsers, raw bytes to a real server on loopback. The last of two was read, whichever the
sender, or a proxy adding its own, meant."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from service import signatures
from tests.repeated_fields_helpers import (
    FEED_BYTES,
    PROTOCOL_IDS,
    PROTOCOLS,
    SECRET,
    declared_400s,
    post,
    refused_by_websub,
    serve_with_feeds,
)

TOKEN = "repeated-signatures-token"
NOW = int(time.time())  # (the refusals below come before a timestamp's age is read)


@pytest.fixture(params=PROTOCOLS, ids=PROTOCOL_IDS)
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    feeds = [{"url": "https://pytorch.org/blog/feed/", "secret": SECRET}]
    yield from serve_with_feeds(tmp_path, request.param, TOKEN, feeds)


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
    problem = refused_by_websub(port, [("X-Hub-Signature", HUB), ("X-Hub-Signature", HUB)])
    assert problem["type"].endswith("/ambiguous-signature")


def test_the_400_is_declared(port: int) -> None:
    for declared in declared_400s(port):
        assert "a signature header given twice" in declared
