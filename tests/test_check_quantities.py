"""check: quantities (normalisation, precision, rounding), ranges and hedges."""

from __future__ import annotations

import re

import pytest

from service.models import CheckStatus
from service.numbers import Kind, extract_numbers
from tests.check_helpers import SPEEDUP, D, S, U, status, verdict

# --- quantities -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("1.10x", S),
        ("1.10 times", S),
        ("1.10×", S),
        ("1.10", S),  # a bare number may drop the unit
        ("1.10%", U),  # but not change it
        ("1.1x", D),  # fewer digits: a rounding, shown for review
        ("1.100x", U),  # more digits than the source: false precision
        ("1.11x", U),
        ("11.0x", U),
    ],
)
def test_quantity_normalisation_and_precision(written: str, expected: CheckStatus) -> None:
    explainer = f"FlyDSL runs {written} faster than ATen."
    assert status(explainer, SPEEDUP, written) == expected


def test_rounding_of_a_more_precise_source_number_is_derived() -> None:
    v = verdict("ATen is 1.1x slower.", "ATen is 1.13x slower than FlyDSL.", "1.1x")
    assert v.status == D and v.reason == "rounded from 1.13x"


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("TopK is nearly 2x faster.", "2x", D),  # 1.95x is below 2x
        ("TopK is almost 2x faster.", "2x", D),
        ("TopK is over 2x faster.", "2x", U),  # 1.95x is not over 2x
        ("MXFP8 reached over 2x.", "2x", D),  # 2.04x is
        ("MXFP8 reached nearly 2x.", "2x", U),
        ("It has nearly 3,000 commits.", "3,000", D),  # 2,995: the zeros are no digits
        ("It has about 3,000 commits.", "3,000", D),
        ("It has over 3,000 commits.", "3,000", U),
        ("It has 3,000 commits.", "3,000", U),  # unhedged, every digit is a claim
        ("It has almost 500 contributors.", "500", D),
        ("It has more than 500 contributors.", "500", U),
        ("Loss fell by about 10% in training.", "10%", U),  # 7% is no 10%, nor "about"
        ("Latency fell nearly 20% in the test.", "20%", D),  # "about 19%": below 20%
        ("Latency fell over 20% in the test.", "20%", U),
    ],
)
def test_a_hedged_rounding_keeps_the_side_of_the_source_value(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    source = (
        "TopK is 1.95x faster than ATen. MXFP8 reached 2.04x. It has 2,995 commits from 487"
        " contributors. Loss fell by 7% in training. Latency fell about 19% in the test."
    )
    assert status(explainer, source, written) == expected


def test_a_fraction_written_from_its_point_is_checked() -> None:
    source = "Decode had a 0.5x slowdown and a 1.5x speedup."
    assert status("Decode had a .5x slowdown.", source, ".5x") == S
    assert status("Decode had a .7x slowdown.", source, ".7x") == U  # it went unchecked


def test_percent_and_thousands_separators() -> None:
    source = "It cut serving costs by 96 percent across 1,362,998 requests."
    assert status("Costs fell by 96%.", source, "96%") == S
    assert status("It served 1362998 requests.", source, "1362998") == S


# --- ranges ---------------------------------------------------------------------------------------

RANGES = "RMSNorm speedups over ATen range from 1.17x to 3.66x across 22 cases."


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("1.17–3.66 times", S),
        ("1.17-3.66x", S),
        ("1.17 to 3.66 times", S),
        ("1.17 and 3.66 times", S),  # "between 1.17 and 3.66 times"
        ("1.17–3.70 times", U),  # an end moved
        ("1.10–3.66 times", U),
        ("2.5 times", U),  # a single value inside a range is not supported
        ("up to 3.66 times", S),  # the high end, named as such
        ("at least 1.17 times", S),  # the low end, named as such
        ("3.66 times", D),  # an end without a hedge: review
        ("over 3.66 times", U),  # the high end as a minimum
    ],
)
def test_ranges_match_with_both_ends(written: str, expected: CheckStatus) -> None:
    between = "between " if written.startswith("1.17 and") else ""
    explainer = f"RMSNorm saw {between}{written} speedups over ATen."
    shown = re.sub(r"^(?:up to|at least|over) ", "", written)
    assert status(explainer, RANGES, shown) == expected


