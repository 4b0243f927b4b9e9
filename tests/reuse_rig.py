"""The explainer-reuse rig: the pipeline and a worker against a real database and the stub
model server, and a delivery stored as the webhook stores it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from service.engines import get_engine
from service.pipeline import Pipeline
from service.store import tables as t
from service.store.db import make_sessionmaker
from service.worker import Worker
from tests.durability_helpers import add_delivery
from tests.procs import rss_document
from tests.stub_llm import StubLLM, settings_for


@dataclass
class Rig:
    stub: StubLLM
    sessions: sessionmaker[Session]
    pipeline: Pipeline
    worker: Worker

    def deliver(self, feed_id: int, body: bytes, tag: str) -> None:
        """A delivery for ``feed_id`` as the webhook stores it, then run the worker dry."""
        store_delivery(self, feed_id, body, tag)
        while self.worker.run_once():
            pass

    def items(self) -> list[t.Item]:
        with self.sessions() as s:
            return list(s.scalars(select(t.Item).order_by(t.Item.id)))

    def explainers(self) -> list[t.Explainer]:
        with self.sessions() as s:
            return list(s.scalars(select(t.Explainer).order_by(t.Explainer.id)))

    def llm_call_rows(self) -> int:
        with self.sessions() as s:
            return len(list(s.scalars(select(t.LLMCall.id))))


@contextmanager
def rig(db: Engine, **overrides: Any) -> Iterator[Rig]:
    with StubLLM() as stub:
        # poll_interval 0: the worker looks for deliveries before every item.
        settings = settings_for(stub, database_url=str(db.url), poll_interval=0, **overrides)
        sessions = make_sessionmaker(db)
        pipeline = Pipeline(settings, sessions, get_engine(settings))
        # Closed on the way out: its heartbeat thread ends before the database goes.
        with Worker(pipeline, stop=threading.Event()) as worker:
            yield Rig(stub, sessions, pipeline, worker)


def feed_doc() -> bytes:
    """One digit-free post; its link on loopback, which these settings refuse to fetch
    (the excerpt is explained, with no network)."""
    return rss_document(0, 1).replace(b"https://example.org/posts", b"http://127.0.0.1:9/posts")


def store_delivery(r: Rig, feed_id: int, body: bytes, tag: str) -> None:
    """A delivery for ``feed_id`` as the webhook stores it (received, in the queue)."""
    add_delivery(r.sessions, body, external_id=f"test:{tag}", feed_id=feed_id)
