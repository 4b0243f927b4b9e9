"""Outbound webhooks: Standard Webhooks signing, the subscriber API, and delivery with
retries to a real HTTP receiver on loopback."""

from __future__ import annotations

import base64
import gzip
import hashlib
import hmac
import json
import resource
import socket
import threading
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, select, update
from sqlalchemy.orm import Session, sessionmaker

from service import outbound, signatures
from service.api.app import create_app
from service.errors import InputError
from service.models import CheckReport, Explainer, ItemState, Section
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker, transaction
from tests.conftest import api_client, make_settings, wait_for, waiting_on_a_lock
from tests.origin import raw_origin
from tests.receivers import RawReceiver
from tests.seed_db import add_feed, add_item

TOKEN = "outbound-test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

# The example of the Standard Webhooks specification (and its reference libraries).
SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SPEC_TS = 1614265330
SPEC_BODY = b'{"test": 2432232314}'
SPEC_SIG = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


# --- signing -----------


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


# --- a real receiver -----------


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """An HTTP endpoint on loopback that answers scripted statuses (then 204)."""

    statuses: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    port: int = 0  # the one it got, once entered

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def __enter__(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                receiver.received.append(
                    Received({k.lower(): v for k, v in self.headers.items()}, body)
                )
                status = receiver.statuses.pop(0) if receiver.statuses else 204
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        # Bound here, not on a port found free before: that one could be taken meanwhile.
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def independent_check(secret: str, r: Received) -> None:
    """Verify as the specification says, without Plainfeed's code."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{r.headers['webhook-id']}.{r.headers['webhook-timestamp']}.".encode() + r.body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    assert r.headers["webhook-signature"] == f"v1,{expected}"
    assert abs(time.time() - int(r.headers["webhook-timestamp"])) < 300


# --- the API and the sender -----------


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        yield r


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    settings = make_settings(db_url, api_token=TOKEN, max_attempts=3, outbound_max_attempts=3)
    app = create_app(settings, workers=0)
    with TestClient(app) as c:
        yield c


def ctx(client: TestClient):  # type: ignore[no-untyped-def]
    return client.app.state.ctx  # type: ignore[attr-defined]


def review_item(client: TestClient | sessionmaker[Session], feed_id: int, n: int = 0) -> int:
    """An item of ``feed_id`` waiting for review (in the app's database, or in the one
    of ``sessions``); ``n`` tells several of one feed apart."""
    return add_item(
        ctx(client).sessions if isinstance(client, TestClient) else client,
        feed_id,
        title="Faster kernels",
        text="It runs 1.5x faster.",
        explainer=Explainer(title="Kernels", sections=[Section(heading="H", paragraphs=["P."])]),
        report=CheckReport(),
        state=ItemState.NEEDS_REVIEW,
        link="https://example.org/k" + (f"/{n}" if n else ""),
    )


def send_all(sender: outbound.Sender, until: int, client: TestClient) -> None:
    """Run the sender (as a worker would) until ``until`` attempts were made overall."""

    def attempts() -> int:
        with ctx(client).sessions() as s:
            return sum(d.attempts for d in s.scalars(select(t.OutboundDelivery)))

    def step() -> bool:
        sender("test-worker")
        return attempts() >= until

    wait_for(step, timeout=30, interval=0.02)


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
        ({"url": receiver.url, "secret": "hunter2"}, 400),
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


def test_failed_attempts_are_retried_with_backoff_and_logged(
    client: TestClient, receiver: Receiver
) -> None:
    c = ctx(client)
    fid = add_feed(c.sessions)
    sub = client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH).json()
    iid = review_item(client, fid)
    receiver.statuses[:] = [500, 503]
    c.pipeline.approve(iid, "tester")

    sender = outbound.Sender(c.settings, c.sessions)
    send_all(sender, 3, client)
    assert len(receiver.received) == 3
    # one event: the same id on every attempt, each attempt signed afresh
    assert len({r.headers["webhook-id"] for r in receiver.received}) == 1
    for r in receiver.received:
        independent_check(sub["secret"], r)
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
        assert (d.state, d.attempts, d.last_status, d.last_error) == ("delivered", 3, 204, None)


def test_out_of_attempts_fails_and_can_be_retried(client: TestClient, receiver: Receiver) -> None:
    c = ctx(client)
    fid = add_feed(c.sessions)
    sub = client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH).json()
    receiver.statuses[:] = [500, 500, 500]
    c.pipeline.approve(review_item(client, fid), "tester")
    sender = outbound.Sender(c.settings, c.sessions)
    send_all(sender, 3, client)  # max_attempts=3 in these settings
    entry = client.get(f"/subscribers/{sub['id']}/deliveries", headers=AUTH).json()["items"][0]
    assert (entry["state"], entry["attempts"], entry["last_status"]) == ("failed", 3, 500)
    assert entry["last_error"].startswith("HTTP 500")
    assert sender("test-worker") is False

    again = client.post(f"/outbound/{entry['id']}/retry", headers=AUTH)
    assert again.status_code == 202 and again.json()["state"] == "pending"
    assert client.post(f"/outbound/{entry['id']}/retry", headers=AUTH).status_code == 409
    wait_for(lambda: sender("test-worker"))
    assert client.get(f"/outbound/{entry['id']}", headers=AUTH).json()["state"] == "delivered"


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


def test_sending_refuses_a_subscriber_that_now_resolves_inside(
    client: TestClient, receiver: Receiver
) -> None:
    # Registered while private URLs were allowed; the sender of a deployment that does not
    # allow them re-checks the address at send time and never connects.
    c = ctx(client)
    fid = add_feed(c.sessions)
    client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH)
    c.pipeline.approve(review_item(client, fid), "tester")
    strict = c.settings.model_copy(update={"allow_private_urls": False})
    sender = outbound.Sender(strict, c.sessions)
    send_all(sender, 1, client)
    assert receiver.received == []
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
        assert d.state == "pending" and d.last_status is None
        assert d.last_error and "refused" in d.last_error


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


@pytest.mark.postgres
def test_a_retry_waits_for_a_workers_claim_and_refuses_it(pg_url: str) -> None:
    """A claim in flight (the row updated to processing, not yet committed): a retry
    waits for it and is refused, instead of resetting the item under the worker."""
    import psycopg

    settings = make_settings(pg_url, api_token=TOKEN)
    with api_client(settings, workers=0) as http:
        engine = make_engine(pg_url)
        sessions = make_sessionmaker(engine)
        iid = add_item(sessions, add_feed(sessions), title="T", text="It is 2x.")
        raw = pg_url.replace("postgresql+psycopg://", "postgresql://", 1)
        with psycopg.connect(raw) as conn:
            conn.execute(
                "UPDATE items SET state = 'processing', lease_owner = 'w1' WHERE id = %s", (iid,)
            )
            result: list[int] = []
            th = threading.Thread(
                target=lambda: result.append(
                    http.post(f"/items/{iid}/retry", headers=AUTH).status_code
                )
            )
            th.start()
            wait_for(lambda: result or waiting_on_a_lock(engine))
            assert not result  # the retry is waiting on the row
            conn.commit()  # the claim lands
            th.join(timeout=30)
    assert result == [409]
    with sessions() as s:
        item = s.get(t.Item, iid)
        assert item is not None and (item.state, item.lease_owner) == ("processing", "w1")


class _Answering(RawReceiver):
    """A receiver that answers every POST with ``status`` and a body of ``size`` bytes,
    written ``step`` bytes at a time every ``pause`` seconds; it records whether it got
    to write the whole body (a sender that stops reading closes the connection first)."""

    def __init__(self, status: int, size: int, step: int, pause: float) -> None:
        self.finished: list[bool] = []

        def answer(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(status)
            handler.send_header("content-length", str(size))
            handler.end_headers()
            try:
                for _ in range(0, size, step):
                    handler.wfile.write(b"x" * step)
                    handler.wfile.flush()
                    time.sleep(pause)
            except OSError:
                self.finished.append(False)
                return
            self.finished.append(True)

        super().__init__(answer)


@pytest.mark.parametrize(
    ("status", "size", "step", "pause", "error"),
    [
        # 200, then a byte every 0.4 s: each read is in time, the whole answer never is.
        (200, 100_000, 1, 0.4, "ReadTimeout"),
        # A 500 with a 64 MiB page, written as fast as it is read.
        (500, 64 * 1024 * 1024, 1024 * 1024, 0.0, "HTTP 500: xxx"),
    ],
    ids=["dripping", "huge-error-page"],
)
def test_a_receiver_cannot_hold_a_send_or_fill_memory(
    client: TestClient, status: int, size: int, step: int, pause: float, error: str
) -> None:
    c = ctx(client)
    fid = add_feed(c.sessions)
    answering = _Answering(status, size, step, pause)
    try:
        client.post(f"/feeds/{fid}/subscribers", json={"url": answering.url}, headers=AUTH)
        c.pipeline.approve(review_item(client, fid), "tester")
        sender = outbound.Sender(c.settings, c.sessions, timeout=1.0)
        began = time.monotonic()
        assert sender("test-worker") is True
        took = time.monotonic() - began
        wait_for(lambda: answering.finished, timeout=30)
    finally:
        answering.close()
    assert took < sender.deadline + 2 * sender.timeout + 1  # not the 40 s the drip takes
    assert answering.finished == [False]  # the sender stopped reading and hung up
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
    assert d.state == "pending" and d.last_error is not None
    assert d.last_error.startswith(error) and len(d.last_error) < 300


def test_a_receiver_dripping_its_headers_cannot_hold_a_send(client: TestClient) -> None:
    # The status line, then a header line every 0.3 s for a minute: no read ever waits
    # long enough to time out, and the headers come before any body is read. The send
    # held its worker thread (and the items behind it) until the receiver stopped.
    def drip(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        for _ in range(200):
            conn.sendall(b"X-Slow: 1\r\n")
            time.sleep(0.3)

    c = ctx(client)
    fid = add_feed(c.sessions)
    with raw_origin(drip, "/hook") as url:
        client.post(f"/feeds/{fid}/subscribers", json={"url": url}, headers=AUTH)
        c.pipeline.approve(review_item(client, fid), "tester")
        sender = outbound.Sender(c.settings, c.sessions, timeout=1.0)
        began = time.monotonic()
        assert sender("test-worker") is True
        took = time.monotonic() - began
    assert took < sender.deadline + 2 * sender.timeout + 1
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
    assert d.state == "pending" and d.last_error is not None


def test_a_receiver_answering_a_compression_bomb_cannot_fill_memory(client: TestClient) -> None:
    # 1 GiB of zeros gzipped twice, about 1 KB: httpx unpacked each layer of a chunk whole,
    # gigabytes before the 4 KiB of the answer that is read could be counted.
    inner = zlib.compressobj(9, zlib.DEFLATED, 31)
    layer = b"".join(inner.compress(b"\0" * (1 << 20)) for _ in range(1024)) + inner.flush()
    bomb = gzip.compress(layer, 9)

    def answer(conn: socket.socket) -> None:
        conn.sendall(
            b"HTTP/1.1 500 Internal Server Error\r\nContent-Encoding: gzip, gzip\r\n"
            + f"Content-Length: {len(bomb)}\r\n\r\n".encode()
            + bomb
        )

    c = ctx(client)
    fid = add_feed(c.sessions)
    with raw_origin(answer, "/hook") as url:
        client.post(f"/feeds/{fid}/subscribers", json={"url": url}, headers=AUTH)
        c.pipeline.approve(review_item(client, fid), "tester")
        sender = outbound.Sender(c.settings, c.sessions, timeout=5.0)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        assert sender("test-worker") is True
        grown_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    assert grown_kib < 100 * 1024
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
    assert d.state == "pending" and (d.last_error or "").startswith("HTTP 500")


def test_outbound_retries_on_its_own_schedule_of_hours(db_url: str, receiver: Receiver) -> None:
    """A receiver down for a minute must not lose the event: the defaults try 8 times,
    the first retry a minute later (the items' schedule gave up after ~30 s)."""
    from service.config import Settings

    defaults = Settings.model_fields
    assert defaults["outbound_max_attempts"].default == 8
    base = defaults["outbound_backoff_base"].default
    cap = defaults["outbound_backoff_max"].default
    # Without jitter: 1 + 2 + ... + 64 minutes between the 8 tries, about two hours.
    assert sum(min(cap, base * 2**k) for k in range(7)) == 127 * 60
    settings = make_settings(
        db_url, api_token=TOKEN, outbound_backoff_base=base, outbound_backoff_max=cap
    )
    with TestClient(create_app(settings, workers=0)) as client:
        c = ctx(client)
        fid = add_feed(c.sessions)
        client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH)
        receiver.statuses[:] = [500]
        c.pipeline.approve(review_item(client, fid), "tester")
        began = datetime.now(UTC)
        assert outbound.Sender(c.settings, c.sessions)("test-worker") is True
        with c.sessions() as s:
            d = s.scalars(select(t.OutboundDelivery)).one()
    assert (d.state, d.attempts, d.last_status) == ("pending", 1, 500)
    wait = (d.next_attempt_at.replace(tzinfo=UTC) - began).total_seconds()
    assert 0.75 * base - 1 <= wait <= 1.25 * base + 1  # a minute, give or take the jitter


def test_a_send_running_at_shutdown_is_handed_back_uncounted(client: TestClient) -> None:
    from service.worker import WorkerPool

    c = ctx(client)
    fid = add_feed(c.sessions)
    answering = _Answering(200, 100_000, 1, 0.4)  # a send that takes its whole deadline
    try:
        client.post(f"/feeds/{fid}/subscribers", json={"url": answering.url}, headers=AUTH)
        c.pipeline.approve(review_item(client, fid), "tester")
        sender = outbound.Sender(c.settings, c.sessions, timeout=5.0)
        pool = WorkerPool(c.pipeline, 1, extra_jobs=[sender])
        pool.start()

        def sending() -> bool:
            with c.sessions() as s:
                return s.scalars(select(t.OutboundDelivery)).one().state == "sending"

        wait_for(sending, timeout=30)
        assert pool.shutdown(0.5) is False  # the send outlives the grace period
    finally:
        answering.close()
    # The send ends (its late outcome refused: the job was handed back) within the test,
    # not after it, against a database gone.
    for th in pool.threads:
        th.join(30)
        assert not th.is_alive()
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
    assert (d.state, d.lease_owner, d.attempts) == ("pending", None, 0)


def test_a_send_claimed_as_the_pool_hands_back_its_jobs_is_handed_back_unsent(
    client: TestClient, receiver: Receiver
) -> None:
    """A send whose claim commits while the shutdown, past its grace, hands back the
    running sends: the shutdown saw none of that worker, and it went out from a process
    about to exit (or was cut off there, its lease held until it ran out)."""
    from service.worker import WorkerPool

    c = ctx(client)
    claimed, go = threading.Event(), threading.Event()
    held = threading.local()
    workers: list[threading.Thread] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        # The send's claim in the worker's thread: its commit is held back from the
        # worker for a moment (no project code replaced).
        take = "UPDATE outbound_deliveries SET state" in statement and "lease_owner" in statement
        if take and cursor.rowcount > 0 and not claimed.is_set():
            held.claim = threading.current_thread() in workers

    def after_commit(session: Any) -> None:
        if getattr(held, "claim", False):
            held.claim = False
            claimed.set()
            go.wait(30)

    fid = add_feed(c.sessions)
    client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH)
    engine = c.sessions.kw["bind"]
    event.listen(engine, "after_cursor_execute", seen)
    event.listen(c.sessions, "after_commit", after_commit)
    sender = outbound.Sender(c.settings, c.sessions, timeout=5.0)
    pool = WorkerPool(c.pipeline, 1, extra_jobs=[sender])
    workers.extend(pool.threads)
    pool.start()
    try:
        c.pipeline.approve(review_item(client, fid), "tester")
        assert claimed.wait(30), "the send's claim"
        assert pool.shutdown(0.2) is False
        go.set()
        for th in pool.threads:
            th.join(30)
            assert not th.is_alive()
    finally:
        go.set()
        event.remove(engine, "after_cursor_execute", seen)
        event.remove(c.sessions, "after_commit", after_commit)
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
    assert (d.state, d.lease_owner, d.attempts) == ("pending", None, 0)
    assert receiver.received == []


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


