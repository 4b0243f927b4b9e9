"""numbers: digits with an "s" that are no seconds by the words around them: a decade
after "in the" and before a word a clause starts with ("In the 90s nobody"), a decade of
the 2010s ("GPUs won in the 10s."), and a counted range of round powers of ten ("10s-100s
of GPUs": tens to hundreds, no figure); the durations written alike that stay seconds.
Then the check: none of them backs an explainer's seconds (tests/test_numbers_plural_lists.py
has the decades and counts read before)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from service.numbers import Kind, extract_numbers
from tests.check_helpers import S, U, status


@pytest.mark.parametrize(
    ("text", "shown", "key"),
    [
        # After "in the" (a time's preposition and "the") and before a clause's word.
        ("In the 90s nobody used GPUs.", "90s", "90s"),
        ("Back in the 90s we trained on CPUs.", "90s", "90s"),
        ("During the 80s most models were tiny.", "80s", "80s"),
        ("in the 90s it was different", "90s", "90s"),
        ("Since the 70s there were mainframes", "70s", "70s"),
        # A decade of 00 or 10 where the words say one, as for 20 to 90.
        ("GPUs won in the 10s.", "10s", "10s"),
        ("Since the 10s, GPUs won.", "10s", "10s"),
        ("in the early 10s", "10s", "10s"),
        ("in the 00s.", "00s", "00s"),
        ("in the 00s and 10s.", "00s", "00s"),
    ],
)
def test_a_decade_by_its_words(text: str, shown: str, key: str) -> None:
    n = next(n for n in extract_numbers(text) if n.text == shown)
    assert (n.kind, n.key, n.unit, n.value) == (Kind.IDENTIFIER, key, "", None)


@pytest.mark.parametrize(
    "text",
    [
        "It runs on 10s-100s of GPUs.",
        "It runs on 10s\u2013100s of GPUs.",  # an en dash
        "It runs on 10s - 100s of GPUs.",
        "100s-1000s of requests",
        "10s-100s of milliseconds",  # tens to hundreds of milliseconds: no ten seconds
        "10-100s of GPUs",
    ],
)
def test_a_counted_range_is_no_figure(text: str) -> None:
    assert extract_numbers(text) == []


@pytest.mark.parametrize(
    ("text", "shown", "value"),
    [
        ("The 90s it took", "90s", "90"),  # no preposition before "the"
        ("In the 90s window we saw 5 errors.", "90s", "90"),  # a noun after it
        ("within the 90s budget we", "90s", "90"),
        ("in the 30s and 60s timeouts", "30s", "30"),
        ("the 10s budget", "10s", "10"),
        ("The 10s it took", "10s", "10"),
        ("a 10s timeout", "10s", "10"),
        ("took 10s", "10s", "10"),
        ("in 90s", "90s", "90"),
    ],
)
def test_seconds_stay_seconds(text: str, shown: str, value: str) -> None:
    n = next(n for n in extract_numbers(text) if n.text == shown)
    assert (n.kind, n.unit, n.value) == (Kind.QUANTITY, "s", Decimal(value))


@pytest.mark.parametrize(
    "text",
    [
        "Latency was 10s-100s.",  # no "of" and a plural after it
        "took 10s-100s of this",
        "the first 10s-100s of requests",  # a span's first seconds
        "10s-20s of GPUs",  # no round powers of ten
    ],
)
def test_a_range_of_seconds_stays_one(text: str) -> None:
    (n,) = extract_numbers(text)
    assert (n.kind, n.unit, n.value) == (Kind.RANGE, "s", Decimal(10))


@pytest.mark.parametrize(
    ("explainer", "source", "written", "expected"),
    [
        # Neither a decade nor tens to hundreds backs a figure of seconds, nor a count.
        ("It took 90 seconds.", "In the 90s nobody used GPUs.", "90 seconds", U),
        ("It took 10 seconds.", "GPUs won in the 10s.", "10 seconds", U),
        ("It took 10 to 100 seconds.", "It runs on 10s-100s of GPUs.", "10 to 100 seconds", U),
        ("It took 100 seconds.", "It runs on 10s-100s of GPUs.", "100 seconds", U),
        ("It runs on 100 GPUs.", "It runs on 10s-100s of GPUs.", "100", U),
        # A decade backs a decade.
        ("Models were tiny in the 90s.", "In the 90s nobody used GPUs.", "90s", S),
        # Durations still back seconds.
        ("The timeout is 90 seconds.", "The 90s timeout fired.", "90 seconds", S),
        ("In 90 seconds we saw 5 errors.", "In the 90s window we saw 5 errors.", "90 seconds", S),
        ("Latency was 10 to 100 seconds.", "Latency was 10s-100s.", "10 to 100 seconds", S),
    ],
)
def test_check_reads_them_as_no_seconds(
    explainer: str, source: str, written: str, expected: object
) -> None:
    assert status(explainer, source, written) == expected
