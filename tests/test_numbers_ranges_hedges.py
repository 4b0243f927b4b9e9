"""numbers: ranges (both ends, changes, model names written with spaces) and hedges."""

from __future__ import annotations

from decimal import Decimal

import pytest

from service.numbers import Hedge, Kind, extract_numbers, prepare
from service.numbers.context import stated_bounds
from tests.numbers_helpers import one

# --- ranges ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "low", "high", "unit"),
    [
        ("1.17–3.66x", "1.17", "3.66", "x"),
        ("1.17x–3.66x", "1.17", "3.66", "x"),
        ("1.17-3.66 times", "1.17", "3.66", "x"),
        ("1.17—3.66 times", "1.17", "3.66", "x"),
        ("1.17\u20113.66 times", "1.17", "3.66", "x"),
        ("8–256 requests", "8", "256", ""),
        ("8 to 256 requests", "8", "256", ""),
        ("from 8 to 256 requests", "8", "256", ""),
        ("between 8 and 256 requests", "8", "256", ""),
        ("1.2x to 1.5x", "1.2", "1.5", "x"),
        ("5 ms to 10 ms", "5", "10", "ms"),
    ],
)
def test_ranges_have_both_ends(text: str, low: str, high: str, unit: str) -> None:
    n = one(text)
    assert n.kind == Kind.RANGE
    assert (n.value, n.high, n.unit) == (Decimal(low), Decimal(high), unit)


def test_a_change_is_a_range_marked_as_change() -> None:
    arrow = one("7,290μs → 1,170μs per layer")
    assert (arrow.kind, arrow.value, arrow.high, arrow.change) == (
        Kind.RANGE,
        Decimal(7290),
        Decimal(1170),
        True,
    )
    assert one("it rose from 5,996 to 7,027 tok/s").change
    assert one("quantizes from 16 bits to 8 bits").change  # written high to low
    assert not one("from 5,996 to 7,027 tok/s").change
    assert not one("concurrency ranges from 8 to 256").change


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("It used Llama 3.1 8B Instruct today", "Llama 3.1 8B Instruct"),
        ("with Qwen3 32B on", "Qwen3 32B"),
        ("on DeepSeek-V3 671B shapes", "DeepSeek-V3 671B"),
        ("trains Llama 3 8B faster", "Llama 3 8B"),  # a bare generation before a size
        ("trains Llama-3 8B faster", "Llama-3 8B"),
    ],
)
def test_model_names_written_with_spaces_are_one_identifier(text: str, shown: str) -> None:
    n = one(text)
    assert (n.kind, n.text) == (Kind.IDENTIFIER, shown)


@pytest.mark.parametrize("text", ["With 2 8B models", "Running 4 70B replicas", "Llama 3 ran"])
def test_a_bare_count_before_a_size_is_no_model_name(text: str) -> None:
    assert Kind.IDENTIFIER not in [n.kind for n in extract_numbers(text) if n.text[0].isdigit()]
    assert not any(" " in n.text for n in extract_numbers(text))


@pytest.mark.parametrize(
    ("text", "figure"), [("and MXFP4 1.68 times.", "1.68 times"), ("MXFP4 2.5 ms", "2.5 ms")]
)
def test_a_figure_with_its_unit_after_a_name_is_no_part_of_the_name(text: str, figure: str) -> None:
    assert [(n.text, n.kind) for n in extract_numbers(text)] == [
        ("MXFP4", Kind.IDENTIFIER),
        (figure, Kind.QUANTITY),
    ]


def test_a_product_and_its_version_stay_apart() -> None:
    assert [n.kind for n in extract_numbers("PyTorch 2.14 and MXFP8 A8W8")] == [
        Kind.VERSION,
        Kind.IDENTIFIER,
        Kind.IDENTIFIER,
    ]


def test_a_change_whose_ends_count_a_noun_is_one_range() -> None:
    """A change whose two ends count one noun ("from 1,500 tokens to 6,000 tokens") is a
    range, as "from 1,500 to 6,000 tokens" is, hedged or not, and with the noun said once
    where the clause ends with the second; not without a word of change before it, nor
    with two nouns."""
    (n,) = extract_numbers("Gisting grew the prompt from 1,500 tokens to 6,000 tokens.")
    assert (n.kind, n.value, n.high, n.change) == (Kind.RANGE, 1500, 6000, True)
    assert len(extract_numbers("It has 1,500 tokens to 6,000 tokens.")) == 2
    assert len(extract_numbers("It grew from 1,500 tokens to 6,000 words.")) == 2
    for text in (
        "It shrank from about 6,000 tokens to about 1,500 tokens.",
        "It shrank from 6,000 tokens to roughly 1,500.",
        "It shrank from ~6,000 to ~1,500 tokens.",
    ):
        (n,) = extract_numbers(text)
        assert (n.kind, n.value, n.high, n.change) == (Kind.RANGE, 6000, 1500, True)
    assert len(extract_numbers("It shrank from 6,000 tokens to 1,500 words.")) == 2
    assert len(extract_numbers("It spans 6,000 to about 1,500 tokens.")) == 2  # no change
    assert len(extract_numbers("It grew from 1,500 tokens to over 6,000.")) == 2  # a bound


