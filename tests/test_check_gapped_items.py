"""check: a later item of a source list written from its figure on, with no verb or
subject of its own ("FP8 reaches 1.5x over BF16 on MI355X and 1.3x on MI300X"), says
only what tells it from the item before; a phrase of that item it does not say again
("over BF16") is its own too, so an explainer that gives it the phrase is faithful. An
item that says its own phrase of the word ("and 1.3x over FP16 on MI300X") does not
take the earlier one: a figure moved to another baseline stays misattached."""

from __future__ import annotations

import pytest

from tests.check_helpers import M, S, figures

FP8 = "FP8 reaches 1.5x over BF16 on MI355X and 1.3x on MI300X."
LLAMA = "Llama 3 8B reaches 8,000 tok/s on MI300X with BF16 and 7,000 tok/s with FP8."
THREE = "FP8 reaches 1.5x over BF16 on MI355X, 1.4x on MI325X and 1.3x on MI300X."
OWN = "FP8 reaches 1.5x over BF16 on MI355X and 1.3x over FP16 on MI300X."
OWN_AFTER = "FP8 reaches 1.5x over BF16 on MI355X and 1.3x on MI300X over FP16."
TWO_BASES = "FP8 reaches 1.5x over BF16 on MI355X, 1.4x over FP16 on MI325X and 1.3x on MI300X."
CLAUSE = "FP8 reaches 1.5x over BF16 on MI355X, and FP16 reaches 1.3x on MI300X."


@pytest.mark.parametrize(
    ("explainer", "source"),
    [
        # Misattached before: "the source gives it for other things than BF16".
        ("FP8 reaches 1.3x over BF16 on MI300X.", FP8),
        ("On MI300X, FP8 is 1.3x faster than BF16.", FP8),
        ("FP8 reaches 1.3x over BF16 on MI300X.", THREE),
        ("FP8 reaches 1.4x over BF16 on MI325X.", THREE),
        # "... other things than MI300X".
        ("With FP8, Llama 3 8B reaches 7,000 tok/s on MI300X.", LLAMA),
        ("Llama 3 8B reaches 7,000 tok/s on MI300X with FP8.", LLAMA),
    ],
)
def test_a_gapped_item_takes_the_phrase_it_does_not_say_again(explainer: str, source: str) -> None:
    assert {status for _, status, _ in figures(explainer, source)} == {S.value}


@pytest.mark.parametrize(
    ("explainer", "source", "reason"),
    [
        # Its own baseline, before or after its other phrase.
        ("FP8 reaches 1.3x over BF16 on MI300X.", OWN, "other things than BF16"),
        ("FP8 reaches 1.5x over FP16 on MI355X.", OWN, "other things than FP16"),
        ("FP8 reaches 1.3x over BF16 on MI300X.", OWN_AFTER, "other things than BF16"),
        # The baseline of an item before the item the figure follows.
        ("FP8 reaches 1.3x over BF16 on MI300X.", TWO_BASES, "other things than BF16"),
        # An item before that changes the baseline leaves the gapped one's unsure.
        ("FP8 reaches 1.3x over FP16 on MI300X.", TWO_BASES, "other things than FP16"),
        # A clause of its own, with a subject and verb: no gapped item.
        ("FP8 reaches 1.3x over BF16 on MI300X.", CLAUSE, "other things than BF16"),
        # The figure moved to the other item's phrase of the word it says itself.
        ("With BF16, Llama 3 8B reaches 7,000 tok/s on MI300X.", LLAMA, "for FP8"),
        ("With FP8, Llama 3 8B reaches 8,000 tok/s on MI300X.", LLAMA, "other things than FP8"),
        ("FP8 reaches 1.3x over BF16 on MI355X.", FP8, "for MI300X"),
        ("FP8 reaches 1.5x over BF16 on MI300X.", FP8, "other things than MI300X"),
    ],
)
def test_a_figure_moved_to_another_phrase_stays_misattached(
    explainer: str, source: str, reason: str
) -> None:
    (found,) = figures(explainer, source)
    assert found[1] == M.value
    assert found[2] is not None and found[2].endswith(reason)
