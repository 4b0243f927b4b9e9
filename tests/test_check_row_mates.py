"""check: a figure of a sentence naming two rows of a source table, or said of a row by
its label and column in words, is read of that row: the TorchTitan post's result tables
(in the PyTorch blog feed's change of seed 000). Each faithful sentence beside a wrong one
that stays flagged."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from tests.titan_tables import flagged, results


@pytest.mark.parametrize(
    "sentence",
    [
        # The count is the row named beside it (PP2-512's 512 GPUs), not another row of
        # the family that holds it too (PP4-512), where the sentence names a second row.
        "PP2-512, on 512 GPUs, is about twice as fast as PP2-256.",
        "PP2-512, on 512 GPUs, reaches 2,694,493 global TPS, about twice the 1,362,998 of PP2-256.",
        "PP2-512, on 512 GPUs, is twice as fast as PP2-256, on 256 GPUs.",
        # A row's cell said of its label in words, however many cells stand between
        # ("Learned" ... 683,961 under "Global TPS").
        "Forced balanced routing reaches 813,168 global TPS, 1.19x the 683,961 of learned routing.",
        # A number word before a figure is no noun of it ("twice" of the 1,362,998), and
        # "of the other run" says it of no name of the sentence.
        "PP2-512 reaches 2,694,493 global TPS, about twice the 1,362,998 of the other run.",
        # A figure's unit noun names its column: the row's cell there holds it.
        "PP2-256, on 256 GPUs, is about half as fast as PP2-512.",
        "Learned routing reached 683,961 global TPS.",
        "Forced balanced routing reached 813,168 global TPS.",
        # The row's own cell of the column its words name.
        "PP2-256 reached 5,324.21 TPS per GPU.",
        "PP2-256 reached 1,362,998 global TPS.",
        # A second figure of the column is compared with the row's, not said of it.
        "Forced balanced routing reached 813,168 global TPS, against 683,961 global TPS before.",
    ],
)
def test_a_figure_of_the_row_it_is_said_of_raises_no_alarm(sentence: str) -> None:
    assert flagged(sentence) == []


@pytest.mark.parametrize(
    ("sentence", "figure", "reason"),
    [
        # PP2-256 named beside 512, PP2-512 (which has it) further on.
        (
            "PP2-256, on 512 GPUs, is about half as fast as PP2-512.",
            "512",
            "the source's table gives it for PP2-512",
        ),
        (
            "PP2-512, on 256 GPUs, is twice as fast as PP2-256, on 512 GPUs.",
            "512",
            "the source's table gives it for PP2-512",
        ),
        # 256 is in PP2-512's row too, under DP: "256 GPUs" is of the GPUs column.
        (
            "PP2-512, on 256 GPUs, is twice as fast as PP2-256.",
            "256",
            "the source's table gives it for PP2-256",
        ),
        # The named row's figure of another column than its unit noun names (both were
        # supported: no other row holds it, and the general binding took any cell).
        (
            "PP2-256 reached 5,324.21 global TPS.",
            "5,324.21",
            "the source's table gives it under tps gpu",
        ),
        (
            "Learned routing at 512 GPUs reached 1,335.86 global TPS.",
            "1,335.86",
            "the source's table gives it under tps gpu",
        ),
        # Global TPS of the Learned row at 512 GPUs, said of forced balanced routing.
        (
            "Forced balanced routing reached 683,961 global TPS.",
            "683,961",
            "the source's table gives it for Learned",
        ),
        (
            "Forced balanced routing reaches 813,168 global TPS, 1.19x the 683,961 of forced "
            "balanced routing.",
            "683,961",
            "the source gives it for other things (forced, balanced, routing not there)",
        ),
        (
            "Forced balanced routing reaches 813,168 global TPS, 1.19x the 470,918 of learned "
            "routing.",
            "470,918",
            "the source's table gives it for Forced balanced",
        ),
        (
            "PP2-512 reaches 2,694,493 global TPS, about twice the 1,362,998 of PP2-512.",
            "1,362,998",
            "the source's table gives it for PP2-256",
        ),
        (
            "PP2-512 reaches 2,694,493 global TPS, about three times the 1,362,998 of the "
            "other run.",
            "three times",
            "not in the source",
        ),
    ],
)
def test_a_figure_of_another_row_is_flagged(sentence: str, figure: str, reason: str) -> None:
    verdict = next(n for n in check_explainer(sentence, results()).numbers if n.text == figure)
    assert verdict.status.value in ("misattached", "unsupported")
    assert verdict.reason == reason