@pytest.mark.parametrize(
    ("explainer", "expected"),
    [
        ("The mean RMSNorm speedup over ATen is 3.66x.", U),
        ("RMSNorm averages 3.66x over ATen.", U),
        ("RMSNorm gains 3.66x over ATen on average.", U),
        ("RMSNorm's best case is 3.66x over ATen.", D),  # no mean: the end, for review
    ],
)
def test_a_range_end_is_no_mean(explainer: str, expected: CheckStatus) -> None:
    # "On H100 the mean is 1.57x" for "... with individual shapes ranging from 0.66x to
    # 1.57x": the best shape's figure.
    assert status(explainer, RANGES, "3.66x") == expected


def test_a_range_of_means_has_means_at_its_ends() -> None:
    source = "Mean speedups over ATen range from 1.17x to 3.66x across 22 models."
    assert status("The mean speedup over ATen is 3.66x on one model.", source, "3.66x") == D
    v = verdict("The mean speedup over ATen is 3.66x.", RANGES, "3.66x")
    assert (v.status, v.reason) == (
        U,
        "the source has it as an end of a range (1.17x to 3.66x), not a mean",
    )


def test_the_span_of_ranges_in_one_sentence_is_derived() -> None:
    source = "All runs improve: 1.53x–3.01x for Qwen3-32B and 1.25x–1.85x for Llama-3.1-8B."
    v = verdict("MXFP4 gains were 1.25–3.01 times.", source, "1.25–3.01 times")
    assert v.status == D and "span" in (v.reason or "")
    assert status("MXFP4 gains were 1.25–2.50 times.", source, "1.25–2.50 times") == U
    assert status("MXFP4 gains were 1.53–1.85 times.", source, "1.53–1.85 times") == U
    assert status("Qwen3-32B gains were 1.53–3.01 times.", source, "1.53–3.01 times") == S


@pytest.mark.parametrize(
    ("explainer", "expected"),
    [
        ("The result is roughly 2 to 8 times lower latency.", S),
        ("The result is 2-8x lower latency.", S),
        # A hedge the source's figures do not have is no span of them: its own range's
        # ends made "more than 2-8x" the span of 2 and 8 (the PyTorch 2.14 post).
        ("The result is more than 2 to 8 times lower latency.", U),
        ("The result is up to 2-8x lower latency.", U),
    ],
)
def test_a_hedge_turned_on_a_range_is_no_span_of_its_ends(
    explainer: str, expected: CheckStatus
) -> None:
    source = "The result is roughly 2-8x lower latency on short sequences."
    written = next(n.text for n in extract_numbers(explainer) if n.kind == Kind.RANGE)
    assert status(explainer, source, written) == expected


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("The prompt shrank from 6,000 to 1,500 tokens.", "6,000 to 1,500", S),
        ("The prompt shrank from 6,000 to 1,200 tokens.", "6,000 to 1,200", U),
        ("Latency fell from 40 ms to 30 ms.", "40 ms to 30 ms", S),
        ("Latency fell from 40 s to 30 s.", "40 s to 30 s", U),
    ],
)
def test_a_change_matches_its_two_ends_written_apart_in_one_sentence(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    # A change is two measured values: the source may write them apart ("from roughly
    # 6,000 tokens down to about 1,500"), not as one range (it was unsupported).
    source = (
        "Gisting compressed the prompt from roughly 6,000 tokens down to about 1,500 "
        "learned tokens. Latency was 40 ms before and 30 ms after."
    )
    assert status(explainer, source, written) == expected


# --- hedges ---------------------------------------------------------------------------------------

UP_TO = "Llama-3.1-8B gains up to 1.13x, and the fleet has more than 10 GPUs."


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("Llama-3.1-8B gains up to 1.13 times.", "1.13 times", S),
        ("Llama-3.1-8B gains 1.13 times.", "1.13 times", S),
        ("Llama-3.1-8B gains about 1.13 times.", "1.13 times", S),
        ("Llama-3.1-8B gains over 1.13 times.", "1.13 times", U),
        ("Llama-3.1-8B gains at least 1.13 times.", "1.13 times", U),
        ("Llama-3.1-8B gains more than 1.13 times.", "1.13 times", U),
        ("The fleet has over 10 GPUs.", "10", S),
        ("The fleet has up to 10 GPUs.", "10", U),
        ("The fleet has nearly 10 GPUs.", "10", U),
        ("Llama-3.1-8B gains in excess of 1.13 times.", "1.13 times", U),
        ("Llama-3.1-8B gains north of 1.13 times.", "1.13 times", U),
        ("Llama-3.1-8B gains top out at 1.13 times.", "1.13 times", S),
        ("The fleet has in excess of 10 GPUs.", "10", S),
        ("Llama-3.1-8B gains 1.13 times or more.", "1.13 times", U),  # after the unit
        ("Llama-3.1-8B gains 1.13 times or less.", "1.13 times", S),
    ],
)
def test_hedges_keep_their_direction(explainer: str, written: str, expected: CheckStatus) -> None:
    assert status(explainer, UP_TO, written) == expected


