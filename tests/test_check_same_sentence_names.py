"""check: two figures of one source sentence, each said of its own name, are told apart
by those names where the explainer says both nearest of a name they share ("Blackwell
needs CUDA 13.3+ and Hopper needs CUDA 13.2+": CUDA is each figure's nearest name, and
Blackwell and Hopper tell them apart). Swapped, both are misattached; written the right
way round, in any order or phrasing, both stay supported."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from tests.check_helpers import M, S, figures
from tests.paraphrase_helpers import PT, article

SOURCE = (
    "CUDA 13.2+ is required on Blackwell and CUDA 13.3+ on Hopper. "
    "Training ran on 8 H100 GPUs and inference on 2 MI355X GPUs."
)


@pytest.mark.parametrize(
    ("explainer", "expected"),
    [
        # The names each figure has alone (Blackwell, Hopper) cross the source's: the
        # shared CUDA right before each told nothing (supported before).
        (
            "Blackwell needs CUDA 13.3+ and Hopper needs CUDA 13.2+.",
            [("13.3", "hopper"), ("13.2", "blackwell")],
        ),
        (
            "Hopper needs CUDA 13.2+ and Blackwell needs CUDA 13.3+.",
            [("13.2", "blackwell"), ("13.3", "hopper")],
        ),
        (
            "CUDA 13.3+ is required on Blackwell and CUDA 13.2+ on Hopper.",
            [("13.3", "hopper"), ("13.2", "blackwell")],
        ),
        # A bare figure's names of a phrase leading its clause tell it apart too.
        (
            "On Blackwell, CUDA 13.3+ is required; on Hopper, CUDA 13.2+.",
            [("13.3", "hopper"), ("13.2", "blackwell")],
        ),
        (
            "On Hopper, CUDA 13.2+ is required; on Blackwell, CUDA 13.3+.",
            [("13.2", "blackwell"), ("13.3", "hopper")],
        ),
        # In two sentences of a paragraph, the same.
        (
            "Blackwell needs CUDA 13.3+. Hopper needs CUDA 13.2+.",
            [("13.3", "hopper"), ("13.2", "blackwell")],
        ),
        (
            "Training used 2 H100 GPUs. Inference used 8 MI355X GPUs.",
            [("2", "mi355x"), ("8", "h100")],
        ),
        # Counts said nearest of their own names: flagged already, and still.
        (
            "Training used 2 H100 GPUs and inference used 8 MI355X GPUs.",
            [("2", "mi355x"), ("8", "h100")],
        ),
    ],
)
def test_figures_of_one_source_sentence_swapped_are_misattached(
    explainer: str, expected: list[tuple[str, str]]
) -> None:
    assert figures(explainer, SOURCE) == [
        (text, M.value, f"the source gives it for {name}") for text, name in expected
    ]


@pytest.mark.parametrize(
    "explainer",
    [
        "Blackwell needs CUDA 13.2+ and Hopper needs CUDA 13.3+.",
        "CUDA 13.2+ is required on Blackwell and CUDA 13.3+ on Hopper.",
        # Reordered, or phrased otherwise, the right values.
        "Hopper needs CUDA 13.3+ and Blackwell needs CUDA 13.2+.",
        "Hopper needs 13.3+ and Blackwell 13.2+.",
        "On Blackwell, CUDA 13.2+ is required.",
        "On Blackwell, CUDA 13.2+ is required; on Hopper, CUDA 13.3+.",
        "On Hopper, CUDA 13.3+ is required; on Blackwell, CUDA 13.2+.",
        "On Blackwell, CUDA 13.2+ is required, and on Hopper, CUDA 13.3+.",
        "Training used 8 H100 GPUs and inference used 2 MI355X GPUs.",
        "Inference used 2 MI355X GPUs and training used 8 H100 GPUs.",
        "Blackwell needs CUDA 13.2+. Hopper needs CUDA 13.3+.",
        "Hopper needs CUDA 13.3+. On Blackwell, CUDA 13.2+ is required.",
        "Training used 8 H100 GPUs. Inference used 2 MI355X GPUs.",
    ],
)
def test_figures_of_one_source_sentence_said_of_their_own_names_stay_supported(
    explainer: str,
) -> None:
    assert {status for _, status, _ in figures(explainer, SOURCE)} == {S.value}


@pytest.mark.parametrize(
    "source",
    [
        # In two sentences: neither says which is which against the other.
        "CUDA 13.2+ is required on Blackwell. CUDA 13.3+ is required on Hopper.",
        # Written another way round, with the names in the same order.
        "Blackwell requires CUDA 13.2+, while Hopper requires CUDA 13.3+.",
    ],
)
def test_told_apart_names_the_source_writes_the_same_way_stay_supported(source: str) -> None:
    explainer = "Hopper needs CUDA 13.3+ and Blackwell needs CUDA 13.2+."
    assert {status for _, status, _ in figures(explainer, source)} == {S.value}


@pytest.mark.parametrize(
    "explainer",
    [
        # The clause of the 13.2 runs on to the comma, past Hopper: its nearest name,
        # which the 13.3 (CUDA its only name) lacks. Read as the two nearest names, Hopper
        # and CUDA, the pair was crossed in the source: both misattached, and the same
        # sentences with the figures swapped supported (the 13.2's other name, Blackwell,
        # tells it apart from nothing of the 13.3's). Neither is read as a swap now.
        "For Blackwell, CUDA 13.2+ is needed and for Hopper, CUDA 13.3+.",
        "Blackwell needs CUDA 13.2+ unlike Hopper, which needs CUDA 13.3+.",
    ],
)
def test_a_nearest_name_the_other_figure_has_too_tells_no_swap(explainer: str) -> None:
    assert {status for _, status, _ in figures(explainer, SOURCE)} == {S.value}


# The PyTorch 2.14 post: "cuBLASLt joins CUTLASS and the fallback as a backend: default
# for fp16 on Blackwell with CUDA 13.2+ and Hopper with CUDA 13.3+, ...".
@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        # Each figure's nearest name of its own is not what tells them apart: cuBLASLt
        # (the 13.2's, after it) is said of neither figure in the source; Blackwell and
        # Hopper are, the other way round (both were supported).
        (
            "Blackwell needs CUDA 13.3+ and Hopper needs CUDA 13.2+ for cuBLASLt grouped GEMM.",
            [("13.3", M.value), ("13.2", M.value)],
        ),
        (
            "For fp16 grouped GEMM, cuBLASLt is the default on Hopper with CUDA 13.2+ and on "
            "Blackwell with CUDA 13.3+.",
            [("fp16", S.value), ("13.2", M.value), ("13.3", M.value)],
        ),
        (
            "Blackwell needs CUDA 13.2+ and Hopper needs CUDA 13.3+ for cuBLASLt grouped GEMM.",
            [("13.2", S.value), ("13.3", S.value)],
        ),
        (
            "For fp16 grouped GEMM, cuBLASLt is the default on Hopper with CUDA 13.3+ and on "
            "Blackwell with CUDA 13.2+.",
            [("fp16", S.value), ("13.3", S.value), ("13.2", S.value)],
        ),
    ],
)
def test_the_release_posts_cuda_versions_of_blackwell_and_hopper(
    sentence: str, expected: list[tuple[str, str]]
) -> None:
    text, title = article(PT)
    report = check_explainer(sentence, text, title=title)
    assert [(n.text, n.status.value) for n in report.numbers] == expected


# One figure given a name the source gives another like figure, the other figure left
# out: the source tells the two names apart (each figure has one alone, in the same
# slot: "on Blackwell", "on Hopper"), so the figure is the other name's.
CUDA_LED = "On Blackwell, CUDA 13.3+ is required, and on Hopper, CUDA 13.2+."
CUDA_TWO = "On Blackwell, CUDA 13.3+ is required. On Hopper, CUDA 13.2+ is enough."
SHARED = "FP8 reaches 1.5x over BF16 on MI355X and 1.3x on MI300X."


@pytest.mark.parametrize(
    ("explainer", "source", "expected"),
    [
        # All supported before: each name stands in the source sentence.
        ("Blackwell needs CUDA 13.3+.", SOURCE, [("13.3", "hopper")]),
        ("Hopper needs CUDA 13.2+.", SOURCE, [("13.2", "blackwell")]),
        ("On Hopper, CUDA 13.2+ is required.", SOURCE, [("13.2", "blackwell")]),
        ("Blackwell and Hopper need CUDA 13.3+.", SOURCE, [("13.3", "hopper")]),
        ("Hopper and Blackwell both need CUDA 13.2+.", SOURCE, [("13.2", "blackwell")]),
        ("Blackwell needs CUDA 13.2+.", CUDA_LED, [("13.2", "hopper")]),
        ("Blackwell and Hopper need CUDA 13.2+.", CUDA_LED, [("13.2", "hopper")]),
        ("Hopper needs CUDA 13.3+.", CUDA_LED, [("13.3", "blackwell")]),
        # Of neighbouring sentences.
        ("On Hopper, CUDA 13.3+ is needed.", CUDA_TWO, [("13.3", "blackwell")]),
    ],
)
def test_a_figure_given_the_name_of_another_is_misattached(
    explainer: str, source: str, expected: list[tuple[str, str]]
) -> None:
    assert figures(explainer, source) == [
        (text, M.value, f"the source gives it for {name}") for text, name in expected
    ]


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        ("Blackwell needs CUDA 13.2+.", SOURCE),
        ("On Hopper, CUDA 13.3+ is required.", SOURCE),
        # A name set against the figure is not what it is said of.
        ("Hopper needs CUDA 13.3+, unlike Blackwell.", SOURCE),
        ("CUDA 13.3+ is needed for Hopper but not Blackwell.", SOURCE),
        ("Hopper's CUDA 13.3+ is newer than Blackwell's.", SOURCE),
        ("Hopper needs CUDA 13.2+.", CUDA_LED),
        ("Blackwell needs CUDA 13.3+.", CUDA_LED),
        ("On Hopper, CUDA 13.2+ is enough.", CUDA_TWO),
        # Both figures given: which is which is the swaps' to read.
        ("Blackwell and Hopper need CUDA 13.3+ and CUDA 13.2+ respectively.", CUDA_LED),
        # The same value for both names in the source.
        ("Blackwell and Hopper need CUDA 13.2+.", "Blackwell and Hopper need CUDA 13.2+."),
        # A name the sentence says of both figures (its subject), bound to the first.
        ("FP8 gets 1.3x on MI300X.", SHARED),
        ("On MI300X, FP8 gets 1.3x.", SHARED),
    ],
)
def test_a_figure_said_of_its_own_names_stays_supported(explainer: str, source: str) -> None:
    assert {status for _, status, _ in figures(explainer, source)} == {S.value}
