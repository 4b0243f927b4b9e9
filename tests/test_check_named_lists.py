"""check: figures each written after the same name ("CUDA 13.3+ and CUDA 13.2+") form a
list as "CUDA 13.3+ and 13.2+" does, so "respectively" pairs them with their names.
Before, the name between them made them two lone figures, each said of every name near
it: against "Blackwell needs CUDA 13.3+. Hopper needs CUDA 13.2+." the faithful
"Blackwell and Hopper need CUDA 13.3+ and CUDA 13.2+, respectively" had its 13.3
misattached ("(hopper not there)"), and the swapped forms passed."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from service.numbers import extract_numbers
from service.numbers.context import list_runs
from tests.check_helpers import M, S

ONE = "CUDA 13.3+ is required on Hopper and CUDA 13.2+ on Blackwell."
TWO = "Blackwell needs CUDA 13.3+. Hopper needs CUDA 13.2+."


def _statuses(explainer: str, source: str) -> set[str]:
    return {v.status.value for v in check_explainer(explainer, source).numbers}


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        # The 13.3 misattached before.
        ("Blackwell and Hopper need CUDA 13.3+ and CUDA 13.2+, respectively.", TWO),
        ("Blackwell and Hopper need CUDA 13.3+ and CUDA 13.2+, in that order.", TWO),
        # Supported before and after.
        ("Hopper and Blackwell need CUDA 13.2+ and CUDA 13.3+, respectively.", TWO),
        ("Hopper and Blackwell need CUDA 13.3+ and CUDA 13.2+, respectively.", ONE),
        ("Blackwell needs CUDA 13.3+ and Hopper CUDA 13.2+.", TWO),
    ],
)
def test_a_faithful_list_with_the_name_repeated_is_supported(explainer: str, source: str) -> None:
    assert _statuses(explainer, source) == {S.value}


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        # Both supported before.
        ("Blackwell and Hopper need CUDA 13.2+ and CUDA 13.3+, respectively.", TWO),
        ("Blackwell and Hopper need CUDA 13.3+ and CUDA 13.2+, respectively.", ONE),
        # The 13.2 supported before.
        ("Hopper and Blackwell need CUDA 13.3+ and CUDA 13.2+, respectively.", TWO),
    ],
)
def test_a_swapped_list_with_the_name_repeated_is_misattached(explainer: str, source: str) -> None:
    assert _statuses(explainer, source) == {M.value}


@pytest.mark.parametrize(
    ("s", "expected"),
    [
        ("CUDA 13.3+ and CUDA 13.2+", [["13.3", "13.2"]]),
        ("ROCm 6.4+, ROCm 7.0+ or ROCm 7.1+", [["6.4", "7.0", "7.1"]]),
        # Another name, a word that names nothing, or the name after the figure: no list.
        ("CUDA 13.3+ and ROCm 7.0+", [["13.3"], ["7.0"]]),
        ("The 4+ and The 8+", [["4"], ["8"]]),
        ("4+ GPUs and GPUs 8+", [["4"], ["8"]]),
    ],
)
def test_list_runs_reads_a_repeated_name_in_the_gap(s: str, expected: list[list[str]]) -> None:
    runs = list_runs(s, [n for n in extract_numbers(s) if n.kind != "identifier"])
    assert [[n.text.split()[0] for n in run] for run in runs] == expected
