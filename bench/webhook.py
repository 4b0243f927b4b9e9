"""Webhook benchmark: deliveries per second and latency of ``POST /webhooks/feed`` (and the
WebSub callback) for each sender kind, replays included, on loopback.

The service runs as ``plainfeed serve`` in a subprocess (its own interpreter, as in
production); this process is the load: C client threads, each with a keep-alive httpx
client, send N requests per kind. Bodies and signatures are built before the clock
starts. Every request must get the expected status (202 new, 200 replay), else the run
stops. Workers are off by default so the figures are the request path alone (store and
answer); ``--workers 2`` shows it with the in-process workers parsing on the same 2 cores.

    PYTHONPATH=. /work/venv/bin/python -m bench.webhook [--n 300] [--clients 4]
        [--workers 0] [--db sqlite|postgres] [--rate R] [--only NAME]

Prints a table and writes ``bench/results/webhook.json``.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import update

from service import signatures
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker, transaction
from tests.conftest import PG_ADMIN, create_pg_database, drop_pg_database
from tests.origin import Origin

ROOT = Path(__file__).resolve().parent.parent
FEED = ROOT / "tests" / "data" / "corpus" / "feeds" / "pytorch-blog-2026-09-02-397d8ac.xml"
HOOKS = ROOT / "tests" / "data" / "webhooks"
RESULTS = ROOT / "bench" / "results" / "webhook.json"
SECRET = "bench-secret-0123456789"
HUB_SECRET = "bench-hub-secret-0123456789"
RSS = "application/rss+xml; charset=UTF-8"
JSON = "application/json"

Request = tuple[str, bytes, dict[str, str]]  # (path, body, headers)


@dataclass
class Kind:
    name: str
    status: int  # what every request of the kind must get
    build: Callable[[int], Request]  # request i
    bytes_each: int = 0


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_service(db_url: str, workers: int) -> tuple[subprocess.Popen[bytes], str]:
    """The service on a free port: a port found free is free only until something binds
    it, so a service that exits saying it cannot serve there is started on another."""
    for _ in range(5):
        started = _start_on(free_port(), db_url, workers)
        if started is not None:
            return started
    raise SystemExit("service found no free port in 5 tries")


def _start_on(port: int, db_url: str, workers: int) -> tuple[subprocess.Popen[bytes], str] | None:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PLAINFEED_DATABASE_URL": db_url,
        "PLAINFEED_ENGINE": "extractive",
        "PLAINFEED_ALLOW_PRIVATE_URLS": "1",
        "PLAINFEED_LOG_LEVEL": "WARNING",
    }
    for k in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "PLAINFEED_API_TOKEN"):
        env.pop(k, None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "service", "serve", "--port", str(port), "--workers", str(workers)],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            err = proc.stderr.read().decode() if proc.stderr else ""
            if proc.returncode == 2 and "cannot serve" in err:
                return None  # the port was taken meanwhile
            raise SystemExit(f"service exited: {err}")
        try:
            if httpx.get(url + "/healthz", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            time.sleep(0.1)
    proc.kill()
    raise SystemExit("service did not start")


def kinds(feeds: dict[str, int], feed: bytes, feed_url: str) -> list[Kind]:
    run = uuid.uuid4().hex[:8]  # ids unique across runs on the same database
    change = json.loads((HOOKS / "change-record-000.json").read_text())
    mini = json.loads((HOOKS / "miniflux-new-entries.json").read_text())
    mini["feed"]["feed_url"] = feed_url
    cd = json.loads(
        (HOOKS / "changedetection-apprise.json")
        .read_text()
        .replace("https://pytorch.org/blog/feed/", feed_url)
    )
    b64 = base64.b64encode(feed).decode()

    def raw(i: int) -> Request:
        return "/webhooks/feed", feed, {"Content-Type": RSS, "webhook-id": f"{run}-raw-{i}"}

    def replay(i: int) -> Request:
        return "/webhooks/feed", feed, {"Content-Type": RSS}

    def json_inline(i: int) -> Request:
        body = json.dumps({"feed_id": feeds["pytorch"], "content": feed.decode()}).encode()
        return "/webhooks/feed", body, {"Content-Type": JSON, "webhook-id": f"{run}-ji-{i}"}

    def json_fetch(i: int) -> Request:
        body = json.dumps({"feed_id": feeds["pytorch"]}).encode()
        return "/webhooks/feed", body, {"Content-Type": JSON, "webhook-id": f"{run}-jf-{i}"}

    def change_record(i: int) -> Request:
        rec = json.loads(json.dumps(change))
        rec["data"]["commit"] = f"{run}{i:032x}"
        return "/webhooks/feed", json.dumps(rec).encode(), {"Content-Type": JSON}

    def change_record_inline(i: int) -> Request:
        rec = json.loads(json.dumps(change))
        rec["data"].update(
            commit=f"{run}{i:032x}", content=b64, content_encoding="base64", bytes=len(feed)
        )
        return "/webhooks/feed", json.dumps(rec).encode(), {"Content-Type": JSON}

    def miniflux(i: int) -> Request:
        m = json.loads(json.dumps(mini))
        m["entries"][0]["id"] = i
        m["entries"][0]["hash"] = f"{run}-{i}"
        return "/webhooks/feed", json.dumps(m).encode(), {"Content-Type": JSON}

    def changedetection(i: int) -> Request:
        c = dict(cd, message=cd["message"] + f"(run {run}, change {i})\n")
        return "/webhooks/feed", json.dumps(c).encode(), {"Content-Type": JSON}

    def hub256(i: int) -> Request:
        body = feed + f"<!-- {run} {i} -->".encode()
        return (
            f"/webhooks/feed?feed_id={feeds['signed']}",
            body,
            {"Content-Type": RSS, "X-Hub-Signature-256": signatures.sign_hub(SECRET, body)},
        )

    def standard(i: int) -> Request:
        return (
            f"/webhooks/feed?feed_id={feeds['signed']}",
            feed,
            {"Content-Type": RSS, **signatures.standard_headers(SECRET, f"{run}-sw-{i}", feed)},
        )

    fixed = signatures.standard_headers(SECRET, f"{run}-sw-replayed", feed)

    def standard_replay(i: int) -> Request:
        return f"/webhooks/feed?feed_id={feeds['signed']}", feed, {"Content-Type": RSS, **fixed}

    def websub(i: int) -> Request:
        body = feed + f"<!-- ws {run} {i} -->".encode()
        sig = signatures.sign_hub(HUB_SECRET, body, "sha1")
        headers = {"Content-Type": RSS, "X-Hub-Signature": sig}
        return f"/websub/{feeds['websub']}", body, headers

    return [
        Kind("raw feed (280 KB)", 202, raw),
        Kind("raw feed, replay", 200, replay),
        Kind("json feed_id + content", 202, json_inline),
        Kind("json feed_id (fetch)", 202, json_fetch),
        Kind("change record", 202, change_record),
        Kind("change record + artifact", 202, change_record_inline),
        Kind("miniflux new_entries", 202, miniflux),
        Kind("changedetection.io", 202, changedetection),
        Kind("X-Hub-Signature-256", 202, hub256),
        Kind("Standard Webhooks", 202, standard),
        Kind("Standard Webhooks, replay", 200, standard_replay),
        Kind("WebSub distribution", 202, websub),
    ]


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * len(s) + 0.5) - 1))]


def load(
    url: str, requests: list[Request], expect: int, clients: int, rate: float
) -> dict[str, Any]:
    """Send the requests from ``clients`` threads: as fast as they go (closed loop), or
    open loop at ``rate`` requests per second, where each request's latency counts from
    its scheduled time (so a stalled server is not hidden by a stalled client)."""
    latencies: list[float] = []
    errors: list[str] = []
    lock = threading.Lock()
    nxt = iter(range(len(requests)))
    clock = [0.0]  # set once by the barrier, before any client passes it
    ready = threading.Barrier(clients + 1, action=lambda: clock.__setitem__(0, time.perf_counter()))

    def client() -> None:
        with httpx.Client(base_url=url, timeout=60) as c:
            c.get("/healthz")  # connect before the clock starts
            ready.wait()
            while True:
                with lock:
                    i = next(nxt, None)
                if i is None or errors:
                    return
                path, body, headers = requests[i]
                start = time.perf_counter()
                if rate:
                    start = clock[0] + i / rate
                    time.sleep(max(0.0, start - time.perf_counter()))
                r = c.post(path, content=body, headers=headers)
                dt = time.perf_counter() - start
                with lock:
                    latencies.append(dt)
                    if r.status_code != expect:
                        errors.append(f"{path}: {r.status_code} {r.text[:200]}")

    threads = [threading.Thread(target=client) for _ in range(clients)]
    for th in threads:
        th.start()
    ready.wait()
    for th in threads:
        th.join()
    wall = time.perf_counter() - clock[0]
    if errors:
        raise SystemExit(f"unexpected answer: {errors[0]}")
    return {
        "requests": len(latencies),
        "per_second": len(latencies) / wall,
        "p50_ms": percentile(latencies, 50) * 1000,
        "p99_ms": percentile(latencies, 99) * 1000,
        "max_ms": max(latencies) * 1000,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300, help="requests per sender kind")
    ap.add_argument("--clients", type=int, default=4, help="concurrent client connections")
    ap.add_argument("--workers", type=int, default=0, help="in-process workers of the service")
    ap.add_argument(
        "--rate",
        type=float,
        default=0.0,
        help="open loop: requests per second per kind (default: closed loop, as fast as possible)",
    )
    ap.add_argument("--only", default="", help="run only kinds whose name contains this")
    ap.add_argument(
        "--db", choices=["sqlite", "postgres"], default="sqlite",
        help="SQLite in a temp dir, or a fresh database on PLAINFEED_TEST_PG",
    )  # fmt: skip
    args = ap.parse_args()

    feed = FEED.read_bytes()
    with tempfile.TemporaryDirectory() as tmp, Origin() as origin:
        db_url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        if args.db == "postgres":
            db_url = create_pg_database(PG_ADMIN)
        proc, url = start_service(db_url, args.workers)
        try:
            origin.route("/pytorch/feed/", body=feed, headers={"Content-Type": RSS}, etag='"b1"')
            with httpx.Client(base_url=url, timeout=30) as c:
                run = uuid.uuid4().hex[:8]
                specs = {
                    "pytorch": {"url": origin.url + "/pytorch/feed/", "name": "pytorch-blog-feed"},
                    "signed": {"url": f"https://signed.example/{run}", "secret": SECRET},
                    "websub": {"url": f"https://websub.example/{run}"},
                }
                feeds = {k: c.post("/feeds", json=v).json()["id"] for k, v in specs.items()}
                # The first replay stores the document; the rest are replays.
                c.post("/webhooks/feed", content=feed, headers={"Content-Type": RSS})
            db = make_engine(db_url)
            with transaction(make_sessionmaker(db)) as s:
                s.execute(
                    update(t.Feed)
                    .where(t.Feed.id == feeds["websub"])
                    .values(websub_state="active", websub_secret=HUB_SECRET)
                )
            db.dispose()
            rows = []
            for kind in kinds(feeds, feed, specs["pytorch"]["url"]):
                if args.only.lower() not in kind.name.lower():
                    continue
                requests = [kind.build(i) for i in range(args.n)]
                if kind.status == 200:
                    # A replay is of something stored: send the first once, untimed.
                    path, body, headers = requests[0]
                    httpx.post(url + path, content=body, headers=headers, timeout=30)
                stats = load(url, requests, kind.status, args.clients, args.rate)
                stats["kind"] = kind.name
                stats["body_bytes"] = len(requests[0][1])
                rows.append(stats)
                print(
                    f"{kind.name:28} {stats['per_second']:8.1f}/s  p50 {stats['p50_ms']:6.1f} ms"
                    f"  p99 {stats['p99_ms']:6.1f} ms  ({stats['body_bytes']} B)",
                    flush=True,
                )
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
            if args.db == "postgres":
                drop_pg_database(PG_ADMIN, db_url)
    result = {
        "n_per_kind": args.n,
        "clients": args.clients,
        "workers": args.workers,
        "rate": args.rate or None,
        "database": args.db,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "kinds": rows,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
