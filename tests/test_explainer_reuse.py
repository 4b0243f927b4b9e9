"""One explainer per post: the same post under two feeds is explained once.

The pipeline and a worker against real SQLite and PostgreSQL, the llm engine against the
stub model server, whose call log counts every request the model would be paid for."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

from prometheus_client import REGISTRY
from sqlalchemy import Engine, func, select, update

from service import queue
from service.api.ops import stats
from service.errors import LeaseLost
from service.models import ItemState
from service.pipeline.claims import WAITING
from service.store import tables as t
from service.store.db import transaction
from tests.conftest import wait_for
from tests.reuse_rig import Rig, feed_doc, rig, store_delivery
from tests.seed_db import add_feed
from tests.stub_llm import Reply


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


def test_an_explainer_held_for_review_is_copied_as_held(db: Engine) -> None:
    """The same inputs would most likely be held again: the twin gets a copy of the held
    explainer, held too and awaiting its own review, without a second model call
    (before, each feed paid for the post again). A reviewer's retry of the copy gets a
    new explainer, not the held one copied back."""
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
        r.deliver(b, doc, "b")
        first, second = r.items()
        assert (first.state, second.state) == ("needs_review", "needs_review")
        assert len(r.stub.calls) == 1
        held, copy = r.explainers()
        assert copy.reused_from == held.id and copy.body == held.body
        assert not copy.check_ok and copy.approved_at is None and copy.llm_calls == 0
        # The reviewer sends the copy back: a new explainer (the stub's default answer,
        # no number: it passes), not the held one again.
        r.pipeline.retry(second.id)
        while r.worker.run_once():
            pass
        assert [i.state for i in r.items()] == ["needs_review", "published"]
        assert len(r.stub.calls) == 2
        assert r.explainers()[-1].reused_from is None
        # The next feed gets the published one (preferred to the held one).
        c = add_feed(r.sessions, "https://c.example/feed")
        r.deliver(c, doc, "c")
        assert r.items()[2].state == "published" and len(r.stub.calls) == 2
        assert r.explainers()[-1].reused_from == r.explainers()[-2].id


def test_a_retry_that_sends_back_an_older_texts_explainer_declines_only_that_text(
    db: Engine,
) -> None:
    """The post was edited after its explainer was held: the reviewer's retry drops the
    held explainer of the old text, which says nothing of the new one. The item copies
    another feed's held explainer of the new text, as any twin does (it was marked as
    declining the new text, and paid for the post again)."""
    with rig(db, repair_rounds=0) as r:
        a = add_feed(r.sessions, "https://a.example/feed")
        b = add_feed(r.sessions, "https://b.example/feed")
        made_up = {
            "title": "Note: a faster parser",
            "sections": [
                {"heading": "What changed", "paragraphs": ["The parser is 42% faster."]},
                {"heading": "What comes next", "paragraphs": ["More work is planned."]},
            ],
        }
        old = feed_doc()
        edited = old.replace(b"faster and simpler", b"smaller and simpler")
        assert edited != old
        r.stub.push(Reply.explainer(made_up), Reply.explainer(made_up))
        r.deliver(a, old, "a-old")  # held: the explainer of the old text
        r.deliver(b, edited, "b-edited")  # held too: of the edited text, under feed b
        (item,) = [i for i in r.items() if i.feed_id == a]
        intake(r, a, edited, "a-edited")  # the edit reaches feed a, waiting in the queue
        r.pipeline.retry(item.id)  # the reviewer sends back what they saw: the old text's
        item_a, item_b = r.items()
        assert item_a.content_hash == item_b.content_hash
        assert item_a.review_declined is None
        while r.worker.run_once():
            pass
        assert len(r.stub.calls) == 2  # no third call: feed b's held explainer is copied
        (held_b,) = [e for e in r.explainers() if e.item_id == item_b.id]
        copy = [e for e in r.explainers() if e.item_id == item_a.id][-1]
        assert copy.reused_from == held_b.id and not copy.check_ok
        assert [i.state for i in r.items()] == ["needs_review", "needs_review"]
        # Sent back once more, now the edited text's own: explained anew (the stub's
        # default answer passes), not the held one copied back.
        r.pipeline.retry(item_a.id)
        assert r.items()[0].review_declined == item_a.content_hash
        while r.worker.run_once():
            pass
        assert len(r.stub.calls) == 3 and r.items()[0].state == "published"


def intake(r: Rig, feed_id: int, body: bytes, tag: str) -> None:
    """A delivery stored and processed into items, which wait in the queue."""
    store_delivery(r, feed_id, body, tag)
    with transaction(r.sessions) as s:
        (claim,) = queue.claim(s, queue.DELIVERIES, "intake", 60)
    r.pipeline.process_delivery(claim, "intake")


def claim_item(r: Rig, owner: str) -> queue.Claim:
    with transaction(r.sessions) as s:
        (claim,) = queue.claim(s, queue.ITEMS, owner, 60)
    return claim


def test_two_workers_on_the_same_post_at_once_call_the_model_once(db: Engine) -> None:
    """The first worker is held inside its model call (the stub's gate); the second,
    on the same post under another feed, finds the explanation claimed, puts its item
    back without calling the model, and copies the first's explainer once it is stored.
    (Before, both found no stored explainer and both paid.)"""
    with rig(db) as r:
        a = add_feed(r.sessions, "https://a.example/feed")
        b = add_feed(r.sessions, "https://b.example/feed")
        intake(r, a, feed_doc(), "a")
        intake(r, b, feed_doc(), "b")
        r.stub.gate = threading.Event()
        first = claim_item(r, "w1")
        states: list[str] = []
        worker = threading.Thread(
            target=lambda: states.append(r.pipeline.process_item(first, "w1"))
        )
        worker.start()
        wait_for(lambda: len(r.stub.calls) == 1)  # w1 is inside its model call
        second = claim_item(r, "w2")
        assert second.id != first.id
        waited = REGISTRY.get_sample_value("plainfeed_items_waited_total") or 0.0
        assert r.pipeline.process_item(second, "w2") == "pending"
        assert REGISTRY.get_sample_value("plainfeed_items_waited_total") == waited + 1
        waiting = {i.id: i for i in r.items()}[second.id]
        assert waiting.state == "pending" and waiting.attempts == 0
        assert (waiting.last_error or "").startswith(f"{WAITING} {first.id} ")
        assert len(r.stub.calls) == 1
        r.stub.gate.set()
        worker.join(timeout=120)
        assert states == ["published"]
        # The holder woke the waiting item: it is ready now, and copies the explainer.
        again = claim_item(r, "w2")
        assert again.id == second.id
        assert r.pipeline.process_item(again, "w2") == "published"
        assert len(r.stub.calls) == 1
        written, copy = r.explainers()
        assert (written.item_id, copy.item_id) == (first.id, second.id)
        assert copy.reused_from == written.id
        with r.sessions() as s:
            assert s.scalar(select(func.count()).select_from(t.ExplainClaim)) == 0


def test_a_dead_workers_claim_is_taken_over_when_its_lease_runs_out(db: Engine) -> None:
    """A worker that claimed the explanation and stalled (held inside its model call)
    keeps the claim only as long as its lease on its item: run out, the item is taken
    over by another worker, which claims the explanation and explains the post; the
    waiting twin copies it. The stalled worker's late result is discarded. Nothing is
    lost, and nobody waits for ever."""
    with rig(db) as r:
        a = add_feed(r.sessions, "https://a.example/feed")
        b = add_feed(r.sessions, "https://b.example/feed")
        intake(r, a, feed_doc(), "a")
        intake(r, b, feed_doc(), "b")
        stall = threading.Event()
        r.stub.gate = stall
        dead = claim_item(r, "dead")
        errors: list[BaseException] = []

        def stalled() -> None:
            try:
                r.pipeline.process_item(dead, "dead")
            except BaseException as exc:  # the test thread looks at it
                errors.append(exc)

        worker = threading.Thread(target=stalled)
        worker.start()
        wait_for(lambda: len(r.stub.calls) == 1)  # "dead" holds the claim, in its call
        second = claim_item(r, "w2")
        assert r.pipeline.process_item(second, "w2") == "pending"  # alive: w2 waits
        # The lease of "dead" runs out (as the clock would make it, without a renewal).
        with transaction(r.sessions) as s:
            s.execute(
                update(t.Item)
                .where(t.Item.id == dead.id)
                .values(lease_until=datetime.now(UTC) - timedelta(seconds=1))
            )
        r.stub.gate = None  # the calls from now on are answered at once
        again = claim_item(r, "w3")
        assert (again.id, again.expired) == (dead.id, True)
        assert r.pipeline.process_item(again, "w3") == "published"
        assert len(r.stub.calls) == 2
        # Its explainer stored, w3 woke the waiting twin: ready now, it copies it.
        twin = claim_item(r, "w2")
        assert twin.id == second.id
        assert r.pipeline.process_item(twin, "w2") == "published"
        assert len(r.stub.calls) == 2
        written, copy = r.explainers()
        assert (written.item_id, copy.item_id, copy.reused_from) == (dead.id, second.id, written.id)
        stall.set()  # the stalled call returns: its result is not stored
        worker.join(timeout=120)
        assert len(errors) == 1 and isinstance(errors[0], LeaseLost)
        assert len(r.explainers()) == 2


def test_an_explainer_whose_store_loses_its_connection_is_stored_not_paid_again(
    pg_url: str,
) -> None:
    """The model has answered (and been paid); the transaction that stores its explainer
    loses its connection (a failover, a pooler restarting). The answer is stored on a
    fresh connection: the error escaped the worker, the item stayed "processing" until
    its lease ran out, and the next worker paid the model for the same post again."""
    from sqlalchemy import text

    from service.store.db import make_engine, migrate
    from tests.conftest import end_lock_waiters, waiting_on_a_lock
    from tests.seed_db import add_item

    db = make_engine(pg_url)
    migrate(db)
    try:
        with rig(db) as r:
            fid = add_feed(r.sessions)
            iid = add_item(
                r.sessions,
                fid,
                title="Kernels",
                text="The kernels run faster.",
                state=ItemState.PENDING,
            )
            r.stub.hold()  # the model answers once the feed's row is locked
            worker = threading.Thread(target=r.worker.run_once)
            worker.start()
            wait_for(lambda: len(r.stub.calls) == 1, timeout=30)
            with db.connect() as holder:
                # The call's record names the feed: its insert waits for this lock.
                holder.execute(text("SELECT id FROM feeds WHERE id = :id FOR UPDATE"), {"id": fid})
                r.stub.release()
                wait_for(lambda: waiting_on_a_lock(db), timeout=30)
                end_lock_waiters(holder)
                holder.rollback()
            worker.join(30)
            with r.sessions() as s:
                item = s.get(t.Item, iid)
                assert item is not None
                assert (item.state, item.lease_owner) == ("published", None), item.last_error
            assert len(r.stub.calls) == 1
            assert len(r.explainers()) == 1 and r.llm_call_rows() == 1
    finally:
        db.dispose()
