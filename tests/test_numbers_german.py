"""numbers and check: a German explainer's number forms (a feed set to "de"): a decimal
comma joined to "mal", "Mal" after a space, a decimal comma before "%", "Prozent" or a unit
symbol, points grouping thousands; a year's comma ("In 2024,100% of users") no decimal; German
number words ("zwölf", "Dutzend", "zweimal so schnell", "doppelt so")."""

from __future__ import annotations

from decimal import Decimal

import pytest

from service.check import check_explainer
from service.numbers import Kind, extract_numbers
from tests.check_helpers import S, U, status


@pytest.mark.parametrize(
    ("text", "value", "unit", "exp"),
    [
        ("TopK ist 2,5mal schneller", "2.5", "x", -1),  # joined: no "-mal", " mal"
        ("TopK ist 4,82mal schneller", "4.82", "x", -2),
        ("TopK ist 3 Mal schneller", "3", "x", 0),  # Duden: "3-mal" or "3 Mal"
        ("TopK ist 2,5 Mal schneller", "2.5", "x", -1),
        ("ein Anstieg um 2,5 % im Mittel", "2.5", "%", -1),
        ("ein Anstieg um 2,5% im Mittel", "2.5", "%", -1),
        ("ein Rauschen von 1,79 Prozent", "1.79", "%", -2),
        ("ein Anstieg um 1234,5 %", "1234.5", "%", -1),  # four digits, no year
        ("ein Anstieg um 2100,5 %", "2100.5", "%", -1),
        # A decimal comma before a unit symbol (English "12,5 ms" read the same).
        ("TopK braucht 12,5 ms", "12.5", "ms", -1),
        ("TopK braucht 12,5ms", "12.5", "ms", -1),
        ("ein Kernel von 4,5 µs", "4.5", "µs", -1),
        ("belegt 2,5 GB", "2.5", "GB", -1),
        ("erreicht 12,5 GB/s", "12.5", "GB/s", -1),
        ("TopK ist 1,5x schneller", "1.5", "x", -1),
        ("ein Schritt von 1234,567 ms", "1234.567", "ms", -3),  # no thousands: four before
        # Points grouping thousands, more than one ("1.362" alone is the English decimal).
        ("Die Tabelle hat 1.362.998 Zeilen.", "1362998", "", 0),
        ("Insgesamt 1.362.998 Zeilen", "1362998", "", 0),  # a noun is no product
        ("PyTorch 1.362.998", "1362998", "", 0),
        ("rund 1.000.000.000 Token", "1000000000", "", 0),
        ("kostet €1.362.998", "1362998", "€", 0),
        ("1.362.998,5 ms", "1362998.5", "ms", -1),  # a decimal comma after them
        ("1.362,5 ms", "1362.5", "ms", -1),  # one point, then a decimal comma: German
        ("eine Tabelle mit 1.362 Zeilen", "1.362", "", -3),
    ],
)
def test_a_german_form_reads_as_one_quantity(text: str, value: str, unit: str, exp: int) -> None:
    found = extract_numbers(text)
    assert len(found) == 1, found
    n = found[0]
    assert (n.kind, n.value, n.unit, n.exp) == (Kind.QUANTITY, Decimal(value), unit, exp)
    assert text[n.start : n.end] == n.text


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("a 2,500% rise", ["2500"]),  # three digits after the comma: thousands
        ("1,362,998 rows at 5%", ["1362998", "5"]),
        ("sizes 2, 5% of runs", ["2", "5"]),  # a list has its space
        ("a normal run, 5 ms", ["5"]),  # "normal" holds "mal": no number after it
        ("1,362,5%", ["1362", "5"]),  # not the thousands' last group
        # A year before the comma: a clause's comma with its space left out.
        ("In 2024,10% of users", ["2024", "10"]),
        ("by 2030,5% more", ["2030", "5"]),
        ("in 1999,3 mal", ["1999", "3"]),
        ("In 2024,3mal schneller", ["2024", "3"]),
        # Three digits after it: no thousands after a lead of four ("2024,100" was one
        # token and no number at all), and a year's comma before a unit is a comma too.
        ("in 2024,100% of users", ["2024", "100"]),
        ("In 2024,100 users", ["2024", "100"]),
        ("in 2024,5 ms", ["2024", "5"]),
        ("12345,678 rows", ["12345", "678"]),
    ],
)
def test_an_english_comma_before_a_percent_stays_as_it_was(text: str, values: list[str]) -> None:
    assert [str(n.value) for n in extract_numbers(text)] == values


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("1,500 ms", [("1500", "ms")]),  # three digits after a lead of three at most
        ("2,048 GB", [("2048", "GB")]),
        ("1,362,5 ms", [("1362", ""), ("5", "ms")]),  # not the thousands' last group
        ("1.2,5 ms", [("1.2", ""), ("5", "ms")]),  # no thousands before the comma
        ("sizes 1,2,4,8 GB", [("1", "GB"), ("2", "GB"), ("4", "GB"), ("8", "GB")]),
        ("sizes 2, 5 ms", [("2", ""), ("5", "ms")]),  # a list has its space
        ("in 2024,100% of users", [("2024", ""), ("100", "%")]),
        ("In 2024,10 ms later", [("2024", ""), ("10", "ms")]),
    ],
)
def test_a_comma_before_a_unit_keeps_its_english_readings(
    text: str, values: list[tuple[str, str]]
) -> None:
    assert [(str(n.value), n.unit) for n in extract_numbers(text)] == values


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("v1.362.998", "1.362.998"),
        ("Version 1.362.998", "1.362.998"),
        ("0.100.200", "0.100.200"),  # a lead zero: no figure is written so
        ("169.254.169.254", "169.254.169.254"),  # an address: four groups of 255 at most
        ("10.100.200.250", "10.100.200.250"),
        ("1.36.998", "1.36.998"),  # a group of two
    ],
)
def test_points_that_group_no_thousands_stay_a_version(text: str, key: str) -> None:
    found = extract_numbers(text)
    assert [(n.kind, n.key) for n in found] == [(Kind.VERSION, key)]


