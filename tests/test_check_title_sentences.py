"""check: the post's title is read a sentence at a time, as its text is. A title may hold
several sentences (a plain-text source's first line was taken whole; a title given with
the post still may): one unit of them all bound a figure of one sentence to the names of
another."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from service import clean
from service.check import check_explainer
from service.cli import app
from tests.check_helpers import M, S, U

LINE = 'Use ShapeVar("batch", min=2, max=128) for the batch dimension. The cache holds 64 entries.'


def _checked(explainer: str, source: str, name: str = "post.txt") -> list[tuple[str, object]]:
    # A text file's line of two sentences is no title now (tests/test_clean_text_titles):
    # given as the title, as it was taken.
    article = clean.article_from_document(source, filename=name)
    report = check_explainer(explainer, article.text, title=article.title or source)
    return [(n.status, n.source_block) for n in report.numbers]


def test_the_line_is_the_text() -> None:
    # (What the cases below rest on: the line is both the title and the text.)
    article = clean.article_from_document(LINE, filename="post.txt")
    assert (article.title, article.text) == ("", LINE)


@pytest.mark.parametrize("name", ["post.txt", "post.md"])
def test_the_caches_64_is_no_minimum_of_the_batch_dimension(name: str) -> None:
    # Was supported, with no block: the one-unit title held "batch dimension", "min" and
    # 64, each of another sentence ("post.md": the title its first sentence, as it was).
    assert _checked("The batch dimension has a minimum of 64.", LINE, name) == [(M, 0)]


def test_the_title_sentences_still_back_their_own_figures() -> None:
    assert _checked("The batch dimension has a minimum of 2.", LINE) == [(S, 0)]
    assert _checked("The cache holds 64 entries.", LINE) == [(S, 0)]
    # The minimum is no maximum (the title's sentence or the text's).
    assert _checked("The batch dimension has a maximum of 2.", LINE) == [(U, None)]


def test_a_title_of_two_sentences_only_in_the_title() -> None:
    title = "FlyDSL 0.3 is out. It runs 64 warps per block."
    text = "FlyDSL is a Python DSL for AMD GPUs."
    report = check_explainer("FlyDSL 0.3 runs 64 warps per block.", text, title=title)
    assert [(n.text, n.status, n.source, n.source_block) for n in report.numbers] == [
        ("0.3", S, "FlyDSL 0.3 is out.", None),
        ("64", S, "It runs 64 warps per block.", None),
    ]


def test_the_table_names_the_title_not_block_none(tmp_path: Path) -> None:
    source = tmp_path / "post.md"
    source.write_text("---\ntitle: FlyDSL 0.3 is 1.10x faster\n---\n\nFlyDSL is a DSL.\n")
    explainer = tmp_path / "explainer.md"
    explainer.write_text("FlyDSL is 1.10x faster.\n")
    args = ["check", "--explainer", str(explainer), "--source", str(source)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0
    assert "[title] FlyDSL 0.3 is 1.10x faster" in result.stdout
    assert "[None]" not in result.stdout
