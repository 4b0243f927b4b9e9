"""Throughput of the llm engine: 100 items, 16 threads, a stub server answering in 1 s.

    PYTHONPATH=. python -m bench.llm [--items 100] [--threads 16] [--delay 1.0]

The stub runs as its own process (``python -m tests.stub_llm``), as a real endpoint
would. Engine settings are the defaults (``llm_max_concurrency`` 16, ``llm_rpm`` 600)
apart from the endpoint. Bar: wall time <= 1.10 x ceil(items / threads) x delay, i.e.
the engine adds at most 10% to the unavoidable waiting. Writes bench/results/llm.json.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from service.config import Settings
from service.engines.base import ExplainOptions
from service.engines.llm import LLMEngine
from service.models import Article

ROOT = Path(__file__).resolve().parent.parent
POSTS = ROOT / "tests/data/corpus/posts"
RESULTS = ROOT / "bench" / "results" / "llm.json"


def articles(n: int) -> list[Article]:
    sources = sorted(POSTS.glob("*.md"))
    out = []
    for i in range(n):
        path = sources[i % len(sources)]
        out.append(Article(title=f"{path.stem} #{i}", text=path.read_text(encoding="utf-8")))
    return out


def start_stub(delay: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.stub_llm", "--port", "0", "--delay", str(delay)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # "stub-llm listening on http://127.0.0.1:P/v1"
    if "listening on" not in line:
        proc.kill()
        raise SystemExit(f"stub did not start: {line!r}")
    return proc, line.rsplit(" ", 1)[1].strip()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=100)
    ap.add_argument("--threads", type=int, default=16)
    ap.add_argument("--delay", type=float, default=1.0)
    args = ap.parse_args()

    proc, url = start_stub(args.delay)
    try:
        settings = Settings(engine="llm", openai_base_url=url, openai_api_key="bench")
        engine = LLMEngine(settings)
        items = articles(args.items)
        latencies: list[float] = []

        def one(article: Article) -> int:
            started = time.perf_counter()
            result = engine.explain(article, ExplainOptions())
            latencies.append(time.perf_counter() - started)
            return result.usage.calls

        started = time.perf_counter()
        with ThreadPoolExecutor(args.threads) as pool:
            calls = sum(pool.map(one, items))
        wall = time.perf_counter() - started
        with urllib.request.urlopen(url.removesuffix("/v1") + "/_calls", timeout=10) as resp:
            served = len(json.load(resp))
    finally:
        proc.terminate()
        proc.wait(10)

    ideal = math.ceil(args.items / args.threads) * args.delay
    bar = 1.10 * ideal
    out = {
        "items": args.items,
        "threads": args.threads,
        "stub_delay_s": args.delay,
        "wall_s": round(wall, 3),
        "ideal_s": ideal,
        "bar_s": round(bar, 3),
        "overhead_pct": round(100 * (wall / ideal - 1), 1),
        "items_per_s": round(args.items / wall, 2),
        "llm_calls": calls,
        "requests_served": served,
        "latency_p50_s": round(statistics.median(latencies), 3),
        "latency_p95_s": round(statistics.quantiles(latencies, n=20)[-1], 3),
        "limiter_peak_in_flight": engine.limiter.peak_in_flight,
        "pass": wall <= bar,
    }
    for key, value in out.items():
        print(f"{key:24} {value}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(out, indent=2), encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")
    return 0  # a figure, not a test: the bar is printed and written, not enforced


if __name__ == "__main__":
    sys.exit(main())
