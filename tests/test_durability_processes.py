"""Durability with real processes: ``plainfeed worker`` / ``plainfeed serve`` children
killed with SIGKILL or stopped with SIGTERM, several of them sharing one PostgreSQL, the
stub LLM as a process (slow, or down for a while). What is proven is the promise behind
a ``202``: every new post ends explained, once."""

from __future__ import annotations

import re
import signal
import threading
from contextlib import ExitStack
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, func, select

from service.engines import get_engine
from service.pipeline import Pipeline
from service.store import tables as t
from service.store.db import make_sessionmaker, transaction
from service.worker import Worker
from tests.durability_helpers import (
    FAST,
    all_done,
    end_leases,
    explainers_per_item,
    items,
    states,
    store_delivery,
)
from tests.procs import (
    READY,
    Child,
    StubProcess,
    calls_by_link,
    http_json,
    on_a_free_port,
    plainfeed,
    plainfeed_env,
    post_link,
    rss_document,
    wait_output,
    wait_ready,
    wait_until,
)
from tests.stub_llm import StubLLM, settings_for

pytestmark = pytest.mark.slow


def post_feed(base_url: str, body: bytes) -> int:
    status, answer = http_json(
        f"{base_url}/webhooks/feed", body, {"Content-Type": "application/rss+xml"}
    )
    assert status == 202, answer
    return int(answer["delivery_id"])


def assert_published_once(engine: Engine, total: int) -> list[t.Item]:
    rows = items(engine)
    assert len(rows) == total
    assert {i.state for i in rows} == {"published"}, states(engine)
    assert all(i.lease_owner is None for i in rows)
    assert explainers_per_item(engine) == {i.id: 1 for i in rows}
    return rows


@pytest.mark.postgres
def test_a_worker_killed_mid_call_is_taken_over_and_nothing_is_explained_twice(
    pg_url: str, tmp_path: Path, engine_for: Any
) -> None:
    engine = engine_for(pg_url)
    store_delivery(engine, rss_document(0, 6))
    links = [post_link(0, n) for n in range(6)]
    with ExitStack() as stack:
        # The model holds its answers until the first worker is dead: a reply delay was
        # a guess (a test stalled past it found four items explained, not two in flight).
        stub = stack.enter_context(StubProcess(tmp_path, gated=True))
        env = plainfeed_env(pg_url, stub.url, **FAST)
        first = stack.enter_context(
            plainfeed("worker", tmp_path, env, "--concurrency", "2", name="first")
        )
        # Kill it while both of its threads wait on the model.
        wait_until(lambda: len(stub.calls()) >= 2, 60, "the first worker's calls")
        first.kill()
        in_flight = calls_by_link(stub.calls(), links)
        killed = {link for link, calls in in_flight.items() if calls}
        assert len(killed) == 2
        assert states(engine) == {"processing": 2, "pending": 4}
        stub.release()  # the held answers go to a dead process; the next ones at once
        # Their leases run out (as the clock would make them; a lease short enough to
        # wait for also ran out under the living worker on a busy machine).
        end_leases(engine)

        stack.enter_context(plainfeed("worker", tmp_path, env, "--concurrency", "2", name="second"))
        wait_until(lambda: all_done(engine, 6), 90, "the second worker to publish all")

    rows = assert_published_once(engine, 6)
    by_link = calls_by_link(stub.calls(), links)
    with make_sessionmaker(engine)() as s:
        made = {e.item_id: e.created_at.timestamp() for e in s.scalars(select(t.Explainer))}
    for item in rows:
        assert item.link is not None
        calls = by_link[item.link]
        # One call per item, plus the one that died with the first worker.
        assert len(calls) == (2 if item.link in killed else 1), item.link
        # No call for an item after its explainer was stored.
        assert max(c["at"] for c in calls) < made[item.id]
        if item.link in killed:
            assert item.attempts == 2  # the dead worker's attempt counts


