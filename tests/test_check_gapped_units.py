"""numbers/check: a bare figure of a later list item written from its figure on ("9,000
tok/s on MI355X and 7,000 on MI300X") takes the unit of the item before, where phrases
of a word and a name alone set the items apart and the later figure is followed by a
phrase of one of those words. Before, the 7,000 had no unit: the faithful "MI300X
reaches 7,000 tok/s" was unsupported ("the source writes 7,000, with another unit")."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from service.numbers import extract_numbers
from tests.check_helpers import M, S, U

TOK = "Throughput reaches 9,000 tok/s on MI355X and 7,000 on MI300X."
LLAMA = "Throughput is 9,000 tok/s for Llama 3 8B and 7,000 for Llama 3 70B."
MEMORY = "It uses 9 GB on MI355X with BF16, and 7 with FP8."


def _statuses(explainer: str, source: str) -> list[tuple[str, str]]:
    """The explainer's figures (not its identifiers) with their statuses."""
    return [
        (v.text, v.status.value)
        for v in check_explainer(explainer, source).numbers
        if v.kind != "identifier"
    ]


@pytest.mark.parametrize(
    ("explainer", "source", "text"),
    [
        # Unsupported before: "with another unit".
        ("MI300X reaches 7,000 tok/s.", TOK, "7,000 tok/s"),
        ("On MI300X, throughput reaches 7,000 tok/s.", TOK, "7,000 tok/s"),
        ("Throughput reaches 7,000 tok/s on MI300X and 9,000 tok/s on MI355X.", TOK, "7,000 tok/s"),
        ("Llama 3 70B runs at 7,000 tok/s.", LLAMA, "7,000 tok/s"),
        ("With FP8 on MI355X it uses 7 GB.", MEMORY, "7 GB"),
    ],
)
def test_the_later_items_figure_takes_the_unit(explainer: str, source: str, text: str) -> None:
    assert (text, S.value) in _statuses(explainer, source)


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        # Unsupported before ("with another unit").
        ("On MI355X, throughput reaches 7,000 tok/s.", TOK),
        ("Llama 3 8B runs at 7,000 tok/s.", LLAMA),
        ("With BF16 it uses 7 GB.", MEMORY),
        # Supported before: the 7,000 with no unit left the 9,000 alone to MI300X too.
        ("On MI300X, throughput reaches 9,000 tok/s.", TOK),
    ],
)
def test_a_figure_moved_to_the_other_item_is_misattached(explainer: str, source: str) -> None:
    assert {status for _, status in _statuses(explainer, source)} == {M.value}


@pytest.mark.parametrize(
    "source",
    [
        # A noun of its own, another kind of phrase after it, no phrase between.
        "The cluster served 9,000 tok/s on MI355X and 7,000 users on MI300X.",
        "It served 9,000 tok/s on MI355X and 7,000 in 2025.",
        "It served 9,000 tok/s on node A and 7,000 on node B.",
        "It paid $9,000 on MI355X and 7,000 on MI300X.",
    ],
)
def test_no_unit_where_the_item_is_not_gapped(source: str) -> None:
    sevens = [n for n in extract_numbers(source) if n.text == "7,000"]
    assert [n.unit for n in sevens] == [""]
    assert _statuses("It served 7,000 tok/s on MI300X.", source) == [("7,000 tok/s", U.value)]