def test_a_range_of_thousands_grouped_by_points_keeps_both_ends() -> None:
    (n,) = extract_numbers("1.000.000-2.000.000 Zeilen")
    assert (n.kind, n.value, n.high) == (Kind.RANGE, Decimal(1000000), Decimal(2000000))


SOURCE = (
    "TopK is 4.82x faster than ATen. FlyDSL is about 10% faster than ATen on BF16 GEMM. "
    "Llama 3.3 70B stays within the 1.79% noise floor."
)


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("TopK ist 4,82mal schneller als ATen.", "4,82mal", S),
        ("TopK ist 2,5mal schneller als ATen.", "2,5mal", U),  # not 2 and 5
        ("TopK ist 4,82 Mal schneller als ATen.", "4,82 Mal", S),
        ("Llama 3.3 70B bleibt im Rauschen von 1,79 %.", "1,79 %", S),
        ("Llama 3.3 70B bleibt im Rauschen von 1,79%.", "1,79%", S),
        ("Llama 3.3 70B bleibt im Rauschen von 1,97%.", "1,97%", U),
        # "10 % schneller" is the gain "10% faster" states.
        ("FlyDSL ist etwa 10 % schneller als ATen bei BF16 GEMM.", "10 %", S),
        ("FlyDSL ist etwa 12 % schneller als ATen bei BF16 GEMM.", "12 %", U),
    ],
)
def test_a_german_figure_is_checked_as_its_value(
    explainer: str, written: str, expected: str
) -> None:
    assert status(explainer, SOURCE, written) == expected


