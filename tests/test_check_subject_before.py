"""check: a source figure whose clause points back ("The result is roughly 2-8x lower
latency", "It is ...", "This gives ...", "These kernels reach ...") and names nothing of
its own is said of what the nearest sentence before it in its paragraph names: an
explainer that names that subject is backed. A clause that names another thing ("SDPA
is roughly 2-8x faster", "... for SDPA"), a subject of plain words ("The baseline"), a
nearer sentence naming another thing, another paragraph or a later sentence keep the
figure misattached. The known-wrong case it fixed: test_check_known_wrong."""

from __future__ import annotations

import pytest

from tests.check_helpers import M, S, status, verdict

TUNED = "FlexAttention on RDNA3 gets tuned tiles. "


@pytest.mark.parametrize(
    ("explainer", "source", "text"),
    [
        ("FlexAttention is roughly 2-8x faster.", "It is roughly 2-8x faster than SDPA.", "2-8x"),
        (
            "FlexAttention is roughly 2-8x faster than SDPA.",
            "It is roughly 2-8x faster than SDPA.",
            "2-8x",
        ),
        ("FlexAttention gives a 1.5x speedup.", "This gives a 1.5x speedup.", "1.5x"),
        ("FlexAttention reaches 1.5x.", "These kernels reach 1.5x over the defaults.", "1.5x"),
        (
            "FlexAttention gives a 1.5x speedup.",
            "On average, the result is a 1.5x speedup.",
            "1.5x",
        ),
        (
            "FlexAttention has 2x lower latency.",
            "The result (on average) is 2x lower latency.",
            "2x",
        ),
        # The nearest sentence that names anything: one of plain words between.
        (
            "FlexAttention has 2x lower latency.",
            "The tuning took a week. The result is 2x lower latency.",
            "2x",
        ),
        (
            "On RDNA3, FlexAttention has 2x lower latency.",
            "The net effect is 2x lower latency.",
            "2x",
        ),
    ],
)
def test_a_clause_pointing_back_is_said_of_the_sentence_before(
    explainer: str, source: str, text: str
) -> None:
    assert status(explainer, TUNED + source, text) == S


def test_a_clause_before_in_its_own_sentence_is_pointed_back_to() -> None:
    source = "FlexAttention gets tuned tiles; the result is 2x lower latency."
    assert status("FlexAttention has 2x lower latency.", source, "2x") == S


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        # The figure's own sentence names another product, with no pointer back.
        ("FlexAttention is roughly 2-8x faster.", "SDPA is roughly 2-8x faster."),
        ("FlexAttention is roughly 2-8x faster.", "It is roughly 2-8x faster, as SDPA is."),
        (
            "FlexAttention has roughly 2-8x lower latency.",
            "The result is 2-8x lower latency for SDPA.",
        ),
        (
            "FlexAttention is roughly 2-8x faster.",
            "Meanwhile SDPA gets a new backend, and it is 2-8x faster.",
        ),
        # Its setting, which the explainer leaves out.
        (
            "FlexAttention has roughly 2-8x lower latency.",
            "The result on MI300X is 2-8x lower latency.",
        ),
        # A subject of plain words, or a result said of one, is no pointer back.
        ("FlexAttention is roughly 2-8x slower.", "The baseline is roughly 2-8x slower."),
        ("FlexAttention is roughly 2-8x slower.", "The result of the baseline run is 2-8x slower."),
        # A nearer sentence names another thing: the pointer is to that.
        (
            "FlexAttention is roughly 2-8x faster.",
            "SDPA gets a new backend. The result is 2-8x faster.",
        ),
    ],
)
def test_a_clause_of_its_own_subject_keeps_the_figure_misattached(
    explainer: str, source: str
) -> None:
    assert status(explainer, TUNED + source, "2-8x") == M


def test_the_figure_of_another_product_names_the_product_missing() -> None:
    found = verdict(
        "FlexAttention is roughly 2-8x faster.", TUNED + "SDPA is roughly 2-8x faster.", "2-8x"
    )
    assert found.reason == "the source gives it for other things (flexattention not there)"


@pytest.mark.parametrize(
    "source",
    [
        "FlexAttention on RDNA3 gets tuned tiles.\n\nThe result is 2x faster.",  # another paragraph
        "The result is 2x faster. FlexAttention on RDNA3 gets tuned tiles.",  # after it
    ],
)
def test_a_subject_outside_the_paragraph_before_is_not_read(source: str) -> None:
    assert status("FlexAttention is 2x faster.", source, "2x") == M


def test_a_name_of_the_explainer_the_sentence_before_lacks_is_not_there() -> None:
    # MI300X stands in the paragraph, after the figure: not what "The result" is of.
    source = TUNED + "The result is 2x faster. MI300X support is next."
    assert status("FlexAttention on MI300X is 2x faster.", source, "2x") == M


@pytest.mark.parametrize(
    ("explainer", "source", "word"),
    [
        (
            "FlexAttention is 2x faster in the backward pass.",
            "FlexAttention gets tuned tiles for the forward pass. The result is 2x faster.",
            "forward",
        ),
        (
            "FlexAttention is 2x faster in the backward pass.",
            "FlexAttention is tuned for the forward pass. It is 2x faster.",
            "forward",
        ),
        (
            "FlexAttention is 2x faster on short prompts.",
            "FlexAttention gets tuned tiles for long prompts. The result is 2x faster.",
            "long",
        ),
        (
            "FlexAttention is 2x faster with CUDA graphs.",
            "FlexAttention runs without CUDA graphs. The result is 2x faster.",
            "without",
        ),
    ],
)
def test_the_sentence_pointed_back_to_says_its_conditions(
    explainer: str, source: str, word: str
) -> None:
    found = verdict(explainer, source, "2x")
    assert found.status == M
    assert found.reason == f'the source gives it for the opposite ("{word}")'


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        (
            "FlexAttention is 2x faster in the forward pass.",
            "FlexAttention gets tuned tiles for the forward pass. The result is 2x faster.",
        ),
        (
            "FlexAttention is 2x faster on long prompts.",
            "FlexAttention gets tuned tiles for long prompts. The result is 2x faster.",
        ),
        (
            "FlexAttention is 2x faster without CUDA graphs.",
            "FlexAttention runs without CUDA graphs. The result is 2x faster.",
        ),
    ],
)
def test_the_same_condition_said_before_is_backed(explainer: str, source: str) -> None:
    assert status(explainer, source, "2x") == S


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("Its latency is 2x lower.", S),
        ("They cut latency 2x.", S),
        ("This cuts latency 2x.", S),
        # A pointer to another thing than the one named before.
        ("Its baseline has 2x lower latency.", M),
        ("This baseline has 2x lower latency.", M),
        ("These older kernels have 2x lower latency.", M),
        ("Its predecessor had 2x lower latency.", M),
    ],
)
def test_a_pointer_to_another_thing_is_none(source: str, expected: object) -> None:
    assert status("FlexAttention has 2x lower latency.", TUNED + source, "2x") == expected
