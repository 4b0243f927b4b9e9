"""check: the direction of a change, written with a sign ("-12%") or with words ("fell by
12%", "a 12% reduction", "12% lower"), matches either way and may not be turned around."""

from __future__ import annotations

import pytest

from service.models import CheckStatus
from service.numbers import extract_numbers, prepare
from service.numbers.direction import DOWN, FASTER, NONE, SLOWER, UP, direction
from tests.check_helpers import D, M, S, U, verdict


@pytest.mark.parametrize(
    ("text", "written", "way"),
    [
        ("Latency drops 12% with FlyDSL.", "12%", DOWN),
        ("Latency fell by 12%.", "12%", DOWN),
        ("It cut memory use by nearly 40%.", "40%", DOWN),
        ("a 12% reduction in latency", "12%", DOWN),
        ("a reduction of about 12%", "12%", DOWN),
        ("Latency is 12% lower.", "12%", DOWN),
        ("it uses 12 percent less memory", "12 percent", DOWN),
        ("down 12% on the day", "12%", DOWN),
        ("a change of -12%", "-12%", DOWN),
        ("Throughput rises 12%.", "12%", UP),
        ("a 13.4% throughput gain over BF16", "13.4%", UP),
        ("+13.4% throughput", "+13.4%", UP),
        ("sales are up 12%", "12%", UP),
        ("up 12% on the year", "12%", UP),
        # A level, a hedge, a share: no change said.
        ("latency fell to 12%", "12%", NONE),
        ("up to 12%", "12%", NONE),
        ("the lower 12% of requests", "12%", NONE),
        ("12% of requests fall back", "12%", NONE),
        ("12% or more", "12%", NONE),
        # A change of speed: a direction of its own (test_check_speed_turned).
        ("it runs 12% faster", "12%", FASTER),
        ("it runs 2x slower", "2x", SLOWER),
        ("a 1.5x speedup over ATen", "1.5x", FASTER),
        ("up to 2x faster", "2x", FASTER),
        ("es läuft 10 % schneller", "10 %", FASTER),
        ("es läuft 10 % langsamer", "10 %", SLOWER),
        ("a 12% slowdown", "12%", DOWN),  # a noun of a drop, as before
        ("it recovered 89% of the gap", "89%", NONE),
    ],
)
def test_the_direction_a_number_is_written_with(text: str, written: str, way: int) -> None:
    (n,) = [n for n in extract_numbers(text) if n.text == written]
    assert direction(prepare(text), n) == way


