"""The headings the extractive engine writes itself ("What is new", "What the post
reports") in the feed's language, for the languages its table has; English otherwise.
The post's own headings stay as the post writes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import clean, parse
from service.check import check_explainer
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
from service.engines.extractive.headings import heading_in
from service.models import Article
from service.render import to_text

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


# The English phrases the engine writes itself besides headings: each has its place in
# the wording table (``phrases``), so none is left in a French or German explainer.
_ENGLISH_PHRASES = (
    "The authors report that",
    "According to the post",
    "The post reports that",
    "The team reports that",
    "according to the post",
    "what the post says",
    "What the post says",
    "in the post shows",
)

MUSE = (
    "pytorch-blog-2026-09-02-397d8ac.xml",
    "Fast, On Device Agentic AI with Muse Glimmer on ExecuTorch",
)
PREVIEW = ("ollama-blog-2026-09-02-a2a70b9.xml", "Image generation (experimental)")


def _explainer_text(article: Article, language: str) -> tuple[str, str]:
    result = ExtractiveEngine(PROMPTS).explain(article, ExplainOptions(language=language))
    e = result.explainer
    body = "\n".join([p for s in e.sections for p in s.paragraphs] + [e.takeaway or ""])
    # The figures are the post's own, whatever words credit them.
    assert check_explainer(to_text(e), article.text, title=article.title).ok
    return e.title, body


@pytest.mark.parametrize(
    ("language", "credits", "says"),
    [
        (
            "French",
            ("Selon les auteurs, ", "Selon l’article, ", ", selon l’article."),
            "ce que dit l’article",
        ),
        (
            "de",
            ("Die Autoren berichten: ", "Der Beitrag berichtet: ", ", so der Beitrag."),
            "was der Beitrag sagt",
        ),
    ],
)
def test_the_engines_own_phrases_are_in_the_feeds_language(
    language: str, credits: tuple[str, ...], says: str
) -> None:
    english_title, english = _explainer_text(_item(*MUSE), "English")
    title, body = _explainer_text(_item(*MUSE), language)
    assert any(p in english for p in _ENGLISH_PHRASES)  # what there is to say otherwise
    assert not [p for p in _ENGLISH_PHRASES if p in body], body
    assert any(c in body for c in credits), body
    assert title == english_title  # the post's own words
    title = _explainer_text(_item(*PREVIEW), language)[0]
    assert title == f"Image generation (experimental): {says}"


FLYDSL = DATA / "posts" / "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"


@pytest.mark.parametrize(
    ("language", "lead"),
    [
        ("English", "For dense GEMM, a later"),
        ("fr", "Pour dense GEMM, a later"),
        ("de", "Zu dense GEMM: A later"),
    ],
)
def test_a_sentences_subject_put_before_it_is_in_the_feeds_language(
    language: str, lead: str
) -> None:
    """A sentence that names none of its sub-heading's subject gets it in front ("For
    dense GEMM, a later regression check ..."): the engine's words, in the feed's
    language (German keeps the sentence's capital after a colon)."""
    article = clean.article_from_document(FLYDSL.read_bytes(), filename=FLYDSL.name)
    assert lead in _explainer_text(article, language)[1]
