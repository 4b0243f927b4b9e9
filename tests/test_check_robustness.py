"""check: inputs that once crashed, hung or took quadratic time; the word index."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from service.check.unit import WORD_TOKEN, word_set
from service.models import CheckStatus
from tests.check_helpers import D, S, U


@pytest.mark.parametrize(
    "text",
    [
        "",
        "plain words only",
        "torch.compile and a..b, x.y.z; .lead trail. =a= 1.10x +3 a:b:c 4096x4096",
        "caf\u00e9 na\u00efve stra\u00dfe \u0130stanbul \u212aelvin",
        "\u00b5s 7\u00d7 \u2014 \ud800 ok",
        "Upper Case MIXED wOrDs a.B.c \x01 tab\there\nnew line",
        "::: ... +++ === .a. a.. ..a a.=b a=.b",
    ],
)
def test_word_set_is_the_set_of_word_tokens(text: str) -> None:
    assert word_set(text) == frozenset(WORD_TOKEN.findall(text))
    assert word_set(text.lower()) == frozenset(WORD_TOKEN.findall(text.lower()))


@pytest.mark.timeout(30)
def test_a_name_starting_with_an_underscore_is_looked_up_and_does_not_hang() -> None:
    # Its folded key starts with a separator: looking for its (empty) first word once
    # looped for ever when the source had the word "s" or "v".
    explainer = "Call _fp8_cast_3d now; it takes 5 s."
    found = check_explainer(explainer, "The kernel takes 5 s. It uses _fp8_cast_3d today.")
    assert [(n.text, n.status) for n in found.numbers] == [
        ("_fp8_cast_3d", CheckStatus.SUPPORTED),
        ("5 s", CheckStatus.SUPPORTED),
    ]
    missing = check_explainer(explainer, "The kernel takes 5 s. It uses s and v names.")
    assert [n.status for n in missing.numbers] == [CheckStatus.UNSUPPORTED, CheckStatus.SUPPORTED]


@pytest.mark.parametrize(
    ("explainer", "status"),
    [
        ("The run cost $1e5 in total.", S),  # copied: supported
        ("The run cost $3e5 in total.", U),
    ],
)
def test_a_name_with_a_sign_no_word_token_holds_is_found_verbatim(
    explainer: str, status: object
) -> None:
    """ "$1e5" is an identifier (a currency sign, scientific notation): its first word is
    no word token of the source's index, so the source text is searched for it."""
    report = check_explainer(explainer, "Weight decay was 1e-5. The run cost $1e5 in total.")
    assert [n.status for n in report.numbers] == [status]


@pytest.mark.timeout(30)
def test_a_name_of_hundreds_of_parts_does_not_crash_the_check() -> None:
    # Each optional part of a name's pattern nested in the one before: "1-1-...-1" of 600
    # parts overflowed the regex parser's recursion (RecursionError) in the explainer
    # and in the source alike.
    chain = "-".join(["1"] * 600)
    report = check_explainer(f"Range {chain} out.", "Version 1.5 is 2x faster.")
    assert [n.status for n in report.numbers] == [U]
    source = f"It is 2x faster than {chain} and 3x faster than Triton."
    report = check_explainer(f"It is 2x faster than {chain}.", source)
    assert [n.status for n in report.numbers] == [S, S]


@pytest.mark.timeout(15)
def test_a_unit_of_thousands_of_figures_is_derived_from_in_linear_time() -> None:
    # Every pair of a unit's figures was combined: a pasted column of thousands of figures
    # (no sentence end) took a minute per unit of measure an explainer asked for. Now a
    # figure is combined with the few near it, as a writer computes.
    source = ", ".join(f"{i} ms" for i in range(1, 2001)) + "."
    report = check_explainer("It fell 0.5%. It took 3999 ms. It took 4001 ms.", source)
    assert [(n.text, n.status) for n in report.numbers] == [
        ("0.5%", D),  # percent change of 201 ms and 200 ms
        ("3999 ms", D),  # 2000 ms + 1999 ms
        ("4001 ms", U),
    ]


@pytest.mark.timeout(60)
def test_a_sentence_of_thousands_of_figures_is_bound_in_linear_time() -> None:
    # Each figure without a name near it scanned its sentence from the start for its
    # clause: pasted data with no sentence end ("0.5x 1.5x ...") was quadratic, seconds.
    tail = "; for MXFP4 (all shapes) the mean over every shape of the suite was 2.5x."
    explainer = " ".join(f"{i}.5x" for i in range(9000)) + tail
    source = "MXFP8 gained 1.5x; MXFP4 gained 2.5x."
    numbers = check_explainer(explainer, source).numbers
    assert len(numbers) == 9002
    # 2.5x has no name near it: said of its clause's MXFP4 (the aside is skipped).
    assert [(n.text, n.status) for n in numbers[-2:]] == [("MXFP4", S), ("2.5x", S)]
