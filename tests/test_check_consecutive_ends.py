"""check: two figures that are both ends of a source range of consecutive whole numbers
("October 20 and 21" of "October 20-21") say what the range says: supported by it. Ends
with values between them ("8 and 256" of "8-256") stay derived."""

from __future__ import annotations

import pytest

from tests.check_helpers import D, S, verdict

SUMMIT = "The summit is October 20-21 in San Jose."


@pytest.mark.parametrize(
    "explainer",
    [
        "The summit is on October 20 and 21.",  # both were derived, range ends
        "The summit is on October 20 or 21.",
        "The summit is on October 20, 21.",
    ],
)
def test_both_ends_of_a_consecutive_range_are_supported(explainer: str) -> None:
    for written in ("20", "21"):
        v = verdict(explainer, SUMMIT, written)
        assert (v.status, v.source, v.reason) == (S, SUMMIT, None)


@pytest.mark.parametrize(
    ("source", "explainer", "written"),
    [
        # Values between the ends: the two say less than the range.
        ("The tile sizes are 8-256.", "The tile sizes are 8 and 256.", "8"),
        ("The tile sizes are 8-256.", "The tile sizes are 8 and 256.", "256"),
        ("The summit is October 20-22.", "The summit is on October 20 and 22.", "22"),
        # A unit: 3.5 GB lies between.
        ("Runs took 3-4 GB of memory.", "Runs took 3 and 4 GB of memory.", "3"),
        # Not the two ends as a list of two.
        (SUMMIT, "The summit is on October 21 and 20.", "21"),
        (SUMMIT, "The summit starts on October 20.", "20"),  # one end alone
    ],
)
def test_other_range_ends_stay_derived(source: str, explainer: str, written: str) -> None:
    assert verdict(explainer, source, written).status == D
