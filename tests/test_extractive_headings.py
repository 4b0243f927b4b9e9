"""The headings the extractive engine writes itself ("What is new", "What the post
reports") in the feed's language, for the languages its table has; English otherwise.
The post's own headings stay as the post writes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import clean, parse
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
from service.engines.extractive.headings import heading_in
from service.models import Article

DATA = Path(__file__).parent / "data" / "corpus"
PROMPTS = Path(__file__).parent.parent / "prompts"


def _item(feed: str, title: str) -> Article:
    entries = parse.parse_feed((DATA / "feeds" / feed).read_bytes()).entries
    return next(a for a in map(clean.article_from_entry, entries) if a.title == title)


def _headings(article: Article, language: str) -> list[str]:
    options = ExplainOptions(language=language)
    result = ExtractiveEngine(PROMPTS).explain(article, options)
    return [s.heading for s in result.explainer.sections]


# A status update the engine splits into parts of its own headings.
STATUS = (
    "claude-status-history-atom-2026-10-08-012672d.xml",
    "Elevated errors on platform.claude.com",
)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("English", ["What is new", "What the post reports"]),
        ("French", ["Ce qui est nouveau", "Ce que rapporte l’article"]),
        ("fr-CA", ["Ce qui est nouveau", "Ce que rapporte l’article"]),
        ("Deutsch", ["Was ist neu", "Was der Beitrag berichtet"]),
        ("es", ["Qué hay de nuevo", "Qué informa la publicación"]),
        # No table for it: English, as the engine writes.
        ("Japanese", ["What is new", "What the post reports"]),
        ("Klingon", ["What is new", "What the post reports"]),
    ],
)
def test_the_engines_own_headings_are_in_the_feeds_language(
    language: str, expected: list[str]
) -> None:
    assert _headings(_item(*STATUS), language)[:2] == expected


def test_the_posts_own_headings_stay_as_written() -> None:
    article = _item(
        "pytorch-blog-2026-09-02-397d8ac.xml",
        "Fast, On Device Agentic AI with Muse Glimmer on ExecuTorch",
    )
    english, french = _headings(article, "English"), _headings(article, "French")
    assert len(english) == len(french) >= 3
    for en, fr in zip(english, french, strict=True):
        assert fr == heading_in(en, "fr")
    assert "Why ExecuTorch" in french and "Use cases enabled" in french  # the post's own
    assert french[0] == "Ce qui est nouveau"
