"""A post that is one big table (300x300 cells, as bench/big_table.py times it): the
offline engine reads it as a table however its separator row is written, and the number
check indexes its first MAX_TABLE_CELLS cells, still telling a restated row from a changed
one; of a header row of 30,000 cells, its first MAX_TABLE_COLUMNS; of the 90,000 figures
written as prose, the first MAX_SOURCE_FIGURES. (No timing here: bench/big_table.py
measures.)"""

from __future__ import annotations

import pytest

from bench.big_table import cell, header_row, html, markdown, prose
from service.check import check_explainer, index_source
from service.check.caps import MAX_SOURCE_FIGURES, MAX_TABLE_COLUMNS
from service.check.index import MAX_TABLE_CELLS
from service.clean import article_from_document
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
from service.models import Article, CheckStatus


def _article(kind: str, doc: str) -> Article:
    return article_from_document(doc, kind=kind, title="Big table")


def _wide(separator: str) -> str:
    """Three rows of 20 columns, short enough to be explained row by row."""
    head = "| Model | " + " | ".join(f"Step {j}" for j in range(1, 20)) + " |"
    rows = [
        f"| Model {m} | " + " | ".join(f"{m * j}.5 ms" for j in range(1, 20)) + " |"
        for m in (2, 3, 4)
    ]
    intro = "The team measured how long each model takes per step, in milliseconds."
    return "\n".join([intro, "", head, separator * 20 + "|", *rows]) + "\n"


def test_a_separator_row_written_without_spaces_keeps_a_wide_table_a_table() -> None:
    # 20 columns of "|----------" are one run of 220 characters without a space: read as
    # junk and dropped, it parted the header from the rows, read then as two paragraphs.
    engine, options = ExtractiveEngine(), ExplainOptions()
    tight = engine.explain(_article("md", _wide("|----------")), options).explainer
    spaced = engine.explain(_article("md", _wide("| --- ")), options).explainer
    assert tight == spaced


@pytest.mark.parametrize("kind", ["md", "html"])
def test_a_300x300_table_is_explained_and_checked_cell_by_cell(kind: str) -> None:
    doc = markdown(300) if kind == "md" else html(300)
    article = _article(kind, doc)
    result = ExtractiveEngine().explain(article, ExplainOptions())
    assert result.explainer.sections
    report = check_explainer(result.explainer, article.text, title=article.title)
    assert report.ok
    idx = index_source(article.text, article.title)
    assert 0 < len(idx.rows) * 300 <= MAX_TABLE_CELLS < (len(idx.rows) + 1) * 300
    # A row restated as the engine writes one ("<label>: <column> <cell>; ..."), then
    # with one cell changed to a figure of another row and column.
    said = f"r2: c1 {cell(2, 1)}; c2 {cell(2, 2)}; c3 {cell(2, 3)}."
    assert check_explainer(said, article.text, title=article.title).ok
    changed = said.replace(f"c2 {cell(2, 2)}", f"c2 {cell(2, 5)}")
    flagged = check_explainer(changed, article.text, title=article.title)
    assert [n.status for n in flagged.numbers if n.text == cell(2, 5)] != [CheckStatus.SUPPORTED]
    assert not flagged.ok


def test_a_figure_only_a_row_past_the_indexed_cells_holds_is_not_found() -> None:
    # The cap leaves it for a person (unsupported), never supported by another cell, and
    # says why: the figure may well be in the source, in a row the check did not read.
    doc = markdown(300).replace("| r300 | ", "| r300 | 98765.4 | ", 1)
    article = _article("md", doc)
    report = check_explainer("Run r300 took 98765.4 in c1.", article.text, title=article.title)
    assert [n.status for n in report.numbers if n.text == "98765.4"] == [CheckStatus.UNSUPPORTED]
    idx = index_source(article.text, article.title)
    rows, cells = 300 - len(idx.rows), 300 * 300 + 1 - len(idx.rows) * 300
    assert (idx.cut.rows, idx.cut.cells, idx.cut.columns, idx.cut.figures) == (rows, cells, 0, 0)
    cap = f"the source's tables were read only to their first 10,000 cells ({rows} rows, "
    reasons = [n.reason for n in report.numbers if n.text == "98765.4"]
    assert reasons == [f"not in the source; {cap}{cells:,} cells left out)"]
    # A figure the read rows back gives no such reason: it is not in doubt.
    said = check_explainer(f"Run r2 took {cell(2, 1)} in c1.", article.text, title=article.title)
    assert {(n.status, n.reason) for n in said.numbers} == {(CheckStatus.SUPPORTED, None)}