@pytest.mark.postgres
def test_one_api_and_three_workers_explain_two_hundred_posts_once(
    pg_url: str, tmp_path: Path, engine_for: Any
) -> None:
    engine = engine_for(pg_url)
    batches, per_batch = 20, 10
    total = batches * per_batch
    with ExitStack() as stack:
        stub = stack.enter_context(StubProcess(tmp_path, delay=0.05))
        env = plainfeed_env(pg_url, stub.url, **FAST)
        api, port = stack.enter_context(
            on_a_free_port(
                lambda p: plainfeed(
                    "serve", tmp_path, env, "--port", str(p), "--workers", "0", name="api"
                ),
                READY,
            )
        )
        base = f"http://127.0.0.1:{port}"
        workers = [
            stack.enter_context(
                plainfeed("worker", tmp_path, env, "--concurrency", "3", name=f"worker{k}")
            )
            for k in range(3)
        ]
        wait_ready(api, base)
        for w in workers:
            wait_output(w, "plainfeed worker:")
        # The webhooks arrive while the workers already run.
        delivery_ids = [post_feed(base, rss_document(b, per_batch)) for b in range(batches)]
        wait_until(lambda: all_done(engine, total), 240, f"{total} published items")
        for d in delivery_ids:
            status, body = http_json(f"{base}/deliveries/{d}")
            assert status == 200 and body["state"] == "processed", body

    rows = assert_published_once(engine, total)
    links = [post_link(b, n) for b in range(batches) for n in range(per_batch)]
    assert sorted(i.link or "" for i in rows) == sorted(links)
    calls = stub.calls()
    assert len(calls) == total
    assert {link: len(c) for link, c in calls_by_link(calls, links).items()} == dict.fromkeys(
        links, 1
    )
    with make_sessionmaker(engine)() as s:
        assert s.scalar(select(func.count()).select_from(t.LLMCall)) == total  # cost rows
    # The work was shared: every worker process made calls (each logs its requests).
    made = [w.output().count("POST " + stub.url + "/chat/completions") for w in workers]
    assert sum(made) == total and all(made), made


@pytest.mark.postgres
def test_a_model_outage_opens_the_circuit_and_every_item_is_published_after_it(
    pg_url: str, tmp_path: Path, engine_for: Any
) -> None:
    engine = engine_for(pg_url)
    total, outage = 4, 6
    store_delivery(engine, rss_document(0, total))
    script = [{"kind": "status", "status": 503, "message": "model is loading"}] * outage
    seen: list[tuple[int, str]] = []
    stop = threading.Event()
    base = ""  # once the server has a port

    def watch_readyz() -> None:
        while not stop.wait(0.1):
            try:
                status, body = http_json(f"{base}/readyz")
            except OSError:
                continue
            seen.append((status, body["checks"]["llm_circuit"]))

    watcher = threading.Thread(target=watch_readyz, daemon=True)
    with ExitStack() as stack:
        stub = stack.enter_context(StubProcess(tmp_path, script=script))
        env = plainfeed_env(
            pg_url,
            stub.url,
            **{
                **FAST,
                # One try per call: each 503 is an item attempt that backs off.
                "llm_max_attempts": 1,
                "max_attempts": 50,
                "circuit_threshold": 3,
                "circuit_cooldown": 1.0,
                # Backoff longer than the cool-down: the first half-open trial finds no
                # item ready, and must not keep the circuit shut for good.
                "backoff_base": 3.0,
                "backoff_max": 6.0,
            },
        )
        api, port = stack.enter_context(
            on_a_free_port(
                lambda p: plainfeed("serve", tmp_path, env, "--port", str(p), "--workers", "3"),
                READY,
            )
        )
        base = f"http://127.0.0.1:{port}"
        wait_ready(api, base)
        watcher.start()
        stack.callback(stop.set)
        wait_until(lambda: all_done(engine, total), 120, "every item published")
        stop.set()
        watcher.join(timeout=5)
        status, body = http_json(f"{base}/readyz")
        assert (status, body["checks"]["llm_circuit"]) == (200, "closed")

    assert (503, "open") in seen  # readyz said so while the model was down
    rows = assert_published_once(engine, total)
    assert any(i.attempts > 1 for i in rows)  # items backed off and came back
    assert len(stub.calls()) == total + outage


def test_serve_on_sqlite_killed_with_work_in_flight_finishes_it_after_a_restart(
    tmp_path: Path, engine_for: Any
) -> None:
    url = f"sqlite:///{tmp_path / 'plainfeed.db'}"
    engine = engine_for(url)
    total = 6
    links = [post_link(0, n) for n in range(total)]
    with ExitStack() as stack:
        # Answers held until the kill (not a 2 s delay: a test slower than that found
        # every item published before the kill).
        stub = stack.enter_context(StubProcess(tmp_path, gated=True))
        env = plainfeed_env(url, stub.url, **FAST)

        def serve(name: str) -> tuple[Child, str]:
            child, port = stack.enter_context(
                on_a_free_port(
                    lambda p: plainfeed(
                        "serve", tmp_path, env, "--port", str(p), "--workers", "2", name=name
                    ),
                    READY,
                )
            )
            base = f"http://127.0.0.1:{port}"
            wait_ready(child, base)
            return child, base

        first, base = serve("first")
        post_feed(base, rss_document(0, total))
        wait_until(lambda: len(stub.calls()) >= 2, 60, "calls in flight")
        first.kill()
        assert states(engine) == {"processing": 2, "pending": total - 2}
        stub.release()
        end_leases(engine)  # as the clock would, for the jobs of the process killed

        serve("second")
        wait_until(lambda: all_done(engine, total), 120, "every item published")

    assert_published_once(engine, total)
    per_link = calls_by_link(stub.calls(), links)
    assert all(1 <= len(c) <= 2 for c in per_link.values()), per_link


