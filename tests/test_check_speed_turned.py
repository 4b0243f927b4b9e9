"""check: a change said the other way round. "X is 10% faster" is not backed by "X is 10%
slower" (a published explainer that inverts a result), nor "cuts latency" by "raises
latency"; but where the two sentences name their subject and baseline swapped, the
opposite word is right ("B is 2x slower than A" says "A is 2x faster than B"). Where the
names cannot be told apart, the turned change is flagged. A change of speed is turned
only by the other word of speed: "10% faster" may say "10% lower latency"."""

from __future__ import annotations

import pytest

from tests.check_helpers import S, U, status, verdict

ROW = (
    "| Workload | Optimization | Result |\n|---|---|---|\n"
    "| Llama3-8B (dense) | Rowwise FP8 vs BF16 | +13.4% throughput |"
)


@pytest.mark.parametrize(
    ("explainer", "source", "written"),
    [
        ("The kernel is 10% faster.", "The kernel is 10% slower.", "10%"),
        ("The kernel is 10% slower.", "The kernel is 10% faster.", "10%"),
        ("FlashAttention is 2x faster than SDPA.", "FlashAttention is 2x slower than SDPA.", "2x"),
        (
            "FlashAttention delivers a 1.5x speedup over SDPA.",
            "FlashAttention is 1.5x slower than SDPA.",
            "1.5x",
        ),
        ("FlashAttention cuts latency by 10%.", "FlashAttention raises latency by 10%.", "10%"),
        ("FlashAttention raises latency by 10%.", "FlashAttention cuts latency by 10%.", "10%"),
        (
            "FlashAttention has 10% lower latency than SDPA.",
            "FlashAttention has 10% higher latency than SDPA.",
            "10%",
        ),
        ("Der Kernel ist 10 % schneller.", "Der Kernel ist 10 % langsamer.", "10 %"),
        (
            "FlashAttention ist 2x schneller als SDPA.",
            "FlashAttention ist 2x langsamer als SDPA.",
            "2x",
        ),
        # No name to tell the two apart: flagged, not taken for a swap.
        ("The kernel is 2x faster.", "The kernel is 2x slower than the old one.", "2x"),
        # One name moved is no swap: the subject is another or none.
        ("FlashAttention is 2x faster than SDPA.", "SDPA is 2x slower.", "2x"),
        ("Dense models drop 13.4% throughput over BF16.", ROW, "13.4%"),  # "vs" before it
        # A source's slowdown is the other word to a speedup (passed: a change down, no
        # word of speed).
        ("The patch gives a 10% speedup.", "The patch gives a 10% slowdown.", "10%"),
        ("The patch makes it 10% faster.", "The patch gives a 10% slow-down.", "10%"),
        (
            "FlashAttention is 10% faster.",
            "SDPA shows a 10% slowdown against FlashAttention.",
            "10%",
        ),
        # An explainer's slowdown against a source's speedup (passed: its direction is a
        # change down, which a word of speed is no change up of).
        ("The patch gives a 10% slowdown.", "The patch gives a 10% speedup.", "10%"),
        ("The patch causes a 10% slowdown.", "The patch makes it 10% faster.", "10%"),
        (
            "SDPA shows a 10% slowdown against FlashAttention.",
            "SDPA shows a 10% speedup over FlashAttention.",
            "10%",
        ),
        ("The patch gives a 2x slowdown.", "The patch gives a 2x speedup.", "2x"),
        # And written with a sign, as before.
        ("The patch gives a 12% slowdown.", "Throughput: +12% with the patch.", "12%"),
        # Hyphenated, or two words, the same (passed: "slow-down" read no direction).
        ("The patch gives a 10% slow-down.", "The patch gives a 10% speedup.", "10%"),
        ("The patch causes a 10% slow-down.", "The patch makes it 10% faster.", "10%"),
        ("The patch gives a 10% slow down.", "The patch gives a 10% speedup.", "10%"),
        ("The patch gives a 12% slow-down.", "Throughput: +12% with the patch.", "12%"),
    ],
)
def test_the_same_subject_turned_around_is_flagged(
    explainer: str, source: str, written: str
) -> None:
    assert status(explainer, source, written) == U


def test_a_change_of_speed_turned_around_says_so() -> None:
    v = verdict("The kernel is 2x faster than SDPA.", "The kernel is 2x slower than SDPA.", "2x")
    assert v.reason == "the source's change goes the other way (2x)"


