"""The extractive engine's titles say a noun once where a claim would say it again a few
words on ("Together AI delivers fastest inference, up to 2x faster inference")."""

from __future__ import annotations

import pytest

from service.engines.extractive.repeats import without_repeat
from tests.title_helpers import explained_title


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "Together AI delivers fastest inference for the top open-source models",
            "Together AI delivers fastest inference, up to 2x faster",
        ),
        (
            "Introducing Dedicated Container Inference: Delivering 2.6x faster inference "
            "for custom AI models",
            "Introducing Dedicated Container Inference, 1.4x–2.6x faster",
        ),
    ],
)
def test_a_claim_drops_the_noun_the_title_just_said(source: str, expected: str) -> None:
    assert explained_title(source) == expected


@pytest.mark.parametrize(
    ("new", "claim", "expected"),
    [
        ("Fastest inference", "up to 2x faster inference", "up to 2x faster"),
        ("Cheaper training runs", "3x cheaper runs", "3x cheaper"),
        ("Fewer errors", "40% fewer errors", "40% fewer"),
        # Another noun, or one said long before: the claim stays whole.
        ("Fastest inference", "up to 2x higher throughput", "up to 2x higher throughput"),
        (
            "Inference for the top open-source models on Blackwell",
            "2x faster inference",
            "2x faster inference",
        ),
        # The noun of its baseline, not its head: the claim says two things.
        (
            "Faster kernels",
            "1.5x speedup over the old kernels",
            "1.5x speedup over the old kernels",
        ),
        # Nothing but the noun again after its figure: no claim.
        ("Faster inference", "2x inference", None),
        ("Faster inference", "a 2x inference", None),
    ],
)
def test_without_repeat(new: str, claim: str, expected: str | None) -> None:
    assert without_repeat(new, claim) == expected
