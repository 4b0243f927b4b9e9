"""POST /webhooks/feed end to end, signed: each signature scheme, replays under a new id,
a feed found by its signature, the signature in place of the API token; the real app on
loopback with its workers, real SQLite and PostgreSQL."""

from __future__ import annotations

import json
from typing import Any

import httpx
from sqlalchemy import select

from service import signatures
from service.store import tables as t
from tests.conftest import make_settings
from tests.live import Service, running
from tests.origin import Origin
from tests.webhook_docs import FEED_BYTES, PYTORCH_ITEMS, RSS, edited_feed

SECRET = "s3cret-shared-with-the-monitor"


def test_feed_with_secret_rejects_unsigned_and_wrongly_signed(svc: Service) -> None:
    fid = svc.feed("https://pytorch.org/blog/feed/", secret=SECRET)
    for headers in (
        {},
        {"X-Hub-Signature-256": signatures.sign_hub("not-the-secret", FEED_BYTES)},
        {"X-Hub-Signature-256": signatures.sign_hub(SECRET, FEED_BYTES + b"\n")},
        signatures.standard_headers(SECRET, "m1", FEED_BYTES, timestamp=1_000_000_000),
    ):
        r = svc.post(FEED_BYTES, {**RSS, **headers}, params={"feed_id": fid})
        assert r.status_code == 401, (headers, r.text)
        assert r.json()["type"].endswith("/bad-signature")
    assert svc.count(t.Delivery) == 0  # nothing stored


def test_each_signature_scheme_is_accepted(svc: Service) -> None:
    fid = svc.feed("https://pytorch.org/blog/feed/", secret=SECRET)
    sig = signatures.sign_hub(SECRET, FEED_BYTES)
    hub = svc.post(FEED_BYTES, {**RSS, "X-Hub-Signature-256": sig}, params={"feed_id": fid})
    assert hub.status_code == 202
    std = signatures.standard_headers(SECRET, "msg_2mN", FEED_BYTES)
    r = svc.post(FEED_BYTES, {**RSS, **std}, params={"feed_id": fid})
    assert r.status_code == 202
    assert svc.row(t.Delivery, r.json()["delivery_id"]).external_id == "webhook-id:msg_2mN"
    again = svc.post(FEED_BYTES, {**RSS, **std}, params={"feed_id": fid})
    assert again.status_code == 200 and again.json()["duplicate"] is True
    body = json.dumps({"feed_id": fid, "content": FEED_BYTES.decode()}).encode()
    sig512 = signatures.sign_hub(SECRET, body, "sha512")
    ws = svc.post(body, {"Content-Type": "application/json", "X-Hub-Signature": sig512})
    assert ws.status_code == 202
    stored = svc.row(t.Delivery, ws.json()["delivery_id"]).headers
    assert stored["signature"] == "x-hub-signature"


def test_a_captured_signed_document_sent_again_under_a_new_id_is_a_replay(
    svc: Service,
) -> None:
    # X-Hub-Signature-256 signs the body alone; X-GitHub-Delivery beside it does not.
    fid = svc.feed("https://pytorch.org/blog/feed/", secret=SECRET)
    edited = edited_feed()

    def signed(body: bytes, delivery: str) -> httpx.Response:
        headers = {**RSS, "X-Hub-Signature-256": signatures.sign_hub(SECRET, body)}
        return svc.post(body, {**headers, "X-GitHub-Delivery": delivery}, params={"feed_id": fid})

    first = signed(FEED_BYTES, "d-1")
    assert svc.outcome(first.json()["delivery_id"])["items_new"] == PYTORCH_ITEMS
    assert svc.outcome(signed(edited, "d-2").json()["delivery_id"])["items_changed"] == 1
    # Someone who saw the first delivery sends it again with an id of their own.
    replay = signed(FEED_BYTES, "d-forged")
    assert replay.status_code == 200 and replay.json()["duplicate"] is True
    assert replay.json()["delivery_id"] == first.json()["delivery_id"]
    with svc.sessions() as s:
        texts = [i.text for i in s.scalars(select(t.Item))]
    assert any("A paragraph added later." in x for x in texts)
    # Standard Webhooks signs its id: a new id is a new delivery (and a forged one fails).
    std = signatures.standard_headers(SECRET, "msg-3", FEED_BYTES)
    r = svc.post(FEED_BYTES, {**RSS, **std}, params={"feed_id": fid})
    assert r.status_code == 202


