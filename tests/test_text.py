"""text: reading cleaned text back as blocks."""

from __future__ import annotations

from service.text import split_blocks


def test_escaped_pipe_stays_inside_its_cell() -> None:
    text = "| Flag | Meaning |\n| --- | --- |\n| a\\|b | either a or b |\n| `x` | 2 \\| 3 |"
    [table] = split_blocks(text)
    assert table.kind == "table"
    assert table.header == ("Flag", "Meaning")
    assert table.rows == (("a|b", "either a or b"), ("`x`", "2 | 3"))
    assert "| a\\|b | either a or b |" in table.text  # the raw text keeps the escape


def test_table_rows_and_empty_cells() -> None:
    text = "before\n\n| A | B |\n|---|:--:|\n| 1 |  |\n\nafter"
    blocks = split_blocks(text)
    assert [b.kind for b in blocks] == ["paragraph", "table", "paragraph"]
    assert blocks[1].rows == (("1", ""),)
