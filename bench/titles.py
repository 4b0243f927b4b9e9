"""The extractive engine's explainer titles for every corpus post and feed item, to read
them all and count the junk subjects among them.

    PYTHONPATH=. python -m bench.titles [--json OUT] [--compare OLD.json]

Prints "source title -> explainer title" for each post and item, then how many titles
have a subject labelled junk below (a status word, a determiner, a time zone, a unit, a
capitalised common word, a compound adjective, a fragment of a longer name, a context
word, a name split in two, a site name). The labels are a reviewer's, by hand, from the
titles of September-October 2026; a new junk subject needs adding to ``JUNK``. Then it
lists the titles over ``TITLE_WORDS`` words (a list of names, which no cut may split).
``--compare`` lists every title that differs from an earlier ``--json`` run.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from service import clean, parse
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
from service.engines.extractive.title_length import TITLE_WORDS
from service.engines.extractive.title_length import words as title_words
from service.errors import EngineError
from service.models import Article

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"

_LABELS = {
    "determiner": ("All", "Some", "Two"),
    "status word": ("Operational",),
    "time or unit": ("UTC", "PT", "October", "GB"),
    "common word": (
        *("Piloting", "Securing", "Deaf", "Earth", "Build", "Production", "Native"),
        *("Direct", "Conversations", "Image", "Login", "Embedding", "Cloud", "Voice"),
        *("Agent", "Faster", "Responses", "Fine-Tuning", "Control", "KV", "SDK", "SLOs"),
        *("Image Generation", "Large Language Models"),
    ),
    "compound adjective": (
        *("AI-native", "AI-augmented", "multi-GPU", "OpenAI-compatible", "Production-grade"),
    ),
    "fragment of a name": (
        *("Admin", "Hugging", "Flash", "Sol", "Pro", "Luna", "Saathi", "Flash-Lite"),
        *("Completions", "Generation", "Manager", "Web", "Apps", "Platform", "Black"),
        *("Life", "Throughput", "Pro 0813", "Fable 5", "Production STT"),
    ),
    "context word": ("Apple", "Windows", "macOS"),
}
JUNK = {word: label for label, words in _LABELS.items() for word in words}

_SPLIT = re.compile(
    r"^(Together|Kimi|Claude|Image|Voice|Cloud|Embedding|Ollama Python): "
    r"(AI\b|K2|Desktop|Generation|Finder|Models|Library)"
)


def junk(source: str, title: str) -> str:
    """Why ``title``'s subject is junk, or ""."""
    subject = title.split(": ", 1)[0] if ": " in title else ""
    own = source.split(": ", 1)[0] if ": " in source else None
    if subject and subject not in (own, title) and subject in JUNK:
        return JUNK[subject]
    if _SPLIT.match(title):
        return "name split in two"
    if re.search(r" \| \w", title):
        return "site name"
    return ""


def articles() -> list[tuple[str, Article]]:
    out = [
        (p.name, clean.article_from_document(p.read_bytes(), filename=p.name))
        for p in sorted((DATA / "corpus" / "posts").iterdir())
    ]
    feeds = sorted((DATA / "corpus" / "feeds").glob("*.xml")) + sorted(
        p for p in (DATA / "feeds").iterdir() if not p.name.endswith(".expected.json")
    )
    for path in feeds:
        for i, entry in enumerate(parse.parse_feed(path.read_bytes()).entries):
            out.append((f"{path.name}#{i}", clean.article_from_entry(entry)))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", type=Path, help="write the titles here")
    ap.add_argument("--compare", type=Path, help="an earlier --json run to diff against")
    args = ap.parse_args()
    engine = ExtractiveEngine()
    rows = []
    for key, article in articles():
        try:
            title = engine.explain(article, ExplainOptions()).explainer.title
        except EngineError:
            continue  # an item without text
        rows.append({"key": key, "source": article.title, "title": title})
        print(f"{article.title[:70]!r} -> {title!r}")
    bad = [r for r in rows if junk(r["source"], r["title"])]
    print(f"\n{len(bad)} of {len(rows)} titles have a junk subject:")
    for r in bad:
        print(f"  [{junk(r['source'], r['title'])}] {r['title'][:100]}")
    long = [r for r in rows if title_words(r["title"]) > TITLE_WORDS]
    print(f"\n{len(long)} of {len(rows)} titles are over {TITLE_WORDS} words:")
    for r in long:
        print(f"  [{title_words(r['title'])}] {r['title']}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False) + "\n")
    if args.compare:
        old = {r["key"]: r for r in json.loads(args.compare.read_text())}
        changed = [(old[r["key"]], r) for r in rows if r["key"] in old]
        changed = [(a, b) for a, b in changed if a["title"] != b["title"]]
        was = sum(1 for a, _ in changed if junk(a["source"], a["title"]))
        print(f"\n{len(changed)} titles changed ({was} had a junk subject):")
        for a, b in changed:
            print(f"  {a['title'][:100]}\n    -> {b['title'][:100]}")


if __name__ == "__main__":
    main()
