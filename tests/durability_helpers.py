"""What the durability tests (tests/test_durability_*.py) share: a delivery stored as the
webhook stores it, and looks at the items and explainers the workers leave behind."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from service.store import tables as t
from service.store.db import make_sessionmaker, transaction

# Short polls and backoffs so that the work flows within seconds. Not a short lease: on a
# busy machine a live worker's heartbeat can come later than a 3 s lease ends, and another
# worker then takes its item and calls the model for it again (the tests count one call
# per post). A killed worker's jobs are taken over once the test ends their leases
# (end_leases), not after a lease short enough to wait for.
FAST = {"lease_seconds": 60, "poll_interval": 0.1, "backoff_base": 0.2, "backoff_max": 2}


def add_delivery(
    sessions: sessionmaker[Session],
    body: bytes | None,
    *,
    external_id: str | None = None,
    feed_id: int | None = None,
    fetch_url: str | None = None,
) -> int:
    """A received delivery as the webhook stores it, queued (for tests without an API
    process): of ``body`` (an RSS document), its external id the body's hash unless
    given; or with no body, a ping whose document is fetched from ``fetch_url``."""
    if external_id is None:
        assert body is not None, "a ping has no body to name it: give its external id"
        external_id = "sha256:" + hashlib.sha256(body).hexdigest()
    with transaction(sessions) as s:
        d = t.Delivery(
            external_id=external_id,
            feed_id=feed_id,
            sender="json" if body is None else "raw",
            content_type=None if body is None else "application/rss+xml",
            headers={},
            body=body,
            fetch_url=fetch_url,
            state="received",
        )
        s.add(d)
        s.flush()
        return d.id


def store_delivery(engine: Engine, body: bytes) -> int:
    """A received delivery of no feed, as the webhook stores it (add_delivery)."""
    return add_delivery(make_sessionmaker(engine), body)


def states(engine: Engine) -> dict[str, int]:
    with make_sessionmaker(engine)() as s:
        return dict(s.execute(select(t.Item.state, func.count()).group_by(t.Item.state)).all())


def items(engine: Engine) -> list[t.Item]:
    with make_sessionmaker(engine)() as s:
        return list(s.scalars(select(t.Item).order_by(t.Item.id)))


def explainers_per_item(engine: Engine) -> dict[int, int]:
    with make_sessionmaker(engine)() as s:
        rows = s.execute(
            select(t.Explainer.item_id, func.count()).group_by(t.Explainer.item_id)
        ).all()
    return {item_id: n for item_id, n in rows}


def all_done(engine: Engine, total: int) -> bool:
    return states(engine).get("published", 0) == total


def end_leases(engine: Engine) -> None:
    """The items still processing have their leases run out now, as a killed worker's do
    once their time has passed: the next worker to claim takes them over."""
    with transaction(make_sessionmaker(engine)) as s:
        s.execute(
            update(t.Item)
            .where(t.Item.state == "processing")
            .values(lease_until=datetime.now(UTC) - timedelta(seconds=1))
        )
