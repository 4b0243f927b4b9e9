"""check: the perturbation suite's faithful explainers raise no alarm: its references
(``tests/perturbation_source.py``), every post copied word for word, and shortened or
reworded copies of them. The mutants: ``test_check_perturbation_mutants.py``.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from service.check import check_explainer
from service.clean import article_from_document, article_from_entry
from service.evaluate.cases import load_article, load_cases
from service.models import Article, CheckStatus
from service.numbers import Kind, extract_numbers
from service.parse import parse_feed
from service.text import split_blocks, split_sentences
from tests.perturbation_source import (
    EVAL_CASES,
    FEEDS,
    FLAGGED,
    POSTS,
    Reference,
    references,
)

# --- the bars -------------------------------------------------------------------------------------


@pytest.mark.parametrize("ref", references(), ids=lambda r: r.name)
def test_references_raise_no_false_alarm(ref: Reference) -> None:
    report = check_explainer(ref.explainer, ref.source, title=ref.title)
    flagged = [(n.text, n.status.value, n.reason) for n in report.numbers if n.status in FLAGGED]
    assert flagged == []
    assert len(report.numbers) >= 15


def _copyable() -> list[Any]:
    """Every eval case's post, every corpus post and the first 15 items of every corpus
    feed, cleaned: sources to copy verbatim (108 articles)."""
    out = [pytest.param(load_article(case), id=case.slug) for case in load_cases(EVAL_CASES)]
    out += [
        pytest.param(article_from_document(p.read_bytes(), filename=p.name), id=p.stem)
        for p in sorted(POSTS.iterdir())
    ]
    for feed in sorted(FEEDS.iterdir()):
        entries = parse_feed(feed.read_bytes()).entries[:15]
        out += [
            pytest.param(article_from_entry(e), id=f"{feed.stem}-{i}")
            for i, e in enumerate(entries)
        ]
    return out


@pytest.mark.parametrize("article", _copyable())
def test_a_post_copied_word_for_word_raises_no_alarm(article: Article) -> None:
    """The strictest faithful explainer is the post itself: every figure of it must be
    supported where it stands (its tables, asides and figure captions included)."""
    report = check_explainer(article.text, article.text, title=article.title)
    supported = CheckStatus.SUPPORTED
    wrong = [(n.text, n.status.value, n.sentence) for n in report.numbers if n.status != supported]
    assert wrong == []


_WRITTEN_OUT = {"x": " times", "×": " times", "%": " percent"}
_PLAIN_FIGURE = re.compile(r"[\d.,]+\s?[x×%]")


def _written_out(text: str) -> str:
    """Every plain multiplier and percentage of ``text`` in words ("1.10x" -> "1.10 times",
    "96%" -> "96 percent"), the rest unchanged."""
    out, pos = [], 0
    for n in extract_numbers(text):
        if n.kind == Kind.QUANTITY and n.unit in ("x", "%") and _PLAIN_FIGURE.fullmatch(n.text):
            word = _WRITTEN_OUT[n.text[-1]]
            out += [text[pos : n.start], n.text[:-1].rstrip(), word]
            pos = n.end
    return "".join(out) + text[pos:]


def _sentences_left_out(text: str, seed: int) -> str:
    """Each paragraph with some of its sentences left out (at least one kept)."""
    rng = random.Random(seed)
    kept = []
    for block in split_blocks(text):
        if block.kind in ("paragraph", "list_item"):
            sentences = split_sentences(block.text)
            kept.append(" ".join([s for s in sentences if rng.random() < 0.6] or sentences[:1]))
    return "\n\n".join(kept)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_shortened_or_reworded_copy_raises_no_alarm(seed: int) -> None:
    """Faithful edits of a copy keep every figure supported: multipliers and percentages
    written out in words, and sentences left out of each paragraph (names carried from a
    sentence that is gone stand earlier in the source paragraph)."""
    wrong = []
    for param in _copyable():
        (article,) = param.values
        for explainer in (_written_out(article.text), _sentences_left_out(article.text, seed)):
            report = check_explainer(explainer, article.text, title=article.title)
            supported = CheckStatus.SUPPORTED
            wrong += [(n.text, n.sentence) for n in report.numbers if n.status != supported]
    assert wrong == []
