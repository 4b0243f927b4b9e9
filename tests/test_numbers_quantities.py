"""numbers: every number of a text, with position, kind and normalised value: quantities, and
the Number value itself."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from decimal import Decimal

import pytest

from service.numbers import Hedge, Kind, Number, extract_numbers
from service.numbers.number import updated
from tests.numbers_helpers import one

# --- quantities ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value", "unit", "exp"),
    [
        ("a 1.10x speedup", "1.10", "x", -2),
        ("a 1.10X speedup", "1.10", "x", -2),
        ("a 1.10× speedup", "1.10", "x", -2),
        ("1.10 times faster", "1.10", "x", -2),
        ("a 10-fold gain", "10", "x", 0),
        ("96% of requests", "96", "%", 0),
        ("96 percent of requests", "96", "%", 0),
        ("96 per cent of requests", "96", "%", 0),
        ("1,362,998 rows", "1362998", "", 0),
        ("243.86 GiB of memory", "243.86", "GiB", -2),
        ("34.1 ms on average", "34.1", "ms", -1),
        ("34.1ms", "34.1", "ms", -1),
        ("7,290μs", "7290", "µs", 0),  # Greek mu for the micro sign
        ("an estimated $27M per year", "27000000", "$", 6),
        ("$27 million", "27000000", "$", 6),
        ("27 million users", "27000000", "", 6),
        ("a 30-billion-parameter model", "30000000000", "", 9),
        ("the 70B model", "70000000000", "", 9),
        ("8-bit math", "8", "bit", 0),
        ("21.6 tok/s", "21.6", "tok/s", -1),
        ("33.0 tokens per second", "33.0", "tok/s", -1),
        ("2,000 requests per minute", "2000", "req/min", 0),
        ("90 ms/step", "90", "ms/step", 0),
        ("90 ms per step", "90", "ms/step", 0),
        ("100 GB/s", "100", "GB/s", 0),
    ],
)
def test_quantities_normalise_value_unit_and_precision(
    text: str, value: str, unit: str, exp: int
) -> None:
    n = one(text)
    assert n.kind == Kind.QUANTITY
    assert n.value == Decimal(value)
    assert n.unit == unit
    assert n.exp == exp


@pytest.mark.parametrize(
    ("text", "value", "exp"),
    [
        ("TopK ist 4,82-mal schneller", "4.82", -2),
        ("TopK ist 2,5-mal so schnell", "2.5", -1),
        ("TopK ist 2,5 mal schneller", "2.5", -1),
        ("ein 2,5-facher Gewinn", "2.5", -1),
        ("2,5-fach schneller", "2.5", -1),
        ("2,5fach schneller", "2.5", -1),
        ("3-mal schneller", "3", 0),
        ("ein 10-facher Gewinn", "10", 0),
    ],
)
def test_a_german_multiplier_reads_its_decimal_comma(text: str, value: str, exp: int) -> None:
    # "2,5-mal" is 2.5 times: German writes a decimal comma, and "mal"/"fach" (times,
    # -fold) are German only, so no English list or thousands are read so.
    n = one(text)
    assert (n.kind, n.value, n.unit, n.exp) == (Kind.QUANTITY, Decimal(value), "x", exp)
    assert text[n.start : n.end] == n.text


def test_a_german_range_of_multipliers_is_one_range() -> None:
    n = one("1,17- bis 3,66-mal schneller")
    assert (n.kind, n.value, n.high, n.unit) == (Kind.RANGE, Decimal("1.17"), Decimal("3.66"), "x")


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("sizes 2,5 and 7", ["2", "5", "7"]),  # an English list
        ("1,362,998 rows", ["1362998"]),
        ("5,996 -> 7,027 tok/s", ["5996", "7027"]),
        ("cases 2,5 times over", ["2", "5"]),  # English: no decimal comma
    ],
)
def test_an_english_comma_stays_a_list_or_thousands(text: str, values: list[str]) -> None:
    assert [str(n.value) for n in extract_numbers(text)] == values


def test_span_covers_the_number_and_its_unit() -> None:
    text = "It ran 1.10 times faster, using 96 percent less."
    a, b = extract_numbers(text)
    assert text[a.start : a.end] == a.text == "1.10 times"
    assert text[b.start : b.end] == b.text == "96 percent"


def test_precision_keeps_trailing_zeros() -> None:
    assert one("1.10x").exp == -2
    assert one("1.1x").exp == -1
    assert one("1.100x").exp == -3


def test_signs_unicode_minus_and_hyphen() -> None:
    assert one("a change of −5% overall").value == Decimal(-5)
    assert one("a change of -5% overall").value == Decimal(-5)
    assert one("+13.4% throughput").value == Decimal("13.4")


def test_dimensions_are_numbers_not_multipliers() -> None:
    found = extract_numbers("a 256 × 256 tile and M × N × K = 64 × 4096 × 4096, or 4096x4096")
    assert [n.text for n in found] == ["256", "256", "64", "4096", "4096", "4096", "4096"]
    assert all(n.unit == "" for n in found)


def test_counts_of_named_hardware_are_counts() -> None:
    for text in ("on 8×MI300X GPUs", "on 8xMI300X GPUs", "on 8x MI300X GPUs"):
        count, gpu = extract_numbers(text)
        assert (count.value, count.unit) == (Decimal(8), "")
        assert gpu.kind == Kind.IDENTIFIER and gpu.key == "mi300x"


def test_a_list_shares_the_unit_of_its_last_member() -> None:
    a, b = extract_numbers("speedups of 1.58 and 1.68 times")
    assert (a.text, a.unit) == ("1.58", "x")
    assert b.unit == "x"
    c, d, e = extract_numbers("1.2, 1.5, or 2%")
    assert [n.unit for n in (c, d, e)] == ["%", "%", "%"]


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("(5,996 → 7,027 tok/s vs 7,156 BF16 baseline)", "tok/s"),
        ("runs at 12 ms versus 15 on A100", "ms"),
        ("12 ms vs. 15.", "ms"),
        ("3.2 GB vs 4 cards", ""),  # a count of its own
        ("12 ms vs 8 GPUs", ""),
    ],
)
def test_a_bare_figure_compared_with_a_measured_one_takes_its_unit(text: str, unit: str) -> None:
    assert extract_numbers(text)[1].unit == unit


def test_two_numbers_split_by_a_comma_alone_are_no_list() -> None:
    year, speedup = extract_numbers("at PyTorch Conference 2026, 7.5x faster loading")
    assert (year.value, year.unit) == (Decimal(2026), "")
    assert speedup.unit == "x"
    a, b, c = extract_numbers("sizes of 12.6, 13.0, 13.2 GB")
    assert [n.unit for n in (a, b, c)] == ["GB", "GB", "GB"]


def test_link_targets_urls_and_markup_are_not_numbers() -> None:
    text = "see [FlyDSL](https://github.com/ROCm/FlyDSL/pull/194981) and **1.10x** `TP=1`"
    assert [n.text for n in extract_numbers(text)] == ["1.10x", "TP=1"]


def test_issue_references_are_identifiers() -> None:
    n = one("merged in (#2736)")
    assert (n.kind, n.key) == (Kind.IDENTIFIER, "2736")


# --- the Number value --------------------------------------------------------------------


def test_number_init_takes_the_fields_in_order_with_their_defaults() -> None:
    # Number writes its own __init__ (faster than the one dataclass writes): it must take
    # the same parameters, so that Number(...), dataclasses.replace and pickling agree.
    params = list(inspect.signature(Number.__init__).parameters.values())[1:]
    assert [p.name for p in params] == [f.name for f in dataclasses.fields(Number)]
    for p, f in zip(params, dataclasses.fields(Number), strict=True):
        assert p.default == (f.default if f.default is not dataclasses.MISSING else p.empty)


def test_number_is_a_frozen_value() -> None:
    n = Number("1.5x", 3, 7, Kind.QUANTITY, value=Decimal("1.5"), exp=-1, unit="x")
    assert n == Number("1.5x", 3, 7, Kind.QUANTITY, Decimal("1.5"), None, -1, 0, "x")
    assert hash(n) == hash(dataclasses.replace(n))
    assert updated(n, hedge=Hedge.UPPER) == dataclasses.replace(n, hedge=Hedge.UPPER)
    assert pickle.loads(pickle.dumps(n)) == n
    with pytest.raises(dataclasses.FrozenInstanceError):
        n.start = 4  # type: ignore[misc]
    with pytest.raises(TypeError):
        updated(n, colour="red")


@pytest.mark.parametrize(
    "text",
    ["See Figure 13 for the curve.", "As Table 2 shows,", "(Fig. 3)", "in figure 4 below"],
)
def test_a_figure_or_table_label_is_no_number(text: str) -> None:
    assert extract_numbers(text) == []


def test_a_count_of_figures_is_a_number() -> None:
    assert [n.text for n in extract_numbers("The post has 3 figures and Table 2.")] == ["3"]


@pytest.mark.parametrize(
    ("text", "figure"),
    [
        ("The kernel reads the table 5 times per tile.", "5 times"),
        ("Each lookup scans the table 3 times.", "3 times"),
        ("It grows the figure 2x.", "2x"),
        ("The table 40% larger than before.", "40%"),
    ],
)
def test_a_figure_with_a_unit_after_figure_or_table_is_a_quantity(text: str, figure: str) -> None:
    # A label ("Table 2") has no unit: "the table 5 times" counts readings of it.
    assert [n.text for n in extract_numbers(text)] == [figure]
