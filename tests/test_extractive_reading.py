"""The offline engine reads a post to its first MAX_FIGURES runs of digits (reading.py):
90,000 figures written as prose cost it 1.5 s of CPU, weighing figures of sentences too
long to be kept. A post within the cap is read whole; past it, prose is cut by whole
sentences, a table by whole rows, code by whole lines, and the engine logs what it left
out. (No timing here: bench/big_table.py measures.)"""

from __future__ import annotations

import logging

import pytest

from bench.big_table import cell, prose
from service.clean import article_from_document
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
from service.engines.extractive.reading import MAX_FIGURES, read
from service.errors import NothingToExplain

LATE = "In the end the new kernel ran 4.2x faster than the old one on every run."


def test_a_post_within_the_cap_is_read_whole() -> None:
    text = "# Results\n\nIt ran 1.5x faster.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"
    reading = read(text, most=6)
    assert (reading.text, reading.figures_left_out, reading.reason()) == (text, 0, "")


def test_prose_is_cut_at_the_end_of_the_sentence_before_the_cap() -> None:
    reading = read("Intro.\n\nOne 1 and 2. Two 3 and 4. Three 5.\n", most=3)
    # The third run (3) is read, the fourth is not: its sentence goes whole.
    assert reading.text == "Intro.\n\nOne 1 and 2."
    assert reading.figures_left_out == 3


def test_a_table_is_cut_by_whole_rows_and_code_by_whole_lines() -> None:
    table = "Intro.\n\n| run | c1 |\n|---|---|\n| r1 | 10 |\n| r2 | 20. 30 |\n"
    assert read(table, most=4) == read(table, most=5)
    assert read(table, most=4).text == "Intro.\n\n| run | c1 |\n|---|---|\n| r1 | 10 |"
    code = "Steps:\n\n```\nx = 1. y = 2\n```\n"
    assert read(code, most=1).text == "Steps:\n\n```"


def test_ninety_thousand_figures_as_prose_are_read_to_the_cap(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The 300x300 table written as 300 sentences of 300 figures each, then a short
    # sentence with a result: read whole, the engine would take it; past the cap it is
    # not read, and the log says what was left out.
    doc = prose(300) + f"\n{LATE}\n"
    reading = read(article_from_document(doc, kind="md", title="Big table").text)
    read_runs = MAX_FIGURES // 300 * 300  # whole sentences of "r<i>" and 299 cells
    left_out = 300 * 300 + 2 - read_runs  # "4.2x" is two runs
    assert reading.figures_left_out == left_out
    assert reading.text.endswith(f"{cell(read_runs // 300, 299)}.")
    with caplog.at_level(logging.WARNING, logger="service.engines.extractive"):
        result = ExtractiveEngine().explain(
            article_from_document(doc, kind="md", title="Big table"), ExplainOptions()
        )
    paragraphs = [p for s in result.explainer.sections for p in s.paragraphs]
    assert not any("4.2x" in p for p in paragraphs)
    assert len(" ".join(paragraphs).split()) < 100
    assert [r.getMessage() for r in caplog.records] == [f"extractive engine: {reading.reason()}"]
    assert reading.reason() == (
        f"the post was read only to its first 10,000 figures ({left_out:,} left out,"
        " with the text after them)"
    )


def test_the_same_sentence_within_the_cap_is_taken() -> None:
    # The control: a few sentences of figures, then the same result, read and taken.
    doc = prose(10) + f"\n{LATE}\n"
    result = ExtractiveEngine().explain(
        article_from_document(doc, kind="md", title="Big table"), ExplainOptions()
    )
    assert any("4.2x" in p for s in result.explainer.sections for p in s.paragraphs)


def test_a_post_whose_sentences_all_lie_past_the_cap_says_so() -> None:
    # One line of 40,000 runs of digits ("1.5x" 20,000 times), then the only sentence to
    # explain: it is not read, and the error says why, not only that there is none.
    doc = "1.5x " * 20_000 + ". " + LATE
    article = article_from_document(doc, kind="md", title="Big table")
    with pytest.raises(NothingToExplain) as caught:
        ExtractiveEngine().explain(article, ExplainOptions())
    assert str(caught.value) == (
        "the article has no prose sentences to explain (the post was read only to its first"
        " 10,000 figures (40,002 left out, with the text after them))"
    )
