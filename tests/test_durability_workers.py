"""Durability of the workers and their pool in process: a requeued item's stored explainer
reused, extra jobs given a turn, an idle worker that does not spin, no heartbeat or lease
left behind by a worker closed or a pool shut down."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from sqlalchemy import Engine, event, func, select

from service.engines import get_engine
from service.pipeline import Pipeline
from service.store import tables as t
from service.store.db import make_sessionmaker
from service.worker import Worker, WorkerPool
from tests.durability_helpers import explainers_per_item, items, states, store_delivery
from tests.procs import rss_document, wait_until
from tests.stub_llm import StubLLM, settings_for

pytestmark = pytest.mark.slow


def test_a_requeued_item_reuses_its_stored_explainer_instead_of_calling_the_model(
    db: Engine,
) -> None:
    with StubLLM() as stub:
        settings = settings_for(stub, database_url=str(db.url), poll_interval=0.05)
        pipeline = Pipeline(settings, make_sessionmaker(db), get_engine(settings))
        with Worker(pipeline, stop=threading.Event()) as worker:
            store_delivery(db, rss_document(0, 1))
            while worker.run_once():
                pass
            (item,) = items(db)
            assert item.state == "published" and len(stub.calls) == 1

            pipeline.retry(item.id)  # a person (or a replayed job) asks for it again
            assert items(db)[0].state == "pending"
            while worker.run_once():
                pass
            assert items(db)[0].state == "published"
            assert len(stub.calls) == 1  # the (content, prompt, model) effect happened once
            assert explainers_per_item(db) == {item.id: 1}


@pytest.mark.parametrize("poll_interval", [0.0, 3600.0])
def test_extra_jobs_get_a_turn_while_items_are_still_waiting(
    db: Engine, poll_interval: float
) -> None:
    """Outbound events must not wait for a backlog of items to drain: while items flow,
    the extra jobs are tried once per poll interval (and the first time at once)."""
    with StubLLM() as stub:
        settings = settings_for(stub, database_url=str(db.url), poll_interval=poll_interval)
        turns: list[int] = []

        def extra(owner: str) -> bool:
            turns.append(len(stub.calls))  # how many items were explained by then
            return False  # nothing to send: the worker goes on to an item

        pipeline = Pipeline(settings, make_sessionmaker(db), get_engine(settings))
        with Worker(pipeline, stop=threading.Event(), extra_jobs=[extra]) as worker:
            store_delivery(db, rss_document(0, 3))
            assert worker.run_once()  # the delivery: three pending items
            for _ in range(3):
                assert worker.run_once()
            assert states(db) == {"published": 3}
            # Tried before the first item was explained, not only once the items ran out;
            # with a long interval, once in all; with none, before every item.
            assert turns == ([0] if poll_interval else [0, 1, 2])


def test_an_idle_worker_does_not_spin_on_the_database(db: Engine) -> None:
    """A poll interval of 0 is "look at deliveries before every item", not "claim in a
    loop while idle": an idle worker waits at least IDLE_FLOOR between empty looks."""
    statements: list[str] = []

    def count(*args: Any) -> None:
        statements.append(args[2])

    with StubLLM() as stub:
        settings = settings_for(stub, database_url=str(db.url), poll_interval=0.0)
        pipeline = Pipeline(settings, make_sessionmaker(db), get_engine(settings))
        stop = threading.Event()
        worker = Worker(pipeline, stop=stop)
        event.listen(db, "before_cursor_execute", count)
        thread = threading.Thread(target=worker.run, daemon=True)
        try:
            thread.start()
            # The second counted from the worker's first look: on a busy machine the thread
            # may not have run at all in a second from its start (no turn counted).
            wait_until(lambda: statements, 30, "the worker's first look")
            stop.wait(1.0)
        finally:
            stop.set()
            worker.wake.set()
            thread.join(5)
            event.remove(db, "before_cursor_execute", count)
    # About 20 idle turns in a second at 50 ms, each a few statements (the loop without
    # the floor ran thousands).
    turns = sum(1 for sql in statements if "UPDATE" in sql or "SELECT" in sql)
    assert 0 < turns < 400, turns
    assert not thread.is_alive()


def heartbeats() -> set[threading.Thread]:
    return {th for th in threading.enumerate() if th.name == "heartbeat" and th.is_alive()}