def test_events_go_out_while_every_worker_waits_on_the_model(
    db_url: str, receiver: Receiver
) -> None:
    """The sender has its own thread (PLAINFEED_OUTBOUND_CONCURRENCY): an event is sent
    while the only worker is minutes into an LLM call, not after it."""
    from tests.stub_llm import StubLLM

    with StubLLM() as stub:
        stub.gate = threading.Event()  # the model answers when the test is done
        settings = make_settings(
            db_url,
            api_token=TOKEN,
            engine="llm",
            openai_base_url=stub.url,
            openai_api_key="test-key",
            model="stub-model",
            llm_timeout=60,
            shutdown_grace=0.2,
            outbound_concurrency=1,
        )
        with TestClient(create_app(settings, workers=1)) as client:
            c = ctx(client)
            assert client.get("/readyz").json()["checks"]["senders"] == 1
            fid = add_feed(c.sessions)
            client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH)
            add_item(
                c.sessions, fid, title="Slow", text="A post of 3 lines.", state=ItemState.PENDING
            )
            c.notify()
            wait_for(lambda: len(stub.calls) == 1, timeout=10)  # the worker waits on it
            c.pipeline.approve(review_item(client, fid), "tester")
            c.notify()
            wait_for(lambda: len(receiver.received) == 1, timeout=10)
            with c.sessions() as s:
                slow = s.scalars(select(t.Item).where(t.Item.title == "Slow")).one()
            assert slow.state == "processing"  # the model has not answered yet
        # Shut down past its grace, the worker waits on the model still: it is answered,
        # and its result refused (the item was handed back), within the test.
        stub.gate.set()
        for th in c.pool.threads:
            th.join(30)
            assert not th.is_alive()


