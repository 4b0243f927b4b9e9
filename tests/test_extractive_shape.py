"""The extractive engine's explainers of real corpus posts: their shape (sections, what
comes next, takeaway, length, reading grade) and numbers that are the source's own."""

from __future__ import annotations

import re

import pytest

from service.engines.base import ExplainOptions
from service.engines.extractive import (
    ExtractiveEngine,
    number_tokens,
)
from service.models import Article
from service.readability import flesch_kincaid_grade, word_count
from service.text import split_sentences
from tests.extractive_corpus import (
    ALL_POSTS,
    FLYDSL,
    PROMPTS,
    _article,
    _explain,
    _prose,
    _sentences,
)

# --- shape ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_POSTS)
def test_structure(name: str) -> None:
    e = _explain(name)
    subject, colon, rest = e.title.partition(":")
    assert colon and subject.strip() and rest.strip(), e.title
    assert 3 <= len(e.sections) <= 7
    for s in e.sections:
        assert s.heading.strip()
        assert not s.heading.endswith("?")
        assert 1 <= len(s.paragraphs) <= 4
        assert all(p.strip() for p in s.paragraphs)


@pytest.mark.parametrize(
    ("name", "heading", "outlook"),
    [
        (FLYDSL, "What comes next", "in progress"),  # a "What's Next" section of its own
        # No such section: the conclusion closes, with its outlook sentence kept.
        (
            "pytorch-blog-hardware-agnostic-models-in-vllm.md",
            "What it adds up to",
            "work-in-progress",
        ),
        ("pytorch-blog-harnessing-ai-for-day-one-model-enablement.html", "What it adds up to", ""),
    ],
)
def test_the_last_section_is_what_comes_next_else_the_conclusion(
    name: str, heading: str, outlook: str
) -> None:
    last = _explain(name).sections[-1]
    assert last.heading == heading
    assert outlook in " ".join(last.paragraphs)


@pytest.mark.parametrize("name", ALL_POSTS)
def test_the_takeaway_says_what_no_section_says(name: str) -> None:
    e = _explain(name)
    said = {s for section in e.sections for p in section.paragraphs for s in split_sentences(p)}
    assert not said & set(split_sentences(e.takeaway or ""))


@pytest.mark.parametrize("name", ALL_POSTS)
def test_no_sentence_opens_with_a_later_point_of_a_list(name: str) -> None:
    # "Second, vLLM is ..." without the first point reads as a fragment.
    assert not [s for s in _sentences(_explain(name)) if re.match(r"(Second|Third)\b", s)]


def test_instructions_to_the_reader_and_speaker_bios_are_left_out() -> None:
    text = "\n\n".join(
        [
            "The conference runs 40 sessions on agents across two days in San Jose. "
            "View the full conference schedule. Explore practical agent training on day one.",
            "## Keynotes",
            "Three keynotes frame the conversation about agents in production. Ada Lovelace "
            "is the Executive Director of the Engine Foundation and has 25 years of experience. "
            "The keynotes cover training, serving and governance of agents at scale.",
            "## Sessions",
            "Sessions on serving show agents handling 2,000 requests per minute in production. "
            "Sessions on training cover reinforcement learning with tool use at scale.",
        ]
    )
    e = (
        ExtractiveEngine(PROMPTS)
        .explain(Article(title="Agents at the conference", text=text), ExplainOptions())
        .explainer
    )
    said = _sentences(e)
    assert not [s for s in said if s.startswith(("View ", "Explore "))], said
    assert not [s for s in said if "Executive Director" in s], said
    assert any("40 sessions" in s for s in said)


def test_a_sentence_that_only_leads_into_a_list_is_left_out() -> None:
    text = "\n\n".join(
        [
            "The keynote lineup is set for the conference, taking place on 20 October in "
            "San Jose. Featured keynote speakers and their scheduled sessions include:",
            "- Ada Lovelace, Engines: the analytical engine at 150 years",
            "- Alan Turing, Bletchley: computable numbers in 2 parts",
        ]
    )
    e = ExtractiveEngine(PROMPTS).explain(Article(title="Keynotes", text=text), ExplainOptions())
    assert not [s for s in _sentences(e.explainer) if s.endswith(("include.", "include:"))]


@pytest.mark.parametrize("name", ALL_POSTS)
def test_length_and_reading_grade(name: str) -> None:
    e = _explain(name)
    words = word_count(_prose(e))
    assert 300 <= words <= 900, words
    assert flesch_kincaid_grade(_prose(e)) <= 12.0


def test_same_input_same_output() -> None:
    article = _article(FLYDSL)
    first = ExtractiveEngine(PROMPTS).explain(article, ExplainOptions())
    # A new Article of the same post (where it came from says who "we" is: style.voice_of).
    again = ExtractiveEngine(PROMPTS).explain(
        Article(title=article.title, text=article.text, content_source=article.content_source),
        ExplainOptions(),
    )
    assert first.model_dump_json() == again.model_dump_json()


# --- numbers are the source's own -----------------------------------------------------------


@pytest.mark.parametrize("name", ALL_POSTS)
def test_every_number_is_verbatim_in_the_source(name: str) -> None:
    article, e = _article(name), _explain(name)
    texts = [e.all_text()] + [s.code for s in e.sections if s.code]
    tokens = [t for text in texts for t in number_tokens(text)]
    assert tokens  # these posts are full of figures
    for tok in tokens:
        # As a whole token: "10" must not pass on the strength of "2010".
        pattern = rf"(?<![0-9A-Za-z]){re.escape(tok)}(?![0-9A-Za-z])"
        assert re.search(pattern, article.text), tok


def test_flydsl_headline_figures_are_carried_with_their_context() -> None:
    sentences = _sentences(_explain(FLYDSL))
    for figure, context in [
        ("1.10x", "BF16"),
        ("1.58x", "MXFP8"),
        ("1.68x", "MXFP4"),
        ("1.20x", "Triton"),
        ("1.95x", "ATen"),
        ("4.82x", "ATen"),
        ("1.13x", "BF16"),
    ]:
        assert any(figure in s and context in s for s in sentences), figure
    assert "1.17x–3.66x" in _explain(FLYDSL).all_text()  # a range stays a range
