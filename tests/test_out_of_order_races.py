"""Two workers storing two versions of a feed's entry at once (PostgreSQL, the interleaving
forced by a held row lock): the newer version stays whichever commits first, and the older
one's delivery says which entry it did not apply."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from service import queue
from service.clean import article_from_entry
from service.engines import get_engine
from service.parse import parse_feed
from service.pipeline import Pipeline
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker, migrate, transaction
from tests.conftest import make_settings, wait_for, waiting_on_a_lock
from tests.out_of_order_helpers import atom


def _versions(*docs: bytes) -> list[list[tuple[Any, Any]]]:
    return [[(e, article_from_entry(e)) for e in parse_feed(d).entries] for d in docs]


@pytest.mark.parametrize("first_to_commit", ["older", "newer"])
def test_two_workers_writing_two_versions_of_an_entry_keep_the_newer(
    pg_url: str, first_to_commit: str
) -> None:
    """Two deliveries of a feed in two transactions at once (two workers): the one that
    commits second was decided on what was stored before the first. Whichever commits
    first, the newer version stays. Before, the second to commit never applied its edit
    (its UPDATE was conditional on the text it had read), even when it was the newer."""
    db = make_engine(pg_url)
    try:
        migrate(db)
        settings = make_settings(pg_url)
        sessions = make_sessionmaker(db)
        pipeline = Pipeline(settings, sessions, get_engine(settings))
        v1, older, newer = _versions(
            atom("2026-09-01T10:00:00Z", 8),
            atom("2026-09-02T10:00:00Z", 16),
            atom("2026-09-03T10:00:00Z", 32),
        )
        with transaction(sessions) as s:
            feed = t.Feed(url="https://lab.example/feed.atom")
            s.add(feed)
            s.flush()
            fid = feed.id
            ids = []
            for n in range(3):
                d = t.Delivery(external_id=f"d{n}", feed_id=fid)
                s.add(d)
                s.flush()
                ids.append(d.id)
            pipeline._store_items(s, fid, ids[0], v1, set())
        first, second = (older, newer) if first_to_commit == "older" else (newer, older)
        holder = sessions()
        holder.begin()
        pipeline._store_items(holder, fid, ids[1], first, set())  # row locked, uncommitted

        def other_worker() -> None:
            with transaction(sessions) as s:
                pipeline._store_items(s, fid, ids[2], second, set())

        _race(db, holder, other_worker)
        with sessions() as s:
            item = s.scalars(select(t.Item).where(t.Item.key == "urn:lab:1")).one()
        assert "32 GPUs" in item.text
        assert item.entry_date == datetime(2026, 9, 3, 10, tzinfo=UTC)
    finally:
        db.dispose()


def test_a_race_lost_by_the_older_version_is_said_in_the_delivery(pg_url: str) -> None:
    """Two workers process two deliveries of a feed at once; the older version's reads
    the stored row before the newer one commits, and its UPDATE then finds the newer
    version. Its delivery names the entry not applied, as a refusal without a race does
    (before, it said nothing). The interleaving is forced: the newer version's
    transaction holds the row until the older one's worker waits on it."""
    db = make_engine(pg_url)
    try:
        migrate(db)
        sessions = make_sessionmaker(db)
        pipeline = Pipeline(make_settings(pg_url), sessions, get_engine(make_settings(pg_url)))
        v1, newer = _versions(atom("2026-09-01T10:00:00Z", 8), atom("2026-09-03T10:00:00Z", 32))
        with transaction(sessions) as s:
            feed = t.Feed(url="https://lab.example/feed.atom")
            s.add(feed)
            s.flush()
            fid = feed.id
            done = t.Delivery(external_id="d0", feed_id=fid, state="processed")
            s.add(done)
            s.flush()
            pipeline._store_items(s, fid, done.id, v1, set())
            late = t.Delivery(
                external_id="late",
                feed_id=fid,
                sender="raw",
                content_type="application/atom+xml",
                headers={},
                body=atom("2026-09-02T10:00:00Z", 16),
                state="received",
            )
            s.add(late)
            s.flush()
            late_id = late.id
        holder = sessions()
        holder.begin()
        pipeline._store_items(holder, fid, done.id, newer, set())  # row locked, uncommitted

        def other_worker() -> None:
            with transaction(sessions) as s:
                (claim,) = queue.claim(s, queue.DELIVERIES, "w2", 60)
            pipeline.process_delivery(claim, "w2")

        _race(db, holder, other_worker)
        with sessions() as s:
            d = s.get(t.Delivery, late_id)
            item = s.scalars(select(t.Item).where(t.Item.key == "urn:lab:1")).one()
        assert d is not None and d.state == "processed"
        assert d.items_changed == 0 and d.item_ids == []
        assert d.problems is not None
        assert (
            "1 changed entry not applied: urn:lab:1 dated 2026-09-02T10:00:00Z, older than "
            "the version stored (2026-09-03T10:00:00Z)"
        ) in d.problems
        assert "32 GPUs" in item.text
    finally:
        db.dispose()


def _race(db: Any, holder: Session, other_worker: Callable[[], None]) -> None:
    """Run ``other_worker`` in a thread until it waits on the row ``holder`` locked (it
    read, decided and waits to write), then commit ``holder`` and let it finish."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            other_worker()
        except BaseException as exc:  # the test thread reports it
            errors.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    wait_for(lambda: waiting_on_a_lock(db))
    holder.commit()
    holder.close()
    worker.join(timeout=60)
    assert not worker.is_alive() and errors == []
