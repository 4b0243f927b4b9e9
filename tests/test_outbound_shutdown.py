"""Outbound webhooks at shutdown: sends running or claimed as the worker pool stops are
handed back, and events go out while every worker waits on the model."""

from __future__ import annotations

import threading
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event, select

from service import outbound
from service.api.app import create_app
from service.models import ItemState
from service.store import tables as t
from tests.conftest import make_settings, wait_for
from tests.outbound_app import AUTH, TOKEN, approved_for, ctx, review_item
from tests.receivers import Answering, Receiver
from tests.seed_db import add_feed, add_item


def test_a_send_running_at_shutdown_is_handed_back_uncounted(client: TestClient) -> None:
    from service.worker import WorkerPool

    c = ctx(client)
    fid = add_feed(c.sessions)
    answering = Answering(200, 100_000, 1, 0.4)  # a send that takes its whole deadline
    try:
        approved_for(client, fid, answering.url)
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
