"""Who speaks in an extractive explainer: the post's "we" as "the authors" (a signed post)
or "the team" (the publisher), and a quoted speaker's "we" as the speaker's."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import clean
from service.check import check_explainer
from service.engines.extractive import build_explainer
from service.engines.extractive.style import third_person
from service.models import Article


@pytest.mark.parametrize(
    ("sentence", "authors", "team"),
    [
        # Someone else's words: a partner's CEO is neither the authors nor the team.
        (
            "“We are thrilled to partner with Together AI,” said Jane Doe, CEO of Acme. We agree.",
            "“We are thrilled to partner with Together AI,” said Jane Doe, CEO of Acme."
            " The authors agree.",
            "“We are thrilled to partner with Together AI,” said Jane Doe, CEO of Acme."
            " The team agrees.",
        ),
        (
            'Ann Lee said "our users asked for it and we built it" last week.',
            'Ann Lee said "our users asked for it and we built it" last week.',
            'Ann Lee said "our users asked for it and we built it" last week.',
        ),
        # A quotation of several sentences: the first opens it, the last closes it.
        (
            "“We built the first version in two weeks.",
            "“We built the first version in two weeks.",
            "“We built the first version in two weeks.",
        ),
        (
            "Our users love it,” said Jane Doe. We shipped it.",
            "Our users love it,” said Jane Doe. The authors shipped it.",
            "Our users love it,” said Jane Doe. The team shipped it.",
        ),
        # A straight quote with no closing one opens no quotation mid-sentence: the rest
        # of the sentence stayed in the first person as a speaker's words ("... "fast
        # path and we enable it"). Where it starts the sentence, it opens a quotation of
        # several sentences as a curly one does.
        (
            'We call this the "fast path and we enable it by default on every GPU.',
            'The authors call this the "fast path and they enable it by default on every GPU.',
            'The team calls this the "fast path and the team enables it by default on every GPU.',
        ),
        (
            '"We built the first version in two weeks.',
            '"We built the first version in two weeks.',
            '"We built the first version in two weeks.',
        ),
        # A quoted term is no speaker's: the sentence around it is the post's.
        (
            "We introduce “HW agnostic” layers.",
            "The authors introduce “HW agnostic” layers.",
            "The team introduces “HW agnostic” layers.",
        ),
    ],
)
def test_a_quotations_first_person_is_its_speakers(sentence: str, authors: str, team: str) -> None:
    assert third_person(sentence, "authors") == authors
    assert third_person(sentence, "team") == team


def test_a_quoted_speaker_keeps_their_words_and_is_their_own_attribution() -> None:
    post = (
        "# Acme kernels\n\n“We cut inference latency by 40% on 8 GPUs with our new kernels,”"
        " said Jane Doe, CEO of Acme. The kernels ship in version 2.1 next month, and we"
        " will publish the code.\n"
    )
    for author, who in (("Ann Lee", "the authors"), (None, "the team")):
        article = Article(title="Acme kernels", text=post, author=author, content_source="feed")
        text = build_explainer(article).all_text()
        # Verbatim, not "The authors report that “We cut ...,” said Jane Doe".
        assert (
            "\n“We cut inference latency by 40% on 8 GPUs with our new kernels,” said Jane Doe"
            in text
        ), text
        assert f"and {who} will publish the code" in text


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # The authors named once, the sentence goes on with "they".
        (
            "Now that we have a reliable judge, we can use it to improve the product we launched.",
            "Now that the authors have a reliable judge, they can use it to improve the"
            " product they launched.",
        ),
        (
            "We are big fans of DSPy for this, and we calibrate with GEPA.",
            "The authors are big fans of DSPy for this, and they calibrate with GEPA.",
        ),
        ("We're sure we've got it.", "The authors are sure they have got it."),
        # Not where "they" could be someone else.
        (
            "Users told us what they need and we built it.",
            "Users told the authors what they need and the authors built it.",
        ),
    ],
)
def test_the_authors_named_once_are_they_for_the_rest_of_the_sentence(
    sentence: str, expected: str
) -> None:
    assert third_person(sentence, "authors") == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # A base form before an object agrees, listed or not.
        (
            "We release the weights and open-source the training code.",
            "The team releases the weights and open-sources the training code.",
        ),
        (
            "We evaluate the model and report the results.",
            "The team evaluates the model and reports the results.",
        ),
        # After a modal or a past the second verb is as the first: no agreement there
        # ("will publish the results and shares the code" read wrong).
        (
            "We will publish the results and show the code.",
            "The team will publish the results and show the code.",
        ),
        (
            "We released the weights and show a demo.",
            "The team released the weights and show a demo.",
        ),
        # A noun after "and" stays one ("and release notes", "and data that ...").
        (
            "We build tools and data that matter.",
            "The team builds tools and data that matter.",
        ),
        (
            "We measure latency and then the dashboard shows it.",
            "The team measures latency and then the dashboard shows it.",
        ),
        # The auxiliaries agree in any tense, as before.
        (
            "We have identified the cause and are working on a fix.",
            "The team has identified the cause and is working on a fix.",
        ),
    ],
)
def test_the_teams_second_verb_agrees_as_its_first(sentence: str, expected: str) -> None:
    assert third_person(sentence, "team") == expected


def test_a_roundups_section_speaks_for_the_project_it_introduces() -> None:
    """The PyTorch Ecosystem post introduces ten projects, a section each, in their own
    words: "We’re joining the PyTorch ecosystem ..." under TorchJD is TorchJD's team, not
    the post's authors ("The authors are joining the PyTorch ecosystem")."""
    source = Path(__file__).parent.parent / "eval/cases/pytorch-ecosystem-q3-2026/source.html"
    article = clean.article_from_document(source.read_bytes(), filename=source.name)
    text = build_explainer(article).all_text()
    assert "The TorchJD team is joining the PyTorch ecosystem" in text
    assert "authors are joining" not in text
    assert check_explainer(text, article.text, title=article.title).ok


ROUNDUP = """# New projects

Three projects join the landscape this quarter.

## Alpha

Alpha is a library for sparse training on 8 GPUs. We are joining to grow our community.

## Beta

Beta is an inference engine for long prompts. We ship a release every 2 weeks.

## Gamma

Gamma is a toolkit for survival analysis. Our users run it on 3 clusters.
"""


def test_each_project_of_a_roundup_is_its_own_we_and_others_are_not() -> None:
    text = build_explainer(Article(title="New projects", text=ROUNDUP, author="Ann Lee")).all_text()
    assert "The Alpha team is joining to grow its community." in text
    assert "The Beta team ships a release every 2 weeks." in text
    assert "The Gamma team's users run it on 3 clusters." in text
    assert "authors" not in text
    # Two projects are not a roundup: sections of one thing, in the authors' voice.
    two = ROUNDUP.split("## Gamma")[0]
    text = build_explainer(Article(title="New projects", text=two, author="Ann Lee")).all_text()
    assert "The authors are joining" in text and "Alpha team" not in text
