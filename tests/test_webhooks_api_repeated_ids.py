"""A delivery that gives a header its id is read from (webhook-id, X-GitHub-Delivery) more
than once (RFC 9110 5.3: each is one field): a 400 problem and nothing stored, on both of
uvicorn's HTTP parsers, raw bytes to a real server on loopback. The last of two was the
delivery's id, whichever the sender, or a proxy adding its own, meant; a replay under the
other was a second delivery."""

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

TOKEN = "repeated-ids-token"
BEARER = ("Authorization", f"Bearer {TOKEN}")
HUB = signatures.sign_hub(SECRET, FEED_BYTES)


@pytest.fixture(params=PROTOCOLS, ids=PROTOCOL_IDS)
def port(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    feeds = [
        {"url": "https://pytorch.org/blog/feed/"},  # 1: the token stands for it
        {"url": "https://signed.example/feed/", "secret": SECRET},  # 2
    ]
    yield from serve_with_feeds(tmp_path, request.param, TOKEN, feeds)


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
    problem = refused_by_websub(port, [("X-GitHub-Delivery", "d-1"), ("X-GitHub-Delivery", "d-2")])
    assert problem["type"].endswith("/ambiguous-delivery-id")


def test_the_400_is_declared(port: int) -> None:
    for declared in declared_400s(port):
        assert "a delivery-id header (webhook-id, X-GitHub-Delivery) given twice" in declared
