"""check: a decimal listed after a version is one too ("CUDA 13.3 and 13.2"), so the
faithful "Blackwell and Hopper need CUDA 13.3 and 13.2, respectively" is supported by
"Blackwell needs CUDA 13.3. Hopper needs CUDA 13.2." Before, only the first figure was
read as a version, the 13.2 as a quantity the source does not give ("not in the
source")."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from service.numbers import extract_numbers
from tests.check_helpers import S

TWO = "Blackwell needs CUDA 13.3. Hopper needs CUDA 13.2."


def _statuses(explainer: str, source: str) -> list[tuple[str, str]]:
    return [(v.text, v.status.value) for v in check_explainer(explainer, source).numbers]


@pytest.mark.parametrize(
    "explainer",
    [
        # The 13.2 (or 13.3) unsupported before.
        "Blackwell and Hopper need CUDA 13.3 and 13.2, respectively.",
        "Blackwell and Hopper need CUDA 13.3 and 13.2, in that order.",
        "Hopper and Blackwell need CUDA 13.2 and 13.3, respectively.",
        "Blackwell and Hopper need CUDA 13.3 or 13.2.",
        # Supported before and after.
        "Blackwell and Hopper need CUDA 13.3 and CUDA 13.2, respectively.",
        "Blackwell needs CUDA 13.3.",
    ],
)
def test_a_faithful_list_of_versions_is_supported(explainer: str) -> None:
    assert {status for _, status in _statuses(explainer, TWO)} == {S.value}


@pytest.mark.parametrize(
    ("explainer", "flagged"),
    [
        # A listed version the source does not give: flagged before and after.
        ("Blackwell and Hopper need CUDA 13.3 and 13.1, respectively.", "13.1"),
        ("Blackwell and Hopper need CUDA 13.4 and 13.2, respectively.", "13.4"),
    ],
)
def test_a_changed_version_in_a_list_is_flagged(explainer: str, flagged: str) -> None:
    statuses = dict(_statuses(explainer, TWO))
    assert statuses[flagged] != S.value
    assert [s for t, s in statuses.items() if t != flagged] == [S.value]


@pytest.mark.parametrize(
    ("s", "versions"),
    [
        ("CUDA 13.3 and 13.2", ["13.3", "13.2"]),
        ("CUDA 12.4, 12.6 and 13.0", ["12.4", "12.6", "13.0"]),
        ("PyTorch 2.14 or 2.15", ["2.14", "2.15"]),
        # Not listed, or no bare decimal: the later figure stays a quantity.
        ("PyTorch 2.14, 1.8 of the runs", ["2.14"]),
        ("CUDA 13.3 and 1.5 GB", ["13.3"]),
        ("CUDA 13.3 and up to 1.5", ["13.3"]),
        ("CUDA 13.3 gives 1.2 and 1.4", ["13.3"]),
        ("1.2 and 1.4 on CUDA 13.3", ["13.3"]),
    ],
)
def test_a_version_passes_its_reading_along_a_list(s: str, versions: list[str]) -> None:
    assert [n.text for n in extract_numbers(s) if n.kind == "version"] == versions
