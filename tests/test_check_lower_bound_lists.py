"""check: figures written as lower bounds ("13.3+ and 13.2+") form a list as bare ones do,
the "+" of the first standing in the gap between them, so "respectively" pairs them with
their names. Before, no such list was read: the swapped "Hopper and Blackwell need CUDA
13.2+ and 13.3+, respectively" passed against "CUDA 13.3+ is required on Hopper and CUDA
13.2+ on Blackwell", and the faithful "Blackwell and Hopper need CUDA 13.3+ and 13.2+,
respectively" was misattached against "Blackwell needs CUDA 13.3+. Hopper needs CUDA
13.2+." ("(hopper not there)")."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from service.numbers import extract_numbers
from service.numbers.context import list_runs
from tests.check_helpers import M, S

ONE = "CUDA 13.3+ is required on Hopper and CUDA 13.2+ on Blackwell."
TWO = "Blackwell needs CUDA 13.3+. Hopper needs CUDA 13.2+."


def _statuses(explainer: str, source: str) -> list[tuple[str, str]]:
    return [(v.text, v.status.value) for v in check_explainer(explainer, source).numbers]


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        # Misattached before: the 13.3 "(hopper not there)".
        ("Blackwell and Hopper need CUDA 13.3+ and 13.2+, respectively.", TWO),
        ("Blackwell and Hopper need CUDA 13.3+ and 13.2+ respectively.", TWO),
        ("Hopper and Blackwell need CUDA 13.2+ and 13.3+, respectively.", TWO),
        ("Blackwell and Hopper need CUDA 13.3+ and 13.2+, in that order.", TWO),
        # Supported before and after.
        ("Hopper and Blackwell need CUDA 13.3+ and 13.2+, respectively.", ONE),
        ("Blackwell and Hopper need CUDA 13.2+ and 13.3+, respectively.", ONE),
        ("Blackwell needs CUDA 13.3+ and Hopper 13.2+.", TWO),
    ],
)
def test_a_faithful_list_of_lower_bounds_is_supported(explainer: str, source: str) -> None:
    assert {status for _, status in _statuses(explainer, source)} == {S.value}


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        # Both supported before.
        ("Hopper and Blackwell need CUDA 13.2+ and 13.3+, respectively.", ONE),
        ("Blackwell and Hopper need CUDA 13.3+ and 13.2+, respectively.", ONE),
        # The 13.2 supported before.
        ("Hopper and Blackwell need CUDA 13.3+ and 13.2+, respectively.", TWO),
        ("Blackwell and Hopper need CUDA 13.2+ and 13.3+, respectively.", TWO),
    ],
)
def test_a_swapped_list_of_lower_bounds_is_misattached(explainer: str, source: str) -> None:
    assert {status for _, status in _statuses(explainer, source)} == {M.value}


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        ("CUDA 13.3+ and 13.2+", [["13.3", "13.2"]]),
        ("4+, 8+ or 16+ GPUs", [["4", "8", "16"]]),
        ("13.3+ and 13.2", [["13.3", "13.2"]]),
        # A "+" between figures that is no lower bound's, and a noun between: no list.
        ("13 +and 12", [["13"], ["12"]]),
        ("4+ GPUs and 8+ CPUs", [["4"], ["8"]]),
    ],
)
def test_list_runs_reads_a_plus_in_the_gap(s: str, expected: list[list[str]]) -> None:
    runs = list_runs(s, [n for n in extract_numbers(s) if n.kind != "identifier"])
    assert [[n.text.split()[0] for n in run] for run in runs] == expected
