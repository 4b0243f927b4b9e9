"""Outbound webhooks: Standard Webhooks signing, and the events an explainer's
publication or review sends to the subscribers that want them, over real HTTP to a
receiver on loopback."""

from __future__ import annotations

import base64
import json

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from service import outbound, signatures
from service.api.app import create_app
from service.errors import InputError
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker, transaction
from tests.conftest import api_client, make_settings, wait_for
from tests.outbound_app import AUTH, TOKEN, ctx, review_item, send_all
from tests.receivers import (
    SPEC_BODY,
    SPEC_ID,
    SPEC_SECRET,
    SPEC_SIG,
    SPEC_TS,
    Receiver,
    independent_check,
)
from tests.seed_db import add_feed


def test_signature_matches_the_specification_example() -> None:
    headers = outbound.headers_for(SPEC_SECRET, SPEC_ID, SPEC_BODY, now=SPEC_TS)
    assert headers["webhook-id"] == SPEC_ID
    assert headers["webhook-timestamp"] == str(SPEC_TS)
    assert headers["webhook-signature"] == SPEC_SIG


def test_a_malformed_secret_signs_nothing() -> None:
    # signatures.standard_key would use "plain-password" as is; a subscriber's secret
    # was validated when stored, and a bad one must not sign silently.
    with pytest.raises(InputError):
        outbound.headers_for("plain-password", SPEC_ID, SPEC_BODY, now=SPEC_TS)


def test_secrets() -> None:
    secret = outbound.new_secret()
    assert secret.startswith("whsec_")
    assert len(outbound.secret_key(secret)) == 32
    for bad in (
        "plain-password",
        "whsec_not*base64",
        "whsec_" + base64.b64encode(b"short").decode(),
    ):
        with pytest.raises(InputError):
            outbound.secret_key(bad)


def test_published_event_is_signed_and_delivered(client: TestClient, receiver: Receiver) -> None:
    c = ctx(client)
    fid = add_feed(c.sessions)
    other = add_feed(c.sessions, url="https://other.example/feed")
    sub = client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH).json()
    client.post(f"/feeds/{other}/subscribers", json={"url": receiver.url + "?other"}, headers=AUTH)
    iid = review_item(client, fid)

    reviewer = "Adélaïde".encode()  # UTF-8 on the wire, as clients send a name
    r = client.post(f"/items/{iid}/approve", headers={**AUTH, "X-Reviewer": reviewer})
    assert r.status_code == 200
    assert r.json()["explainer_meta"]["approved_by"] == "Adélaïde"
    # stored in the publishing transaction, for this feed's subscriber only
    with c.sessions() as s:
        rows = list(s.scalars(select(t.OutboundDelivery)))
    assert [(d.subscriber_id, d.event_type, d.state) for d in rows] == [
        (sub["id"], "explainer.published", "pending")
    ]

    sender = outbound.Sender(c.settings, c.sessions)
    send_all(sender, 1, client)
    assert len(receiver.received) == 1
    got = receiver.received[0]
    independent_check(sub["secret"], got)
    assert signatures.verify(sub["secret"], got.body, got.headers) == "webhook-signature"
    assert got.headers["webhook-id"] == rows[0].event_id
    assert got.headers["content-type"] == "application/json"
    event = json.loads(got.body)
    assert event["type"] == "explainer.published"
    data = event["data"]
    assert data["item_id"] == iid and data["feed_id"] == fid and data["state"] == "published"
    assert data["explainer"]["title"] == "Kernels"
    assert data["approved_by"] == "Adélaïde"
    assert data["page_url"].endswith(f"/ui/items/{iid}")
    assert data["check"]["ok"] is True

    log = client.get(f"/subscribers/{sub['id']}/deliveries", headers=AUTH).json()
    assert log["total"] == 1
    entry = log["items"][0]
    assert (entry["state"], entry["attempts"], entry["last_status"]) == ("delivered", 1, 204)
    assert entry["delivered_at"] is not None
    full = client.get(f"/outbound/{entry['id']}", headers=AUTH).json()
    assert full["payload"]["type"] == "explainer.published"
    assert sender("test-worker") is False  # nothing left


