"""One explainer per post: the same post under two feeds is explained once.

The pipeline and a worker against real SQLite and PostgreSQL, the llm engine against the
stub model server, whose call log counts every request the model would be paid for."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from prometheus_client import REGISTRY
from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from service.api.ops import stats
from service.engines import get_engine
from service.pipeline import Pipeline
from service.store import tables as t
from service.store.db import make_sessionmaker, transaction
from service.worker import Worker
from tests.procs import rss_document
from tests.seed_db import add_feed
from tests.stub_llm import Reply, StubLLM, settings_for


@dataclass
class Rig:
    stub: StubLLM
    sessions: sessionmaker[Session]
    pipeline: Pipeline
    worker: Worker

    def deliver(self, feed_id: int, body: bytes, tag: str) -> None:
        """A delivery for ``feed_id`` as the webhook stores it, then run the worker dry."""
        with transaction(self.sessions) as s:
            s.add(
                t.Delivery(
                    external_id=f"test:{tag}",
                    feed_id=feed_id,
                    sender="raw",
                    content_type="application/rss+xml",
                    headers={},
                    body=body,
                    state="received",
                )
            )
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
        yield Rig(stub, sessions, pipeline, Worker(pipeline, stop=threading.Event()))


def feed_doc() -> bytes:
    """One digit-free post; its link on loopback, which these settings refuse to fetch
    (the excerpt is explained, with no network)."""
    return rss_document(0, 1).replace(b"https://example.org/posts", b"http://127.0.0.1:9/posts")


def reused_total() -> float:
    return REGISTRY.get_sample_value("plainfeed_explainers_reused_total") or 0.0


def test_the_same_post_under_two_feeds_is_explained_once(db: Engine) -> None:
    with rig(db) as r:
        a = add_feed(r.sessions, "https://a.example/feed")
        b = add_feed(r.sessions, "https://b.example/feed")
        doc = feed_doc()
        r.deliver(a, doc, "a")
        before = reused_total()
        r.deliver(b, doc, "b")
        first, second = r.items()
        assert (first.feed_id, second.feed_id) == (a, b)
        assert first.content_hash == second.content_hash
        assert first.state == second.state == "published"
        assert second.published_at is not None
        assert len(r.stub.calls) == 1  # one model request for the two items
        assert r.llm_call_rows() == 1  # and one billed row
        written, copy = r.explainers()
        assert (written.item_id, copy.item_id) == (first.id, second.id)
        assert copy.reused_from == written.id and written.reused_from is None
        assert copy.body == written.body and copy.check_ok
        assert (copy.prompt_version, copy.model) == (written.prompt_version, written.model)
        assert copy.llm_calls == copy.prompt_tokens == copy.completion_tokens == 0
        assert copy.cost_usd == 0.0 and written.llm_calls == 1
        assert copy.check is not None  # checked again, report stored with the copy
        assert reused_total() == before + 1
        # A third feed, and the same post re-added: still no further call.
        c = add_feed(r.sessions, "https://c.example/feed")
        r.deliver(c, doc, "c")
        assert [i.state for i in r.items()] == ["published"] * 3
        assert len(r.stub.calls) == 1
        assert [e.reused_from for e in r.explainers()] == [None, written.id, written.id]
        with r.sessions() as s:  # GET /stats counts them
            assert stats(s, days=1)["explainers_reused"] == 2


def test_a_feed_with_another_audience_or_language_gets_its_own_explainer(db: Engine) -> None:
    with rig(db) as r:
        plain = add_feed(r.sessions, "https://a.example/feed")
        experts = add_feed(r.sessions, "https://b.example/feed", audience="compiler engineers")
        french = add_feed(r.sessions, "https://c.example/feed", language="French")
        doc = feed_doc()
        r.deliver(plain, doc, "plain")
        r.deliver(experts, doc, "experts")
        r.deliver(french, doc, "french")
        assert [i.state for i in r.items()] == ["published"] * 3
        assert len(r.stub.calls) == 3
        prompts = [str(c["messages"]) for c in r.stub.calls]
        assert "compiler engineers" in prompts[1] and "French" in prompts[2]
        assert [e.reused_from for e in r.explainers()] == [None, None, None]
        keys = {e.inputs_key for e in r.explainers()}
        assert len(keys) == 3 and None not in keys


def test_an_explainer_held_for_review_is_not_reused(db: Engine) -> None:
    """Its twin is explained anew, as it would be alone: a held explainer is a failed
    gate, and a reviewer's retry must get a new one, not the same one copied back."""
    with rig(db, repair_rounds=0) as r:
        a = add_feed(r.sessions, "https://a.example/feed")
        b = add_feed(r.sessions, "https://b.example/feed")
        doc = feed_doc()
        made_up = {
            "title": "Note: a faster parser",
            "sections": [
                {"heading": "What changed", "paragraphs": ["The parser is 42% faster."]},
                {"heading": "What comes next", "paragraphs": ["More work is planned."]},
            ],
        }
        r.stub.push(Reply.explainer(made_up))
        r.deliver(a, doc, "a")
        assert r.items()[0].state == "needs_review"
        r.deliver(b, doc, "b")  # the stub's default answer: no number, passes
        first, second = r.items()
        assert (first.state, second.state) == ("needs_review", "published")
        assert len(r.stub.calls) == 2
        assert [e.reused_from for e in r.explainers()] == [None, None]
        # The published one is reused by the next feed; the held one still is not.
        c = add_feed(r.sessions, "https://c.example/feed")
        r.deliver(c, doc, "c")
        assert r.items()[2].state == "published" and len(r.stub.calls) == 2
        assert r.explainers()[2].reused_from == r.explainers()[1].id


def test_another_title_for_the_same_text_is_explained_anew(db: Engine) -> None:
    # The title is written into the prompt (and read by the check): not the same inputs.
    with rig(db) as r:
        a = add_feed(r.sessions, "https://a.example/feed")
        b = add_feed(r.sessions, "https://b.example/feed")
        doc = feed_doc()
        r.deliver(a, doc, "a")
        r.deliver(b, doc.replace(b"<title>Note", b"<title>Renamed note"), "b")
        first, second = r.items()
        assert first.content_hash == second.content_hash and first.title != second.title
        assert len(r.stub.calls) == 2
