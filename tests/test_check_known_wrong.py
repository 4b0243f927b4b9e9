"""check: wrong verdicts found by an adversarial review of the newest rules (session
h5), each first a strict xfail that stated why, now fixed and kept as cases: each asserts
the right verdict. (Its count-word case is in test_check_counted_nouns.) A verdict found
wrong and not fixed goes here as a strict xfail, unmarked once the check gets it right."""

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
