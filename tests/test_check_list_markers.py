"""check: a list's marker after its figures ("..., respectively", "..., in that order")
says how the figures pair with their names, and is no noun of the last figure: a bare
figure with no name near it ("13.2+" of "need CUDA 13.3+ and 13.2+, respectively") was
said of "respectively" or "order", which no source writes by it, so a faithful
explainer's figure was misattached ("the source gives it for other things (respectively
not there)")."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from tests.check_helpers import M, S, U

SOURCE = "CUDA 13.3+ is required on Hopper and CUDA 13.2+ on Blackwell."
SPLIT = "On Hopper, CUDA 13.3+ is required. On Blackwell, CUDA 13.2+ is required."
MARKERS = ["respectively", "in that order", "in this order", "in the same order"]


def _statuses(explainer: str, source: str) -> list[tuple[str, str]]:
    """The explainer's figures (not its identifiers) with their statuses."""
    return [
        (v.text, v.status.value)
        for v in check_explainer(explainer, source).numbers
        if v.kind != "identifier"
    ]


@pytest.mark.parametrize("marker", MARKERS)
def test_a_list_marker_is_no_noun_of_the_last_figure(marker: str) -> None:
    # Misattached before: "(respectively not there)", "(order not there)".
    explainer = f"Hopper and Blackwell need CUDA 13.3+ and 13.2+, {marker}."
    assert _statuses(explainer, SOURCE) == [("13.3", S.value), ("13.2", S.value)]


@pytest.mark.parametrize("marker", MARKERS)
def test_the_marker_of_a_source_written_apart(marker: str) -> None:
    # The 13.2+ misattached before; the 13.3+ is the source's too, "On Hopper".
    explainer = f"Hopper and Blackwell need CUDA 13.3+ and 13.2+, {marker}."
    assert _statuses(explainer, SPLIT)[1] == ("13.2", S.value)


@pytest.mark.parametrize("marker", MARKERS)
def test_a_made_up_figure_before_a_marker_stays_unsupported(marker: str) -> None:
    explainer = f"Hopper and Blackwell need CUDA 13.3+ and 13.4+, {marker}."
    assert ("13.4", U.value) in _statuses(explainer, SOURCE)


def test_order_stays_a_noun_elsewhere() -> None:
    # A count of orders is one: the source's count of requests is no count of them.
    assert _statuses("The queue holds 13 orders.", "The queue holds 13 requests.") == [
        ("13", M.value)
    ]
    assert _statuses("The queue held 13 orders, in that order.", "The queue held 13 orders.") == [
        ("13", S.value)
    ]
