"""check: a capitalised word that starts a source sentence of figures is a name where
the sentence next to it starts with another such word and the same verb ("Blackwell
needs CUDA 13.3+. Hopper needs CUDA 13.2+."): two things set side by side. Before, a
sentence's first word was a name only where the source wrote it so inside a sentence,
so neither Blackwell nor Hopper was one, each figure was said of CUDA alone, and a
figure moved from one to the other passed."""

from __future__ import annotations

import pytest

from tests.check_helpers import M, S, figures

CUDA = "Blackwell needs CUDA 13.3+. Hopper needs CUDA 13.2+."
SPEED = "Hopper reaches 1.5x. Blackwell reaches 1.3x."
TIMES = "Training took 3 hours. Inference took 2 ms."


@pytest.mark.parametrize(
    ("explainer", "source", "expected"),
    [
        # All supported before.
        ("Hopper needs CUDA 13.3+.", CUDA, [("13.3", "for other things (hopper not there)")]),
        ("Blackwell needs CUDA 13.2+.", CUDA, [("13.2", "for hopper")]),
        ("On Hopper, CUDA 13.3+ is needed.", CUDA, [("13.3", "for blackwell")]),
        (
            "Hopper needs CUDA 13.3+ and Blackwell needs CUDA 13.2+.",
            CUDA,
            [("13.3", "for other things (hopper not there)"), ("13.2", "for hopper")],
        ),
        ("Inference took 3 hours.", TIMES, [("3 hours", "for other things (inference not there)")]),
        # The 1.3x supported before, the 1.5x misattached.
        (
            "Hopper and Blackwell reach 1.3x and 1.5x, respectively.",
            SPEED,
            [("1.3x", "for blackwell"), ("1.5x", "for other things (blackwell not there)")],
        ),
    ],
)
def test_a_figure_moved_between_named_openers_is_misattached(
    explainer: str, source: str, expected: list[tuple[str, str]]
) -> None:
    assert figures(explainer, source) == [
        (text, M.value, f"the source gives it {why}") for text, why in expected
    ]


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        # Misattached before: "(blackwell not there)", Blackwell no name of the source.
        ("Hopper and Blackwell reach 1.5x and 1.3x, respectively.", SPEED),
        # Supported before and after.
        ("Hopper reaches 1.5x and Blackwell reaches 1.3x.", SPEED),
        ("Hopper reaches 1.5x, Blackwell 1.3x.", SPEED),
        ("On Blackwell, it reaches 1.3x.", SPEED),
        ("Blackwell needs CUDA 13.3+ and Hopper needs CUDA 13.2+.", CUDA),
        ("Hopper needs CUDA 13.2+, Blackwell CUDA 13.3+.", CUDA),
        ("On Hopper, CUDA 13.2+ is enough.", CUDA),
        ("Blackwell requires CUDA 13.3+, while Hopper requires CUDA 13.2+.", CUDA),
        ("CUDA 13.3+ is needed on Blackwell.", CUDA),
        ("Training took 3 hours.", TIMES),
        ("The training took 3 hours.", TIMES),
    ],
)
def test_a_figure_said_of_its_own_opener_stays_supported(explainer: str, source: str) -> None:
    assert {status for _, status, _ in figures(explainer, source)} == {S.value}


@pytest.mark.parametrize(
    "source",
    [
        # Not side by side: another paragraph, another verb, no figure next to it.
        "Blackwell needs CUDA 13.3+.\n\nHopper needs CUDA 13.2+.",
        "Blackwell needs CUDA 13.3+. Hopper requires CUDA 13.2+.",
        "Blackwell needs CUDA 13.3+. Hopper needs a newer driver.",
        # The same value for both.
        "Blackwell needs CUDA 13.3+. Hopper needs CUDA 13.3+ as well.",
    ],
)
def test_openers_not_set_side_by_side_name_nothing_new(source: str) -> None:
    assert figures("Hopper needs CUDA 13.3+.", source) == [("13.3", S.value, None)]


def test_a_word_the_source_writes_in_lower_case_is_no_name() -> None:
    source = f"{TIMES} We logged the training loss."
    assert figures("Inference took 3 hours.", source) == [("3 hours", S.value, None)]


def test_stop_words_opening_alike_are_no_names() -> None:
    source = "This needs 3 GPUs. That needs 2 GPUs."
    assert figures("This needs 3 GPUs.", source) == [("3", S.value, None)]
