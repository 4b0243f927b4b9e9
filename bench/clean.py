"""Cleaning benchmark: Plainfeed's cleaner against common HTML-to-text extractors.

Over the corpus (every post, Markdown posts rendered to HTML with markdown-it-py, and
every feed item whose body is HTML), in one run: items per second, the share of numeric
tokens of the visible text kept, and how many tables come out row by row (each row's
cells, in order, on one line). The visible text is the oracle of ``tests/visible.py``.

    PYTHONPATH=. /work/venv/bin/python -m bench.clean [--rounds 3]

Prints a table and writes ``bench/results/clean.json``.
"""

from __future__ import annotations

import argparse
import gc
import json
import platform
import re
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import html2text
import inscriptis
import trafilatura
from bs4 import BeautifulSoup
from lxml import html as lxml_html
from readability import Document

from service.clean import clean_html, normalize_text
from service.parse import parse_feed
from tests.visible import numeric_tokens, render_markdown, table_rows, visible_text

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"
RESULTS = ROOT / "bench" / "results" / "clean.json"
_MARKUP = re.compile(r"<[a-zA-Z][^>]*>")


def corpus_items() -> list[tuple[str, str]]:
    """(name, html) for every post and every feed item body that is HTML."""
    items = []
    for path in sorted((CORPUS / "posts").iterdir()):
        text = path.read_text(encoding="utf-8")
        items.append((path.name, render_markdown(text) if path.suffix == ".md" else text))
    for path in sorted((CORPUS / "feeds").iterdir()):
        for n, e in enumerate(parse_feed(path.read_bytes()).entries):
            body = e.content_html or e.summary_html
            if body and _MARKUP.search(body):
                items.append((f"{path.name}#{n}", body))
    return items


# --- the extractors, each HTML -> text --------------------------------------------------------


def _trafilatura(html: str) -> str:
    return trafilatura.extract(html, include_tables=True, include_comments=False) or ""


def _readability(html: str) -> str:
    try:
        summary = Document(html).summary(html_partial=True)
    except Exception:  # readability raises on fragments it finds empty
        return ""
    return str(lxml_html.fromstring(summary).text_content()) if summary.strip() else ""


def _inscriptis(html: str) -> str:
    return str(inscriptis.get_text(html))


_H2T = html2text.HTML2Text()
_H2T.body_width = 0
_H2T.ignore_images = True
_H2T.ignore_links = True


def _html2text(html: str) -> str:
    return str(_H2T.handle(html))


def _bs4(html: str) -> str:
    return BeautifulSoup(html, "lxml").get_text("\n")


TOOLS: dict[str, Callable[[str], str]] = {
    "plainfeed": clean_html,
    "trafilatura": _trafilatura,
    "readability-lxml": _readability,
    "inscriptis": _inscriptis,
    "html2text": _html2text,
    "bs4 get_text": _bs4,
}
VERSIONS = {
    "trafilatura": version("trafilatura"),
    "readability-lxml": version("readability-lxml"),
    "inscriptis": version("inscriptis"),
    "html2text": version("html2text"),
    "bs4 get_text": version("beautifulsoup4"),
    "plainfeed": "this tree",
}

# --- measures -----------------------------------------------------------------------------------


def _line_has_row(line: str, cells: list[str]) -> bool:
    pos = 0
    for cell in cells:
        if not cell:
            continue
        found = line.find(cell, pos)
        if found < 0:
            return False
        pos = found + len(cell)
    return True


def tables_kept(output: str, tables: list[list[list[str]]]) -> tuple[int, int]:
    """(tables whose every row is on one output line, cells in order; tables with rows)."""
    lines = [" ".join(normalize_text(ln.replace("\\|", "|")).split()) for ln in output.split("\n")]
    kept = total = 0
    for rows in tables:
        if not rows:
            continue
        total += 1
        if all(any(_line_has_row(line, row) for line in lines) for row in rows):
            kept += 1
    return kept, total


def run(rounds: int) -> dict[str, Any]:
    items = corpus_items()
    wants = [numeric_tokens(visible_text(html)) for _, html in items]
    tables = [table_rows(html) if "<table" in html else [] for _, html in items]
    results: dict[str, Any] = {}
    for tool, fn in TOOLS.items():
        outputs = [fn(html) for _, html in items]  # warm-up, and the outputs measured
        best = float("inf")
        for _ in range(rounds):
            gc.collect()
            start = time.perf_counter()
            for _, html in items:
                fn(html)
            best = min(best, time.perf_counter() - start)
        want_n = kept_n = 0
        items_all = 0
        lost: list[str] = []
        t_kept = t_total = 0
        for (name, _), out, want, tabs in zip(items, outputs, wants, tables, strict=True):
            got = numeric_tokens(normalize_text(out))
            want_n += len(want)
            kept_n += len(want & got)
            items_all += not (want - got)
            lost.extend(f"{name}: {tok}" for tok in sorted(want - got)[:3])
            k, t = tables_kept(out, tabs)
            t_kept += k
            t_total += t
        results[tool] = {
            "version": VERSIONS[tool],
            "items_per_s": round(len(items) / best, 1),
            "seconds_per_pass": round(best, 4),
            "numbers_kept": round(kept_n / want_n, 4) if want_n else 1.0,
            "numbers_total": want_n,
            "items_all_numbers_kept": items_all,
            "tables_kept": t_kept,
            "tables_total": t_total,
            "lost_examples": lost[:10],
        }
    return {
        "items": len(items),
        "posts": sum(1 for name, _ in items if "#" not in name),
        "feed_items": sum(1 for name, _ in items if "#" in name),
        "html_bytes": sum(len(html) for _, html in items),
        "rounds": rounds,
        "python": platform.python_version(),
        "tools": results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="timed passes (best is kept)")
    args = parser.parse_args()
    report = run(max(1, args.rounds))
    n = report["items"]
    print(
        f"{n} items ({report['posts']} posts, {report['feed_items']} feed items, "
        f"{report['html_bytes'] / 1e6:.2f} MB of HTML), best of {report['rounds']} passes"
    )
    print(f"{'tool':<18}{'items/s':>10}{'numbers kept':>14}{'items 100%':>12}{'tables':>9}")
    for tool, r in report["tools"].items():
        print(
            f"{tool:<18}{r['items_per_s']:>10.1f}{r['numbers_kept']:>14.2%}"
            f"{r['items_all_numbers_kept']:>8}/{n:<3}{r['tables_kept']:>5}/{r['tables_total']}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