@pytest.mark.parametrize(
    ("explainer", "source", "turned"),
    [
        ("The patch gives a 10% slowdown.", "The patch gives a 10% speedup.", "10%"),
        ("The patch gives a 12% slowdown.", "Throughput: +12% with the patch.", "+12%"),
        ("The patch gives a 10% slow-down.", "The patch gives a 10% speedup.", "10%"),
        ("Latency drops 12%.", "Latency rises 12%.", "12%"),  # was "not in the source"
    ],
)
def test_a_change_down_turned_around_says_so(explainer: str, source: str, turned: str) -> None:
    written = turned.lstrip("+")
    v = verdict(explainer, source, written)
    assert (v.status, v.reason) == (U, f"the source's change goes the other way ({turned})")


@pytest.mark.parametrize(
    ("explainer", "source", "written"),
    [
        ("FlashAttention is 2x faster than SDPA.", "SDPA is 2x slower than FlashAttention.", "2x"),
        ("SDPA is 2x slower than FlashAttention.", "FlashAttention is 2x faster than SDPA.", "2x"),
        (
            "FlashAttention has 10% lower latency than SDPA.",
            "SDPA has 10% higher latency than FlashAttention.",
            "10%",
        ),
        (
            "FlashAttention ist 2x schneller als SDPA.",
            "SDPA ist 2x langsamer als FlashAttention.",
            "2x",
        ),
        (
            "FlashAttention is 10% faster than SDPA.",
            "SDPA shows a 10% slowdown against FlashAttention.",
            "10%",
        ),
        (
            "SDPA is 10% slower than FlashAttention.",
            "FlashAttention shows a 10% speedup over SDPA.",
            "10%",
        ),
        (
            "SDPA shows a 10% slowdown against FlashAttention.",
            "FlashAttention shows a 10% speedup over SDPA.",
            "10%",
        ),
        (
            "SDPA shows a 10% slowdown against FlashAttention.",
            "FlashAttention is 10% faster than SDPA.",
            "10%",
        ),
        (
            "SDPA shows a 10% slow-down against FlashAttention.",
            "FlashAttention shows a 10% speedup over SDPA.",
            "10%",
        ),
    ],
)
def test_the_names_swapped_take_the_opposite_word(
    explainer: str, source: str, written: str
) -> None:
    assert status(explainer, source, written) == S


@pytest.mark.parametrize(
    ("explainer", "source", "written"),
    [
        ("The kernel is 10% faster.", "The kernel is 10% faster.", "10%"),
        ("The kernel is 10% faster.", "The kernel cuts latency by 10%.", "10%"),  # less time
        ("The kernel cuts latency by 10%.", "The kernel is 10% faster.", "10%"),
        ("The patch makes it 10% slower.", "The patch gives a 10% slowdown.", "10%"),
        # A slowdown written with a sign, as before: its direction is a change down.
        ("The patch gives a 12% slowdown.", "Throughput: -12% with the patch.", "12%"),
        ("The patch gives a 10% slowdown.", "The patch gives a 10% slowdown.", "10%"),
        ("The patch gives a 10% slowdown.", "The patch makes it 10% slower.", "10%"),
        # Hyphenated the same (passed no "-12%": "slow-down" read no direction).
        ("The patch gives a 12% slow-down.", "Throughput: -12% with the patch.", "12%"),
        ("The patch gives a 12% slow-down.", "The patch gives a 12% slowdown.", "12%"),
        ("The patch gives a 12% slowdown.", "The patch gives a 12% slow-down.", "12%"),
        ("The patch gives a 12% slow down.", "Throughput: -12% with the patch.", "12%"),
        ("The patch makes it 10% slower.", "The patch gives a 10% slow-down.", "10%"),
        # A slowdown is still a change down, which a source's word of speed alone turns:
        # "10% lower latency" is no speedup it reads (as for "10% faster").
        ("The patch gives a 10% slowdown.", "The patch cuts throughput by 10%.", "10%"),
        (
            "FlashAttention is 1.5x faster than SDPA.",
            "FlashAttention delivers a 1.5x speedup over SDPA.",
            "1.5x",
        ),
        ("Der Kernel ist 10 % schneller.", "Der Kernel ist 10 % schneller.", "10 %"),
    ],
)
def test_a_change_of_speed_the_same_way_is_backed(
    explainer: str, source: str, written: str
) -> None:
    assert status(explainer, source, written) == S
