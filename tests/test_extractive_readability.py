"""Defects a reader of the eval cases' extractive explainers met: a sentence said twice,
a speaker's name and job title read as a sentence, "reports that" before a phrase that
is no clause."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import clean
from service.check import check_explainer
from service.engines.extractive import build_explainer
from service.engines.extractive.fragments import has_no_finite_verb
from service.engines.extractive.style import write_sentence
from service.engines.extractive.words import case_table
from service.models import Article

CASES = Path(__file__).parent.parent / "eval" / "cases"


def _case(name: str) -> tuple[Article, str]:
    source = next((CASES / name).glob("source.*"))
    article = clean.article_from_document(source.read_bytes(), filename=source.name)
    text = build_explainer(article).all_text()
    assert check_explainer(text, article.text, title=article.title).ok
    return article, text


def test_a_status_update_said_again_is_said_once() -> None:
    """The 14:28 and 14:21 updates of the incident say the same sentence; the explainer
    said it twice, one paragraph after the other."""
    article, text = _case("claude-status-2026-09-29-elevated-errors")
    repeated = (
        "The team is investigating elevated error rates affecting Claude.ai (including the"
        " desktop and mobile apps), Claude Code and Claude Cowork."
    )
    assert article.text.count(repeated.replace("The team is", "We are")) == 2
    assert text.count(repeated) == 1


def test_a_sentence_of_the_post_is_kept_once_however_often_it_is_written() -> None:
    post = (
        "# Errors\n\nOct 6, 12:40 UTC Update - We are investigating elevated errors on"
        " requests to Claude Opus 5.5. Errors began at 12:10 UTC.\n\n"
        "Oct 6, 12:24 UTC Investigating - We are investigating elevated errors on requests"
        " to Claude Opus 5.5. About 3% of requests fail.\n"
    )
    text = build_explainer(Article(title="Errors", text=post, content_source="feed")).all_text()
    assert text.count("investigating elevated errors on requests to Claude Opus 5.5") == 1
    assert "12:10 UTC" in text and "3%" in text  # what each update adds stays


@pytest.mark.parametrize(
    "fragment",
    [
        # A speaker list's items: names and job titles, no verb ("Stevens" and
        # "Frameworks" were taken for verbs in "-s").
        "Brian Stevens, SVP & AI CTO, Red Hat",
        "Ujval Kapasi, VP, AI & HPC Frameworks & Libraries, NVIDIA",
        # After a preposition a verb-like word is a noun or an infinitive.
        "a tie on pass@1",
        "Native ability to run on Windows",
    ],
)
def test_names_titles_and_prepositional_nouns_are_no_finite_verbs(fragment: str) -> None:
    assert has_no_finite_verb(fragment)


@pytest.mark.parametrize(
    "sentence", ["GPUs share memory", "The team runs the models", "Ollama adds Windows support"]
)
def test_a_sentence_still_has_its_verb(sentence: str) -> None:
    assert not has_no_finite_verb(sentence)


def test_a_speaker_list_is_not_read_as_sentences() -> None:
    """ "PyTorch Conference North America will be held in San Jose ... Brian Stevens, SVP &
    AI CTO, Red Hat. Ujval Kapasi, VP, AI & HPC Frameworks & Libraries, NVIDIA.": two list
    items of the keynote speakers, without the list's lead-in, as if they were sentences."""
    _, text = _case("pytorchcon-2026-keynotes")
    assert "Brian Stevens" not in text and "Ujval Kapasi" not in text
    assert "PyTorch Conference North America will be held in San Jose" in text


def test_reports_that_needs_a_clause_after_it() -> None:
    """ "The authors report that a tie on pass@1, but GLM-5.3 wins ...": a noun phrase
    closed by a comma is no clause for "that"."""
    sentence = "A tie on pass@1, but GLM-5.3 wins pass@4 and costs 5.4x less."
    case = case_table(sentence)
    for voice in ("authors", "team"):
        said = write_sentence(sentence, 0, case, voice)  # type: ignore[arg-type]
        assert said == f"According to the post, {sentence[0].lower()}{sentence[1:]}"
    # A clause keeps the first wording.
    said = write_sentence("The fused kernel is 1.5x faster, on MI355X.", 0, case, "authors")
    assert said == "The authors report that the fused kernel is 1.5x faster, on MI355X."
    _, text = _case("together-glm-5-3-vs-claude-fable-5")
    assert "report that a tie" not in text and "According to the post, a tie on pass@1" in text
