"""numbers: digits with an "s" that are no seconds past a model's or a decade's own words:
a decade of two digits ("the '90s", "Back in the 90s,"), the next of a list ("RTX 4090s
and 3090s", "the 1980s and 90s"), and a round power of ten that counts ("100s of GPUs":
no figure, as "hundreds of GPUs" is none); the seconds that stay seconds. Then the check:
none of them backs an explainer's seconds."""

from __future__ import annotations

from decimal import Decimal

import pytest

from service.numbers import Kind, extract_numbers
from tests.check_helpers import S, U, status

SOURCE = (
    "Consumer GPUs of the 1990s were slow. We tested on RTX 4090s and 3090s. "
    "Training runs on 100s of GPUs. Back in the 90s, nobody did this."
)


def _read(text: str) -> list[tuple[str, Kind, str, str]]:
    return [(n.text, n.kind, n.key, n.unit) for n in extract_numbers(text)]


@pytest.mark.parametrize(
    ("text", "shown", "key"),
    [
        # Two digits in tens after an apostrophe, "early", "late" or "mid", or after "the"
        # where the phrase ends: a decade, keyed with its "s" as "1990s" is.
        ("Back in the 90s, nobody did this.", "90s", "90s"),
        ("in the '90s", "90s", "90s"),
        ("the \u201980s were slow", "80s", "80s"),
        ("the '00s", "00s", "00s"),
        ("in the mid-90s", "90s", "90s"),
        ("the late 80s", "80s", "80s"),
        ("in the 70s.", "70s", "70s"),
        ("Since the 90s; it began then", "90s", "90s"),
    ],
)
def test_a_decade_of_two_digits(text: str, shown: str, key: str) -> None:
    n = next(n for n in extract_numbers(text) if n.text == shown)
    assert (n.kind, n.key, n.unit, n.value) == (Kind.IDENTIFIER, key, "", None)


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # The next of a model's plural, as many digits: a model of the line, keyed as
        # the line's name and its digits ("RTX 3090"), the line shared by the list.
        (
            "We tested on RTX 4090s and 3090s.",
            [
                ("RTX 4090s", Kind.IDENTIFIER, "rtx\x004090", ""),
                ("3090s", Kind.IDENTIFIER, "rtx\x003090", ""),
            ],
        ),
        (
            "RTX 4090s, 3090s and 2080s",  # 2080 is no decade after two models
            [
                ("RTX 4090s", Kind.IDENTIFIER, "rtx\x004090", ""),
                ("3090s", Kind.IDENTIFIER, "rtx\x003090", ""),
                ("2080s", Kind.IDENTIFIER, "rtx\x002080", ""),
            ],
        ),
        (
            "GTX 1080s or 1070s",
            [
                ("GTX 1080s", Kind.IDENTIFIER, "gtx\x001080", ""),
                ("1070s", Kind.IDENTIFIER, "gtx\x001070", ""),
            ],
        ),
        (
            "8 A100s and H100s",  # identifiers by their letters, as before
            [
                ("8", Kind.QUANTITY, "", ""),
                ("A100s", Kind.IDENTIFIER, "a100", ""),
                ("H100s", Kind.IDENTIFIER, "h100", ""),
            ],
        ),
        # The next of a decade: a decade, a round century too, two digits too.
        (
            "the 1990s and 2000s",
            [("1990s", Kind.IDENTIFIER, "1990s", ""), ("2000s", Kind.IDENTIFIER, "2000s", "")],
        ),
        (
            "the 1980s, 1990s or 2000s",
            [
                ("1980s", Kind.IDENTIFIER, "1980s", ""),
                ("1990s", Kind.IDENTIFIER, "1990s", ""),
                ("2000s", Kind.IDENTIFIER, "2000s", ""),
            ],
        ),
        (
            "the 1980s and 90s",
            [("1980s", Kind.IDENTIFIER, "1980s", ""), ("90s", Kind.IDENTIFIER, "90s", "")],
        ),
        (
            "in the 80s and 90s.",
            [("80s", Kind.IDENTIFIER, "80s", ""), ("90s", Kind.IDENTIFIER, "90s", "")],
        ),
        # A list of seconds stays seconds, its first no name.
        (
            "took 1200s and 1500s",
            [("1200s", Kind.QUANTITY, "", "s"), ("1500s", Kind.QUANTITY, "", "s")],
        ),
        ("in 30s and 60s", [("30s", Kind.QUANTITY, "", "s"), ("60s", Kind.QUANTITY, "", "s")]),
        (
            "TTFT 1200s and 1500s",
            [("1200s", Kind.QUANTITY, "", "s"), ("1500s", Kind.QUANTITY, "", "s")],
        ),
        (
            "the 30s and 60s timeouts",  # a word after the list: durations
            [("30s", Kind.QUANTITY, "", "s"), ("60s", Kind.QUANTITY, "", "s")],
        ),
        (
            "RTX 4090s and 300s",  # not as many digits: no model of the line
            [("RTX 4090s", Kind.IDENTIFIER, "rtx\x004090", ""), ("300s", Kind.QUANTITY, "", "s")],
        ),
    ],
)
def test_the_next_of_a_list(text: str, read: list[tuple[str, Kind, str, str]]) -> None:
    assert _read(text) == read


