"""A worker whose item lease was lost stops its work at the next model call: the
result would be refused (fenced by the lease owner), so every call after is paid for
nothing. The calls already made are counted all the same."""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, select, update

from service.engines import get_engine
from service.pipeline import Pipeline
from service.store import tables as t
from service.store.db import make_sessionmaker, transaction
from service.worker import Worker
from tests.procs import rss_document, wait_until
from tests.stub_llm import Reply, StubLLM, default_explainer, settings_for
from tests.test_durability import store_delivery


def test_a_worker_that_lost_its_item_lease_makes_no_more_model_calls(
    db: Engine, caplog: pytest.LogCaptureFixture
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
                            lease_owner="other-worker",
                            lease_until=datetime.now(UTC) + timedelta(minutes=5),
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
            assert (item.state, item.lease_owner) == ("processing", "other-worker")
            assert s.scalars(select(t.Explainer)).all() == []
            spent = s.scalars(select(t.LLMCall)).all()
            assert [(c.purpose, c.calls) for c in spent] == [("explain-lease-lost", 1)]