def test_needs_review_event_goes_to_those_who_want_it(
    client: TestClient, receiver: Receiver
) -> None:
    c = ctx(client)
    fid = add_feed(c.sessions)
    wants = client.post(
        "/subscribers",
        json={"url": receiver.url, "events": ["explainer.needs_review"]},
        headers=AUTH,
    ).json()
    client.post(
        "/subscribers", json={"url": receiver.url, "events": ["explainer.published"]}, headers=AUTH
    )
    iid = review_item(client, fid)
    hook = c.pipeline.on_event
    with transaction(c.sessions) as s:
        item = s.get(t.Item, iid)
        ex = s.scalars(select(t.Explainer).where(t.Explainer.item_id == iid)).one()
        hook(s, "explainer.needs_review", item.feed_id, lambda: (item, ex))
    with c.sessions() as s:
        rows = list(s.scalars(select(t.OutboundDelivery)))
    assert [(d.subscriber_id, d.event_type) for d in rows] == [
        (wants["id"], "explainer.needs_review")
    ]


def test_an_event_nobody_wants_loads_nothing(client: TestClient, receiver: Receiver) -> None:
    """Publishing pays for loading the item and its explainer only when someone subscribed:
    not without subscribers, nor for a subscriber of another feed or another event."""
    c = ctx(client)
    fid = add_feed(c.sessions)
    other = add_feed(c.sessions, url="https://other.example/feed.xml")
    client.post(f"/feeds/{other}/subscribers", json={"url": receiver.url}, headers=AUTH)
    client.post(
        "/subscribers",
        json={"url": receiver.url, "events": ["explainer.needs_review"]},
        headers=AUTH,
    )
    iid = review_item(client, fid)
    loads: list[int] = []
    hook = c.pipeline.on_event
    with transaction(c.sessions) as s:
        item = s.get(t.Item, iid)
        ex = s.scalars(select(t.Explainer).where(t.Explainer.item_id == iid)).one()

        def load() -> tuple[t.Item, t.Explainer]:
            loads.append(1)
            return item, ex

        hook(s, "explainer.published", fid, load)
        assert loads == []
        hook(s, "explainer.needs_review", fid, load)
        assert loads == [1]
    with c.sessions() as s:
        assert [d.event_type for d in s.scalars(select(t.OutboundDelivery))] == [
            "explainer.needs_review"
        ]


def test_events_are_sent_by_the_workers_of_the_app(db_url: str, receiver: Receiver) -> None:
    """The wiring: the app's pipeline stores events and its workers send them."""
    settings = make_settings(db_url, api_token=TOKEN)
    with TestClient(create_app(settings, workers=1)) as client:
        fid = add_feed(ctx(client).sessions)
        sub = client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH)
        iid = review_item(client, fid)
        assert client.post(f"/items/{iid}/approve", headers=AUTH).status_code == 200
        wait_for(lambda: receiver.received, timeout=30)
        independent_check(sub.json()["secret"], receiver.received[0])


@pytest.mark.postgres
def test_concurrent_approvals_publish_once_and_send_one_event(pg_url: str) -> None:
    """Ten reviewers approve the same item at once: one publishes it (one event to send),
    the others are told it is no longer waiting for review."""
    from concurrent.futures import ThreadPoolExecutor

    settings = make_settings(pg_url, api_token=TOKEN)
    with api_client(settings, workers=0) as http:
        sessions = make_sessionmaker(make_engine(pg_url))
        fid = add_feed(sessions)
        assert http.post(
            f"/feeds/{fid}/subscribers", json={"url": "https://hooks.example.org/x"}, headers=AUTH
        ).is_success
        iid = review_item(sessions, fid)

        def approve(n: int) -> int:
            headers = {**AUTH, "X-Reviewer": f"r{n}"}
            return http.post(f"/items/{iid}/approve", headers=headers).status_code

        with ThreadPoolExecutor(10) as pool:
            codes = sorted(pool.map(approve, range(10)))
    assert codes == [200] + [409] * 9
    with sessions() as s:
        events = list(s.scalars(select(t.OutboundDelivery)))
    assert [e.event_type for e in events] == ["explainer.published"]