@pytest.mark.postgres
@pytest.mark.parametrize(
    ("grace", "ends"),
    [(60.0, "published"), (1.0, "pending")],
    ids=["finishes-within-grace", "releases-after-grace"],
)
def test_sigterm_stops_a_worker_within_the_grace_period_leaving_no_lease(
    pg_url: str, tmp_path: Path, engine_for: Any, grace: float, ends: str
) -> None:
    engine = engine_for(pg_url)
    store_delivery(engine, rss_document(0, 4))
    with ExitStack() as stack:
        # The two calls are held until the worker has stopped claiming (within the
        # grace) or for good (past it): a 1.5 s reply delay let a slow test's worker
        # finish them and start two more before the SIGTERM.
        stub = stack.enter_context(StubProcess(tmp_path, gated=True))
        env = plainfeed_env(pg_url, stub.url, **{**FAST, "shutdown_grace": grace})
        worker = stack.enter_context(plainfeed("worker", tmp_path, env, "--concurrency", "2"))
        wait_until(lambda: len(stub.calls()) >= 2, 60, "two calls in flight")
        worker.signal(signal.SIGTERM)
        # Past a 1 s grace it may have ended already: its output says it all the same.
        wait_until(lambda: "stopping: no new jobs" in worker.output(), 60, "the worker stopping")
        if ends == "published":
            stub.release()
        # Bounded: the grace period, plus the poll of the stop flag and the exit itself.
        status = worker.wait(timeout=grace + 15)
        # 0: every job ended; 1: some were handed back to the queue.
        assert status == (0 if ends == "published" else 1), worker.output()

    rows = items(engine)
    assert all(i.state in ("published", "pending") for i in rows), states(engine)
    assert all(i.lease_owner is None and i.lease_until is None for i in rows)
    touched = [i for i in rows if i.attempts or i.state == "published"]
    if ends == "published":
        # The two calls in flight were finished; no new ones were started.
        assert states(engine) == {"published": 2, "pending": 2}
        assert len(stub.calls()) == 2
    else:
        # Released, and the interrupted attempt is not counted against the item.
        assert states(engine) == {"pending": 4}
        assert touched == []


def test_sigterm_stops_serve_on_sqlite_releasing_the_jobs_it_cannot_finish(
    tmp_path: Path, engine_for: Any
) -> None:
    url = f"sqlite:///{tmp_path / 'plainfeed.db'}"
    engine = engine_for(url)
    store_delivery(engine, rss_document(0, 4))
    with ExitStack() as stack:
        # Held past the 1 s grace for sure: answered never, not after 30 s.
        stub = stack.enter_context(StubProcess(tmp_path, gated=True))
        env = plainfeed_env(url, stub.url, **{**FAST, "shutdown_grace": 1})
        serve = stack.enter_context(
            plainfeed("serve", tmp_path, env, "--port", "0", "--workers", "2")
        )
        wait_until(lambda: len(stub.calls()) >= 2, 60, "two calls in flight")
        # --port 0 bound a port the log names (uvicorn, given the socket, names none).
        served = re.search(r"serving on (http://127\.0\.0\.1:(\d+))", serve.output())
        assert served is not None and served.group(2) != "0", serve.output()
        assert http_json(served.group(1) + "/healthz") == (200, {"status": "ok"})
        serve.signal(signal.SIGTERM)
        serve.wait(timeout=20)
        assert "released at shutdown" in serve.output()

    rows = items(engine)
    assert states(engine) == {"pending": 4}
    assert all(i.lease_owner is None and i.attempts == 0 for i in rows)


def test_an_item_whose_workers_keep_dying_fails_after_the_configured_attempts(
    db: Engine,
) -> None:
    with StubLLM() as stub:
        settings = settings_for(stub, database_url=str(db.url), poll_interval=0.05, max_attempts=3)
        pipeline = Pipeline(settings, make_sessionmaker(db), get_engine(settings))
        with Worker(pipeline, stop=threading.Event()) as worker:
            store_delivery(db, rss_document(0, 2))
            worker.run_once()  # the delivery: two pending items
            first, second = items(db)
            # Both were claimed by workers that died; the first one three times already.
            past = datetime.now(UTC) - timedelta(seconds=1)
            with transaction(make_sessionmaker(db)) as s:
                for item_id, attempts in ((first.id, 3), (second.id, 1)):
                    row = s.get(t.Item, item_id)
                    assert row is not None
                    row.state, row.attempts = "processing", attempts
                    row.lease_owner, row.lease_until = "dead-worker", past
            while worker.run_once():
                pass
            first, second = items(db)
            assert (first.state, first.attempts) == ("failed", 4)
            assert "worker died" in (first.last_error or "")
            assert (second.state, second.attempts) == ("published", 2)
            assert len(stub.calls) == 1  # only the second one was explained
