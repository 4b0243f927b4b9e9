"""check: "in that order" ("in this order", "in the same order") after a list of figures
pairs them with a list of names as "respectively" does, in the explainer and in the
source. Before, it only stopped being a noun (test_check_list_markers): each figure was
said of every name of the list, so the faithful "Blackwell and Hopper reach 1.3x and
1.5x, in that order" of "Hopper reaches 1.5x. Blackwell reaches 1.3x." was misattached
("(blackwell not there)"), and a swapped list against a one-sentence source passed."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from tests.check_helpers import M, S

SPEED = "Hopper reaches 1.5x. Blackwell reaches 1.3x."
MXFP = "MXFP8 and MXFP4 reach 1.58x and 1.68x over BF16, respectively."
MARKERS = ["in that order", "in this order", "in the same order"]


def _statuses(explainer: str, source: str) -> set[str]:
    """The statuses of the explainer's figures (not its identifiers)."""
    return {
        v.status.value for v in check_explainer(explainer, source).numbers if v.kind != "identifier"
    }


@pytest.mark.parametrize("marker", MARKERS)
def test_a_faithful_list_in_that_order_is_supported(marker: str) -> None:
    # Misattached before: the 1.5x "(blackwell not there)".
    explainer = f"Blackwell and Hopper reach 1.3x and 1.5x, {marker}."
    assert _statuses(explainer, SPEED) == {S.value}


@pytest.mark.parametrize("marker", MARKERS)
def test_a_swapped_list_in_that_order_is_misattached(marker: str) -> None:
    # Both supported before.
    explainer = f"MXFP4 and MXFP8 reach 1.58x and 1.68x over BF16, {marker}."
    assert _statuses(explainer, MXFP) == {M.value}


@pytest.mark.parametrize("marker", MARKERS)
def test_a_source_list_in_that_order_pairs_its_figures(marker: str) -> None:
    source = f"MXFP8 and MXFP4 reach 1.58x and 1.68x over BF16, {marker}."
    # Supported before.
    assert _statuses("MXFP4 reaches 1.58x over BF16.", source) == {M.value}
    # Supported before and after.
    assert _statuses("MXFP4 reaches 1.68x over BF16.", source) == {S.value}
    assert _statuses(f"MXFP8 and MXFP4 reach 1.58x and 1.68x over BF16, {marker}.", MXFP) == {
        S.value
    }


def test_a_swapped_list_in_that_order_of_sentences_apart_is_misattached() -> None:
    # The 1.3x supported before (said of both names), the 1.5x misattached.
    explainer = "Blackwell and Hopper reach 1.5x and 1.3x, in that order."
    assert _statuses(explainer, SPEED) == {M.value}
