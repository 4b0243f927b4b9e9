"""Outbound webhooks: the subscriber API (registration, the guard on private URLs,
changes, deliveries), and subscribers deactivated by their answers."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select

from service import outbound
from service.api.app import create_app
from service.store import tables as t
from tests.conftest import make_settings, wait_for
from tests.outbound_app import AUTH, TOKEN, approved_for, ctx, review_item, send_all
from tests.receivers import SPEC_SECRET, Receiver
from tests.seed_db import add_feed


def test_subscriber_api(client: TestClient, receiver: Receiver) -> None:
    fid = add_feed(ctx(client).sessions)
    body = {"url": receiver.url}
    assert client.post(f"/feeds/{fid}/subscribers", json=body).status_code == 401
    r = client.post(f"/feeds/{fid}/subscribers", json=body, headers=AUTH)
    assert r.status_code == 201
    sub = r.json()
    assert r.headers["location"] == f"/subscribers/{sub['id']}"
    assert sub["secret"].startswith("whsec_") and sub["feed_id"] == fid
    assert sub["events"] == ["explainer.needs_review", "explainer.published"]
    # the secret is answered once
    got = client.get(f"/subscribers/{sub['id']}", headers=AUTH).json()
    assert got["secret"] is None and got["url"] == receiver.url
    listed = client.get("/subscribers", headers=AUTH).json()
    assert [s["id"] for s in listed["items"]] == [sub["id"]]
    assert client.get("/subscribers").status_code == 401

    own = client.post(
        "/subscribers",
        json={"url": receiver.url, "secret": SPEC_SECRET, "events": ["explainer.published"]},
        headers=AUTH,
    ).json()
    assert own["feed_id"] is None and own["secret"] == SPEC_SECRET

    bad = [
        ({"url": receiver.url, "secret": "hunter2"}, 422),
        ({"url": receiver.url, "events": ["item.deleted"]}, 422),
        ({"url": "ftp://example.org/x"}, 422),
    ]
    for payload, status in bad:
        assert (
            client.post(f"/feeds/{fid}/subscribers", json=payload, headers=AUTH).status_code
            == status
        )
    assert client.post("/feeds/999/subscribers", json=body, headers=AUTH).status_code == 404

    assert client.delete(f"/subscribers/{sub['id']}", headers=AUTH).status_code == 204
    assert client.get(f"/subscribers/{sub['id']}", headers=AUTH).json()["active"] is False
    assert client.get("/subscribers/999/deliveries", headers=AUTH).status_code == 404


def test_a_subscribers_deliveries_by_a_state_there_is_not_are_refused(
    client: TestClient, receiver: Receiver
) -> None:
    # Any text was taken: "?state=faild" listed nothing, as if nothing had failed.
    sub = client.post("/subscribers", json={"url": receiver.url}, headers=AUTH).json()
    path = f"/subscribers/{sub['id']}/deliveries"
    r = client.get(path, params={"state": "faild"}, headers=AUTH)
    assert r.status_code == 422
    assert "'pending', 'sending', 'delivered', 'failed' or 'cancelled'" in r.json()["detail"]
    for state in ("pending", "sending", "delivered", "failed", "cancelled"):
        assert client.get(path, params={"state": state}, headers=AUTH).status_code == 200


def test_private_subscriber_urls_are_refused_unless_allowed(db_url: str) -> None:
    settings = make_settings(db_url, api_token=TOKEN, allow_private_urls=False)
    with TestClient(create_app(settings, workers=0)) as c:
        for url in (
            "http://127.0.0.1:9/x",
            "http://localhost/x",
            "http://localhost./x",  # a fully qualified name: the same host
            "http://metadata.google.internal./x",
            "http://10.1.2.3/x",
            "http://[::1]/x",
        ):
            r = c.post("/subscribers", json={"url": url}, headers=AUTH)
            assert r.status_code == 400, url
            assert "private" in r.json()["detail"]
        assert (
            c.post(
                "/subscribers", json={"url": "https://hooks.example.org/x"}, headers=AUTH
            ).status_code
            == 201
        )


def test_gone_deactivates_and_unreachable_is_retried(
    client: TestClient, receiver: Receiver, closed_port: int
) -> None:
    c = ctx(client)
    fid = add_feed(c.sessions)
    gone = client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH).json()
    dead_url = f"http://127.0.0.1:{closed_port}/nobody-listens"
    dead = client.post(f"/feeds/{fid}/subscribers", json={"url": dead_url}, headers=AUTH).json()
    receiver.statuses[:] = [410]
    c.pipeline.approve(review_item(client, fid), "tester")
    sender = outbound.Sender(c.settings, c.sessions, timeout=2)
    send_all(sender, 2, client)

    got = client.get(f"/subscribers/{gone['id']}", headers=AUTH).json()
    assert got["active"] is False and "410 Gone" in got["inactive_reason"]
    g = client.get(f"/subscribers/{gone['id']}/deliveries", headers=AUTH).json()["items"][0]
    assert (g["state"], g["last_status"]) == ("failed", 410)
    d = client.get(f"/subscribers/{dead['id']}/deliveries", headers=AUTH).json()["items"][0]
    assert d["state"] in ("pending", "sending", "failed")
    assert d["last_status"] is None and "ConnectError" in d["last_error"]


def test_a_delivery_of_an_inactive_subscriber_is_retried_only_once_it_is_active(
    client: TestClient, receiver: Receiver
) -> None:
    """A retry of a delivery whose subscriber is inactive (after a 410, say) is a 409
    naming why: it was answered 202 pending and cancelled by the sender at once."""
    c = ctx(client)
    fid = add_feed(c.sessions)
    sub = client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH)
    path = f"/subscribers/{sub.json()['id']}"
    receiver.statuses[:] = [410]
    c.pipeline.approve(review_item(client, fid), "tester")
    sender = outbound.Sender(c.settings, c.sessions)
    send_all(sender, 1, client)
    entry = client.get(f"{path}/deliveries", headers=AUTH).json()["items"][0]
    assert (entry["state"], entry["last_status"]) == ("failed", 410)

    r = client.post(f"/outbound/{entry['id']}/retry", headers=AUTH)
    assert r.status_code == 409, r.text
    assert "inactive" in r.json()["detail"] and "410 Gone" in r.json()["detail"]
    assert client.get(f"/outbound/{entry['id']}", headers=AUTH).json()["state"] == "failed"

    assert client.patch(path, json={"active": True}, headers=AUTH).status_code == 200
    r = client.post(f"/outbound/{entry['id']}/retry", headers=AUTH)
    assert r.status_code == 202 and r.json()["state"] == "pending", r.text
    wait_for(lambda: sender("test-worker"))
    assert client.get(f"/outbound/{entry['id']}", headers=AUTH).json()["state"] == "delivered"


def test_sending_refuses_a_subscriber_that_now_resolves_inside(
    client: TestClient, receiver: Receiver
) -> None:
    # Registered while private URLs were allowed; the sender of a deployment that does not
    # allow them re-checks the address at send time and never connects.
    c = ctx(client)
    fid = add_feed(c.sessions)
    approved_for(client, fid, receiver.url)
    strict = c.settings.model_copy(update={"allow_private_urls": False})
    sender = outbound.Sender(strict, c.sessions)
    send_all(sender, 1, client)
    assert receiver.received == []
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
        assert d.state == "pending" and d.last_status is None
        assert d.last_error and "refused" in d.last_error


def test_a_subscriber_is_reactivated_or_changed_by_patch(
    client: TestClient, receiver: Receiver
) -> None:
    """After a 410 (or an unsubscribe), PATCH brings a subscriber back; it changes URL
    and events too, checked as on creation; a PATCH that changes nothing is refused."""
    fid = add_feed(ctx(client).sessions)
    sub = client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH)
    path = f"/subscribers/{sub.json()['id']}"
    assert client.delete(path, headers=AUTH).status_code == 204
    assert client.get(path, headers=AUTH).json()["inactive_reason"] == "unsubscribed"
    assert client.patch(path, json={"active": True}).status_code == 401
    r = client.patch(path, json={"active": True}, headers=AUTH)
    assert r.status_code == 200, r.text
    assert (r.json()["active"], r.json()["inactive_reason"]) == (True, None)
    r = client.patch(
        path, json={"url": receiver.url + "?v2", "events": ["explainer.published"]}, headers=AUTH
    )
    assert (r.json()["url"], r.json()["events"]) == (receiver.url + "?v2", ["explainer.published"])
    for bad in (
        {},
        {"active": None},
        {"active": "yes"},
        {"active": 1},
        {"events": []},
        {"url": "ftp://x"},
        {"secret": "x"},
    ):
        r = client.patch(path, json=bad, headers=AUTH)
        assert r.status_code in (400, 422), (bad, r.status_code)
        assert r.headers["content-type"].startswith("application/problem+json")
    assert client.patch("/subscribers/999", json={"active": True}, headers=AUTH).status_code == 404
    assert client.get(path, headers=AUTH).json()["url"] == receiver.url + "?v2"


def test_deliveries_failing_in_a_row_deactivate_the_subscriber(
    db_url: str, receiver: Receiver
) -> None:
    """An endpoint that fails every event without saying 410 is deactivated after
    PLAINFEED_OUTBOUND_DISABLE_AFTER failed deliveries in a row; a delivered one in
    between starts the count again."""
    settings = make_settings(
        db_url, api_token=TOKEN, outbound_max_attempts=1, outbound_disable_after=2
    )
    with TestClient(create_app(settings, workers=0)) as client:
        c = ctx(client)
        fid = add_feed(c.sessions)
        sub = client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH)
        path = f"/subscribers/{sub.json()['id']}"
        sender = outbound.Sender(c.settings, c.sessions, timeout=2)
        receiver.statuses[:] = [500, 204, 500, 500]
        seen = []
        for n in range(1, 5):
            c.pipeline.approve(review_item(client, fid, n), "tester")
            send_all(sender, n, client)
            got = client.get(path, headers=AUTH).json()
            seen.append((got["failures"], got["active"]))
        assert seen == [(1, True), (0, True), (1, True), (2, False)]
        assert got["inactive_reason"].startswith("2 deliveries in a row failed")
        # Inactive: the next event is not even stored for it.
        c.pipeline.approve(review_item(client, fid, 5), "tester")
        with c.sessions() as s:
            assert len(s.scalars(select(t.OutboundDelivery)).all()) == 4
        back = client.patch(path, json={"active": True}, headers=AUTH).json()
        assert (back["active"], back["failures"], back["inactive_reason"]) == (True, 0, None)