class _RetryAfter(RawReceiver):
    """A receiver answering 503 with the raw ``Retry-After`` header bytes given."""

    def __init__(self, value: bytes) -> None:
        def answer(handler: BaseHTTPRequestHandler) -> None:
            handler.wfile.write(
                b"HTTP/1.1 503 Busy\r\nContent-Length: 0\r\nRetry-After: " + value + b"\r\n\r\n"
            )

        super().__init__(answer)


@pytest.mark.parametrize("value", ["²".encode(), b"1e9", b"-5", b" "], ids=repr)
def test_a_retry_after_that_is_no_number_of_seconds_backs_off_as_usual(
    client: TestClient, value: bytes
) -> None:
    # "²".isdigit() is True and float("²") raises: the send crashed after the POST, its
    # row stayed "sending" until its lease ran out, and so on every attempt, for ever.
    c = ctx(client)
    fid = add_feed(c.sessions)
    answering = _RetryAfter(value)
    try:
        client.post(f"/feeds/{fid}/subscribers", json={"url": answering.url}, headers=AUTH)
        c.pipeline.approve(review_item(client, fid), "tester")
        sender = outbound.Sender(c.settings, c.sessions, timeout=2)
        assert sender("test-worker") is True
    finally:
        answering.close()
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
    assert (d.state, d.attempts, d.last_status) == ("pending", 1, 503)
    assert d.lease_owner is None and d.last_error is not None
    assert d.next_attempt_at is not None
    wait = (d.next_attempt_at - datetime.now(UTC)).total_seconds()
    assert wait <= c.settings.outbound_backoff_max