def test_a_year_before_a_comma_is_checked_as_a_year_and_its_percent() -> None:
    source = "In 2024, 10% of users upgraded."
    assert status("In 2024,10% of users upgraded.", source, "10%") == S
    assert status("In 2024,10% of users upgraded.", source, "2024") == S
    assert status("In 2024,12% of users upgraded.", source, "12%") == U


def test_a_year_before_a_comma_and_three_digits_is_checked_as_a_year_and_its_figure() -> None:
    source = "In 2024, 100% of users upgraded, 250 of them on MI355X."
    assert status("In 2024,100% of users upgraded.", source, "100%") == S
    assert status("In 2024,100% of users upgraded.", source, "2024") == S
    assert status("In 2024,250 users upgraded on MI355X.", source, "250") == S
    assert status("In 2024,90% of users upgraded.", source, "90%") == U


SOURCE_EN = "FlyDSL processed 1,362,998 rows on MI355X. TopK takes 12.5 ms on MI355X."


@pytest.mark.parametrize(
    ("explainer", "written", "expected"),
    [
        ("FlyDSL verarbeitete 1.362.998 Zeilen auf MI355X.", "1.362.998", S),
        ("FlyDSL verarbeitete 1.362.999 Zeilen auf MI355X.", "1.362.999", U),
        ("FlyDSL verarbeitete 1.362,998 Zeilen auf MI355X.", "1.362,998", U),  # 1362.998
        ("TopK braucht 12,5 ms auf MI355X.", "12,5 ms", S),
        ("TopK braucht 12,6 ms auf MI355X.", "12,6 ms", U),
        ("TopK braucht 12,50 ms auf MI355X.", "12,50 ms", U),  # a digit more than written
        ("TopK braucht 12,5 s auf MI355X.", "12,5 s", U),
    ],
)
def test_grouped_thousands_and_decimal_units_are_checked_as_their_values(
    explainer: str, written: str, expected: str
) -> None:
    assert status(explainer, SOURCE_EN, written) == expected


def test_a_german_source_backs_an_english_form() -> None:
    """The source's German forms are read as the explainer's are."""
    source = "FlyDSL verarbeitete 1.362.998 Zeilen in 12,5 ms auf MI355X."
    explainer = "FlyDSL verarbeitete 1,362,998 Zeilen in 12.5 ms auf MI355X."
    assert status(explainer, source, "1,362,998") == S
    assert status(explainer, source, "12.5 ms") == S
    assert status(explainer.replace("998", "999"), source, "1,362,999") == U


