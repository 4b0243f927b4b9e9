"""Big-table benchmark: a post that is one 300x300 table of figures (90,000 cells), as
POST /explain gets it, in Markdown (its separator row written without spaces, "|---|---|")
and in HTML; then, in Markdown, a table whose header row has 30,000 cells (one row under
it), and the 90,000 figures written as prose (300 sentences, no table).

Timed, each as the best and the median of ``--runs`` runs after a warm-up, wall clock and
CPU (the machine is shared: CPU time is what the step costs, wall time what a caller
waited):

- **clean**: the document to the article's text (``article_from_document``);
- **explain**: ``ExtractiveEngine().explain`` (the engine POST /explain runs by default);
- **index**: ``service.check.index_source`` of the article (the check's reading of the
  source, once per source; the engine's title check may build it first);
- **check**: ``check_explainer`` of the explainer against the indexed source;
- **row**: the check of one sentence restating a row of the table, a cell changed;
- **gate**: ``explain_and_check``, what POST /explain runs, the index built afresh.

    PYTHONPATH=. /work/venv/bin/python -m bench.big_table [--runs 3] [--size 300]

Prints a table and writes ``bench/results/big_table.json``.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from service.check import check_explainer, headline_facts, index_source
from service.clean import article_from_document
from service.config import Settings
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
from service.gate import explain_and_check
from service.models import Article

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results" / "big_table.json"
INTRO = "The table below lists the measured values for every run of the benchmark."


def cell(row: int, column: int) -> str:
    """The figure of a cell: two digits at most, so that the 300x300 table's text stays
    under PLAINFEED_EXTRACTIVE_MAX_CHARS (500,000) as the API would take it."""
    return str((row * 37 + column * 11) % 100)


def markdown(size: int) -> str:
    head = "| run | " + " | ".join(f"c{j}" for j in range(1, size)) + " |"
    rows = [
        f"| r{i} | " + " | ".join(cell(i, j) for j in range(1, size)) + " |"
        for i in range(1, size + 1)
    ]
    return "\n".join(["# Big table", "", INTRO, "", head, "|" + "---|" * size, *rows]) + "\n"


def header_row(size: int) -> str:
    """A table whose header has a third of size x size cells ("c1" ... "c29999"), one short
    row under it: its text stays under PLAINFEED_EXTRACTIVE_MAX_CHARS."""
    columns = size * size // 3
    head = "| run | " + " | ".join(f"c{j}" for j in range(1, columns)) + " |"
    rows = ["| r1 | " + " | ".join(cell(1, j) for j in range(1, size)) + " |"]
    return "\n".join(["# Big table", "", INTRO, "", head, "|" + "---|" * columns, *rows]) + "\n"


def prose(size: int) -> str:
    """The size x size table's figures written as prose: a sentence a row, no table."""
    sentences = [
        f"Run r{i} measured " + ", ".join(cell(i, j) for j in range(1, size)) + "."
        for i in range(1, size + 1)
    ]
    return "\n".join(["# Big table", "", INTRO, "", " ".join(sentences)]) + "\n"


def html(size: int) -> str:
    head = "<tr><th>run</th>" + "".join(f"<th>c{j}</th>" for j in range(1, size)) + "</tr>"
    rows = "".join(
        f"<tr><td>r{i}</td>" + "".join(f"<td>{cell(i, j)}</td>" for j in range(1, size)) + "</tr>"
        for i in range(1, size + 1)
    )
    return f"<h1>Big table</h1><p>{INTRO}</p><table>{head}{rows}</table>"


def _times(fn: Callable[[], object], runs: int) -> dict[str, float]:
    fn()  # warm-up: compiled patterns, the glossary
    wall, cpu = [], []
    for _ in range(runs):
        w, c = time.perf_counter(), time.process_time()
        fn()
        cpu.append((time.process_time() - c) * 1000)
        wall.append((time.perf_counter() - w) * 1000)
    return {
        "wall_best_ms": round(min(wall), 1),
        "wall_median_ms": round(statistics.median(wall), 1),
        "cpu_median_ms": round(statistics.median(cpu), 1),
    }


def case(kind: str, doc: str, runs: int) -> dict[str, Any]:
    engine, options = ExtractiveEngine(), ExplainOptions()
    article: Article = article_from_document(doc, kind=kind, title="Big table")
    explainer = engine.explain(article, options).explainer
    facts = headline_facts(article.text, article.title)
    # A row restated as the engine writes one, with a changed cell: what a check of an
    # explainer that quotes the table reads (the engine's own has no figure of it).
    row = f"r2: c1 {cell(2, 1)}; c2 {cell(2, 5)}; c3 {cell(2, 3)}."

    def index() -> object:
        index_source.cache_clear()
        return index_source(article.text, article.title)

    def gate() -> object:
        index_source.cache_clear()
        return explain_and_check(engine, article, options, repair_rounds=0)

    timed = {
        "clean": _times(lambda: article_from_document(doc, kind=kind, title="Big table"), runs),
        "explain": _times(lambda: engine.explain(article, options), runs),
        "index": _times(index, runs),
        "check": _times(
            lambda: check_explainer(explainer, article.text, facts, title=article.title), runs
        ),
        "row": _times(lambda: check_explainer(row, article.text, title=article.title), runs),
        "gate": _times(gate, runs),
    }
    idx = index_source(article.text, article.title)
    return {
        "document_bytes": len(doc.encode()),
        "text_chars": len(article.text),
        "indexed_rows": len(idx.rows),
        "indexed_numbers": sum(len(u.numbers) for u in idx.units),
        **timed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--size", type=int, default=300, help="rows and columns")
    args = parser.parse_args()
    settings = Settings()
    results: dict[str, Any] = {
        "size": args.size,
        "runs": args.runs,
        "max_body_bytes": settings.max_body_bytes,
        "extractive_max_chars": settings.extractive_max_chars,
        "check_max_chars": settings.check_max_chars,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cases": {},
    }
    steps = ("clean", "explain", "index", "check", "row", "gate")
    print(f"{args.size}x{args.size} table, best and median of {args.runs} runs")
    print("ms per run as wall best / wall median / CPU median")
    print(f"{'case':9} {'bytes':>9} {'chars':>8} " + " ".join(f"{s:>20}" for s in steps))
    docs = {
        "md": ("md", markdown(args.size)),
        "html": ("html", html(args.size)),
        "header": ("md", header_row(args.size)),
        "prose": ("md", prose(args.size)),
    }
    for name, (kind, doc) in docs.items():
        got = results["cases"][name] = case(kind, doc, args.runs)
        cells = " ".join(
            "{wall_best_ms:6.0f}/{wall_median_ms:6.0f}/{cpu_median_ms:6.0f}".format(**got[s])
            for s in steps
        )
        print(f"{name:9} {got['document_bytes']:9,} {got['text_chars']:8,} {cells}")
    print(
        f"caps: body {settings.max_body_bytes:,} bytes, extractive "
        f"{settings.extractive_max_chars:,} chars, check {settings.check_max_chars:,} chars"
    )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"-> {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
