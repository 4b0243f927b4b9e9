"""The database queue: claims, leases, fencing, retries — on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, select

from service import queue
from service.errors import LeaseLost
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker, migrate, transaction


def _items(engine: Engine, n: int) -> list[int]:
    sm = make_sessionmaker(engine)
    with transaction(sm) as s:
        feed = t.Feed(url="https://example.org/feed")
        s.add(feed)
        s.flush()
        rows = [
            t.Item(feed_id=feed.id, key=f"k{i}", title=f"t{i}", content_hash="h", text="x")
            for i in range(n)
        ]
        s.add_all(rows)
        s.flush()
        return [r.id for r in rows]


def test_claim_takes_each_ready_row_once(db: Engine) -> None:
    ids = _items(db, 5)
    sm = make_sessionmaker(db)
    got: list[int] = []
    for _ in range(7):
        with transaction(sm) as s:
            got += [c.id for c in queue.claim(s, queue.ITEMS, "w1", 30)]
    assert sorted(got) == ids
    with sm() as s:
        states = {i.state for i in s.scalars(select(t.Item))}
        assert states == {"processing"}


def test_expired_lease_is_claimable_again_and_fences_the_old_owner(db: Engine) -> None:
    (item_id,) = _items(db, 1)
    sm = make_sessionmaker(db)
    with transaction(sm) as s:
        (c1,) = queue.claim(s, queue.ITEMS, "dead-worker", 30)
    later = datetime.now(UTC) + timedelta(seconds=31)
    with transaction(sm) as s:
        (c2,) = queue.claim(s, queue.ITEMS, "w2", 30, now=later)
    assert c2.id == item_id and c2.expired and c2.attempts == 2
    # The worker that lost its lease can neither renew nor finish.
    with pytest.raises(LeaseLost), transaction(sm) as s:
        queue.renew(s, queue.ITEMS, item_id, "dead-worker", 30)
    with pytest.raises(LeaseLost), transaction(sm) as s:
        queue.finish(s, queue.ITEMS, item_id, "dead-worker", state="published")
    with transaction(sm) as s:
        queue.finish(s, queue.ITEMS, item_id, "w2", state="published")
        assert s.get(t.Item, item_id).state == "published"  # type: ignore[union-attr]
    assert c1.attempts == 1


def test_renewing_a_finished_job_is_no_lost_lease(db: Engine) -> None:
    # The heartbeat can fire between a job's finish and the end of its block.
    (item_id,) = _items(db, 1)
    sm = make_sessionmaker(db)
    with transaction(sm) as s:
        queue.claim(s, queue.ITEMS, "w1", 30)
    with transaction(sm) as s:
        assert queue.renew(s, queue.ITEMS, item_id, "w1", 30) is True
        queue.finish(s, queue.ITEMS, item_id, "w1", state="published")
    with transaction(sm) as s:
        assert queue.renew(s, queue.ITEMS, item_id, "w1", 30) is False
    with sm() as s:
        item = s.get(t.Item, item_id)
        assert item is not None and item.state == "published" and item.lease_until is None


def test_a_job_another_worker_took_over_and_finished_is_a_lost_lease(db: Engine) -> None:
    # This worker's heartbeat could not reach the database for a lease's time; another
    # worker claimed the job and finished it. Not this worker's finish: its claim's
    # attempts tell (the other's claim counted one more).
    (item_id,) = _items(db, 1)
    sm = make_sessionmaker(db)
    with transaction(sm) as s:
        (mine,) = queue.claim(s, queue.ITEMS, "w1", 30)
    with transaction(sm) as s:
        (theirs,) = queue.claim(
            s, queue.ITEMS, "w2", 30, now=datetime.now(UTC) + timedelta(seconds=31)
        )
        queue.finish(s, queue.ITEMS, item_id, "w2", state="published")
    finished = "another worker took it over and finished it"
    with pytest.raises(LeaseLost, match=finished), transaction(sm) as s:
        queue.renew(s, queue.ITEMS, item_id, "w1", 30, mine.attempts)
    # The finisher's own heartbeat, firing after its finish, loses nothing.
    with transaction(sm) as s:
        assert queue.renew(s, queue.ITEMS, item_id, "w2", 30, theirs.attempts) is False


def test_a_job_put_back_by_its_own_worker_is_no_lost_lease(db: Engine) -> None:
    # Backed off with its attempt given back (waiting for another item's explainer): the
    # count is lower than the claim's, not higher.
    (item_id,) = _items(db, 1)
    sm = make_sessionmaker(db)
    with transaction(sm) as s:
        (mine,) = queue.claim(s, queue.ITEMS, "w1", 30)
        queue.retry_later(
            s,
            queue.ITEMS,
            item_id,
            "w1",
            attempts=1,
            max_attempts=3,
            error="wait",
            delay=60,
            refund=True,
        )
    with transaction(sm) as s:
        assert queue.renew(s, queue.ITEMS, item_id, "w1", 30, mine.attempts) is False


def test_a_stolen_lease_names_its_new_holder(db: Engine) -> None:
    (item_id,) = _items(db, 1)
    sm = make_sessionmaker(db)
    with transaction(sm) as s:
        queue.claim(s, queue.ITEMS, "w1", 30)
    with transaction(sm) as s:
        queue.claim(s, queue.ITEMS, "w2", 30, now=datetime.now(UTC) + timedelta(seconds=31))
    with pytest.raises(LeaseLost, match="lost by w1 to w2"), transaction(sm) as s:
        queue.renew(s, queue.ITEMS, item_id, "w1", 30)


def test_retry_backs_off_then_fails_after_max_attempts(db: Engine) -> None:
    (item_id,) = _items(db, 1)
    sm = make_sessionmaker(db)
    for attempt in range(1, 4):
        future = datetime.now(UTC) + timedelta(hours=attempt)
        with transaction(sm) as s:
            (c,) = queue.claim(s, queue.ITEMS, "w", 30, now=future)
            assert c.attempts == attempt
            again = queue.retry_later(
                s,
                queue.ITEMS,
                c.id,
                "w",
                attempts=c.attempts,
                max_attempts=3,
                error=f"boom {attempt}",
                delay=60,
            )
        assert again is (attempt < 3)
        with sm() as s:
            item = s.get(t.Item, item_id)
            assert item is not None and item.last_error == f"boom {attempt}"
    with sm() as s:
        assert s.get(t.Item, item_id).state == "failed"  # type: ignore[union-attr]


def test_backoff_grows_and_is_capped() -> None:
    seq = [queue.backoff_seconds(a, 2.0, 100.0, jitter=0) for a in range(1, 10)]
    assert seq[:4] == [2.0, 4.0, 8.0, 16.0]
    assert max(seq) == 100.0


def test_release_gives_the_job_back_without_counting_the_attempt(db: Engine) -> None:
    (item_id,) = _items(db, 1)
    sm = make_sessionmaker(db)
    with transaction(sm) as s:
        queue.claim(s, queue.ITEMS, "w", 30)
    with transaction(sm) as s:
        queue.release(s, queue.ITEMS, item_id, "w")
    with sm() as s:
        item = s.get(t.Item, item_id)
        assert item is not None and (item.state, item.attempts) == ("pending", 0)


def test_an_error_text_is_stored_cut_to_its_start_and_end(db: Engine) -> None:
    """A failing statement's text ran to megabytes and was stored and served whole."""
    (item_id,) = _items(db, 1)
    sm = make_sessionmaker(db)
    with transaction(sm) as s:
        queue.claim(s, queue.ITEMS, "w", 30)
    huge = "INSERT ..." + "(?, ?), " * 200_000 + "<- the cause at the end"
    with transaction(sm) as s:
        queue.finish(s, queue.ITEMS, item_id, "w", state="failed", last_error=huge)
    with sm() as s:
        stored = s.get(t.Item, item_id).last_error  # type: ignore[union-attr]
    assert stored is not None and len(stored) <= queue.ERROR_TEXT_CHARS
    assert stored.startswith("INSERT ...") and stored.endswith("<- the cause at the end")
    assert "characters cut ...]" in stored
    assert queue.error_text("short") == "short"


@pytest.mark.postgres
def test_concurrent_claims_on_postgres_never_overlap(pg_url: str) -> None:
    engine = make_engine(pg_url, pool_size=10)
    migrate(engine)
    ids = _items(engine, 200)
    sm = make_sessionmaker(engine)
    claimed: list[list[int]] = [[] for _ in range(8)]

    def run(k: int) -> None:
        while True:
            with transaction(sm) as s:
                cs = queue.claim(s, queue.ITEMS, f"w{k}", 30, limit=3)
            if not cs:
                return
            claimed[k].extend(c.id for c in cs)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    flat = [i for part in claimed for i in part]
    assert sorted(flat) == ids  # every row once, none twice
    assert sum(1 for part in claimed if part) > 1  # the work really was shared
    engine.dispose()
