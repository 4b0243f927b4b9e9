"""Durability of a delivery under way: a ``plainfeed worker`` child killed with SIGKILL
while it reads a delivery's pages (after the claim, before the one transaction that
stores the items and marks the delivery processed) leaves nothing half-stored, and the
next worker takes the delivery over once its lease has run out: every item stored once,
the attempt of the dead worker counted. On SQLite, the pages on a loopback server."""

from __future__ import annotations

import threading
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update

from service.store import tables as t
from service.store.db import make_sessionmaker, transaction
from tests.durability_helpers import FAST, add_delivery
from tests.intake_rig import HTML, PAGE, entry, rss
from tests.origin import Origin, Seen
from tests.procs import plainfeed, plainfeed_env, wait_until

pytestmark = pytest.mark.slow


def test_a_worker_killed_while_it_reads_a_deliverys_pages_leaves_it_whole_to_the_next(
    tmp_path: Path, engine_for: Any, origin: Origin
) -> None:
    url = f"sqlite:///{tmp_path / 'plainfeed.db'}"
    engine = engine_for(url)
    sessions = make_sessionmaker(engine)
    reading, gate = threading.Event(), threading.Event()

    def held(seen: Seen) -> tuple[int, dict[str, str], bytes]:
        reading.set()
        gate.wait(60)  # until the first worker is dead
        return 200, HTML, PAGE

    links = [origin.route(f"/posts/p{i}", body=PAGE, headers=HTML) for i in range(3)]
    origin.route("/posts/p1", handler=held)
    did = add_delivery(sessions, rss([entry(i, link=links[i]) for i in range(3)]))
    env = plainfeed_env(url, None, allow_private_urls=1, page_fetches_per_delivery=5, **FAST)
    with ExitStack() as stack:
        stack.callback(gate.set)
        first = stack.enter_context(plainfeed("worker", tmp_path, env, name="first"))
        assert reading.wait(60), "the first worker never read the held page"
        first.kill()
        with sessions() as s:
            d = s.get(t.Delivery, did)
            assert d is not None and (d.state, d.attempts) == ("processing", 1)
            assert s.scalar(select(func.count()).select_from(t.Item)) == 0
        gate.set()
        # Its lease runs out, as the clock would make it.
        with transaction(sessions) as s:
            s.execute(
                update(t.Delivery)
                .where(t.Delivery.id == did)
                .values(lease_until=datetime.now(UTC) - timedelta(seconds=1))
            )
        stack.enter_context(plainfeed("worker", tmp_path, env, name="second"))

        def processed() -> bool:
            with sessions() as s:
                return s.scalar(select(t.Delivery.state).where(t.Delivery.id == did)) == (
                    "processed"
                )

        wait_until(processed, 90, "the second worker to process the delivery")
    with sessions() as s:
        d = s.get(t.Delivery, did)
        assert d is not None
        assert (d.items_new, d.error, d.attempts, d.lease_owner) == (3, None, 2, None)
        stored = list(s.scalars(select(t.Item)))
    assert sorted(i.link for i in stored) == sorted(links)  # each once
    assert {i.content_source for i in stored} == {"page"}