# A thing's stated maximum or minimum in the explainer is its value, which a plain source
# figure backs; but it keeps its direction: a minimum is no restatement of a source's
# maximum or upper bound ("up to", a range's high end), nor a maximum of a minimum.
@pytest.mark.parametrize(
    ("explainer", "source", "expected"),
    [
        ("The format has a minimum of 240.", "The format has a max of 240.", U),
        ("The format has a min of 240.", "The format has a maximum value of 240.", U),
        ("The format has a minimum of 240.", "The format holds up to 240.", U),
        ("The format has a minimum of 240.", "The format spans 10 to 240.", U),
        ("The format has a maximum of 240.", "The format has a minimum of 240.", U),
        ("The format has a maximum of 240.", "The format holds at least 240.", U),
        ("The format has a maximum of 240.", "The format spans 240 to 900.", U),
        ("The format has a maximum of 240.", "The format has a max of 240.", S),
        ("The format has a maximum of 240.", "The format holds 240.", S),
        ("The format has a minimum of 240.", "The format has a min of 240.", S),
        ("The format has a minimum of 240.", "The format holds 240.", S),
        ("The format has a minimum of 240.", "The format holds at least 240.", S),
    ],
)
def test_a_stated_extreme_keeps_its_direction(
    explainer: str, source: str, expected: CheckStatus
) -> None:
    assert status(explainer, source, "240") == expected


# "min of" right after a number is minutes, not a stated minimum, on either side: "took
# 5 min of 8 GPUs" says nothing of 8 being a least number ("a min of 8 trials" does), so
# it is no lower bound in the source ("at least 8 GPUs" is not backed) and keeps no side
# in the explainer (a source's "up to 8 GPUs" backs it).
@pytest.mark.parametrize(
    ("explainer", "source", "expected"),
    [
        ("The job took 5 min of 8 GPUs.", "The job ran on up to 8 GPUs for 5 min.", S),
        ("The job used at least 8 GPUs.", "The job took 5 min of 8 GPUs.", U),
        ("The job runs a min of 8 trials.", "The job runs up to 8 trials.", U),
        ("The job runs up to 8 trials.", "The job runs a min of 8 trials.", U),
    ],
)
def test_minutes_of_a_count_is_no_minimum(
    explainer: str, source: str, expected: CheckStatus
) -> None:
    assert status(explainer, source, "8") == expected
