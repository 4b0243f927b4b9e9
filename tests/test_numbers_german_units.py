"""numbers and check: a German explainer's unit words, scale words and rates ("12,5
Sekunden", "1,2 Mio.", "3 Milliarden", "12,5 ms pro Schritt") and a decimal comma after
thousands grouped by points ("1.362,5"), read as the source's "12.5 seconds", "1.2
million", "3 billion", "12.5 ms per step"; a bare "1,5" stays two numbers."""

from __future__ import annotations

from decimal import Decimal

import pytest

from service.numbers import Kind, extract_numbers
from tests.check_helpers import S, U, status


@pytest.mark.parametrize(
    ("text", "written", "value", "unit", "exp"),
    [
        # A decimal comma before a German word of time or scale is a point.
        ("TopK braucht 12,5 Sekunden", "12,5 Sekunden", "12.5", "s", -1),
        ("TopK braucht 3 Millisekunden", "3 Millisekunden", "3", "ms", 0),
        ("ein Kernel von 4,5 Mikrosekunden", "4,5 Mikrosekunden", "4.5", "µs", -1),
        ("ein Kernel von 80 Nanosekunden", "80 Nanosekunden", "80", "ns", 0),
        ("das Training dauert 3,5 Stunden", "3,5 Stunden", "3.5", "h", -1),
        ("das Training dauert 1,5 Std.", "1,5 Std.", "1.5", "h", -1),
        ("nach 2,5 Minuten", "2,5 Minuten", "2.5", "min", -1),
        ("nach 2 Tagen", "2 Tagen", "2", "day", 0),
        ("nach 3 Wochen", "3 Wochen", "3", "week", 0),
        ("1,2 Mio. Nutzer", "1,2 Mio.", "1.2e6", "", 5),
        ("1,2 Millionen Nutzer", "1,2 Millionen", "1.2e6", "", 5),
        ("1 Million Nutzer", "1 Million", "1e6", "", 6),
        ("3 Mrd. Parameter", "3 Mrd.", "3e9", "", 9),
        ("3,5 Milliarden Parameter", "3,5 Milliarden", "3.5e9", "", 8),
        ("2 Billionen Token", "2 Billionen", "2e12", "", 12),  # German Billion: 10^12
        ("12 Tsd. Zeilen", "12 Tsd.", "12e3", "", 3),
        ("kostet 1,2 Mio. €", "1,2 Mio.", "1.2e6", "", 5),
        ("kostet $1,2 Mio.", "$1,2 Mio.", "1.2e6", "$", 5),
        ("ein Anstieg um 12,5 Prozent", "12,5 Prozent", "12.5", "%", -1),
        ("ein Anstieg um 2,5 Prozentpunkte", "2,5 Prozentpunkte", "2.5", "pp", -1),
        ("ein Anstieg um 1 Prozentpunkt", "1 Prozentpunkt", "1", "pp", 0),
        # Rates: "pro" and "je" as "per".
        ("12,5 ms pro Schritt", "12,5 ms pro Schritt", "12.5", "ms/step", -1),
        ("12,5 ms je Schritt", "12,5 ms je Schritt", "12.5", "ms/step", -1),
        ("12,5 Sekunden pro Schritt", "12,5 Sekunden pro Schritt", "12.5", "s/step", -1),
        ("100 Token pro Sekunde", "100 Token pro Sekunde", "100", "tok/s", 0),
        ("100 Anfragen je Sekunde", "100 Anfragen je Sekunde", "100", "req/s", 0),
        ("1,2 Mio. Token pro Sekunde", "1,2 Mio. Token pro Sekunde", "1.2e6", "tok/s", 5),
        ("3 ms pro Aufruf", "3 ms pro Aufruf", "3", "ms/call", 0),
        # A decimal comma after thousands grouped by points, with no unit: one number.
        ("insgesamt 1.362,5 im Mittel", "1.362,5", "1362.5", "", -1),
        ("insgesamt 1.362.998,5", "1.362.998,5", "1362998.5", "", -1),
    ],
)
def test_a_german_unit_or_scale_word_reads_as_the_unit(
    text: str, written: str, value: str, unit: str, exp: int
) -> None:
    found = extract_numbers(text)
    assert len(found) == 1, found
    n = found[0]
    assert (n.kind, n.text, n.value, n.unit, n.exp) == (
        Kind.QUANTITY,
        written,
        Decimal(value),
        unit,
        exp,
    )