def test_a_send_whose_outcome_loses_its_connection_is_recorded_not_sent_again(
    pg_url: str,
) -> None:
    """The receiver took the event; the transaction that records it loses its connection
    (a failover, a pooler restarting). The outcome is recorded on a fresh connection: the
    error escaped the sender, the row stayed "sending" until its lease ran out, and the
    event was sent again."""
    from sqlalchemy import text

    from service.store.db import migrate
    from tests.conftest import end_lock_waiters, waiting_on_a_lock

    answer = threading.Event()
    got: list[bytes] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            got.append(self.rfile.read(int(self.headers.get("content-length", "0"))))
            answer.wait(30)
            self.send_response(204)
            self.send_header("content-length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    db = make_engine(pg_url)
    migrate(db)
    sessions = make_sessionmaker(db)
    settings = make_settings(pg_url, outbound_max_attempts=3)
    sender = outbound.Sender(settings, sessions)
    try:
        fid = add_feed(sessions)
        with transaction(sessions) as s:
            s.add(
                t.Subscriber(
                    url=f"http://127.0.0.1:{server.server_address[1]}/hook",
                    secret=outbound.new_secret(),
                    feed_id=fid,
                    events=[],
                )
            )
        from service.engines import get_engine
        from service.pipeline import Pipeline

        pipeline = Pipeline(
            settings, sessions, get_engine(settings), on_event=outbound.EventHook(settings)
        )
        pipeline.approve(review_item(sessions, fid), "tester")
        sending = threading.Thread(target=sender, args=("test-worker",))
        sending.start()
        wait_for(lambda: got, timeout=30)  # the POST is in, unanswered
        with db.connect() as holder:
            holder.execute(text("SELECT id FROM outbound_deliveries FOR UPDATE"))
            answer.set()
            wait_for(lambda: waiting_on_a_lock(db), timeout=30)
            end_lock_waiters(holder)
            holder.rollback()
        sending.join(30)
        with sessions() as s:
            d = s.scalars(select(t.OutboundDelivery)).one()
        assert (d.state, d.attempts, d.lease_owner) == ("delivered", 1, None), d.last_error
        assert len(got) == 1
    finally:
        sender.close()
        server.shutdown()
        server.server_close()
        db.dispose()


def test_a_send_whose_lease_lapsed_on_every_attempt_is_given_up(
    client: TestClient, receiver: Receiver
) -> None:
    """Like an item whose workers keep dying: a send whose sender died (killed, out of
    memory) on every attempt ends failed, counted against its subscriber, not sent again
    and again for ever."""
    c = ctx(client)
    fid = add_feed(c.sessions)
    sub = client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH).json()
    c.pipeline.approve(review_item(client, fid), "tester")
    with transaction(c.sessions) as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
        # The third attempt's sender died mid-send: its lease ran out (max_attempts=3).
        d.state, d.attempts, d.lease_owner = "sending", 3, "dead-worker"
        d.lease_until = datetime(2020, 1, 1, tzinfo=UTC)
    sender = outbound.Sender(c.settings, c.sessions)
    try:
        assert sender("test-worker") is True
    finally:
        sender.close()
    assert receiver.received == []
    entry = client.get(f"/subscribers/{sub['id']}/deliveries", headers=AUTH).json()["items"][0]
    assert (entry["state"], entry["attempts"]) == ("failed", 4)
    assert "lease expired" in entry["last_error"]
    with c.sessions() as s:
        assert s.get(t.Subscriber, sub["id"]).failures == 1  # type: ignore[union-attr]


