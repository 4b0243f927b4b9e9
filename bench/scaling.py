"""Scale-out: throughput of 1, 2 and 4 ``plainfeed worker --concurrency 8`` processes on one
PostgreSQL, explaining through a stub LLM that answers in 200 ms.

    PYTHONPATH=. python -m bench.scaling [--workers 1 2 4] [--concurrency 8]
        [--delay 0.2] [--seconds 10]

Each run gets a fresh PostgreSQL database and N worker processes (the llm engine aimed
at one stub process, ``python -m tests.stub_llm --delay 0.2``); once every worker is up,
``seconds x N x concurrency / delay`` pending items are committed at once and the clock
runs until the last one is published. A worker is bound by the model's latency, so the
ideal is ``N x concurrency / delay`` items/s (40 per worker here). The per-process rate
limit (``PLAINFEED_LLM_RPM``, 600/min by default) is lifted so that it does not cap the
run. Each row is the best of ``--repeat`` runs. Bar: the rate with N workers within 15% of
N x the rate with one (efficiency >= 0.85). Writes bench/results/scaling.json.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from bench.queue import database, drain_by_processes, outcome
from bench.record import write_results
from service.store.db import make_engine, migrate
from tests.procs import StubProcess, plainfeed_env

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "scaling.json"


def run(workers: int, concurrency: int, items: int, stub_url: str) -> dict[str, Any]:
    with database("postgres") as url:
        engine = make_engine(url)
        migrate(engine)
        env = plainfeed_env(url, stub_url, poll_interval=0.05, lease_seconds=60, llm_rpm=1e9)
        seconds, cpu = drain_by_processes(
            engine, env, workers, concurrency, items, timeout=900, prefix="pf-scaling-"
        )
        states = outcome(engine)
        engine.dispose()
    return {
        "workers": workers,
        "concurrency": concurrency,
        "items": items,
        "seconds": round(seconds, 3),
        "items_per_s": round(items / seconds, 1),
        "worker_cpu_ms_per_item": round(1000 * cpu / items, 2),
        "states": states,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--delay", type=float, default=0.2, help="seconds the stub takes to answer")
    ap.add_argument("--seconds", type=float, default=10.0, help="ideal length of each run")
    ap.add_argument("--repeat", type=int, default=2, help="runs per row; the best is shown")
    args = ap.parse_args()

    ideal_one = args.concurrency / args.delay
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pf-stub-") as tmp, ExitStack() as stack:
        stub = stack.enter_context(StubProcess(Path(tmp), delay=args.delay, log_calls=False))
        print(f"stub LLM answering in {args.delay * 1000:.0f} ms; workers x {args.concurrency}")
        print(
            f"{'workers':>7} {'items':>6} {'seconds':>8} {'items/s':>8} {'ideal':>6} "
            f"{'efficiency':>10} {'cpu ms/item':>11}"
        )
        for n in args.workers:
            items = round(args.seconds * n * ideal_one)
            runs = [run(n, args.concurrency, items, stub.url) for _ in range(args.repeat)]
            # The best run: other jobs on a shared machine only ever slow a run down.
            r = {**max(runs, key=lambda x: x["items_per_s"]), "all_items_per_s": []}
            r["all_items_per_s"] = sorted(x["items_per_s"] for x in runs)
            base = next((x["items_per_s"] for x in rows if x["workers"] == 1), None)
            # Against N x the measured one-worker rate (the bar), and against the ideal.
            r["efficiency"] = round(r["items_per_s"] / (n * base), 3) if base else 1.0
            r["of_ideal"] = round(r["items_per_s"] / (n * ideal_one), 3)
            rows.append(r)
            print(
                f"{n:>7} {items:>6} {r['seconds']:>8.2f} {r['items_per_s']:>8.1f} "
                f"{n * ideal_one:>6.0f} {r['efficiency']:>10.3f} "
                f"{r['worker_cpu_ms_per_item']:>11.2f}  (all runs: "
                + ", ".join(f"{x:.1f}" for x in r["all_items_per_s"])
                + ")",
                flush=True,
            )
            if r["states"] != {"published": items}:
                print(f"  not all published: {r['states']}")
    worst = min(r["efficiency"] for r in rows)
    print(f"bar (every N within 15% of linear): {'met' if worst >= 0.85 else 'MISSED'}")
    write_results(RESULTS, {"delay_s": args.delay, "concurrency": args.concurrency}, rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
