"""check: figures computed from the source (derived), number words and code."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from service.models import Explainer, Section
from tests.check_helpers import D, S, U, status, verdict

# --- derived --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "explainer", "written", "how"),
    [
        ("Latency fell from 34 ms to 17 ms.", "Latency halved, a 2x cut.", "2x", "ratio"),
        ("Of 200 requests, 50 failed.", "25% of requests failed.", "25%", "percentage"),
        ("Memory fell from 40 GB to 30 GB.", "Memory fell by 10 GB.", "10 GB", "difference"),
        ("Time fell from 50 ms to 40 ms.", "Time fell by 20%.", "20%", "percent change"),
    ],
)
def test_arithmetic_within_one_sentence_is_derived(
    source: str, explainer: str, written: str, how: str
) -> None:
    v = verdict(explainer, source, written)
    assert v.status == D
    assert (v.reason or "").startswith(how)


def test_a_ratio_is_the_larger_figure_over_the_smaller() -> None:
    source = "FP8 ran at 5,996 tok/s vs 7,156 tok/s for BF16."
    assert status("BF16 is 1.2x faster than FP8.", source, "1.2x") == D  # 7,156 / 5,996
    # 5,996 / 7,156 = 0.84: a figure that happened to land on it (a "0.8x MI325X GPUs").
    assert status("FP8 runs at 0.8x the BF16 speed.", source, "0.8x") == U


def test_arithmetic_across_sentences_is_unsupported() -> None:
    source = "Latency was 34 ms before. Much later it was 17 ms."
    assert status("Latency halved, a 2x cut.", source, "2x") == U


# A ratio of two cells of one column, in two rows of one table that the sentence names (it
# was unsupported: a derivation stayed within one sentence or one row).
RUNS = "Throughput by model.\n\n| Model | Throughput (tok/s) | Cost (USD) |\n|---|---|---|\n"
ALPHA_BETA = RUNS + "| Alpha | 200 | 40 |\n| Beta | 100 | 10 |\n"


@pytest.mark.parametrize(
    ("explainer", "written"),
    [
        ("Alpha is 2x faster than Beta.", "2x"),
        ("Alpha reaches 2x the throughput of Beta.", "2x"),
        ("Alpha's 200 tok/s is 2x the 100 tok/s of the other model.", "2x"),
        ("Alpha costs 4x as much as Beta.", "4x"),
        ("Beta's throughput is 50% of Alpha's.", "50%"),
    ],
)
def test_a_ratio_of_two_rows_of_a_table_column_is_derived(explainer: str, written: str) -> None:
    v = verdict(explainer, ALPHA_BETA, written)
    assert v.status == D
    assert "Alpha" in (v.reason or "") and "Beta" in (v.reason or "")


def test_a_ratio_of_two_rows_names_the_column_the_sentence_names() -> None:
    v = verdict("Alpha costs 4x as much as Beta.", ALPHA_BETA, "4x")
    assert v.reason == "ratio of 40 and 10 (rows Alpha and Beta, column Cost (USD))"
    v = verdict("Alpha is 2x faster than Beta.", ALPHA_BETA, "2x")
    assert v.reason == "ratio of 200 and 100 (rows Alpha and Beta, column Throughput (tok/s))"


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        # No row named: a ratio of any two cells would back any "2x".
        ("The new model is 2x faster.", ALPHA_BETA),
        # A name over the whole table is in every row: no two rows told apart.
        ("Alpha is 2x faster than ATen.", "### Alpha\n\n" + ALPHA_BETA),
        # Two columns: 40 / 20 is no ratio of one measure.
        ("Alpha is 2x faster than Beta.", RUNS + "| Alpha | 40 | 90 |\n| Beta | 13 | 20 |\n"),
        # Two tables: no one column.
        ("Alpha is 2x faster than Beta.", RUNS + "| Alpha | 200 | 4 |\n\nText.\n\n" + RUNS
         + "| Beta | 100 | 4 |\n"),
        # Rows more than eight apart: the search stays near (a column of 10,000 cells).
        ("Alpha is 2x faster than Beta.", RUNS + "| Alpha | 200 | 1 |\n"
         + "".join(f"| M{i} | {300 + i} | 1 |\n" for i in range(8)) + "| Beta | 100 | 1 |\n"),
    ],
)  # fmt: skip
def test_a_ratio_of_rows_not_named_or_not_of_one_column_is_unsupported(
    explainer: str, source: str
) -> None:
    numbers = check_explainer(explainer, source).numbers
    assert [n.status for n in numbers if n.text == "2x"] == [U]


# --- number words, code ---------------------------------------------------------------------------


def test_number_words_count_only_when_the_source_has_them() -> None:
    source = "The two baselines were ATen and Triton, over 3 runs."
    numbers = check_explainer("The two baselines ran three times.", source).numbers
    assert [(n.text, n.status) for n in numbers] == [("two", S), ("three times", S)]
    assert check_explainer("One of the five models is new.", source).numbers == []


def test_a_multiplier_word_is_matched_as_a_multiplier() -> None:
    # "six times faster" and "twice as fast" claim a multiple: a 6 or a 2 of another
    # unit elsewhere in the source does not back them (it did: any value of the word's),
    # and "ten times faster" is a claim even where the source has no 10 (it was skipped).
    source = "TopK is 4.82x faster than ATen on 6 GPUs. MXFP8 reached 2.04x in 2 runs."
    assert status("TopK is six times faster than ATen.", source, "six times") == U
    assert status("TopK is ten times faster than ATen.", source, "ten times") == U
    assert status("TopK is twice as fast as ATen.", source, "twice") == U
    assert status("MXFP8 doubled the speed.", source, "doubled") == D  # 2.04x, rounded
    assert status("TopK is about five times faster than ATen.", source, "five times") == D
    assert status("TopK is more than five times faster.", source, "five times") == U
    assert status("It runs on six GPUs.", source, "six") == S  # a count, as before
    # "twice" with no comparison counts occurrences: "2 runs" backs "runs twice".
    assert status("MXFP8 runs twice.", source, "twice") == S


def test_a_share_in_words_is_matched_as_a_percentage() -> None:
    # "ninety percent" was a count: backed by any 90 of the source.
    source = "Costs fell 96% across 90 requests, and 19% of runs failed."
    assert status("Costs fell ninety percent.", source, "ninety percent") == U
    assert status("Costs fell ninety-six percent.", source, "ninety-six percent") == S
    assert status("About twenty percent of runs failed.", source, "twenty percent") == D
    assert status("Costs fell eighty percent.", source, "eighty percent") == U  # no 80


def test_a_compound_number_word_is_checked_as_one() -> None:
    source = "It covered 24 cases and 20 shapes."
    assert status("It covered twenty-four cases.", source, "twenty-four") == S
    # "twenty-five" was read as twenty: backed by the 20 shapes.
    assert [n.text for n in check_explainer("It covered twenty-five cases.", source).numbers] == []


def test_a_fraction_word_is_no_count() -> None:
    # "two-thirds" read as "two": any 2 of the source backed it.
    source = "Half of the 2 teams improved, and two-thirds of the 3 models."
    assert status("Two-thirds of the models improved.", source, "Two-thirds") == S
    assert [n.text for n in check_explainer("Two-thirds of teams improved.", source).numbers] == [
        "Two-thirds"
    ]
    assert check_explainer("Three quarters of teams improved.", source).numbers == []


@pytest.mark.parametrize(
    "explainer",
    [
        "(1) MXFP8 reached 1.58x; (2) MXFP4 reached 1.68x.",
        "MXFP8 reached 1.58x [3].",
        "MXFP8 reached 1.58x [4, 5].",
    ],
)
def test_enumeration_and_citation_marks_are_no_figures(explainer: str) -> None:
    # "(1)", "(2)" and "[3]" were reported as figures the source does not have.
    source = "MXFP8 reached 1.58x and MXFP4 reached 1.68x."
    assert [n.text for n in check_explainer(explainer, source).numbers if n.status != S] == []


def test_a_figure_in_parentheses_is_still_a_figure() -> None:
    source = "It ran on 2 GPUs (8 cases)."
    assert status("It ran on 2 GPUs (9 cases).", source, "9") == U
    assert status("It ran (3) times.", source, "3") == U


def test_code_is_checked_verbatim() -> None:
    source = "Try it:\n\n```python\nx = torch.randn(128, 4096)\n```\n"
    same = Explainer(
        title="Try it",
        sections=[
            Section(heading="Code", paragraphs=["Run this."], code="x = torch.randn(128, 4096)")
        ],
    )
    assert {n.status for n in check_explainer(same, source).numbers} == {S}
    other = "```\nx = torch.randn(128, 8192)\n```"
    report = check_explainer(other, source)
    assert [(n.text, n.status) for n in report.numbers] == [("128", S), ("8192", U)]