SIGNED = "On MI355X, FlyDSL changes decode latency by -12% and prefill latency by +7%."
WORDED = "On MI355X, FlyDSL makes decode latency 12% lower and prefill latency 7% higher."


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("FlyDSL drops decode latency 12% on MI355X.", "12%", S),
        ("Decode latency fell by 12% with FlyDSL on MI355X.", "12%", S),
        ("FlyDSL gives a 12% reduction in decode latency on MI355X.", "12%", S),
        ("FlyDSL makes decode latency 12% lower on MI355X.", "12%", S),
        ("FlyDSL changes decode latency by -12% on MI355X.", "-12%", S),
        ("Decode latency rises 12% with FlyDSL on MI355X.", "12%", U),  # turned around
        ("FlyDSL gives a 12% increase in decode latency on MI355X.", "12%", U),
        ("FlyDSL changes decode latency by 12% on MI355X.", "12%", U),  # which way?
        ("FlyDSL changes decode latency by +12% on MI355X.", "+12%", U),
        ("Prefill latency rose 7% with FlyDSL on MI355X.", "7%", S),
        ("Prefill latency fell 7% with FlyDSL on MI355X.", "7%", U),
        ("Decode latency fell by 13% with FlyDSL on MI355X.", "13%", U),  # another value
        ("Decode latency fell by about 12% with FlyDSL on MI355X.", "12%", S),
    ],
)
def test_a_change_in_words_matches_a_signed_value(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    assert verdict(explainer, SIGNED, written).status == expected


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("FlyDSL changes decode latency by -12% on MI355X.", "-12%", S),
        ("Decode latency: -12% with FlyDSL on MI355X.", "-12%", S),
        ("FlyDSL drops decode latency 12% on MI355X.", "12%", S),
        ("FlyDSL changes prefill latency by +7% on MI355X.", "+7%", S),
        ("FlyDSL changes prefill latency by -7% on MI355X.", "-7%", U),  # turned around
        ("Decode latency rose 12% with FlyDSL on MI355X.", "12%", U),
    ],
)
def test_a_signed_value_matches_a_change_in_words(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    assert verdict(explainer, WORDED, written).status == expected


def test_a_change_turned_around_says_so() -> None:
    v = verdict("Decode latency rises 12% with FlyDSL on MI355X.", SIGNED, "12%")
    assert v.reason == "the source's change goes the other way (-12%)"


def test_a_hedged_change_in_words_rounds_a_signed_value() -> None:
    source = "FlyDSL changes decode latency by -11.8% on MI355X."
    assert verdict("Decode latency fell by nearly 12% with FlyDSL.", source, "12%").status == D
    # -11.8% is a drop of less than 12%: not "more than 12%".
    assert verdict("Decode latency fell by over 12% with FlyDSL.", source, "12%").status == U


def test_a_change_in_words_keeps_its_binding() -> None:
    source = "FlyDSL changes decode latency by -12% on MI355X and by -9% on MI300X."
    assert verdict("On MI300X decode latency fell by 9%.", source, "9%").status == S
    assert verdict("On MI300X decode latency fell by 12%.", source, "12%").status in (
        CheckStatus.MISATTACHED,
        U,
    )


SPEEDUP = "FlyDSL delivers a 1.10x speedup over ATen on MI355X, and 1.134x over Triton."


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("FlyDSL is 10% faster than ATen on MI355X.", "10%", D),  # 1.10x - 1
        ("FlyDSL is about 10% faster than ATen.", "10%", D),
        ("FlyDSL gives a 10% speedup over ATen.", "10%", D),
        ("FlyDSL gains 13% over Triton.", "13%", D),  # 1.134x, rounded
        ("FlyDSL is 13.4% faster than Triton.", "13.4%", D),
        ("FlyDSL is 13.5% faster than Triton.", "13.5%", U),
        ("FlyDSL is 11% faster than ATen.", "11%", U),
        ("FlyDSL is 10.0% faster than ATen.", "10.0%", U),  # a digit 1.10x does not give
        ("FlyDSL is up to 10% faster than ATen.", "10%", U),  # no bound in the source
        ("FlyDSL runs on 10% of the shapes.", "10%", U),  # no gain: no computation
        ("FlyDSL is 13% faster than ATen.", "13%", M),  # the gain over Triton
    ],
)
def test_a_percent_gain_is_derived_from_a_multiplier(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    v = verdict(explainer, SPEEDUP, written)
    assert v.status == expected, v
    if expected == D:
        assert (v.reason or "").endswith("as a percent gain")


PEAK = "FlyDSL peaks at 1.134x over ATen on MI355X, and reaches at least 1.5x over Triton."


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("FlyDSL is up to 13.4% faster than ATen.", "13.4%", D),  # a bound, as the source's
        ("FlyDSL is 13% faster than ATen.", "13%", D),
        ("FlyDSL is at least 13% faster than ATen.", "13%", U),  # the hedge turns around
        ("FlyDSL is up to 13% faster than ATen.", "13%", U),  # 13.4% is over "up to 13%"
        ("FlyDSL is over 50% faster than Triton.", "50%", D),
        ("FlyDSL is up to 50% faster than Triton.", "50%", U),
    ],
)
def test_a_hedged_percent_gain_is_derived_from_a_bound_of_its_side(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    v = verdict(explainer, PEAK, written)
    assert v.status == expected, v


ROUNDED = "FlyDSL delivers a 1.1x speedup over ATen on MI355X, and 1.5x over Triton."


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        # 1.1x restated: its gain is 10%, a tens digit (derived, never supported).
        ("FlyDSL is 10% faster than ATen on MI355X.", "10%", D),
        ("FlyDSL is 50% faster than Triton.", "50%", D),
        # A gain with more digits than the multiplier gives is false precision.
        ("FlyDSL is 13% faster than ATen.", "13%", U),
        ("FlyDSL is 10.0% faster than ATen.", "10.0%", U),
        ("FlyDSL is 50% faster than ATen.", "50%", M),  # the gain over Triton
    ],
)
def test_a_percent_gain_restates_a_multiplier_with_fewer_digits(
    explainer: str, written: str, expected: CheckStatus
) -> None:
    v = verdict(explainer, ROUNDED, written)
    assert v.status == expected, v
