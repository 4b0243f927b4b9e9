"""Reader-side latency: the item page and the Atom feed with 1,000 published explainers.

Inserts N published items straight into a fresh database (each the FlyDSL post, about
3,800 words, with the 003 explainer and its check report of 59 numbers), serves the app
with uvicorn on loopback (no in-process workers), and times a bounded, sequential loop
of requests per endpoint with one HTTP client:

- ``item page``: ``GET /ui/items/{id}`` of random items (explainer traced against its
  source: every number linked to its sentence);
- ``atom (cold)``: ``GET /feed.atom`` with the feed and entry caches emptied before each
  request, so every request queries, renders and sanitises the 50-entry feed;
- ``atom (rebuilt)``: the feed cache alone emptied, as after a new publication: the
  feed is queried and assembled, its entries' HTML comes from the entry cache;
- ``atom (cached)``: ``GET /feed.atom`` as readers see it once one has asked;
- ``atom 304``: a conditional GET with the current ETag;
- ``feed atom``: ``GET /feeds/{id}/feed.atom`` of one feed, cold each time.

    PYTHONPATH=. /work/venv/bin/python -m bench.pages [--items 1000] [--requests 300]
        [--db postgresql+psycopg://...]

Prints p50/p90/p99/max wall time per endpoint, and the CPU time per request of the
process (server and client share it; a busy machine stretches wall time, not CPU
time), and writes ``bench/results/pages.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import insert

from service import clean
from service.api import atom
from service.api.app import create_app
from service.check import check_explainer
from service.models import content_hash
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker, migrate, transaction
from tests.conftest import LiveServer, make_settings
from tests.seed_db import FLYDSL_POST, FLYDSL_URL, flydsl_explainer

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "pages.json"
FEEDS = 10


def seed(url: str, n: int) -> list[int]:
    """N published items over FEEDS feeds, inserted in bulk; returns their ids."""
    engine = make_engine(url)
    migrate(engine)
    sm = make_sessionmaker(engine)
    ex = flydsl_explainer()
    base_text = clean.article_from_document(
        FLYDSL_POST.read_bytes(), filename=FLYDSL_POST.name, url=FLYDSL_URL
    ).text
    report = check_explainer(ex, base_text).model_dump(mode="json")
    body = ex.model_dump(mode="json")
    now = datetime.now(UTC)
    with transaction(sm) as s:
        feed_ids = []
        for f in range(FEEDS):
            feed = t.Feed(url=f"https://feeds.example/{f}.xml", name=f"Feed {f}")
            s.add(feed)
            s.flush()
            feed_ids.append(feed.id)
        items = []
        for i in range(n):
            text = base_text + f"\n\nCopy {i}."
            items.append(
                {
                    "feed_id": feed_ids[i % FEEDS],
                    "key": f"post-{i}",
                    "link": f"{FLYDSL_URL}?copy={i}",
                    "title": f"Accelerating PyTorch on AMD GPUs with FlyDSL (copy {i})",
                    "author": "AMD and PyTorch",
                    "content_hash": content_hash(text),
                    "text": text,
                    "state": "published",
                    "published_at": now - timedelta(minutes=n - i),
                    "created_at": now,
                    "updated_at": now,
                    "next_attempt_at": now,
                }
            )
        s.execute(insert(t.Item), items)
        rows = s.execute(
            t.Item.__table__.select().with_only_columns(t.Item.id, t.Item.content_hash)
        )
        explainers = [
            {
                "item_id": item_id,
                "content_hash": digest,
                "prompt_version": "explain@1",
                "model": "bench-model",
                "engine": "llm",
                "body": body,
                "check": report,
                "check_ok": True,
                "prompt_tokens": 9000,
                "completion_tokens": 1500,
                "llm_calls": 1,
                "cost_usd": 0.00225,
                "repairs": 0,
                "created_at": now,
            }
            for item_id, digest in rows
        ]
        s.execute(insert(t.Explainer), explainers)
        ids = [r[0] for r in s.execute(t.Item.__table__.select().with_only_columns(t.Item.id))]
    engine.dispose()
    return ids


def percentiles(samples: list[float]) -> dict[str, float]:
    ms = sorted(x * 1000 for x in samples)
    q = statistics.quantiles(ms, n=100, method="inclusive")
    return {
        "n": len(ms),
        "p50_ms": round(q[49], 2),
        "p90_ms": round(q[89], 2),
        "p99_ms": round(q[98], 2),
        "max_ms": round(ms[-1], 2),
        "mean_ms": round(statistics.fmean(ms), 2),
    }


def timed(
    client: httpx.Client, requests: int, make: Any, expect: int = 200
) -> tuple[list[float], float]:
    """Wall-clock seconds per request, and the CPU seconds per request of this process
    (server and client both), which a busy machine disturbs much less than wall time."""
    out = []
    cpu = time.process_time()
    for _ in range(requests):
        url, headers, before = make()
        if before:
            before()
        started = time.perf_counter()
        r = client.get(url, headers=headers)
        elapsed = time.perf_counter() - started
        if r.status_code != expect:
            raise SystemExit(f"{url}: {r.status_code} (expected {expect})")
        out.append(elapsed)
    return out, (time.process_time() - cpu) / requests


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--items", type=int, default=1000)
    ap.add_argument("--requests", type=int, default=300, help="timed requests per endpoint")
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--db", help="database URL of an empty database (default: SQLite)")
    args = ap.parse_args()

    tmp = tempfile.TemporaryDirectory(prefix="pf-bench-")
    url = args.db or f"sqlite:///{tmp.name}/pages.db"
    started = time.perf_counter()
    ids = seed(url, args.items)
    print(f"seeded {len(ids)} published explainers in {time.perf_counter() - started:.1f} s")
    rng = random.Random(7)
    results: dict[str, Any] = {}
    app = create_app(make_settings(url), workers=0)
    with LiveServer(app) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        etag = client.get("/feed.atom").headers["etag"]
        page_bytes = len(client.get(f"/ui/items/{ids[0]}").content)
        feed_bytes = len(client.get("/feed.atom").content)

        def cold() -> None:
            atom.CACHE.clear()
            atom.ENTRIES.clear()

        cases = {
            "item page": lambda: (f"/ui/items/{rng.choice(ids)}", None, None),
            "atom (cold)": lambda: ("/feed.atom", None, cold),
            "atom (rebuilt)": lambda: ("/feed.atom", None, atom.CACHE.clear),
            "atom (cached)": lambda: ("/feed.atom", None, None),
            "atom 304": lambda: ("/feed.atom", {"If-None-Match": etag}, None),
            "feed atom": lambda: ("/feeds/1/feed.atom", None, cold),
        }
        for name, make in cases.items():
            expect = 304 if name == "atom 304" else 200
            timed(client, args.warmup, make, expect)
            wall, cpu = timed(client, args.requests, make, expect)
            results[name] = {**percentiles(wall), "cpu_ms": round(cpu * 1000, 2)}
    tmp.cleanup()

    print(f"{'endpoint':<16}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}{'cpu ms':>9}")
    for name, r in results.items():
        print(
            f"{name:<16}{r['p50_ms']:>9}{r['p90_ms']:>9}{r['p99_ms']:>9}{r['max_ms']:>9}"
            f"{r['cpu_ms']:>9}"
        )
    print(f"item page {page_bytes / 1024:.0f} KB, feed {feed_bytes / 1024:.0f} KB (50 entries)")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average {load} on {os.cpu_count()} CPUs")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "items": len(ids),
                "requests": args.requests,
                "database": url.split(":", 1)[0],
                "page_bytes": page_bytes,
                "feed_bytes": feed_bytes,
                "python": platform.python_version(),
                "load_average": list(os.getloadavg()),
                "cpus": os.cpu_count(),
                "results": results,
            },
            indent=2,
        )
    )
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