@pytest.mark.parametrize(
    ("text", "values"),
    [
        # A bare "1,5" is a list to English ("layers 1,5 and 7") and a decimal to German;
        # the extractor is never told the language: two numbers, as before.
        ("Schichten 1,5 und 7", ["1", "5", "7"]),
        ("um 12,5 schneller", ["12", "5"]),  # "schneller" names no unit: no reading
        # One point before the comma is no thousands grouping ("0.125": a lead zero).
        ("scores 0.125,5", ["0.125", "5"]),
        # A list of decimals written without spaces: the comma before "2.5" is a list's.
        ("scores 1.125,2.5", ["1.125", "2.5"]),
        # English "Billion" stays unread after a number (an English title capitalises it).
        ("3 Billion", ["3"]),
        # "pro" and "je" before no word of time stay no rate.
        ("12 ms pro tier", ["12"]),
    ],
)
def test_an_ambiguous_comma_or_word_keeps_its_reading(text: str, values: list[str]) -> None:
    assert [str(n.value) for n in extract_numbers(text)] == values


def test_pro_before_a_word_of_no_time_is_no_rate() -> None:
    (n,) = extract_numbers("12 ms pro tier")
    assert (n.text, n.unit) == ("12 ms", "ms")


SOURCE = (
    "TopK takes 12.5 seconds on MI355X. Warmup takes 3 milliseconds on MI355X. "
    "FlyDSL has 1.2 million users. FlyDSL runs 3 billion parameters. "
    "FlyDSL improves throughput by 12.5% on MI355X. Decoding takes 12.5 ms per step on "
    "MI355X. The cache holds 1,362.5 MB on MI355X. FlyDSL processed 1,362.5 rows. "
    "Accuracy rose by 2.5 percentage points on MI355X."
)


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("TopK braucht 12,5 Sekunden auf MI355X.", "12,5 Sekunden", S),
        ("TopK braucht 12,6 Sekunden auf MI355X.", "12,6 Sekunden", U),
        ("TopK braucht 12,5 Minuten auf MI355X.", "12,5 Minuten", U),  # not seconds
        ("Das Aufwärmen braucht 3 Millisekunden auf MI355X.", "3 Millisekunden", S),
        ("Das Aufwärmen braucht 3 Sekunden auf MI355X.", "3 Sekunden", U),
        ("FlyDSL hat 1,2 Mio. Nutzer.", "1,2 Mio.", S),
        ("FlyDSL hat 1,2 Millionen Nutzer.", "1,2 Millionen", S),
        ("FlyDSL hat 1,3 Millionen Nutzer.", "1,3 Millionen", U),
        ("FlyDSL hat 1,2 Milliarden Nutzer.", "1,2 Milliarden", U),  # 10^9, not 10^6
        ("FlyDSL nutzt 3 Milliarden Parameter.", "3 Milliarden", S),
        ("FlyDSL nutzt 3 Mrd. Parameter.", "3 Mrd.", S),
        ("FlyDSL nutzt 3 Billionen Parameter.", "3 Billionen", U),  # 10^12
        ("FlyDSL steigert den Durchsatz um 12,5 Prozent auf MI355X.", "12,5 Prozent", S),
        ("FlyDSL steigert den Durchsatz um 12,5 % auf MI355X.", "12,5 %", S),
        ("Das Dekodieren braucht 12,5 ms pro Schritt auf MI355X.", "12,5 ms pro Schritt", S),
        ("Das Dekodieren braucht 12,5 ms je Schritt auf MI355X.", "12,5 ms je Schritt", S),
        ("Das Dekodieren braucht 12,5 ms pro Sekunde auf MI355X.", "12,5 ms pro Sekunde", U),
        ("Der Cache fasst 1.362,5 MB auf MI355X.", "1.362,5 MB", S),
        ("FlyDSL verarbeitete 1.362,5 Zeilen.", "1.362,5", S),  # no unit: one number
        ("FlyDSL verarbeitete 1.362,6 Zeilen.", "1.362,6", U),
        ("Die Genauigkeit stieg um 2,5 Prozentpunkte auf MI355X.", "2,5 Prozentpunkte", S),
        ("Die Genauigkeit stieg um 2,5 Prozent auf MI355X.", "2,5 Prozent", U),  # not pp
    ],
)
def test_a_german_unit_word_is_checked_as_the_source_unit(
    explainer: str, written: str, expected: str
) -> None:
    assert status(explainer, SOURCE, written) == expected
