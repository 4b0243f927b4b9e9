"""How fast the extractive engine explains: the corpus posts, then every feed item.

    PYTHONPATH=. python -m bench.extractive [--rounds 5]

Prints per-post timings (median of the rounds), words and reading grade, and the overall
rate; writes bench/results/extractive.json. Posts and feed items are parsed and cleaned
first (service.parse, service.clean; not timed).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import time
from pathlib import Path

from service import clean, parse
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
from service.errors import EngineError
from service.models import Article, Explainer
from service.readability import flesch_kincaid_grade, word_count

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"
OUT = ROOT / "bench" / "results" / "extractive.json"


def _prose(e: Explainer) -> str:
    parts = [e.title + "."]
    for s in e.sections:
        parts.append(s.heading + ".")
        parts.extend(s.paragraphs)
    if e.takeaway:
        parts.append(e.takeaway)
    return "\n\n".join(parts)


def _posts() -> list[Article]:
    return [
        clean.article_from_document(path.read_bytes(), filename=path.name)
        for path in sorted((CORPUS / "posts").iterdir())
    ]


def _feed_items() -> list[Article]:
    items = []
    for path in sorted((CORPUS / "feeds").glob("*.xml")):
        doc = parse.parse_feed(path.read_bytes())
        items.extend(clean.article_from_entry(e) for e in doc.entries)
    return items


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    engine = ExtractiveEngine()
    options = ExplainOptions()
    engine.explain(Article(title="Warm-up: glossary", text="A warm-up sentence."), options)

    posts = []
    for article in _posts():
        times = []
        for _ in range(args.rounds):
            t0 = time.perf_counter()
            e = engine.explain(article, options).explainer
            times.append(time.perf_counter() - t0)
        row = {
            "title": article.title,
            "source_words": article.words,
            "ms": round(statistics.median(times) * 1000, 2),
            "words": word_count(_prose(e)),
            "grade": round(flesch_kincaid_grade(_prose(e)), 1),
            "sections": len(e.sections),
        }
        posts.append(row)
        print(
            f"{row['ms']:8.2f} ms  {row['source_words']:5d} -> {row['words']:4d} words  "
            f"grade {row['grade']:4.1f}  {row['sections']} sections  {article.title[:60]}"
        )
    post_seconds = sum(r["ms"] for r in posts) / 1000
    print(f"posts: {len(posts)} in {post_seconds:.3f} s = {len(posts) / post_seconds:.1f}/s")

    items = _feed_items()
    done = empty = 0
    t0 = time.perf_counter()
    for article in items:
        try:
            engine.explain(article, options)
            done += 1
        except EngineError:
            empty += 1  # an item without text: refused, as it should be
    elapsed = time.perf_counter() - t0
    item_result = {
        "items": len(items),
        "explained": done,
        "refused_empty": empty,
        "seconds": round(elapsed, 3),
        "per_second": round(len(items) / elapsed, 1),
    }
    print(
        f"feed items: {len(items)} ({done} explained, {empty} without text) in "
        f"{elapsed:.3f} s = {len(items) / elapsed:.1f}/s"
    )

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(
        json.dumps(
            {
                "python": platform.python_version(),
                "machine": platform.machine(),
                "rounds": args.rounds,
                "posts": posts,
                "posts_per_second": round(len(posts) / post_seconds, 1),
                "feed_items": item_result,
            },
            indent=2,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