def test_a_list_is_not_a_range() -> None:
    assert [n.kind for n in extract_numbers("8 and 256")] == [Kind.QUANTITY, Kind.QUANTITY]


# --- hedges ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "hedge"),
    [
        ("roughly 6,000 tokens", Hedge.APPROX),
        ("about 1,500 tokens", Hedge.APPROX),
        ("around 0.2", Hedge.APPROX),
        ("~39 GB", Hedge.APPROX),
        ("up to 1.13x", Hedge.UPPER),
        ("at most 4 GPUs", Hedge.UPPER),
        ("nearly 40%", Hedge.UPPER),
        ("peaking at 1.13x", Hedge.UPPER),
        ("over 2x", Hedge.LOWER),
        ("more than 10 models", Hedge.LOWER),
        ("at least 3 runs", Hedge.LOWER),
        ("beyond 1,000 GPUs", Hedge.LOWER),
        ("10,000+ users", Hedge.LOWER),
        ("2 or more runs", Hedge.LOWER),
        ("in excess of 500 requests", Hedge.LOWER),
        ("north of $27M", Hedge.LOWER),
        ("tops out at 10 ms", Hedge.UPPER),
        ("10 ms or more", Hedge.LOWER),  # after the unit written after the number
        ("500 requests per second or fewer", Hedge.UPPER),
        ("a 1.13x speedup", Hedge.NONE),
        ("reached 21.6 tok/s", Hedge.NONE),
        # A bound on a measure ("a maximum of 8 GPUs"), not a property's value that a
        # thing has ("e4m3fnuz has a maximum of 240": the value itself, as "max of 240").
        ("uses a maximum of 8 GPUs", Hedge.UPPER),
        ("runs a minimum of 5 trials", Hedge.LOWER),
        ("the format has a maximum of 240", Hedge.NONE),
        ("the format's maximum of 240", Hedge.NONE),
        ("the format has a max of 240", Hedge.NONE),
        ("its minimum of 0.5", Hedge.NONE),
        # "max"/"min" before "of" read as "maximum"/"minimum" do: a bound on a measure,
        # a thing's own value after "has"/"its"; "min" alone stays minutes.
        ("uses a max of 8 GPUs", Hedge.UPPER),
        ("a max of 8 GPUs", Hedge.UPPER),
        ("runs a min of 5 trials", Hedge.LOWER),
        ("the format has a min of 0.5", Hedge.NONE),
        ("its max of 240", Hedge.NONE),
    ],
)
def test_hedges(text: str, hedge: Hedge) -> None:
    assert one(text).hedge == hedge


def test_min_after_a_number_is_minutes_not_a_hedge() -> None:
    assert [n.hedge for n in extract_numbers("took 5 min of 8 GPUs")] == [Hedge.NONE] * 2


@pytest.mark.parametrize(
    ("text", "hedge"),
    [
        # A maximum or minimum the source states of a thing is a bound there, as "up to"
        # is: "up to 240" and "at most 240" restate "has a max of 240".
        ("the format has a max of 240", Hedge.UPPER),
        ("e4m3fnuz has a maximum of 240", Hedge.UPPER),
        ("a maximum value of 240", Hedge.UPPER),
        ("its minimum of 0.5", Hedge.LOWER),
        ("uses a maximum of 8 GPUs", Hedge.UPPER),  # a hedge already
        ("a batch of 240", Hedge.NONE),
        ("the climax of 240", Hedge.NONE),
        ("a max-of 240", Hedge.NONE),
    ],
)
def test_a_source_states_a_bound(text: str, hedge: Hedge) -> None:
    found = stated_bounds(prepare(text), extract_numbers(text))
    assert [n.hedge for n in found if n.kind == Kind.QUANTITY] == [hedge]


def test_over_after_a_number_is_no_hedge() -> None:
    a, b = extract_numbers("1.20 times over Triton and 1.95 times over ATen")
    assert a.hedge == b.hedge == Hedge.NONE
