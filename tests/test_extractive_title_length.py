"""The extractive engine's explainer titles are short enough to scan (``title_length``):
past 14 words they end where a phrase of them ends, never inside a name, a figure, a list
or parentheses; and a model family the title names stays in it."""

from __future__ import annotations

import pytest

from service.engines.extractive import build_explainer
from service.engines.extractive.title_length import (
    TITLE_WORDS,
    affected_first,
    shorten,
    words,
)
from tests.title_helpers import explained_title, feed_items


def test_a_model_familys_name_stays_in_the_title() -> None:
    """ "Kimi: Together AI announces ... to natively serve models, 2.8T parameter Kimi K3":
    the subject led the title and was cut from "Kimi models" as a modifier of its own
    things, which left "models", whose the title no longer said."""
    source = "Together AI announces strategic partnership with Moonshot AI to natively serve"
    title = explained_title(f"{source} Kimi models")
    assert title == f"{source} Kimi models"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        # 26 words: cut after the aside that names what it adds, not inside "Sora 2".
        # Its title cut with an ellipsis, the post's first sentence is its title.
        (
            "Together AI adds 40+ image & video models, including Sora 2 and …",
            "Together AI adds 40+ image & video models, including Sora 2 and Veo 3",
        ),
        # A list stays whole, not cut after "latency" or "timeouts"; nor is what it
        # affects cut off: the models first, without who sees it ("The team is seeing
        # elevated latency, timeouts, and interrupted streaming" said of no model).
        (
            "We’re seeing elevated latency, timeouts, and interrupted streaming across gpt 5.1"
            " mini model and gpt 4.1 mini",
            "gpt 5.1 mini model and gpt 4.1 mini: Elevated latency, timeouts, and interrupted"
            " streaming",
        ),
        # Two questions joined: the first whole ("How speech models fail", 4 words, cut
        # at "where", said less than the post's title).
        (
            "How speech models fail where it matters the most and what to do about it",
            "How speech models fail where it matters the most",
        ),
        # Not on a participle whose phrase is cut off ("..., and editing, rolling out").
        (
            "A four-model video suite for generation, continuation, reference-driven workflows,"
            " and editing, rolling out on Together AI starting with text-to-video.",
            "A four-model video suite for generation, continuation, reference-driven workflows,"
            " and editing",
        ),
        # A title that long says something: no "what the post says" after it.
        (
            "Elevated ChatGPT conversation errors affecting Plus, Pro, Business, and Edu users",
            "Elevated ChatGPT conversation errors affecting Plus, Pro, Business, and Edu users",
        ),
        # Not a sentence's first word: "... you already use. Start".
        (
            "Together Link: open models in the harness you already use. Start with one"
            " command today.",
            "Together Link: Open models in the harness you already use",
        ),
        # The claim, what the post shows, keeps its place, what the title adds cut short.
        (
            "Together AI expands fine-tuning service with tool calling, reasoning, and vision"
            " support",
            "Together AI expands fine-tuning service, up to 6× higher throughput",
        ),
    ],
)
def test_a_long_title_ends_where_a_phrase_ends(source: str, expected: str) -> None:
    title = explained_title(source)
    assert title == expected
    assert words(title) <= TITLE_WORDS


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        # A name with a preposition inside ("Claude for Microsoft Office 365").
        (
            "Elevated errors on the login page of Claude for Microsoft Office 365 for some users",
            "Elevated errors on the login page of Claude for Microsoft Office 365",
        ),
        # Not a place a name runs on: cut before "in", the title lost what failed.
        (
            "Users may experience an increase in error rates in Workspace Agents and ChatGPT"
            " Work on Web and Mobile",
            "Users may experience an increase in error rates in Workspace Agents and ChatGPT Work",
        ),
        # A range ("from 8 to 256") and a figure's lead-in ("up to 50%": with no other
        # place to end, the title as it is).
        (
            "Serving: concurrency grows from 8 to 256 requests while the latency of the cache"
            " stays flat across the runs",
            "Serving: concurrency grows from 8 to 256 requests",
        ),
        (
            "Speculative decoding cuts each step up to 50% of its time and of the cache traffic"
            " of the lab",
            "Speculative decoding cuts each step up to 50% of its time and of the cache traffic"
            " of the lab",
        ),
        # Parentheses and quotes stay closed.
        (
            "Release notes: the new scheduler (with fair queues for every tenant on the"
            " cluster) ships today in beta",
            "Release notes: the new scheduler",
        ),
        # In title case a capital says no name: a last phrase of "in" or "to" ends,
        # not one of "for" ("Claude for Microsoft Office 365").
        (
            "SIMA 2: An Agent that Plays, Reasons, and Learns With You in Virtual 3D Worlds",
            "SIMA 2: An Agent that Plays, Reasons, and Learns With You",
        ),
        (
            "Gemma-4-31B-it-pearl: Together AI and Pearl Research Labs Team Up to Reduce the"
            " Cost of AI Inference",
            "Gemma-4-31B-it-pearl: Together AI and Pearl Research Labs Team Up",
        ),
        (
            "Office: How Enterprise Teams Deploy and Govern Their Agents With Claude for"
            " Microsoft Office 365",
            "Office: How Enterprise Teams Deploy and Govern Their Agents With Claude for"
            " Microsoft Office 365",
        ),
        # Where nothing else ends, a last "of" phrase of plain words; not one that names
        # what the title is about, nor what a figure is of.
        (
            "Gemma Scope 2: Helping the AI safety community deepen understanding of complex"
            " language model behavior",
            "Gemma Scope 2: Helping the AI safety community deepen understanding",
        ),
        (
            "Google DeepMind: Introducing the first preview and the developer release of the"
            " next generation of Gemini Pro",
            "Google DeepMind: Introducing the first preview and the developer release of the"
            " next generation of Gemini Pro",
        ),
        (
            "Research: Helping the AI safety community deepen its understanding of the"
            " behavior of Gemma Scope",
            "Research: Helping the AI safety community deepen its understanding of the"
            " behavior of Gemma Scope",
        ),
        # No place a phrase ends within the words: the title as it is.
        (
            "PyTorch Ecosystem Landscape Welcomes Perforated, AReaL, TorchJD, RLinf, Miles, SMG,"
            " FiftyOne, TokenSpeed, VisualTorch, and TorchSurv",
            "PyTorch Ecosystem Landscape Welcomes Perforated, AReaL, TorchJD, RLinf, Miles, SMG,"
            " FiftyOne, TokenSpeed, VisualTorch, and TorchSurv",
        ),
    ],
)
def test_a_title_is_not_cut_inside_a_name_a_figure_or_an_aside(title: str, expected: str) -> None:
    assert shorten(title) == expected


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        # The symptom and what it affects fit without who reports it.
        (
            "Users in APAC region may face increased error in ChatGPT, Work, image generation,"
            " file upload, Voice, and Codex Cloud",
            "Increased error in ChatGPT, Work, image generation, file upload, Voice, and Codex"
            " Cloud",
        ),
        # They do not: what it affects first, as a subject.
        (
            "The team is seeing elevated latency, timeouts, and interrupted streaming across"
            " gpt 5.1 mini model and gpt 4.1 mini",
            "gpt 5.1 mini model and gpt 4.1 mini: Elevated latency, timeouts, and interrupted"
            " streaming",
        ),
        # The cut keeps what failed: left as cut ("Workspace Agents", "ChatGPT Work").
        (
            "Users may experience an increase in error rates in Workspace Agents and ChatGPT"
            " Work on Web and Mobile",
            "",
        ),
        # Not a status incident's words: a reporter it does not open with.
        ("A new scheduler lands in the 2.14 release for every tenant of the cluster", ""),
    ],
)
def test_a_status_title_keeps_what_it_affects(title: str, expected: str) -> None:
    assert affected_first(title, shorten(title)) == expected
    assert words(expected) <= TITLE_WORDS


def test_every_corpus_title_fits_unless_nothing_can_end_it() -> None:
    """Over the corpus feeds' items, titles ran to 26 words. Each is 14 words at most now,
    or one with no place within them where a phrase ends: a list of names ("FedRAMP:
    Codex, workspace analytics, ...", "PyTorch Ecosystem Landscape Welcomes Perforated,
    AReaL, ..."). Three more were cut with ``extractive-34``: two in title case, whose
    prepositions sit between capitals, and one whose last phrase is of "of"."""
    long = []
    for article in feed_items().values():
        if not article.text.strip():
            continue
        title = build_explainer(article).title
        if words(title) > TITLE_WORDS:
            assert shorten(title, phrases=False) == title, title
            long.append(title)
    assert len(long) <= 2, long
