"""check: a figure said of a source table's row by the row's label in prose is that
row's: the TorchTitan post's result table (rows "PP2-256", "PP2-512", ... of seed 000,
read as tests/titan_tables.py reads it), where a figure of another row of
the same family of labels is another run's."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from service.models import CheckStatus
from tests.check_helpers import D, M, S
from tests.titan_tables import flagged, results


@pytest.mark.parametrize(
    "sentence",
    [
        "The PP2-512 run reached a global TPS of 2,694,493.",
        "The PP2-256 run reached a global TPS of 1,362,998.",
        "PP2-512 reached 2,694,493 global TPS, about twice PP2-256's 1,362,998.",
        "The PP4-512 run reached 2,605,049 global TPS on 512 GPUs.",
    ],
)
def test_a_figure_of_the_row_its_label_names_raises_no_alarm(sentence: str) -> None:
    assert flagged(sentence) == []


@pytest.mark.parametrize(
    ("sentence", "figure", "row"),
    [
        ("The PP2-512 run reached a global TPS of 1,362,998.", "1,362,998", "PP2-256"),
        ("The PP4-256 run reached a global TPS of 2,605,049.", "2,605,049", "PP4-512"),
        ("The PP8-512 run had a TPS/GPU of 5,324.21.", "5,324.21", "PP2-256"),
    ],
)
def test_a_figure_of_another_row_of_the_family_is_misattached(
    sentence: str, figure: str, row: str
) -> None:
    report = check_explainer(sentence, results())
    verdict = next(n for n in report.numbers if n.text == figure)
    assert verdict.status == M
    assert verdict.reason == f"the source's table gives it for {row}"


# Two rows: a label that starts an explainer sentence ("Alpha trained ...") is a name the
# source writes only at the start of a cell, as a capitalised word inside no sentence.
TINY = "Training times.\n\n| Model | Hours |\n|---|---|\n| Alpha | 36 |\n| Beta | 12 |\n"


@pytest.mark.parametrize(
    "sentence",
    ["Alpha trained for 36 hours.", "Beta trained for 12 hours.", "The Beta model took 12 hours."],
)
def test_a_tiny_tables_figure_said_of_its_row_raises_no_alarm(sentence: str) -> None:
    report = check_explainer(sentence, TINY)
    assert [n.status.value for n in report.numbers] == ["supported"]


@pytest.mark.parametrize("sentence", ["Alpha trained for 12 hours.", "Beta trained for 36 hours."])
def test_a_tiny_tables_figure_said_of_the_other_row_is_misattached(sentence: str) -> None:
    report = check_explainer(sentence, TINY)
    assert [n.status for n in report.numbers] == [M]


@pytest.mark.parametrize(
    ("sentence", "row"),
    [("Alpha: 12 hours.", "Beta"), ("Alpha: 12.", "Beta"), ("Beta: 36 hours.", "Alpha")],
)
def test_a_tiny_tables_row_written_with_the_other_rows_figure_is_misattached(
    sentence: str, row: str
) -> None:
    # "12" under "Hours" is 12 hours: the figure with its column's unit is Beta's as the
    # bare one is (it passed, a figure no cell of the table held).
    report = check_explainer(sentence, TINY)
    assert [(n.status, n.reason) for n in report.numbers] == [
        (M, f"the source's table gives it for {row}")
    ]


@pytest.mark.parametrize("sentence", ["Alpha: 36 hours.", "Beta: 12 hours.", "Beta: 12."])
def test_a_tiny_tables_row_written_with_its_own_figure_raises_no_alarm(sentence: str) -> None:
    report = check_explainer(sentence, TINY)
    assert [n.status.value for n in report.numbers] == ["supported"]


# A figure whose own words say which run it is of ("the 1,362,998 of the 256-GPU run": the
# PP2-256 row's 256 GPUs) is that run's, though the sentence names PP2-512 only.
CONTRAST = "PP2-512 reached 2,694,493 global TPS, about twice the {} of the {} run."


@pytest.mark.parametrize(
    ("figure", "run"),
    [("1,362,998", "256-GPU"), ("1,325,624", "256-GPU"), ("1,362,998", "PP2-256")],
)
def test_a_figure_said_of_a_run_described_by_its_own_row_raises_no_alarm(
    figure: str, run: str
) -> None:
    report = check_explainer(CONTRAST.format(figure, run), results())
    statuses = {n.text: n.status for n in report.numbers}
    assert statuses[figure] == S
    assert statuses["PP2-512"] == statuses["2,694,493"] == S


def test_twice_of_two_rows_of_a_column_is_derived() -> None:
    # 2,694,493 / 1,362,998 = 1.98, two rows of the Global TPS column: "twice" was
    # unsupported ("the source writes 2, with another unit"), a ratio read in one row only.
    for sentence in (
        CONTRAST.format("1,362,998", "256-GPU"),
        "PP2-512 is about twice as fast as PP2-256.",
    ):
        twice = next(n for n in check_explainer(sentence, results()).numbers if n.text == "twice")
        assert (twice.status, twice.reason) == (
            D,
            "ratio of 2,694,493 and 1,362,998 (rows PP2-512 and PP2-256, column Global TPS)",
        )
    # Of the column the sentence names: 512 / 256 GPUs.
    report = check_explainer("PP2-512 used twice the GPUs of PP2-256.", results())
    twice = next(n for n in report.numbers if n.text == "twice")
    assert twice.reason == "ratio of 512 and 256 (rows PP2-512 and PP2-256, column GPUs)"


@pytest.mark.parametrize(
    ("run", "figure", "status"),
    [
        # "the smaller run" of two, PP2-512 and the row of 1,362,998: the one of fewer GPUs,
        # by the first column their cells differ in (it was misattached: "smaller" was no
        # word of the source's there).
        ("smaller", "1,362,998", S),
        ("larger", "1,362,998", M),  # PP2-512 is the larger: its figure is 2,694,493
    ],
)
def test_a_figure_said_of_the_smaller_or_larger_run_is_that_rows(
    run: str, figure: str, status: CheckStatus
) -> None:
    report = check_explainer(CONTRAST.format(figure, run), results())
    verdict = next(n for n in report.numbers if n.text == figure)
    assert verdict.status == status
    if status == M:
        assert verdict.reason == "the source's table gives it for PP2-256"
    # And the other way: PP2-256 named, the figure of the larger run is PP2-512's.
    other = "PP2-256 reached 1,362,998 global TPS, about half the 2,694,493 of the {} run."
    report = check_explainer(other.format("smaller" if run == "larger" else "larger"), results())
    assert next(n for n in report.numbers if n.text == "2,694,493").status == status


@pytest.mark.parametrize(
    ("sentence", "figure"),
    [
        # The run described is the named row's (512 GPUs), not the one holding the figure.
        (CONTRAST.format("1,362,998", "512-GPU"), "1,362,998"),
        ("The PP2-512 run reached a global TPS of 1,362,998.", "1,362,998"),
    ],
)
def test_a_figure_said_of_the_named_rows_description_is_misattached(
    sentence: str, figure: str
) -> None:
    report = check_explainer(sentence, results())
    verdict = next(n for n in report.numbers if n.text == figure)
    assert (verdict.status, verdict.reason) == (M, "the source's table gives it for PP2-256")


def test_a_count_of_gpus_written_hyphenated_is_the_count() -> None:
    # "a 256-GPU run" counts GPUs as "256 GPUs" does: no name "256-GPU" the source lacks.
    report = check_explainer("The PP2-256 run was a 256-GPU run.", results())
    assert [(n.text, n.status) for n in report.numbers] == [("PP2-256", S), ("256", S)]


# "Smaller" and "larger" are of a column of size (GPUs, parameters), not of the first
# column whose cells differ: the larger model here has the lower latency.
SIZES = "Results.\n\n| Model | Latency (ms) | Params (B) |\n|---|---|---|\n"
LLAMAS = SIZES + "| Llama-70B | 40 | 70 |\n| Llama-8B | 80 | 8 |\n"


@pytest.mark.parametrize(
    ("source", "run", "status"),
    [
        (LLAMAS, "smaller", S),  # Llama-8B's 80 ms (was misattached, by 40 < 80 ms)
        (LLAMAS, "larger", M),  # (was supported)
        # No column of size: the phrase tells neither row, as "of the other model".
        (LLAMAS.replace("Params (B)", "Year"), "larger", M),
    ],
)
def test_smaller_or_larger_is_read_in_a_column_of_size(
    source: str, run: str, status: CheckStatus
) -> None:
    sentence = f"Llama-70B reached 40 ms, half the 80 ms of the {run} model."
    report = check_explainer(sentence, source)
    assert next(n for n in report.numbers if n.text == "80 ms").status == status
