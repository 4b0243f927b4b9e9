"""check: the source's "in that order" ("in this order", "in the same order") after a
list of figures with no names in its sentence pairs them, as its "respectively" does,
with the names of the sentence before (service.check.paired). Before, the faithful
"Uniform groups reach 1.21x over Triton" of "FlyDSL reaches 1.20x over Triton and 1.95x
over ATen. Uniform groups reach 1.21x and 2.12x, in that order." was misattached ("the
source gives it for other things (triton not there)")."""

from __future__ import annotations

import pytest

from service.check import check_explainer
from tests.check_helpers import M, S

MARKERS = ["in that order", "in this order", "in the same order"]
SOURCES = [
    # The like figures of the sentence before, each with its own name ...
    "FlyDSL reaches 1.20x over Triton and 1.95x over ATen. Uniform groups reach 1.21x and"
    " 2.12x, {marker}.",
    # ... else its last list of as many names.
    "We compare against Triton and ATen. Uniform groups reach 1.21x and 2.12x, {marker}.",
]


def _verdicts(explainer: str, source: str) -> list[tuple[str, str | None]]:
    return [(v.status.value, v.reason) for v in check_explainer(explainer, source).numbers]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("marker", MARKERS)
@pytest.mark.parametrize(
    "explainer",
    ["Uniform groups reach 1.21x over Triton.", "Uniform groups reach 2.12x over ATen."],
)
def test_a_source_in_that_order_pairs_with_the_sentence_before(
    explainer: str, marker: str, source: str
) -> None:
    # Misattached before ("(triton not there)", "(aten not there)").
    assert _verdicts(explainer, source.format(marker=marker)) == [(S.value, None)]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("marker", MARKERS)
@pytest.mark.parametrize(
    ("explainer", "reason"),
    [
        ("Uniform groups reach 1.21x over ATen.", "the source gives it for Triton"),
        ("Uniform groups reach 2.12x over Triton.", "the source gives it for ATen"),
    ],
)
def test_a_swapped_pair_of_a_source_in_that_order_is_misattached(
    explainer: str, reason: str, marker: str, source: str
) -> None:
    # Misattached before too, for another reason ("... (aten not there)").
    assert _verdicts(explainer, source.format(marker=marker)) == [(M.value, reason)]


def test_a_source_in_that_order_goes_on_in_the_next_sentence() -> None:
    source = (
        "FlyDSL reaches 1.20x over Triton and 1.95x over ATen. Uniform groups reach 1.21x"
        " and 2.12x, in that order. The projection cases reach 1.23x and 1.73x."
    )
    # Misattached before.
    assert _verdicts("The projection cases reach 1.23x over Triton.", source) == [(S.value, None)]
    assert _verdicts("The projection cases reach 1.73x over Triton.", source)[0][0] == M.value
