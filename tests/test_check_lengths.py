"""check: "short" and "long" (or "shorter", "longer") said of the same noun are opposite
conditions of a figure ("30% on long prompts" is no figure of short prompts), a prompt
being an input and a reply an output as elsewhere; "long" of no such noun ("as long as",
"how long prompts get", "in the long run") or of another noun ("long context" for
"short prompts") says nothing, and a clause saying both ("short and long prompts")
leaves it open. The known-wrong case it fixed: test_check_known_wrong."""

from __future__ import annotations

import pytest

from service.check.length import length_marks
from tests.check_helpers import M, S, status, verdict

LONG = "Sparse attention cuts latency by 30% on long prompts."


def _says(where: str) -> str:
    return f"Sparse attention cuts latency by 30% {where}."


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        (_says("on short prompts"), LONG),
        (_says("on short inputs"), LONG),
        (_says("on shorter sequences"), _says("on longer sequences")),
        (_says("on short-context runs"), _says("in long-context runs")),
        (_says("on short prompts"), _says("on long input prompts")),
        (_says("on short prompts"), _says("on long-context prompts")),
        (_says("on short-context prompts"), LONG),
        (_says("on long outputs"), _says("on short replies")),
    ],
)
def test_the_other_length_of_the_same_noun_is_misattached(explainer: str, source: str) -> None:
    assert status(explainer, source, "30%") == M


def test_the_reason_names_the_source_length() -> None:
    found = verdict(_says("on short prompts"), LONG, "30%")
    assert found.reason == 'the source gives it for the opposite ("long")'


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        (_says("on long prompts"), LONG),
        (_says("on long inputs"), LONG),
        (_says(""), LONG),
        (_says("with long context"), LONG),  # another noun
        (_says("on short prompts"), _says("with long context")),
        (_says("on short prompts"), _says("on short and long prompts")),
        (_says("on short prompts"), _says("on short- or long-context prompts")),
        (_says("on short prompts"), _says("as long as prompts fit")),
        (_says("on short prompts"), "No matter how long prompts get, it cuts latency by 30%."),
        (_says("on short prompts"), "In the long run, it cuts latency by 30% on prompts."),
        (_says("on short runs"), "In the long run, it cuts latency by 30%."),
        (_says("on short prompts"), _says("on prompts that are long")),
        (_says("on short prompts"), _says("without long prompts")),
    ],
)
def test_no_other_length_of_the_same_noun_stays_supported(explainer: str, source: str) -> None:
    assert status(explainer, source, "30%") == S


def test_each_figure_of_a_sentence_has_its_own_length() -> None:
    source = "Sparse attention cuts latency by 30% on long prompts and by 10% on short prompts."
    assert status(_says("on short prompts"), source, "30%") == M
    assert status(_says("on long prompts"), source, "30%") == S
    assert status("It cuts latency by 10% on short prompts.", source, "10%") == S


@pytest.mark.parametrize(
    ("text", "marks"),
    [
        ("short prompts", [("len:input", 0)]),
        ("longer replies", [("len:output", 1)]),
        ("long-context runs", [("len:context", 1), ("len:run", 1)]),
        ("short input prompts", [("len:input", 0)]),
        ("short and long sequences", [("len:sequence", 0), ("len:sequence", 1)]),
        ("short/long inputs", [("len:input", 0), ("len:input", 1)]),
        ("not long prompts", [("len:input", 0)]),
        ("as long as prompts fit", []),
        ("how long prompts get", []),
        ("in the long run", []),
        ("In the long run", []),
        ("the long runs", [("len:run", 1)]),
        ("a long time", []),
        ("long-running jobs", []),
        ("shortcut runs", []),
    ],
)
def test_length_marks(text: str, marks: list[tuple[str, int]]) -> None:
    assert [mark for _, mark in length_marks(text, 0, len(text))] == marks
