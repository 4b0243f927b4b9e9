"""The rig of the intake tests: a feed, its deliveries stored as the webhook stores them
and processed by a real worker (tests.test_intake_caps, tests.test_page_texts)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

from sqlalchemy import Engine, select, update

from service import queue
from service.config import Settings
from service.engines import get_engine
from service.pipeline import Pipeline
from service.store import tables as t
from service.store.db import make_sessionmaker, transaction
from service.worker import Worker
from tests.conftest import DATA, make_settings
from tests.durability_helpers import add_delivery
from tests.origin import Origin

PAGE = (DATA / "webhooks" / "article-page.html").read_bytes()
HTML = {"Content-Type": "text/html; charset=utf-8"}
BASE = datetime(2026, 1, 1, 12, tzinfo=UTC)
# What an explained item ends as (the extractive engine holds some short posts for review).
EXPLAINED = ("published", "needs_review")


def entry(i: int, *, link: str | None = None, text: str | None = None) -> str:
    """Entry ``i``, published ``i`` days after BASE: a guid and a full post (``text``,
    else one of its own), or, with ``link``, an excerpt-only teaser of the page there
    (``text``, else a short one)."""
    body = text or (
        f"<p>Post {i} describes a small change to the widget library, and why the old "
        "parser was slow.</p><p>The authors removed two layers of indirection.</p>"
    )
    if link is not None:
        body = text or "<p>A short teaser of the post. Read more</p>"
    where = f"<link>{link}</link><guid>{link}</guid>" if link else f"<guid>urn:post:{i}</guid>"
    return (
        f"<item><title>Post {i}</title>{where}"
        f"<pubDate>{format_datetime(BASE + timedelta(days=i))}</pubDate>"
        f"<description><![CDATA[{body}]]></description></item>"
    )


def rss(entries: list[str]) -> bytes:
    return (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
        "<title>Widgets</title><link>https://widgets.example/</link>"
        + "".join(entries)
        + "</channel></rss>"
    ).encode()


class Rig:
    def __init__(self, db: Engine, **overrides: Any) -> None:
        self.settings: Settings = make_settings(str(db.url), poll_interval=0, **overrides)
        self.sessions = make_sessionmaker(db)
        self.pipeline = Pipeline(self.settings, self.sessions, get_engine(self.settings))
        self.worker = Worker(self.pipeline, stop=threading.Event())
        with transaction(self.sessions) as s:
            feed = t.Feed(url="https://widgets.example/feed")
            s.add(feed)
            s.flush()
            self.feed_id = feed.id
        self._n = 0

    def store(self, body: bytes) -> int:
        """A delivery of ``body`` for the feed, as the webhook stores it."""
        self._n += 1
        return add_delivery(
            self.sessions, body, external_id=f"test:{self._n}", feed_id=self.feed_id
        )

    def ping(self, url: str) -> int:
        """A delivery with no document for the feed (a ping): its worker fetches ``url``."""
        self._n += 1
        return add_delivery(
            self.sessions, None, external_id=f"ping:{self._n}", feed_id=self.feed_id, fetch_url=url
        )

    def deliver(self, body: bytes) -> t.Delivery:
        """Store and process one delivery (no item is explained)."""
        did = self.store(body)
        assert self.worker._one(queue.DELIVERIES)
        return self.delivery(did)

    def delivery(self, did: int) -> t.Delivery:
        with self.sessions() as s:
            d = s.get(t.Delivery, did)
            assert d is not None
            return d

    def drain(self) -> None:
        while self.worker.run_once():
            pass

    def items(self) -> dict[str, t.Item]:
        """By title."""
        with self.sessions() as s:
            return {i.title: i for i in s.scalars(select(t.Item))}

    def states(self) -> dict[str, str]:
        return {title: i.state for title, i in self.items().items()}


@contextmanager
def rigs(db: Engine) -> Iterator[Callable[..., Rig]]:
    """Rigs on ``db`` with these settings; their workers closed after the block (the
    heartbeat thread of a worker left open outlived the test and its database)."""
    made: list[Rig] = []

    def make(**overrides: Any) -> Rig:
        made.append(Rig(db, **overrides))
        return made[-1]

    try:
        yield make
    finally:
        for r in made:
            r.worker.close()


def pages_seen(origin: Origin) -> list[str]:
    return [s.path for s in origin.seen if s.path.startswith("/posts/")]


def serve_pages(origin: Origin, n: int) -> list[str]:
    return [origin.route(f"/posts/p{i}", body=PAGE, headers=HTML) for i in range(n)]


def take_over(r: Rig, table: type[t.Delivery] | type[t.Item], job: int, minutes: float) -> None:
    """Another worker holds ``job``'s lease for ``minutes`` (its lease ran out meanwhile);
    negative: that worker's lease has run out in turn."""
    with transaction(r.sessions) as s:
        s.execute(
            update(table)
            .where(table.id == job)
            .values(
                lease_owner="other-worker",
                lease_until=datetime.now(UTC) + timedelta(minutes=minutes),
            )
        )
