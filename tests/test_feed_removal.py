"""Removing a feed while workers claim its items (PostgreSQL, two connections)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import Engine, event, select

from service import queue
from service.models import ItemState
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker, migrate, transaction
from service.store.feeds import remove_feed
from tests.seed_db import add_feed, add_item

pytestmark = pytest.mark.postgres


@pytest.fixture
def pg(pg_url: str) -> Iterator[Engine]:
    engine = make_engine(pg_url)
    migrate(engine)
    try:
        yield engine
    finally:
        engine.dispose()


def test_an_item_claimed_while_its_feed_is_removed_is_not_lost_to_the_removal(
    pg: Engine,
) -> None:
    """A worker's claim that commits between the removal's busy-items check and its
    delete: the item was deleted under the worker, whose store then failed with an
    IntegrityError (not LeaseLost), losing the usage it recorded. The removal locks the
    feed's items first: a claim skips them until the removal ends."""
    sessions = make_sessionmaker(pg)
    feed_id = add_feed(sessions)
    add_item(sessions, feed_id, title="Post", text="Some words.", state=ItemState.PENDING)
    remover = threading.current_thread()
    claims: list[list[queue.Claim]] = []

    def after_check(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        # Right after the busy-items check, in the removal's own thread: a worker claims.
        busy_check = "count(items.id)" in statement and "items.state" in statement
        if busy_check and threading.current_thread() is remover and not claims:
            with transaction(sessions) as s:
                claims.append(queue.claim(s, queue.ITEMS, "worker-1", 60))

    event.listen(pg, "after_cursor_execute", after_check)
    try:
        with transaction(sessions) as s:
            remove_feed(s, feed_id)
    finally:
        event.remove(pg, "after_cursor_execute", after_check)
    assert claims == [[]]  # the feed's items were locked by the removal: none taken
    with sessions() as s:
        assert s.scalars(select(t.Item)).all() == []
        assert s.get(t.Feed, feed_id) is None
