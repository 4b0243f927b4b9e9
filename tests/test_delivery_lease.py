"""A delivery whose lease is lost stops reading its entries' pages: the lease is looked
at before each (up to PLAINFEED_PAGE_FETCHES_PER_DELIVERY), and a read under way (a page,
the feed itself, an item's page) ends within a quarter second, not the fetch timeout
later (service.transport); its outcome would be refused, and the new holder of the lease
reads them and stores the items: nothing is lost, nothing stored twice. Real worker and
queue on SQLite and PostgreSQL, the pages on a real HTTP server on loopback."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, func, select, update

from service import abandon, queue
from service.errors import LeaseLost
from service.store import tables as t
from service.store.db import transaction
from tests.intake_rig import (
    EXPLAINED,
    HTML,
    PAGE,
    Rig,
    entry,
    pages_seen,
    rigs,
    rss,
    serve_pages,
    take_over,
)
from tests.origin import Origin, Seen
from tests.procs import wait_until

RSS = {"Content-Type": "application/rss+xml; charset=utf-8"}


@pytest.fixture
def rig(db: Engine) -> Iterator[Callable[..., Rig]]:
    with rigs(db) as make:
        yield make


def test_a_delivery_that_lost_its_lease_reads_no_more_pages_and_the_new_holder_does(
    rig: Callable[..., Rig], origin: Origin, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    r = rig(page_fetches_per_delivery=5, lease_seconds=2)
    links = serve_pages(origin, 4)
    reading, gate = threading.Event(), threading.Event()

    def slow_page(seen: Seen) -> tuple[int, dict[str, str], bytes]:
        reading.set()
        gate.wait(30)  # the first page is read until the test lets it go
        return 200, HTML, PAGE

    origin.route("/posts/p0", handler=slow_page)
    did = r.store(rss([entry(i, link=links[i]) for i in range(4)]))
    runner = threading.Thread(target=r.worker._one, args=(queue.DELIVERIES,), daemon=True)
    runner.start()
    try:
        assert reading.wait(30)
        # Another worker takes the delivery over (its lease ran out meanwhile).
        with transaction(r.sessions) as s:
            s.execute(
                update(t.Delivery)
                .where(t.Delivery.id == did)
                .values(
                    lease_owner="other-worker",
                    lease_until=datetime.now(UTC) + timedelta(minutes=5),
                )
            )
        wait_until(lambda: "lease lost" in caplog.text, 30, "the heartbeat's renewal")
    finally:
        gate.set()
    runner.join(30)
    assert not runner.is_alive()
    assert "lease lost, result discarded" in caplog.text
    assert pages_seen(origin) == ["/posts/p0"]  # no page read after the lease was lost
    d = r.delivery(did)
    assert (d.state, d.lease_owner, d.error) == ("processing", "other-worker", None)
    assert r.items() == {}

    # The other worker's lease runs out in turn; the delivery's next holder reads every
    # page and stores every item.
    with transaction(r.sessions) as s:
        s.execute(
            update(t.Delivery)
            .where(t.Delivery.id == did)
            .values(lease_until=datetime.now(UTC) - timedelta(seconds=1))
        )
    assert r.worker._one(queue.DELIVERIES)
    d = r.delivery(did)
    assert (d.state, d.items_new) == ("processed", 4)
    assert sorted(pages_seen(origin)) == ["/posts/p0", *(f"/posts/p{i}" for i in range(4))]
    assert {i.content_source for i in r.items().values()} == {"page"}


def test_a_delivery_run_with_its_lease_lost_reads_no_page_and_writes_no_outcome(
    rig: Callable[..., Rig], origin: Origin
) -> None:
    # The lease is found lost (the event set) while this worker still holds it in the
    # database: the delivery is not marked failed, it stays the lease holder's to redo.
    r = rig(page_fetches_per_delivery=5)
    links = serve_pages(origin, 2)
    did = r.store(rss([entry(i, link=links[i]) for i in range(2)]))
    with transaction(r.sessions) as s:
        (claim,) = queue.claim(s, queue.DELIVERIES, "worker-1", 60)
    lost = threading.Event()
    lost.set()
    with abandon.watching(lost), pytest.raises(LeaseLost, match="reading an entry's page"):
        r.pipeline.process_delivery(claim, "worker-1")
    assert pages_seen(origin) == []
    d = r.delivery(did)
    assert (d.state, d.lease_owner, d.error) == ("processing", "worker-1", None)
    assert r.items() == {}


def held(origin: Origin, path: str) -> tuple[threading.Event, threading.Event]:
    """(set once ``path`` is asked for, set to let it answer): its answer waits for the
    test, far past the lease and the fetch timeout of the rig."""
    reading, gate = threading.Event(), threading.Event()
    route = origin.routes[path]

    def slow(seen: Seen) -> tuple[int, dict[str, str], bytes]:
        reading.set()
        gate.wait(60)
        return route.status, route.headers, route.body

    origin.route(path, handler=slow)
    return reading, gate


def ends_with_the_lease(
    r: Rig,
    table: type[t.Delivery] | type[t.Item],
    job: int,
    reading: threading.Event,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Run the worker's next job of ``table`` while its fetch is held; take its lease
    away once the fetch is under way: the job ends soon after the heartbeat finds out."""
    spec = queue.DELIVERIES if table is t.Delivery else queue.ITEMS
    runner = threading.Thread(target=r.worker._one, args=(spec,), daemon=True)
    runner.start()
    assert reading.wait(30)
    take_over(r, table, job, 5)
    wait_until(lambda: "lease lost" in caplog.text, 30, "the heartbeat's renewal")
    # The read looks at the lease every quarter second. Without, it waits for the answer
    # the test holds until this returns (or the rig's 60 s fetch timeout): a bound well
    # under that, not a measure of the quarter second (the machine may be loaded).
    runner.join(30)
    assert not runner.is_alive(), "the fetch under way went on with the lease lost"
    assert "lease lost, result discarded" in caplog.text