def test_a_closed_worker_leaves_no_heartbeat_thread_and_takes_no_job(db: Engine) -> None:
    """A test (or a tool) that drives run_once closes the worker: its heartbeat thread
    outlived the test and, beating against a dropped database, logged "lease renewal
    failed" into a closed log ("--- Logging error ---" in CI)."""
    before = heartbeats()
    with StubLLM() as stub:
        # The shortest lease: a beat every half second.
        settings = settings_for(stub, database_url=str(db.url), lease_seconds=2)
        pipeline = Pipeline(settings, make_sessionmaker(db), get_engine(settings))
        with Worker(pipeline, stop=threading.Event()) as worker:
            store_delivery(db, rss_document(0, 1))
            assert worker.run_once()  # the delivery, under the heartbeat
            assert worker.heartbeat.alive and len(heartbeats() - before) == 1
        assert not worker.heartbeat.alive
        assert heartbeats() == before
        worker.close()  # again: nothing to do
        # Closed, it claims nothing: a job taken now would run with no lease renewal.
        with pytest.raises(RuntimeError, match="closed"):
            worker.run_once()
        assert states(db) == {"pending": 1}

        # run() closes its worker when it stops.
        stop = threading.Event()
        runner = Worker(pipeline, stop=stop)
        thread = threading.Thread(target=runner.run, daemon=True)
        thread.start()
        wait_until(lambda: states(db) == {"published": 1}, 30, "the item published")
        stop.set()
        runner.wake.set()
        thread.join(10)
        assert not thread.is_alive() and runner.heartbeat.closed
        assert heartbeats() == before


def test_a_pool_shut_down_past_its_grace_stops_renewing_the_jobs_it_handed_back(
    db: Engine,
) -> None:
    """A job still running after the grace period is handed back to the queue; its
    worker's heartbeat is closed with it (it renewed a lease given away, "lease lost"
    each beat, until the job ended)."""
    with StubLLM() as stub:
        settings = settings_for(stub, database_url=str(db.url), poll_interval=0.05, lease_seconds=2)
        pipeline = Pipeline(settings, make_sessionmaker(db), get_engine(settings))
        store_delivery(db, rss_document(0, 1))
        stub.gate = threading.Event()  # the model call waits until the test lets it go
        pool = WorkerPool(pipeline, 1)
        pool.start()
        try:
            wait_until(lambda: len(stub.calls) == 1, 30, "the model call")
            (worker,) = pool.workers
            assert worker.heartbeat.alive
            assert pool.shutdown(0.2) is False  # still in its model call
            assert not worker.heartbeat.alive
            (item,) = items(db)
            assert (item.state, item.lease_owner) == ("pending", None)  # handed back
            # The thread's job ends after the release: its result is refused, not stored.
            stub.gate.set()
            for th in pool.threads:
                th.join(30)
            (item,) = items(db)
            assert (item.state, item.lease_owner) == ("pending", None)
            with make_sessionmaker(db)() as s:
                assert s.scalar(select(func.count()).select_from(t.Explainer)) == 0
        finally:
            stub.gate.set()
            for th in pool.threads:
                th.join(30)


def test_a_job_claimed_as_the_pool_hands_back_its_jobs_is_handed_back_too(db: Engine) -> None:
    """A worker whose claim commits while the shutdown, past its grace, hands back the
    running jobs: the shutdown saw no job of it, and the job ran on unrenewed in a
    process about to exit, its lease held until it ran out. Handed back at once now."""
    claimed, go = threading.Event(), threading.Event()
    held = threading.local()
    worker_thread: list[threading.Thread] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        # The item's claim, in the worker's thread (no project code is replaced: the
        # commit it makes is held back from the worker for a moment).
        take = "UPDATE items SET state" in statement and "lease_owner" in statement
        if take and cursor.rowcount > 0 and not claimed.is_set():
            held.claim = threading.current_thread() in worker_thread

    def after_commit(session: Any) -> None:
        if getattr(held, "claim", False):
            held.claim = False
            claimed.set()
            go.wait(30)

    with StubLLM() as stub:
        settings = settings_for(stub, database_url=str(db.url), poll_interval=0.05)
        sessions = make_sessionmaker(db)
        pipeline = Pipeline(settings, sessions, get_engine(settings))
        event.listen(db, "after_cursor_execute", seen)
        event.listen(sessions, "after_commit", after_commit)
        pool = WorkerPool(pipeline, 1)
        worker_thread.extend(pool.threads)
        pool.start()
        try:
            store_delivery(db, rss_document(0, 1))
            assert claimed.wait(30), "the item's claim"
            (worker,) = pool.workers
            assert worker.current is None  # committed, not yet known to the worker
            assert pool.shutdown(0.2) is False
            go.set()
            pool.threads[0].join(30)
            assert not pool.threads[0].is_alive()
            (item,) = items(db)
            assert (item.state, item.lease_owner, item.attempts) == ("pending", None, 0)
            assert stub.calls == []  # not run
        finally:
            go.set()
            event.remove(db, "after_cursor_execute", seen)
            for th in pool.threads:
                th.join(30)
