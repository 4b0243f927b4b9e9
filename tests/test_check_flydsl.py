"""check: a real case, the FlyDSL post and its explainer 003."""

from __future__ import annotations

import re

import pytest

from service.check import check_explainer
from service.clean import article_from_document
from service.text import split_blocks
from tests.check_helpers import FLYDSL, SEED_003, D, M, S, U

# --- a real case: the FlyDSL post and the explainer 003 -------------------------------------------

ATTENTION = {"0.92–2.34 times", "0.93–2.47 times", "0.14.2b", "0.13b"}


def flydsl_sources() -> list[str]:
    raw = FLYDSL.read_text(encoding="utf-8")
    cleaned = article_from_document(FLYDSL.read_bytes(), filename=FLYDSL.name).text
    return [raw, cleaned]


@pytest.mark.parametrize("source", flydsl_sources(), ids=["markdown", "cleaned"])
def test_003_against_the_flydsl_post_without_its_attention_section(source: str) -> None:
    report = check_explainer(SEED_003.read_text(encoding="utf-8"), source)
    flagged = [n for n in report.numbers if n.status in (U, M)]
    assert sorted(n.text for n in flagged) == sorted(
        ["0.92–2.34 times", "0.93–2.47 times", "0.14.2b", "0.14.2b", "0.13b"]
    )
    assert all(n.status == U for n in flagged)
    # The one figure 003 computes: the span of the three MXFP4 ranges of one sentence.
    assert [n.text for n in report.numbers if n.status == D] == ["1.25–3.01 times"]
    supported = [n for n in report.numbers if n.status == S]
    assert len(supported) >= 50
    for n in supported:
        assert n.source and n.source_block is not None
    blocks = split_blocks(source)
    for n in supported:
        assert blocks[n.source_block or 0].kind in ("paragraph", "list_item", "table", "heading")


@pytest.mark.parametrize("source", flydsl_sources(), ids=["markdown", "cleaned"])
def test_003_figures_bound_by_nouns_show_the_sentence_that_says_them(source: str) -> None:
    """A figure bound by its nouns ("1 measurement per combination") is shown with the
    source sentence that shares most of them, not the first whose words merely overlap
    ("one partial per wave" that combines)."""
    report = check_explainer(SEED_003.read_text(encoding="utf-8"), source)
    shown = {n.text: n.source or "" for n in report.numbers if n.status == S}
    assert "one measured run per cell" in shown["1"]
    assert "fixed 512-token output" in shown["512"]


def test_nouns_pick_the_unit_that_shares_most_of_them() -> None:
    source = (
        "The reduction combines one partial per wave. "
        "Each model had one measured run per combination."
    )
    report = check_explainer("There was 1 measurement per combination.", source)
    [n] = report.numbers
    assert n.status == S
    assert n.source == "Each model had one measured run per combination."


def test_003_every_figure_is_reported() -> None:
    text = SEED_003.read_text(encoding="utf-8")
    report = check_explainer(text, FLYDSL.read_text(encoding="utf-8"))
    written = {n.text for n in report.numbers}
    for figure in ("1.10 times", "1.58", "1.68 times", "1.17–3.66 times", "4.82 times", "8–256"):
        assert figure in written
    assert "up to 1.13 times" in text and "1.13 times" in written
    # Section numbers ("1. More options ...") are list markers, not figures.
    assert not any(re.fullmatch(r"[1-5]", n.text) for n in report.numbers if n.status != S)