@pytest.mark.parametrize(
    ("text", "read"),
    [
        (
            "Das Modell hat zwölf Schichten und fünf Köpfe.",
            [("zwölf", "12", ""), ("fünf", "5", "")],
        ),
        # "halb" inside a word: none; "Tagen" a unit of time, as "days" is.
        ("innerhalb von zwei Tagen", [("zwei Tagen", "2", "day")]),
        ("ein Dutzend Modelle", [("Dutzend", "12", "")]),
        ("Dutzende Modelle", []),  # dozens: no figure, as "dozens" is none
        ("die Latenz ist halb so hoch", [("halb", "0.5", "")]),
        ("zwanzig Prozent mehr", [("zwanzig Prozent", "20", "%")]),
        # Multipliers before a comparison, as "twice as fast"; a count of calls else.
        ("Das Modell ist zweimal so schnell.", [("zweimal", "2", "x")]),
        ("TopK ist dreimal schneller", [("dreimal", "3", "x")]),
        ("Es wurde zweimal aufgerufen.", [("zweimal", "2", "")]),
        ("Der Kernel ist doppelt so schnell.", [("doppelt", "2", "x")]),
        ("Der Puffer ist doppelt gepuffert.", []),  # as "double buffering": no figure
        ("Der Durchsatz hat sich verdoppelt.", [("verdoppelt", "2", "x")]),
        ("Die ELF-Datei und ELF files", []),  # the binary format, no eleven
        ("ein, zwei oder drei", [("zwei", "2", ""), ("drei", "3", "")]),  # "ein": an article
    ],
)
def test_german_number_words_are_read(text: str, read: list[tuple[str, str, str]]) -> None:
    found = [(n.text, str(n.value), n.unit) for n in extract_numbers(text)]
    assert found == read
    assert all(n.kind == Kind.WORD for n in extract_numbers(text))


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # "elf" is the binary format in English text, in any case: a file's extension
        # ("firmware.elf"), "elf binary", "Elf headers"; eleven before a German noun.
        ("Flash the firmware.elf image.", []),
        ("The elf binary and its Elf headers load fast.", []),
        ("Das Team testete elf Modelle.", [("elf", "11", "")]),
        ("Elf Modelle wurden getestet.", [("Elf", "11", "")]),
        # German writes a count in lower case: a capital inside a sentence is a noun or
        # a name ("außer Acht lassen": attention; "die Elf": a team), not a count.
        ("Man darf das nicht außer Acht lassen.", []),
        ("Die Elf gewann das Spiel.", []),
        ("We used the Sieben scheduler.", []),
        ("Acht Modelle wurden getestet. Vier liefen.", [("Acht", "8", ""), ("Vier", "4", "")]),
        ("## Zwei Modelle im Vergleich", [("Zwei", "2", "")]),
        ("| Drei | Modelle |", [("Drei", "3", "")]),
        ("ein Dutzend Modelle", [("Dutzend", "12", "")]),  # a noun, capitalised
        ("halb-automatische Tests", []),  # as "half-" joined: no figure
        # "drei Mal" is Duden's spelling of "dreimal": a multiplier before a comparison.
        ("Das Modell ist drei Mal so schnell.", [("drei Mal", "3", "x")]),
        ("Das Modell ist zwei Mal schneller.", [("zwei Mal", "2", "x")]),
        # A count of runs with no comparison, written with its word (as "3 Mal" is).
        ("Der Kernel lief drei Mal.", [("drei Mal", "3", "")]),
    ],
)
def test_german_number_words_that_are_no_count_are_not_read(
    text: str, read: list[tuple[str, str, str]]
) -> None:
    assert [(n.text, str(n.value), n.unit) for n in extract_numbers(text)] == read


@pytest.mark.parametrize(
    ("explainer", "source", "written", "expected"),
    [
        # "drei Mal so schnell" is a claim as "dreimal so schnell" is; "zwei Mal" as "twice".
        ("Das Modell ist drei Mal so schnell.", "The model is 3x faster.", "drei Mal", S),
        ("Das Modell ist drei Mal so schnell.", "The model is 4x faster.", "drei Mal", U),
        ("Das Modell ist zwei Mal so schnell.", "The model is 2x faster.", "zwei Mal", S),
    ],
)
def test_a_multiplier_written_apart_is_checked_as_one(
    explainer: str, source: str, written: str, expected: str
) -> None:
    assert status(explainer, source, written) == expected


def test_a_name_or_a_file_is_no_figure_of_the_check() -> None:
    # Neither was a figure: "elf" read as 11 and "Acht" as 8 were reported supported
    # wherever the source had the value.
    source = "The ELF loader maps 11 sections. Latency was 8 ms."
    for explainer in (
        "The elf loader maps sections.",
        "Die Latenz darf man nicht außer Acht lassen.",
    ):
        assert check_explainer(explainer, source).numbers == []


def test_a_german_fraction_is_its_quotient() -> None:
    # "zwei Drittel" is two-thirds, not 2 (it was supported by any 2 of the source).
    found = extract_numbers("Zwei Drittel der Nutzer und drei Viertel der Modelle")
    assert [(n.text, round(n.value, 3)) for n in found if n.value is not None] == [
        ("Zwei Drittel", Decimal("0.667")),
        ("drei Viertel", Decimal("0.750")),
    ]
    source = "Two-thirds of users are happy. We used 2 GPUs."
    assert status("Zwei Drittel der Nutzer sind zufrieden.", source, "Zwei Drittel") == S