def test_a_send_that_crashes_records_its_attempt(client: TestClient, receiver: Receiver) -> None:
    """An unexpected error in a send (here a secret stored malformed, which signing
    refuses) is an attempt: retried with backoff, then failed; escaping, it left the row
    "sending" until its lease ran out, and every attempt after crashed the same way."""
    c = ctx(client)
    fid = add_feed(c.sessions)
    sub = client.post(f"/feeds/{fid}/subscribers", json={"url": receiver.url}, headers=AUTH).json()
    c.pipeline.approve(review_item(client, fid), "tester")
    with transaction(c.sessions) as s:
        s.get(t.Subscriber, sub["id"]).secret = "plain-password"  # type: ignore[union-attr]
    sender = outbound.Sender(c.settings, c.sessions)
    try:
        assert sender("test-worker") is True
        with c.sessions() as s:
            d = s.scalars(select(t.OutboundDelivery)).one()
            assert (d.state, d.attempts, d.lease_owner) == ("pending", 1, None)
            assert "InputError" in (d.last_error or "")
        with transaction(c.sessions) as s:  # its backoff over, twice
            s.execute(
                update(t.OutboundDelivery).values(
                    attempts=2, next_attempt_at=datetime(2020, 1, 1, tzinfo=UTC)
                )
            )
        assert sender("test-worker") is True
    finally:
        sender.close()
    assert receiver.received == []
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
        assert (d.state, d.attempts, d.lease_owner) == ("failed", 3, None)


