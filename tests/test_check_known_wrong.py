"""check: wrong verdicts found by an adversarial review of the newest rules (session
h5) and not fixed, each a strict xfail that states why: it fails (the wrong verdict
stands) until the check gets it right, and then must be unmarked. Each asserts the
right verdict. False passes first, then false alarms."""

from __future__ import annotations

import pytest

from tests.check_helpers import M, S, status

FLEX = (
    "FlexAttention on AMD's RDNA3 GPUs gets tuned tile configs. The result is roughly "
    "2-8x lower latency."
)


def test_short_and_long_prompts_are_opposite() -> None:
    source = "Sparse attention cuts latency by 30% on long prompts."
    explainer = "Sparse attention cuts latency by 30% on short prompts."
    assert status(explainer, source, "30%") == M


@pytest.mark.parametrize(
    "explainer",
    [
        "FlexAttention has roughly 2-8x lower latency.",
        "On RDNA3 GPUs, FlexAttention has roughly 2-8x lower latency.",
    ],
)
def test_a_subject_of_the_sentence_before_holds(explainer: str) -> None:
    assert status(explainer, FLEX, "2-8x") == S
