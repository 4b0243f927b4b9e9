"""numbers: versions, identifiers and numbers written as words."""

from __future__ import annotations

from decimal import Decimal

import pytest

from service.numbers import Hedge, Kind, extract_numbers, identifier_key
from tests.numbers_helpers import one

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
        ("stay on 3.14 or earlier", "3.14"),
        ("needs 13.2 or later", "13.2"),
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
    assert one("the speedup was 1.5 or higher").kind == Kind.QUANTITY


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