def test_a_source_read_whole_gives_no_reason_for_an_unsupported_figure() -> None:
    # A small table is read to its last row: nothing was left out, nothing to explain.
    doc = markdown(20)
    article = _article("md", doc)
    report = check_explainer("Run r20 took 98765.4 in c1.", article.text, title=article.title)
    reasons = [(n.status, n.reason) for n in report.numbers if n.text == "98765.4"]
    assert reasons == [(CheckStatus.UNSUPPORTED, "not in the source")]
    assert index_source(article.text, article.title).cut.reason() == ""


def test_a_header_row_is_read_to_its_first_columns_and_says_so() -> None:
    # 30,000 header cells were each read for a unit and a noun (1 s of CPU); past
    # MAX_TABLE_COLUMNS they are not, and a figure left unsupported says the table was cut.
    article = _article("md", header_row(300))
    idx = index_source(article.text, article.title)
    header = idx.units[idx.rows[0].header_unit]
    assert len(header.numbers) == MAX_TABLE_COLUMNS - 1  # "run" holds none
    assert idx.cut.columns == 300 * 300 // 3 - MAX_TABLE_COLUMNS and idx.cut.rows == 0
    report = check_explainer("Run r1 took 98765.4 in c5000.", article.text, title=article.title)
    reasons = [n.reason for n in report.numbers if n.text == "98765.4"]
    cap = f"the source's tables were read only to their first {MAX_TABLE_COLUMNS:,} columns"
    assert reasons == [f"not in the source; {cap} ({idx.cut.columns:,} cells left out)"]
    # A cell of the row read is still backed by it.
    said = check_explainer(f"Run r1 took {cell(1, 2)} in c2.", article.text, title=article.title)
    assert [n.status for n in said.numbers if n.text == cell(1, 2)] == [CheckStatus.SUPPORTED]


def test_figures_written_as_prose_are_read_to_the_cap_by_whole_sentences() -> None:
    # The 300x300 table written as 300 sentences: 90,000 runs of digits (0.7 s of CPU).
    article = _article("md", prose(300))
    idx = index_source(article.text, article.title)
    read = sum(len(u.numbers) for u in idx.units)
    # Whole sentences of 300 figures ("r<i>" and its 299 cells) up to the cap.
    assert read == MAX_SOURCE_FIGURES // 300 * 300
    assert idx.cut.figures == 300 * 300 - read and idx.cut.rows == 0
    first = f"Run r1 measured {cell(1, 1)}, {cell(1, 2)}."
    assert check_explainer(first, article.text, title=article.title).ok
    report = check_explainer("Run r300 measured 98765.4.", article.text, title=article.title)
    reasons = [n.reason for n in report.numbers if n.text == "98765.4"]
    cap = f"the source's text was read only to its first {MAX_SOURCE_FIGURES:,} figures"
    assert reasons == [f"not in the source; {cap} outside tables ({idx.cut.figures:,} left out)"]


def test_code_lines_are_read_to_the_cap_by_whole_lines() -> None:
    # Figures in code count as prose's do: 12,000 lines of one figure each, the first
    # MAX_SOURCE_FIGURES of them read, none cut in the middle.
    lines = "\n".join(f"step_{i} = {i}" for i in range(12_000))
    text = f"The steps:\n\n```\n{lines}\n```\n"
    idx = index_source(text, "")
    read = [idx.units[u] for b, us in idx.block_units.items() for u in us if b == 1]
    assert len(read) == MAX_SOURCE_FIGURES // 2  # "step_<i> = <i>": two runs of digits a line
    assert read[-1].display == f"step_{len(read) - 1} = {len(read) - 1}"
    assert idx.cut.figures == 2 * 12_000 - MAX_SOURCE_FIGURES
    said = check_explainer("The last step is step 11999 = 11999.", text)
    late = [n for n in said.numbers if "11999" in n.text]
    assert late and all(n.status != CheckStatus.SUPPORTED for n in late)
    assert all("its first 10,000 figures outside tables" in (n.reason or "") for n in late)
