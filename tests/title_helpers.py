"""The corpus feed items the extractive engine's title tests explain, and the title of
one (its figures checked against the post)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from service import clean, parse
from service.check import check_explainer
from service.engines.extractive import build_explainer
from service.models import Article

DATA = Path(__file__).parent / "data"
FEEDS = DATA / "corpus" / "feeds"


@cache
def feed_items() -> dict[str, Article]:
    """Every corpus feed item by its title (the first of a title written twice)."""
    out: dict[str, Article] = {}
    for path in sorted(FEEDS.glob("*.xml")):
        for entry in parse.parse_feed(path.read_bytes()).entries:
            article = clean.article_from_entry(entry)
            out.setdefault(article.title, article)
    return out


def explained_title(source_title: str) -> str:
    article = feed_items()[source_title]
    title = build_explainer(article).title
    # Whatever the title says, its figures are the post's own.
    assert check_explainer(title, article.text, title=article.title).ok, title
    return title
