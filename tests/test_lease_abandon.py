"""A worker whose item lease was lost stops its work at once: the model call in flight
ends (its connection closed), a retry's backoff too, and no later step runs (the check,
a repair, the store): the result would be refused (fenced by the lease owner), so every
call after is paid for nothing. The calls already made are counted all the same, and
the new holder of the lease explains the item. Real queue in the database, real workers
and the stub LLM server on loopback."""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine, select, update

from service import abandon, queue
from service.clean import article_from_document
from service.engines import get_engine
from service.engines.base import ExplainOptions
from service.errors import LeaseLost
from service.gate import explain_and_check
from service.pipeline import Pipeline
from service.store import tables as t
from service.store.db import make_sessionmaker, transaction
from service.worker import Worker
from tests.conftest import make_settings
from tests.durability_helpers import store_delivery
from tests.procs import rss_document, wait_until
from tests.reuse_rig import feed_doc
from tests.reuse_rig import rig as reuse_rig
from tests.reuse_rig import store_delivery as store_for_feed
from tests.seed_db import add_feed
from tests.stub_llm import Reply, StubLLM, default_explainer, settings_for

# How the item stands once taken over: its new holder works on it, or has finished it
# already (this worker's heartbeat could not reach the database for a lease's time). Found
# finished, the lease was taken for this worker's own finish: the job went on, a repair
# call paid for a result the store refuses.
TAKEN_OVER = {
    "held": {"lease_owner": "other-worker"},
    "finished": {"state": "published", "lease_owner": None, "attempts": t.Item.attempts + 1},
}


@pytest.mark.parametrize("taken", sorted(TAKEN_OVER))
def test_a_worker_that_lost_its_item_lease_makes_no_more_model_calls(
    db: Engine, caplog: pytest.LogCaptureFixture, taken: str
) -> None:
    caplog.set_level(logging.WARNING)
    sessions = make_sessionmaker(db)
    with StubLLM() as stub:
        # The first answer holds a number the post does not: a repair call would follow.
        made_up = default_explainer("")
        made_up["sections"][0]["paragraphs"] = ["The change cut parsing time by 37 percent."]
        stub.push(Reply.explainer(made_up))
        settings = settings_for(stub, database_url=str(db.url), lease_seconds=2)
        pipeline = Pipeline(settings, sessions, get_engine(settings))
        store_delivery(db, rss_document(0, 1))
        with Worker(pipeline, stop=threading.Event()) as worker:
            assert worker.run_once()  # the delivery: one item, pending
            stub.gate = threading.Event()  # the explain call waits until the test lets it go
            runner = threading.Thread(target=worker.run_once, daemon=True)
            runner.start()
            try:
                wait_until(lambda: len(stub.calls) == 1, 30, "the explain call")
                # Another worker takes the item over (its lease ran out meanwhile).
                with transaction(sessions) as s:
                    s.execute(
                        update(t.Item).values(
                            lease_until=datetime.now(UTC) + timedelta(minutes=5),
                            **TAKEN_OVER[taken],
                        )
                    )
                wait_until(lambda: "lease lost" in caplog.text, 30, "the heartbeat's renewal")
            finally:
                stub.gate.set()
            runner.join(30)
            assert not runner.is_alive()
        assert len(stub.calls) == 1  # no repair call for a result that would be refused
        with sessions() as s:
            item = s.scalars(select(t.Item)).one()
            state = "processing" if taken == "held" else "published"
            assert (item.state, item.lease_owner) == (state, TAKEN_OVER[taken]["lease_owner"])
            assert s.scalars(select(t.Explainer)).all() == []
            spent = s.scalars(select(t.LLMCall)).all()
            assert [(c.purpose, c.calls) for c in spent] == [("explain-lease-lost", 1)]