def test_signed_document_without_feed_id_finds_its_feed(svc: Service) -> None:
    svc.feed("https://example.org/other.xml", secret="another-secret-entirely")
    fid = svc.feed("https://pytorch.org/blog/feed/", secret=SECRET)
    r = svc.post(
        FEED_BYTES, {**RSS, "X-Hub-Signature-256": signatures.sign_hub(SECRET, FEED_BYTES)}
    )
    assert r.status_code == 202
    assert svc.outcome(r.json()["delivery_id"])["feed_id"] == fid
    bad = svc.post(
        b"<rss version='2.0'><channel/></rss>",
        {**RSS, "X-Hub-Signature-256": signatures.sign_hub("guess", b"x")},
    )
    assert bad.status_code == 401


def test_a_document_naming_no_feed_is_hashed_against_a_bounded_number_of_secrets(
    svc: Service,
) -> None:
    """Each secret tried hashes the whole body, for anyone who sends one: past a budget
    of bytes only the feeds the document's head names (its self link) are tried."""
    from service.pipeline.receive import HMAC_BUDGET

    body = FEED_BYTES + b"<!--" + b"x" * (9 * 2**20) + b"-->"
    for n in range(HMAC_BUDGET // len(body)):
        svc.feed(f"https://example.org/{n}.xml", secret=f"secret-number-{n:04d}")
    last = "https://example.org/last.xml"
    fid = svc.feed(last, secret="the-last-secret")
    signed = {**RSS, "X-Hub-Signature-256": signatures.sign_hub("the-last-secret", body)}
    assert svc.post(body, signed).status_code == 401  # its secret is past the budget
    link = f'<channel><atom:link href="{last}" rel="self"/>'.encode()
    named = body.replace(b"<channel>", link, 1)
    signed = {**RSS, "X-Hub-Signature-256": signatures.sign_hub("the-last-secret", named)}
    r = svc.post(named, signed)
    assert r.status_code == 202, r.text
    assert svc.outcome(r.json()["delivery_id"])["feed_id"] == fid


def test_the_same_document_posted_for_two_feeds_is_two_deliveries(svc: Service) -> None:
    """Two feeds that mirror one document: the second is its feed's delivery, not a
    replay of the first's; posted again for the same feed, it is a replay."""
    first = svc.feed("https://pytorch.org/blog/feed/")
    second = svc.feed("https://mirror.example.org/pytorch.xml")
    a = svc.post(FEED_BYTES, RSS, params={"feed_id": first})
    b = svc.post(FEED_BYTES, RSS, params={"feed_id": second})
    assert (a.status_code, b.status_code) == (202, 202), (a.text, b.text)
    assert a.json()["delivery_id"] != b.json()["delivery_id"]
    again = svc.post(FEED_BYTES, RSS, params={"feed_id": second})
    assert again.status_code == 200 and again.json()["duplicate"] is True
    assert again.json()["delivery_id"] == b.json()["delivery_id"]


def test_unsigned_document_of_a_feed_with_a_secret_creates_nothing(svc: Service) -> None:
    # The document names no feed, so it is stored; the worker finds it belongs to a
    # feed with a secret (its self link) and takes nothing from it.
    svc.feed("https://pytorch.org/blog/feed/", secret=SECRET)
    d = svc.outcome(svc.post(FEED_BYTES, RSS).json()["delivery_id"])
    assert d["state"] == "failed" and "has a secret" in d["error"]
    assert svc.count(t.Item) == 0


def test_signature_stands_in_for_the_api_token(tmp_path: Any, origin: Origin) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 't.db'}", api_token="tok-123")
    with running(settings) as svc:
        fid = svc.feed("https://pytorch.org/blog/feed/", secret=SECRET)
        open_fid = svc.feed(origin.route("/f", body=FEED_BYTES, headers=RSS))
        assert svc.post(FEED_BYTES, RSS, params={"feed_id": fid}).status_code == 401
        assert svc.post({"feed_id": open_fid}).status_code == 401
        signed = {**RSS, "X-Hub-Signature-256": signatures.sign_hub(SECRET, FEED_BYTES)}
        assert svc.post(FEED_BYTES, signed, params={"feed_id": fid}).status_code == 202
        bearer = {"Authorization": "Bearer tok-123"}
        assert svc.post({"feed_id": open_fid}, bearer).status_code == 202
        # The token does not replace the signature of a feed that has a secret.
        body = FEED_BYTES.replace(b"<channel>", b"<channel> ", 1)
        assert svc.post(body, {**RSS, **bearer}, params={"feed_id": fid}).status_code == 401
