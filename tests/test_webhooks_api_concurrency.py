"""POST /webhooks/feed end to end under load: identical deliveries at once, several
workers on a new feed, a feed of seventy thousand entries, replay storms; the real app on
loopback with its workers, real SQLite and PostgreSQL."""

from __future__ import annotations

import threading
import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from service.store import tables as t
from tests.conftest import llm_settings, make_settings, wait_for
from tests.live import Service, running
from tests.origin import Origin
from tests.stub_llm import StubLLM
from tests.webhook_docs import FEED_BYTES, PYTORCH_ITEMS, RSS


def _burst(url: str, n: int, body: bytes, headers: list[dict[str, str]]) -> list[httpx.Response]:
    """``n`` requests released at the same instant from ``n`` threads."""
    start = threading.Barrier(n)
    out: list[httpx.Response | None] = [None] * n

    def one(i: int) -> None:
        with httpx.Client(timeout=60) as c:
            start.wait()
            out[i] = c.post(url + "/webhooks/feed", content=body, headers=headers[i])

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert all(r is not None for r in out)
    return [r for r in out if r is not None]


@pytest.mark.postgres
def test_ten_identical_deliveries_at_once_create_each_item_once(pg_url: str) -> None:
    with running(make_settings(pg_url), workers=4) as svc:
        rs = _burst(svc.url, 10, FEED_BYTES, [RSS] * 10)
        assert sorted(r.status_code for r in rs) == [200] * 9 + [202]
        assert len({r.json()["delivery_id"] for r in rs}) == 1
        svc.outcome(rs[0].json()["delivery_id"])
        assert svc.count(t.Delivery) == 1 and svc.count(t.Item) == PYTORCH_ITEMS
        # Ten deliveries of the same document under distinct ids, processed by four
        # workers at once: still each item exactly once.
        ids = [{**RSS, "webhook-id": f"burst-{i}"} for i in range(10)]
        rs2 = _burst(svc.url, 10, FEED_BYTES, ids)
        assert [r.status_code for r in rs2] == [202] * 10
        outcomes = [svc.outcome(r.json()["delivery_id"]) for r in rs2]
        assert all(o["state"] == "processed" and o["items_new"] == 0 for o in outcomes)
        with svc.sessions() as s:
            keys = list(s.scalars(select(t.Item.key)))
        assert len(keys) == len(set(keys)) == PYTORCH_ITEMS


@pytest.mark.postgres
def test_documents_of_a_new_feed_processed_by_four_workers(pg_url: str) -> None:
    # Distinct documents of the same (unregistered) feed racing to create the feed row.
    with running(make_settings(pg_url), workers=4) as svc:
        bodies = [FEED_BYTES + f"<!-- {i} -->".encode() for i in range(10)]
        rs: list[httpx.Response] = []
        for chunk in (bodies[:5], bodies[5:]):
            for b in chunk:
                rs.append(svc.post(b, RSS))
        outcomes = [svc.outcome(r.json()["delivery_id"]) for r in rs]
        assert {o["state"] for o in outcomes} == {"processed"}
        assert sum(o["items_new"] for o in outcomes) == PYTORCH_ITEMS
        assert svc.count(t.Feed) == 1 and svc.count(t.Item) == PYTORCH_ITEMS


def test_a_feed_of_seventy_thousand_entries_on_postgres(pg_url: str) -> None:
    # 4.8 MB, well under the caps: one query parameter per entry key was over the 65,535
    # PostgreSQL's protocol takes, and the delivery failed.
    n = 70_000
    entries = "".join(f"<item><guid>g{i}</guid><title>t{i}</title></item>" for i in range(n))
    doc = f'<rss version="2.0"><channel><title>Big</title>{entries}</channel></rss>'.encode()
    with running(make_settings(pg_url), workers=1) as svc:
        # 70,000 rows take a worker seconds to write, many more on a loaded machine.
        d = svc.outcome(svc.post(doc, RSS).json()["delivery_id"], timeout=180)
        assert d["state"] == "processed", d["error"]
        # A first delivery: the newest 20 (undated: the first in the document) are
        # explained, the rest stored as skipped.
        assert (d["items_new"], d["items_skipped"]) == (20, n - 20)
        # The whole feed again (a monitor that sends it each time): nothing new, no change.
        again = svc.outcome(svc.post(doc + b"\n", RSS).json()["delivery_id"], timeout=180)
        assert again["state"] == "processed", again["error"]
        assert again["items_new"] == 0 and again["items_changed"] == 0
        assert svc.count(t.Item) == n


def test_replay_storm_changes_nothing(db_url: str) -> None:
    # The LLM engine against the stub server: its call log counts every real call.
    with StubLLM() as stub:
        settings = llm_settings(
            db_url,
            stub.url,
            llm_backoff_initial=0.01,
            llm_backoff_max=0.05,
        )
        with running(settings) as svc:
            first = svc.post(FEED_BYTES, RSS).json()
            assert svc.outcome(first["delivery_id"])["items_new"] == PYTORCH_ITEMS
            wait_for(lambda: svc.count(t.Explainer) == PYTORCH_ITEMS, timeout=120)
            before = (svc.count(t.Item), svc.count(t.LLMCall), len(stub.calls))
            assert before[1] == PYTORCH_ITEMS and before[2] >= PYTORCH_ITEMS
            statuses: list[int] = []
            lock = threading.Lock()

            def storm(n: int) -> None:
                with httpx.Client(base_url=svc.url, timeout=30) as c:
                    for _ in range(n):
                        r = c.post("/webhooks/feed", content=FEED_BYTES, headers=RSS)
                        with lock:
                            statuses.append(r.status_code)

            threads = [threading.Thread(target=storm, args=(100,)) for _ in range(5)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            assert statuses == [200] * 500
            assert svc.count(t.Delivery) == 1
            # The same document re-sent as new deliveries is parsed, and still nothing
            # is new: no item, no LLM call.
            for i in range(5):
                r = svc.post(FEED_BYTES, {**RSS, "webhook-id": f"resend-{i}"})
                assert svc.outcome(r.json()["delivery_id"])["items_new"] == 0
            wait_for(lambda: svc.count(t.Delivery) == 6)
            assert (svc.count(t.Item), svc.count(t.LLMCall), len(stub.calls)) == before
            assert svc.count(t.Explainer) == PYTORCH_ITEMS


def test_bodiless_pings_coalesce_while_one_waits(tmp_path: Any, origin: Origin) -> None:
    # No workers: the first ping's fetch is still waiting when the others arrive.
    with running(make_settings(f"sqlite:///{tmp_path / 'p.db'}"), workers=0) as svc:
        fid = svc.feed(origin.route("/f", body=FEED_BYTES, headers=RSS))
        rs = [svc.post({"feed_id": fid}) for _ in range(5)]
        assert [r.status_code for r in rs] == [202, 200, 200, 200, 200]
        assert len({r.json()["delivery_id"] for r in rs}) == 1
        assert svc.count(t.Delivery) == 1


def test_unique_ids_are_kept_per_delivery(svc: Service) -> None:
    fid = svc.feed("https://pytorch.org/blog/feed/")
    ids = [str(uuid.uuid4()) for _ in range(3)]
    for i in ids:
        r = svc.post(FEED_BYTES, {**RSS, "X-GitHub-Delivery": i}, params={"feed_id": fid})
        assert r.status_code == 202
    listed = svc.http.get("/deliveries").json()["items"]
    assert {d["external_id"] for d in listed} == {f"x-github-delivery:{i}" for i in ids}
