"""The headings the extractive engine writes itself ("What is new", "What the post
reports") in the feed's language, for the languages its table has and a post written in
it; English otherwise. The post's own headings stay as the post writes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import clean, parse
from service.check import check_explainer
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
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


# A status update in French, split into parts of the engine's own headings as the
# English one is.
FRENCH_STATUS = Article(
    title="Erreurs en hausse sur la plateforme",
    text="\n\n".join(
        [
            "Nous avons constaté une hausse des erreurs sur la plateforme pour une partie "
            "des requêtes de l’API.",
            "Les équipes ont identifié la cause : une mise à jour de la configuration du "
            "répartiteur de charge, déployée dans la matinée.",
            "Le taux d’erreurs a atteint 12 % des requêtes pendant 40 minutes, selon nos mesures.",
            "La configuration a été annulée et le service est revenu à la normale pour la "
            "plupart des clients.",
            "Les requêtes en file d’attente sont traitées dans l’ordre et aucune donnée "
            "n’a été perdue.",
            "Nous publierons une analyse complète de l’incident dans les prochains jours, "
            "avec les mesures prises pour que cela ne se reproduise pas.",
        ]
    ),
)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("English", ["What is new", "What the post reports"]),
        # The post is in English: the engine cannot translate it, so its own words
        # around it stay English too, not French headings over English text.
        ("French", ["What is new", "What the post reports"]),
        ("Deutsch", ["What is new", "What the post reports"]),
        ("Japanese", ["What is new", "What the post reports"]),
        ("Klingon", ["What is new", "What the post reports"]),
    ],
)
def test_the_engines_own_headings_over_an_english_post_are_english(
    language: str, expected: list[str]
) -> None:
    assert _headings(_item(*STATUS), language)[:2] == expected


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("French", ["Ce qui est nouveau", "Ce que rapporte l’article"]),
        ("fr-CA", ["Ce qui est nouveau", "Ce que rapporte l’article"]),
        # A French post in a German feed: no German words around French sentences.
        ("Deutsch", ["What is new", "What the post reports"]),
    ],
)
def test_the_engines_own_headings_are_in_the_feeds_language_for_a_post_in_it(
    language: str, expected: list[str]
) -> None:
    assert _headings(FRENCH_STATUS, language)[:2] == expected


def test_the_posts_own_headings_stay_as_written() -> None:
    article = _item(
        "pytorch-blog-2026-09-02-397d8ac.xml",
        "Fast, On Device Agentic AI with Muse Glimmer on ExecuTorch",
    )
    english, french = _headings(article, "English"), _headings(article, "French")
    assert len(english) >= 3
    assert french == english  # an English post: nothing of it in French
    assert "Why ExecuTorch" in french and "Use cases enabled" in french  # the post's own


def test_a_posts_own_stock_heading_is_not_translated() -> None:
    """ "Background" the post's own heading is its word; "Contexte" is the engine's only
    for an "Introduction" it rewrites."""
    body = FRENCH_STATUS.text.split("\n\n")
    for own, expected in (("Background", "Background"), ("Introduction", "Contexte")):
        text = "\n\n".join([*body[:2], f"## {own}", *body[2:4], "## Et ensuite", *body[4:]])
        article = Article(title=FRENCH_STATUS.title, text=text)
        assert expected in _headings(article, "French")


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


@pytest.mark.parametrize("language", ["French", "de"])
def test_the_engines_own_phrases_over_an_english_post_stay_english(language: str) -> None:
    """The post is English: "..., selon l’article." after an English sentence read as
    two languages in one; the engine cannot translate the sentence, so it writes the
    explainer as it would in English."""
    english_title, english = _explainer_text(_item(*MUSE), "English")
    title, body = _explainer_text(_item(*MUSE), language)
    assert any(p in english for p in _ENGLISH_PHRASES)
    assert (title, body) == (english_title, english)
    title = _explainer_text(_item(*PREVIEW), language)[0]
    assert title == "Image generation (experimental): what the post says"


FLYDSL = DATA / "posts" / "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"


@pytest.mark.parametrize("language", ["English", "fr", "de"])
def test_a_sentences_subject_put_before_it_is_english_over_an_english_post(
    language: str,
) -> None:
    """A sentence that names none of its sub-heading's subject gets it in front ("For
    dense GEMM, a later regression check ..."): in English over the English FlyDSL post
    whatever the feed's language, not "Pour dense GEMM, across 15 BF16 NT shapes"."""
    article = clean.article_from_document(FLYDSL.read_bytes(), filename=FLYDSL.name)
    body = _explainer_text(article, language)[1]
    assert "For dense GEMM, a later" in body
    assert "Pour " not in body and "selon l’article" not in body and "Zu " not in body