@pytest.mark.parametrize(
    "text",
    [
        "Training runs on 100s of GPUs.",
        "10s of thousands of users",
        "1000s of requests",
        "1,000s of users",
        "10s of ms",  # tens of milliseconds
        "10s to 100s of GPUs",
        "hundreds of GPUs",  # the words: no number either
    ],
)
def test_a_counted_power_of_ten_is_no_figure(text: str) -> None:
    assert extract_numbers(text) == []


@pytest.mark.parametrize(
    ("text", "shown", "value"),
    [
        ("It took 12s to load", "12s", "12"),
        ("34.1s", "34.1s", "34.1"),
        ("a 2s timeout", "2s", "2"),
        ("done in 10s", "10s", "10"),
        ("| 12.3s | 4.5s |", "12.3s", "12.3"),
        ("the 90s timeout", "90s", "90"),  # a word after "the 90s"
        ("The 90s it took", "90s", "90"),
        ("in 90s", "90s", "90"),
        ("the first 100s of training", "100s", "100"),  # no plural after "of"
        ("100s of this", "100s", "100"),
        ("the first 100s of the run", "100s", "100"),
        ("200s of GPUs", "200s", "200"),  # no round power of ten
        ("During the first 10s of requests", "10s", "10"),  # a span's first seconds
        ("the last 100s of steps", "100s", "100"),
        ("timeout: '30s'", "30s", "30"),  # quoted: a setting, no decade
        ("a 100s timeout", "100s", "100"),
    ],
)
def test_seconds_stay_seconds(text: str, shown: str, value: str) -> None:
    n = next(n for n in extract_numbers(text) if n.text.startswith(shown))
    assert (n.kind, n.unit, n.value) == (Kind.QUANTITY, "s", Decimal(value))


def test_the_rate_of_seconds_stays_one() -> None:
    assert _read("1.5s per step") == [("1.5s per step", Kind.QUANTITY, "", "s/step")]


# --- the check ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("explainer", "source", "written", "expected"),
    [
        # Neither a model of a list, hundreds, nor a decade backs a figure of seconds.
        ("The 3090 took 3090 seconds.", SOURCE, "3090 seconds", U),
        ("Training took 100 seconds.", SOURCE, "100 seconds", U),
        ("Training took 100 seconds.", "Training runs on 100s of GPUs.", "100 seconds", U),
        ("It took 90 seconds.", SOURCE, "90 seconds", U),
        ("It took 2000 seconds.", "the 1990s and 2000s", "2000 seconds", U),
        # Nor a count: hundreds is no figure.
        ("Training runs on 100 GPUs.", "Training runs on 100s of GPUs.", "100", U),
        # The names back their names; a model of the list is its line's ("RTX 3090").
        ("They tested RTX 4090s and 3090s.", SOURCE, "3090s", S),
        ("They tested RTX 3090s.", SOURCE, "RTX 3090s", S),
        ("They tested an RTX 3090.", SOURCE, "RTX 3090", S),
        ("They tested the RTX-3090.", SOURCE, "RTX-3090", S),
        ("They tested RTX 2080s.", "We ran RTX 4090s, 3090s and 2080s.", "RTX 2080s", S),
        ("They tested GTX 1070s.", "We ran GTX 1080s or 1070s.", "GTX 1070s", S),
        # ... of that line only, and only the models the list names.
        ("They tested GTX 3090s.", SOURCE, "GTX 3090s", U),
        ("They tested RTX 2080s.", SOURCE, "RTX 2080s", U),
        ("They tested RTX 3090s.", "We ran RTX 4090s and 300s.", "RTX 3090s", U),
        ("They tested RTX 3090s.", "TTFT 1200s and 3090s.", "RTX 3090s", U),
        ("Models were small in the 90s.", SOURCE, "90s", S),
        ("It happened in the 1980s and 90s.", "Back in the 1980s and 90s, nobody.", "90s", S),
        # Seconds are still seconds.
        ("Loading took 10 seconds.", "Loading was done in 10s.", "10 seconds", S),
        ("Training took 100 seconds.", "The first 100s of training were slow.", "100 seconds", S),
        ("Each step took 34.1 seconds.", "Each step took 34.1s.", "34.1 seconds", S),
    ],
)
def test_check_reads_them_as_no_seconds(
    explainer: str, source: str, written: str, expected: object
) -> None:
    assert status(explainer, source, written) == expected
