"""The offline engine on hostile posts: each shape once took seconds to minutes (a pattern or
loop quadratic in the post's length); each must now take a fraction of a second, bounded
generously for a loaded machine."""

from __future__ import annotations

import time

import pytest

from service import clean
from service.check import check_explainer
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
from service.errors import NothingToExplain


def _table(rows: int, columns: int) -> str:
    head = "<tr>" + "".join(f"<th>h{c}</th>" for c in range(columns)) + "</tr>"
    body = "".join(
        "<tr>" + "".join(f"<td>{(r * c) % 10}</td>" for c in range(columns)) + "</tr>"
        for r in range(1, rows)
    )
    return f"<p>The team measured how fast it runs.</p><table>{head}{body}</table>"


@pytest.mark.parametrize(
    ("kind", "doc"),
    [
        ("md", "*a" * 100_000),  # emphasis read from each "*" to the end: 4 s, 8 s at 200 KB
        ("md", "*a " * 33_000 + "."),  # the same with spaces: 2 minutes
        ("md", "Word " * 20_000 + "."),  # the subject's scans once a word of the intro: 35 s
        # Each cell cleaned and scored: 7-18 s for 300x300, four times that for this;
        # now a row is read only as far as a sentence can go. (No figure in prose: a
        # title claim's check would index each of its 360,000 cells, the check's cost.)
        ("html", _table(300, 1200)),
        # Every number of the sentence read for a title claim; explained whole, the check
        # read each of its figures against every figure of the post: minutes. (Now read
        # to MAX_FIGURES: the claim after it is not, the sentence before it is.)
        ("md", "It is 2x faster. " + "1.5x " * 20_000 + "."),
        # Each repeat found best and turned away, the pool searched again for each: 6 s
        # for 100 KB, growing as its square.
        ("md", "The GPU runs the MLIR kernel 2x faster on HBM. " * 4_000),
    ],
    ids=["star-a", "star-a-spaced", "one-word", "table-300x1200", "numbers", "repeats"],
)
def test_the_offline_engine_reads_a_hostile_post_in_linear_time(kind: str, doc: str) -> None:
    claim = " It is 1.5x faster than before." if kind == "md" else ""
    article = clean.article_from_document(doc + claim, kind=kind)
    started = time.monotonic()
    result = ExtractiveEngine().explain(article, ExplainOptions())
    # A second at most (minutes for some before); more on a loaded machine.
    assert time.monotonic() - started < 15
    assert result.explainer.sections
    if kind == "md":  # the table's check is the check's own cost (cells bound to columns)
        started = time.monotonic()
        assert check_explainer(result.explainer.all_text(), article.text, title=article.title).ok
        assert time.monotonic() - started < 10


def test_one_sentence_too_long_to_explain_says_so_at_once() -> None:
    # Nothing else to explain, it was explained whole, and the number check read each of
    # its 20,000 figures against every figure of the post: minutes for 100 KB.
    article = clean.article_from_document("1.5x " * 20_000 + "faster.", kind="md")
    started = time.monotonic()
    with pytest.raises(NothingToExplain):
        ExtractiveEngine().explain(article, ExplainOptions())
    assert time.monotonic() - started < 5
