"""Outbound webhooks: failed sends retried with backoff, given up after their attempts,
and recorded once whatever befalls the sender."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select, update

from service import outbound
from service.api.app import create_app
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker, transaction
from tests.conftest import api_client, make_settings, wait_for, waiting_on_a_lock
from tests.outbound_app import AUTH, TOKEN, approved_for, ctx, review_item, send_all
from tests.receivers import RawReceiver, Receiver, independent_check
from tests.seed_db import add_feed, add_item


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
        approved_for(client, fid, answering.url)
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
