"""check: two coordinated clauses of a sentence, each with its own figure, are read
apart. A phrase leading the clause after the coordinator ("..., 1.5x over ATen and with
BF16, MI355X reaches 1.2x") is the next figure's, not the one before it (the comma after
it ended the 1.5x's words there, so BF16 was lent to it). Faithful, in either order, all
stay supported; swapped, the moved one is flagged."""

from __future__ import annotations

import pytest

from service.check import check_explainer

SPEEDUPS = "With FP8, MI355X reaches 1.5x over ATen and with BF16, MI355X reaches 1.2x over ATen."
TITLE = "Release notes"  # a post's title, as the gate checks it


def _flagged(explainer: str, source: str) -> list[tuple[str, str | None]]:
    """The explainer's numbers not supported, with their reasons."""
    report = check_explainer(explainer, source, title=TITLE)
    return [(v.text, v.reason) for v in report.numbers if v.status.value != "supported"]


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        # The false alarm (1.2x "other things than BF16"), and faithful variants.
        ("MI355X reaches 1.5x over ATen with FP8 and 1.2x over ATen with BF16.", SPEEDUPS),
        ("MI355X reaches 1.2x over ATen with BF16.", SPEEDUPS),
        ("With BF16, MI355X reaches 1.2x over ATen.", SPEEDUPS),
        ("With BF16, MI355X is 1.2x faster than ATen; with FP8, 1.5x.", SPEEDUPS),
        ("MI355X reaches 1.5x over ATen with FP8, and with BF16, 1.2x.", SPEEDUPS),
        (SPEEDUPS, SPEEDUPS),
    ],
)
def test_a_faithful_coordinated_sentence_is_supported(explainer: str, source: str) -> None:
    assert _flagged(explainer, source) == []


@pytest.mark.parametrize(
    ("explainer", "source", "expected"),
    [
        (
            "MI355X reaches 1.2x over ATen with FP8 and 1.5x over ATen with BF16.",
            SPEEDUPS,
            [("1.5x", "the source gives it for other things than BF16")],
        ),
        (
            "MI355X reaches 1.5x over ATen with BF16.",
            SPEEDUPS,
            [("1.5x", "the source gives it for other things than BF16")],
        ),
        (
            "With BF16, MI355X is 1.5x faster than ATen; with FP8, 1.2x.",
            SPEEDUPS,
            [("1.5x", "the source gives it for other things than BF16")],
        ),
        # Supported before (the 1.5x took BF16 in the source): now caught.
        (
            "MI355X reaches 1.2x over ATen with FP8, and with BF16, 1.5x.",
            SPEEDUPS,
            [("1.5x", "the source gives it for other things than BF16")],
        ),
        (
            "MI355X reaches 1.5x over ATen with BF16 and 1.2x with FP8.",
            SPEEDUPS,
            # (The 1.2x with FP8: a miss. The source's "With FP8," leads the whole
            # sentence, context for both figures, and gives FP8 to neither.)
            [("1.5x", "the source gives it for other things than BF16")],
        ),
    ],
)
def test_a_swapped_coordinated_sentence_is_flagged(
    explainer: str, source: str, expected: list[tuple[str, str]]
) -> None:
    assert _flagged(explainer, source) == expected