def test_a_model_call_in_flight_ends_with_the_lease_and_the_new_holder_explains(
    db: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    sessions = make_sessionmaker(db)
    with StubLLM() as stub:
        settings = settings_for(stub, database_url=str(db.url), lease_seconds=2, llm_timeout=60.0)
        pipeline = Pipeline(settings, sessions, get_engine(settings))
        store_delivery(db, rss_document(0, 1))
        stop = threading.Event()
        with Worker(pipeline, stop=stop) as first, Worker(pipeline, stop=stop) as second:
            assert first.run_once()  # the delivery: one item, pending
            stub.hold()  # every answer waits until the test lets it go
            runner = threading.Thread(target=first.run_once, daemon=True)
            runner.start()

            def take_over() -> None:
                # The first worker's lease runs out (as when its process stalls); the
                # second claims the item. Its heartbeat may renew before the claim:
                # then the lease runs out again.
                while True:
                    with transaction(sessions) as s:
                        s.execute(
                            update(t.Item)
                            .where(t.Item.lease_owner == first.name)
                            .values(lease_until=datetime.now(UTC) - timedelta(seconds=1))
                        )
                    if second._one(queue.ITEMS):
                        return

            taker = threading.Thread(target=take_over, daemon=True)
            try:
                wait_until(lambda: len(stub.calls) == 1, 30, "the first worker's call")
                taker.start()
                wait_until(lambda: len(stub.calls) == 2, 30, "the new holder's call")
                # The first worker ends its call while the endpoint still holds it: it
                # waited for the answer until then, and only then stopped.
                runner.join(30)  # a bound, not a measure (the machine may be loaded)
                assert not runner.is_alive(), "the call in flight outlived the lease"
                assert "lease lost, result discarded" in caplog.text
            finally:
                stub.release()
            taker.join(30)
            assert not taker.is_alive()
        with sessions() as s:
            item = s.scalars(select(t.Item)).one()
            assert item.state == "published" and item.lease_owner is None
            assert len(s.scalars(select(t.Explainer)).all()) == 1
            spent = sorted((c.purpose, c.calls) for c in s.scalars(select(t.LLMCall)))
            # The call abandoned was taken by the endpoint: counted, its tokens unknown.
            assert spent == [("explain", 1), ("explain-lease-lost", 1)]


def test_a_retrys_backoff_ends_with_the_lease(db: Engine, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    sessions = make_sessionmaker(db)
    with StubLLM() as stub:
        # The endpoint asks for a minute's wait, and the settings allow it.
        stub.push(Reply.rate_limited("60"))
        settings = settings_for(
            stub, database_url=str(db.url), lease_seconds=2, llm_retry_after_max=60.0
        )
        pipeline = Pipeline(settings, sessions, get_engine(settings))
        store_delivery(db, rss_document(0, 1))
        with Worker(pipeline, stop=threading.Event()) as worker:
            assert worker.run_once()  # the delivery
            runner = threading.Thread(target=worker.run_once, daemon=True)
            runner.start()
            wait_until(lambda: len(stub.calls) == 1, 30, "the call answered 429")
            with transaction(sessions) as s:
                s.execute(
                    update(t.Item).values(
                        lease_owner="other-worker",
                        lease_until=datetime.now(UTC) + timedelta(minutes=5),
                    )
                )
            runner.join(15)  # the heartbeat's next beat, not the minute asked for
            assert not runner.is_alive(), "the backoff outlived the lease"
        assert len(stub.calls) == 1 and "lease lost, result discarded" in caplog.text
        with sessions() as s:
            item = s.scalars(select(t.Item)).one()
            assert (item.state, item.lease_owner) == ("processing", "other-worker")
            assert s.scalars(select(t.LLMCall)).all() == []  # the 429 is not billed


def test_an_explain_that_outlived_its_lease_is_not_checked(tmp_path: Path) -> None:
    # The gate looks at the lease between its steps: an explain that ended after the
    # lease was lost goes neither to the number check nor to a repair, and the error
    # carries what the explain spent, for the caller to record.
    engine = get_engine(make_settings(f"sqlite:///{tmp_path / 'unused.db'}", engine="extractive"))
    article = article_from_document(
        "<h1>Widgets</h1><p>The parser of the widget library got faster when two layers "
        "of indirection were removed.</p>",
        kind="html",
    )
    lost = threading.Event()
    lost.set()
    with abandon.watching(lost), pytest.raises(LeaseLost, match="number check") as raised:
        explain_and_check(engine, article, ExplainOptions(), repair_rounds=2)
    usage = raised.value.extra["usage"]
    assert usage.calls == 0 and raised.value.extra["cost_usd"] == 0.0


def test_a_copy_of_another_items_explainer_is_not_stored_once_the_lease_is_lost(
    db: Engine,
) -> None:
    # The same post under a second feed copies the first item's explainer (no model
    # call): the lease is looked at before the copy is stored, as before any store.
    with reuse_rig(db) as r:
        first, second = (add_feed(r.sessions, f"https://{n}.example/feed") for n in "ab")
        r.deliver(first, feed_doc(), "a")
        store_for_feed(r, second, feed_doc(), "b")
        assert r.worker._one(queue.DELIVERIES)  # the second item, pending
        with transaction(r.sessions) as s:
            (claim,) = queue.claim(s, queue.ITEMS, "worker-1", 60)
        lost = threading.Event()
        lost.set()
        with abandon.watching(lost), pytest.raises(LeaseLost, match="storing"):
            r.pipeline.process_item(claim, "worker-1")
        assert len(r.explainers()) == 1 and len(r.stub.calls) == 1
        assert [i.state for i in r.items()] == ["published", "processing"]