# --- the deadline covers resolving the subscriber's host name -----------


class _SlowResolver:
    """A resolver (the Sender's parameter) that answers every name with loopback after
    ``delay`` seconds, or, with no delay, once ``release`` is set (at most 30 s)."""

    def __init__(self, delay: float | None = None) -> None:
        self.delay = delay
        self.release = threading.Event()
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        if self.delay is None:
            self.release.wait(30)
        else:
            time.sleep(self.delay)
        return ["127.0.0.1"]


@pytest.mark.parametrize("private", [True, False], ids=["by-the-transport", "by-the-guard"])
def test_a_slow_resolver_cannot_hold_a_send_past_its_deadline(
    client: TestClient, receiver: Receiver, private: bool
) -> None:
    # The deadline started after the name was resolved: a resolver slower than the lease
    # let a second worker send the event again (the same webhook-id). Where private URLs
    # are allowed the transport resolves the name as it connects; elsewhere the SSRF
    # guard resolves it to check the address first.
    c = ctx(client)
    fid = add_feed(c.sessions)
    url = f"http://hooks.test:{receiver.port}/hook"
    client.post(f"/feeds/{fid}/subscribers", json={"url": url}, headers=AUTH)
    c.pipeline.approve(review_item(client, fid), "tester")
    settings = c.settings.model_copy(update={"allow_private_urls": private})
    resolver = _SlowResolver()
    sender = outbound.Sender(settings, c.sessions, timeout=0.5, resolver=resolver)
    try:
        began = time.monotonic()
        assert sender("test-worker") is True
        took = time.monotonic() - began
    finally:
        resolver.release.set()
        sender.close()
    assert resolver.asked == ["hooks.test"]
    assert took < sender.deadline + 1  # not the 30 s the resolver takes
    assert receiver.received == []
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
    assert (d.state, d.attempts, d.last_status) == ("pending", 1, None)
    assert d.last_error is not None and "hooks.test" in d.last_error
    assert "time limit" in d.last_error


