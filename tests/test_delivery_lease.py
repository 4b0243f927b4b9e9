"""A delivery whose lease is lost stops reading its entries' pages: the lease is looked
at before each (up to PLAINFEED_PAGE_FETCHES_PER_DELIVERY, each up to the fetch timeout),
its outcome would be refused, and the new holder of the lease reads them and stores the
items: nothing is lost. Real worker and queue on SQLite and PostgreSQL, the pages on a
real HTTP server on loopback."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import Engine, update

from service import abandon, queue
from service.errors import LeaseLost
from service.store import tables as t
from service.store.db import transaction
from tests.intake_rig import HTML, PAGE, Rig, entry, pages_seen, rigs, rss, serve_pages
from tests.origin import Origin, Seen
from tests.procs import wait_until


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
