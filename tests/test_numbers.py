"""numbers: every number of a text, with position, kind and normalised value."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from decimal import Decimal

import pytest

from service.numbers import Hedge, Kind, Number, extract_numbers, identifier_key, prepare
from service.numbers.context import stated_bounds
from service.numbers.number import updated


def one(text: str) -> Number:
    found = extract_numbers(text)
    assert len(found) == 1, found
    return found[0]


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


# --- versions and identifiers ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("AOTriton 0.14.2b or later", "0.14.2b"),
        ("versus 0.13b", "0.13b"),
        ("the v0.3.x series", "0.3.x"),
        ("the 0.3.x series", "0.3.x"),
        ("PyTorch 2.14 adds", "2.14"),
        ("ROCm 6.4", "6.4"),
        ("version 1.2", "1.2"),
        ("2.0rc1", "2.0rc1"),
    ],
)
def test_versions(text: str, key: str) -> None:
    n = one(text)
    assert (n.kind, n.key) == (Kind.VERSION, key)


@pytest.mark.parametrize(
    ("text", "shown", "key"),
    [
        ("on MI355X", "MI355X", "mi355x"),
        ("(gfx950)", "gfx950", "gfx950"),
        ("a gfx950-based GPU", "gfx950", "gfx950"),
        ("MI350-series GPUs", "MI350", "mi350"),
        ("Llama-3.1-8B-Instruct", "Llama-3.1-8B-Instruct", "llama\x003.1\x008b\x00instruct"),
        ("FP8", "FP8", "fp8"),
        ("H100s", "H100s", "h100"),
        ("TP=1", "TP=1", "tp=1"),
        ("MXFP8 A8W8", "MXFP8", "mxfp8"),
        ("Q4_K", "Q4_K", "q4\x00k"),
        ("3∶1", "3∶1", "3:1"),  # U+2236 ratio sign
    ],
)
def test_identifiers(text: str, shown: str, key: str) -> None:
    n = extract_numbers(text)[0]
    assert (n.kind, n.text, n.key) == (Kind.IDENTIFIER, shown, key)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # The TorchTitan post's captions (seed 000): a count of GPUs, no 40 GB.
        (
            "64K context, 40 GB300",
            [("64K", Kind.QUANTITY), ("40", Kind.QUANTITY), ("GB300", Kind.IDENTIFIER)],
        ),
        ("NVIDIA GB300 NVL72", [("GB300", Kind.IDENTIFIER), ("NVL72", Kind.IDENTIFIER)]),
        (
            "on 8 GB200 NVL72 racks",
            [("8", Kind.QUANTITY), ("GB200", Kind.IDENTIFIER), ("NVL72", Kind.IDENTIFIER)],
        ),
        ("a 40 GB card", [("40 GB", Kind.QUANTITY)]),
    ],
)
def test_hardware_names_are_identifiers_after_a_count(
    text: str, found: list[tuple[str, Kind]]
) -> None:
    assert [(n.text, n.kind) for n in extract_numbers(text)] == found


def test_identifier_keys_tolerate_case_hyphens_and_spaces() -> None:
    assert identifier_key("Llama 3.1 8B") == identifier_key("llama-3.1-8b")
    assert identifier_key("Llama_3.1_8B") == identifier_key("LLAMA-3.1-8B")


def test_a_plain_decimal_is_a_quantity_not_a_version() -> None:
    n = one("the speedup was 2.14 on average")
    assert n.kind == Kind.QUANTITY


# --- number words ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the two baselines", "2"),
        ("twenty cases", "20"),
        ("a dozen models", "12"),
        ("half the memory", "0.5"),
        ("twice as fast", "2"),
        ("double the throughput", "2"),
        ("one measured run per cell", "1"),
        ("a two-stage ring", "2"),
    ],
)
def test_number_words(text: str, value: str) -> None:
    n = one(text)
    assert (n.kind, n.value) == (Kind.WORD, Decimal(value))


@pytest.mark.parametrize(
    "text",
    [
        "one of the best",
        "no one knew",
        "the fastest one",
        "one-off jobs",
        "double buffering",
        "a half-tile schedule",
        "someone",
        "tone and phone",
    ],
)
def test_ordinary_words_are_not_numbers(text: str) -> None:
    assert extract_numbers(text) == []


@pytest.mark.parametrize(
    ("text", "written", "hedge"),
    [
        ("six times faster than ATen", "six times", Hedge.NONE),
        ("three times the throughput", "three times", Hedge.NONE),
        ("a five-fold larger batch", "five-fold", Hedge.NONE),
        ("nearly twice as fast", "twice", Hedge.UPPER),
        ("more than three times faster", "three times", Hedge.LOWER),
    ],
)
def test_a_count_word_before_a_comparison_is_a_multiplier(
    text: str, written: str, hedge: Hedge
) -> None:
    n = one(text)
    assert (n.kind, n.text, n.unit, n.hedge) == (Kind.WORD, written, "x", hedge)


@pytest.mark.parametrize(
    "text", ["the tests ran three times.", "it ran three times a day", "it runs twice a day"]
)
def test_a_count_word_with_times_and_no_comparison_counts(text: str) -> None:
    assert one(text).unit == ""


@pytest.mark.parametrize(
    ("text", "written", "value"),
    [
        ("two-thirds of the teams", "two-thirds", Decimal(2) / 3),
        ("three quarters of GPUs", "three quarters", Decimal("0.75")),
        ("one-third of runs", "one-third", Decimal(1) / 3),
        ("one half of it", "one half", Decimal("0.5")),  # one number, not "half" again
    ],
)
def test_a_count_word_before_a_fraction_is_a_fraction(
    text: str, written: str, value: Decimal
) -> None:
    n = one(text)
    assert (n.kind, n.text, n.value) == (Kind.WORD, written, value)


@pytest.mark.parametrize(
    ("text", "written", "value"),
    [("twenty-four cases", "twenty-four", 24), ("Ninety-Six runs", "Ninety-Six", 96)],
)
def test_a_compound_number_word_is_one_number(text: str, written: str, value: int) -> None:
    # "twenty-four" was read as twenty (and no four).
    n = one(text)
    assert (n.kind, n.text, n.value) == (Kind.WORD, written, Decimal(value))


def test_doubles_as_is_no_multiple() -> None:
    assert extract_numbers("every model doubles as a stress test") == []
    assert one("throughput doubled as a result").unit == "x"


@pytest.mark.parametrize(
    ("text", "written", "value", "unit"),
    [
        ("a .5x slowdown", ".5x", "0.5", "x"),
        ("latency of .25 ms", ".25 ms", "0.25", "ms"),
        ("it costs $.99", "$.99", "0.99", "$"),
    ],
)
def test_a_fraction_written_from_its_point_is_a_quantity(
    text: str, written: str, value: str, unit: str
) -> None:
    # The digits after a leading point were no token at all: the figure went unchecked.
    n = one(text)
    assert (n.kind, n.text, n.value, n.unit) == (Kind.QUANTITY, written, Decimal(value), unit)


@pytest.mark.parametrize("text", ["v1.5", "e.g.5", "file.5", "wait...5"])
def test_a_point_inside_a_word_starts_no_fraction(text: str) -> None:
    assert all(not n.text.startswith(".") for n in extract_numbers(text))


def test_words_can_be_left_out() -> None:
    assert extract_numbers("two runs of 5 ms", words=False)[0].text == "5 ms"


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