def test_the_deadline_of_a_send_runs_from_before_its_resolution(client: TestClient) -> None:
    # A resolution and an answer each within the deadline, together past it: the send
    # ends by its deadline. Each header line comes within a read's timeout (1 s).
    def headers_for_two_seconds(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\n")
        for _ in range(8):
            conn.sendall(b"X-Slow: 1\r\n")
            time.sleep(0.25)
        conn.sendall(b"Content-Length: 0\r\n\r\n")

    c = ctx(client)
    fid = add_feed(c.sessions)
    with raw_origin(headers_for_two_seconds, "/hook") as loopback_url:
        url = loopback_url.replace("127.0.0.1", "hooks.test")
        client.post(f"/feeds/{fid}/subscribers", json={"url": url}, headers=AUTH)
        c.pipeline.approve(review_item(client, fid), "tester")
        sender = outbound.Sender(
            c.settings, c.sessions, timeout=1.0, resolver=_SlowResolver(delay=2.0)
        )
        began = time.monotonic()
        assert sender("test-worker") is True
        took = time.monotonic() - began
        sender.close()
    assert took < sender.deadline + 0.5  # 3 s: not the 4 s the two take
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
    assert d.state == "pending" and (d.last_error or "").startswith("ReadTimeout")


def test_a_slow_resolution_within_the_deadline_delivers(
    client: TestClient, receiver: Receiver
) -> None:
    c = ctx(client)
    fid = add_feed(c.sessions)
    url = f"http://hooks.test:{receiver.port}/hook"
    client.post(f"/feeds/{fid}/subscribers", json={"url": url}, headers=AUTH)
    c.pipeline.approve(review_item(client, fid), "tester")
    sender = outbound.Sender(c.settings, c.sessions, timeout=1.0, resolver=_SlowResolver(0.5))
    assert sender("test-worker") is True
    sender.close()
    assert len(receiver.received) == 1
    assert receiver.received[0].headers["host"] == f"hooks.test:{receiver.port}"
    with c.sessions() as s:
        d = s.scalars(select(t.OutboundDelivery)).one()
    assert (d.state, d.last_status) == ("delivered", 204)