def the_new_holder_processes(r: Rig, did: int, items: int) -> t.Delivery:
    """Once the other worker's lease on delivery ``did`` has run out too, the next turn
    processes it: ``items`` new items, stored once, no error. The delivery after."""
    take_over(r, t.Delivery, did, -1)
    assert r.worker._one(queue.DELIVERIES)
    d = r.delivery(did)
    assert (d.state, d.items_new, d.error) == ("processed", items, None)
    assert count(r, t.Item) == items
    return d


def count(r: Rig, table: type[t.Item] | type[t.Explainer]) -> int:
    with r.sessions() as s:
        return int(s.scalar(select(func.count()).select_from(table)) or 0)


def test_a_page_read_under_way_ends_once_the_lease_is_lost(
    rig: Callable[..., Rig], origin: Origin, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    r = rig(page_fetches_per_delivery=5, lease_seconds=2, fetch_timeout=60)
    links = serve_pages(origin, 2)
    reading, gate = held(origin, "/posts/p0")
    did = r.store(rss([entry(i, link=links[i]) for i in range(2)]))
    try:
        ends_with_the_lease(r, t.Delivery, did, reading, caplog)
    finally:
        gate.set()
    assert pages_seen(origin) == ["/posts/p0"]
    d = r.delivery(did)
    assert (d.state, d.lease_owner, d.error, d.problems) == (
        "processing",
        "other-worker",
        None,
        None,
    )
    assert count(r, t.Item) == 0

    assert the_new_holder_processes(r, did, 2).problems is None
    assert {i.content_source for i in r.items().values()} == {"page"}


def test_the_feeds_own_fetch_under_way_ends_once_the_lease_is_lost(
    rig: Callable[..., Rig], origin: Origin, caplog: pytest.LogCaptureFixture
) -> None:
    # A delivery without a document: its first step is the feed's fetch.
    caplog.set_level(logging.WARNING)
    r = rig(lease_seconds=2, fetch_timeout=60)
    url = origin.route("/feed.xml", body=rss([entry(i) for i in range(3)]), headers=RSS)
    reading, gate = held(origin, "/feed.xml")
    did = r.ping(url)
    try:
        ends_with_the_lease(r, t.Delivery, did, reading, caplog)
    finally:
        gate.set()
    assert len(origin.requests_to("/feed.xml")) == 1
    d = r.delivery(did)
    assert (d.state, d.lease_owner, d.error) == ("processing", "other-worker", None)
    assert count(r, t.Item) == 0

    the_new_holder_processes(r, did, 3)


def test_an_items_page_read_under_way_ends_once_the_lease_is_lost(
    rig: Callable[..., Rig], origin: Origin, caplog: pytest.LogCaptureFixture
) -> None:
    # No page read by the delivery: the item's worker reads it before explaining.
    caplog.set_level(logging.WARNING)
    r = rig(page_fetches_per_delivery=0, lease_seconds=2, fetch_timeout=60)
    (link,) = serve_pages(origin, 1)
    assert r.deliver(rss([entry(0, link=link)])).state == "processed"
    (item,) = r.items().values()
    assert item.content_source == "excerpt"
    reading, gate = held(origin, "/posts/p0")
    try:
        ends_with_the_lease(r, t.Item, item.id, reading, caplog)
    finally:
        gate.set()
    (left,) = r.items().values()
    assert (left.state, left.lease_owner, left.content_source) == (
        "processing",
        "other-worker",
        "excerpt",
    )

    take_over(r, t.Item, item.id, -1)
    assert r.worker._one(queue.ITEMS)
    (done,) = r.items().values()
    assert done.state in EXPLAINED and done.content_source == "page"
    assert count(r, t.Explainer) == 1
    assert pages_seen(origin) == ["/posts/p0", "/posts/p0"]
