"""Repository functions for feeds that the API and the CLI share."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from service import websub
from service.errors import Conflict, NotFound
from service.models import ItemState
from service.store import tables as t


def remove_feed(s: Session, feed_id: int) -> None:
    """Delete a feed with its items, their explainers and its own subscribers (the
    database cascades; webhook deliveries stay in the log without their feed).

    Refused while a WebSub hub pushes to it (the hub keeps its lease; unsubscribe
    first) or while a worker is explaining one of its items."""
    feed = s.get(t.Feed, feed_id)
    if feed is None:
        raise NotFound(f"no feed with id {feed_id}")
    if feed.websub_state in (websub.ACTIVE, websub.PENDING_SUBSCRIBE):
        raise Conflict(
            f"feed {feed_id} has a WebSub subscription ({feed.websub_state}): "
            f"unsubscribe first (plainfeed feeds subscribe {feed_id} --unsubscribe)"
        )
    busy = s.scalar(
        select(func.count(t.Item.id)).where(
            t.Item.feed_id == feed_id, t.Item.state == ItemState.PROCESSING.value
        )
    )
    if busy:
        raise Conflict(f"feed {feed_id} has {busy} item(s) being processed: try again")
    s.delete(feed)
