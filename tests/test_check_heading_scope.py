"""check: a heading's scope ("### FooBar tuning for RDNA3") is said where an explainer
writes it spaces and hyphens aside, or in an earlier sentence of its paragraph; and it
scopes nothing where the post's title names it, or every other place of the subject does
(or lies under the heading): the scope tells no section from another there. The rule
itself: test_check_scope."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from tests.check_helpers import M, S, status

SCOPED = (
    "## Kernels\n\nFooBar runs on the MI300X.\n\n### FooBar tuning for RDNA3\n\n"
    "The result is a 3x lower latency.\n"
)


@pytest.mark.parametrize(
    "explainer",
    [
        "FooBar is 3x faster on RDNA 3.",
        "On RDNA-3, FooBar is 3x faster.",
        "FooBar got RDNA3 tuning. FooBar is 3x faster.",
    ],
)
def test_a_scope_written_spaced_or_earlier_in_the_paragraph_is_said(explainer: str) -> None:
    assert status(explainer, SCOPED, "3x") == S


def test_a_scope_in_another_paragraph_is_not_read() -> None:
    assert status("FooBar got RDNA3 tuning.\n\nFooBar is 3x faster.", SCOPED, "3x") == M


# The subject's other place says the scope too: the post is on MI300X there.
ON_ITS_PLATFORM = SCOPED.replace("RDNA3", "MI300X")


@pytest.mark.parametrize(
    ("source", "title", "expected"),
    [
        (ON_ITS_PLATFORM, "", S),  # "FooBar runs on the MI300X": no other platform
        (ON_ITS_PLATFORM.replace("the MI300X", "the H100"), "", M),
        (ON_ITS_PLATFORM.replace("the MI300X", "the H100"), "FooBar on AMD MI300X", S),
        # The subject's other place under the heading itself: the same scope.
        (
            ON_ITS_PLATFORM.replace("FooBar runs on the MI300X", "Intro")
            + "\n#### Notes\n\nFooBar is tuned.\n",
            "",
            S,
        ),
    ],
)
def test_a_scope_every_place_of_the_subject_shares_scopes_nothing(
    source: str, title: str, expected: object
) -> None:
    report = check_explainer("FooBar is 3x faster.", source, title=title)
    assert [n.status for n in report.numbers if n.text == "3x"] == [expected]
