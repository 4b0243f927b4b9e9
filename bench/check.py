"""Number-check benchmark: time to check a ~1,000-word explainer against a ~5,000-word source.

The source is two cleaned corpus posts (FlyDSL, 3,644 words, and ExecuTorch, 1,195 words:
4,839 words, 383 numbers); the explainer is the seed explainer 003 and the faithful
ExecuTorch explainer of ``tests/data/explainers/`` (1,057 words, 78 numbers). A second
case checks the same explainer against the PyTorch 2.14 release notes (7,934 words),
where most of its numbers are not found: the slow path (roundings and arithmetic are
searched before a number is called unsupported).

Timed, each as the best and the median of ``--runs`` runs after a warm-up:

- **index**: reading the source into units and indexing its numbers (once per source;
  ``index_source`` memoises it, so every further explainer of that source skips it);
- **first**: the first check of the explainer against a source indexed just before
  (untimed): what the gate pays after the model's answer, the index having been built
  while the model wrote;
- **check**: checking the explainer again against the indexed source (each repair
  round, each further explainer of the source);
- **cold**: both (a first explainer of a new source).

    PYTHONPATH=. /work/venv/bin/python -m bench.check [--runs 50]

Prints a table and writes ``bench/results/check.json``.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.check import check_explainer, index_source
from service.clean import article_from_document
from service.models import CheckStatus
from service.numbers import extract_numbers

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
POSTS = DATA / "corpus" / "posts"
RESULTS = ROOT / "bench" / "results" / "check.json"
BAR_MS = 10.0


def _post(slug: str) -> str:
    path = next(POSTS.glob(slug + ".*"))
    return article_from_document(path.read_bytes(), filename=path.name).text


def material() -> tuple[str, dict[str, str]]:
    """(explainer, {case: source})."""
    explainer = "\n\n".join(
        [
            (DATA / "seeds" / "003_9f84147b1b26c099.txt").read_text(encoding="utf-8"),
            (
                DATA / "explainers" / "pytorch-blog-fast-ondevice-agentic-ai-with-executorch.txt"
            ).read_text(encoding="utf-8"),
        ]
    )
    sources = {
        "flydsl+executorch": "\n\n".join(
            [
                _post("pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl"),
                _post("pytorch-blog-fast-ondevice-agentic-ai-with-executorch"),
            ]
        ),
        "pytorch-2.14 (mostly unsupported)": _post("pytorch-blog-pytorch-2-14-release-blog"),
    }
    return explainer, sources


def _times(
    fn: Callable[[], object], runs: int, before: Callable[[], object] | None = None
) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU milliseconds of each run (the machine is shared: CPU time is
    what the check itself costs, wall time what a caller waited); ``before`` runs ahead
    of each, untimed."""
    fn()  # warm-up: compiled patterns, memoised name patterns
    wall, cpu = [], []
    gc.disable()
    try:
        for _ in range(runs):
            if before is not None:
                before()
            w, c = time.perf_counter(), time.process_time()
            fn()
            cpu.append((time.process_time() - c) * 1000)
            wall.append((time.perf_counter() - w) * 1000)
    finally:
        gc.enable()
    return wall, cpu


def _summary(times: tuple[list[float], list[float]]) -> dict[str, float]:
    wall, cpu = times
    return {
        "wall_best_ms": round(min(wall), 2),
        "wall_median_ms": round(statistics.median(wall), 2),
        "cpu_median_ms": round(statistics.median(cpu), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    explainer, sources = material()
    results: dict[str, Any] = {
        "explainer_words": len(explainer.split()),
        "runs": args.runs,
        "bar_ms": BAR_MS,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cases": {},
    }
    print(f"explainer: {results['explainer_words']} words, best and median of {args.runs} runs")
    print("ms per run as wall best / wall median / CPU median")
    print(
        f"{'source':34} {'words':>5} {'nums':>4} {'index':>20} {'first':>20} {'check':>20}"
        f" {'cold':>20}"
    )
    for name, source in sources.items():

        def index(source: str = source) -> object:
            index_source.cache_clear()
            return index_source(source, "")  # the key check_explainer uses

        def check(source: str = source) -> object:
            return check_explainer(explainer, source)

        def cold(source: str = source) -> object:
            index_source.cache_clear()
            return check_explainer(explainer, source)

        timed = {"index": _times(index, args.runs)}
        timed["first"] = _times(check, args.runs, before=index)
        index_source(source, "")
        timed["check"] = _times(check, args.runs)
        timed["cold"] = _times(cold, args.runs)
        report = check_explainer(explainer, source)
        case = {
            "source_words": len(source.split()),
            "source_numbers": len(extract_numbers(source)),
            "explainer_numbers": len(report.numbers),
            "unsupported": report.count(CheckStatus.UNSUPPORTED),
            **{k: _summary(v) for k, v in timed.items()},
        }
        results["cases"][name] = case
        cells = " ".join(
            "{wall_best_ms:6.2f}/{wall_median_ms:6.2f}/{cpu_median_ms:6.2f}".format(**case[k])  # type: ignore[arg-type]
            for k in ("index", "first", "check", "cold")
        )
        print(f"{name:34} {case['source_words']:5} {case['source_numbers']:4} {cells}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"-> {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
