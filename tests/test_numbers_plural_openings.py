"""numbers: a model's plural by its digits alone that opens a clause or a sentence as its
line's plural opened one just before ("RTX 4090s reach 50 tokens/s and 3090s reach 30",
"On RTX 4090s, ... On 3090s, ...") is that line's model ("RTX 3090"), no seconds; then
the check: what the source gives each model is told apart, as where it writes both
names whole ("RTX 4090s ... and RTX 3090s ...")."""

from __future__ import annotations

from decimal import Decimal

import pytest

from service.numbers import Kind, extract_numbers
from tests.check_helpers import M, S, U, status

AND = "RTX 4090s reach 50 tokens/s and 3090s reach 30 tokens/s."
SENTENCES = "On RTX 4090s, we saw 50 tokens/s. On 3090s, we saw 30 tokens/s."
WHOLE = "RTX 4090s reach 50 tokens/s and RTX 3090s reach 30 tokens/s."


@pytest.mark.parametrize(
    ("text", "shown", "key"),
    [
        (AND, "3090s", "rtx\x003090"),
        (SENTENCES, "3090s", "rtx\x003090"),
        ("RTX 4090s reach 50 tokens/s, while 3090s reach 30.", "3090s", "rtx\x003090"),
        ("RTX 4090s reach 50 tokens/s; 3090s reach 30.", "3090s", "rtx\x003090"),
        ("RTX 4090s reach 50 tokens/s. 3090s reach 30.", "3090s", "rtx\x003090"),
        ("With RTX 4090s we saw 50 tokens/s, and with 3090s 30.", "3090s", "rtx\x003090"),
        ("The RTX 4090s reach 50 tokens/s and the 3090s reach 30.", "3090s", "rtx\x003090"),
        # In its turn, the sibling of the next ("2080" no decade after two models).
        ("On RTX 4090s, we saw 50. On 3090s, we saw 30. On 2080s, 20.", "2080s", "rtx\x002080"),
        ("GTX 1080s reach 40 fps and 1070s reach 35 fps.", "1070s", "gtx\x001070"),
    ],
)
def test_a_model_opening_its_clause(text: str, shown: str, key: str) -> None:
    n = next(n for n in extract_numbers(text) if n.text == shown)
    assert (n.kind, n.key, n.unit, n.value) == (Kind.IDENTIFIER, key, "", None)


@pytest.mark.parametrize(
    ("text", "shown", "value"),
    [
        # A duration goes on after it, or no model's plural opened a clause so before.
        ("RTX 4090s reach 50 tokens/s and 1200s later it stops.", "1200s", "1200"),
        ("RTX 4090s reach 50 tokens/s and 1200s of it were idle.", "1200s", "1200"),
        ("RTX 4090s took 1200s and 1500s passed.", "1500s", "1500"),
        ("We ran RTX 4090s for 5 hours and 1200s passed.", "1200s", "1200"),
        ("On RTX 4090s it is fast. In 1200s, it finished.", "1200s", "1200"),
        ("On RTX 4090s, we saw 50. 3090s reach 30.", "3090s", "3090"),  # "On" and none
        ("On RTX 4090s, we saw 50. It is fast. On 3090s, we saw 30.", "3090s", "3090"),
        ("TTFT 1200s and 500 ms. On 3090s, we saw 30.", "3090s", "3090"),
        ("TTFT 1200s was bad and 1500s reach 30.", "1500s", "1500"),
        ("RTX 4090s reach 50 tokens/s and 300s reach 30.", "300s", "300"),  # not as many
    ],
)
def test_seconds_stay_seconds(text: str, shown: str, value: str) -> None:
    n = next(n for n in extract_numbers(text) if n.text == shown)
    assert (n.kind, n.unit, n.value) == (Kind.QUANTITY, "s", Decimal(value))


@pytest.mark.parametrize(
    ("explainer", "source", "written", "expected"),
    [
        # Each figure of its model: 50 is the RTX 4090's, 30 the RTX 3090's.
        ("The RTX 3090 reaches 50 tokens/s.", AND, "50 tokens/s", M),
        ("The RTX 3090 reaches 30 tokens/s.", AND, "30 tokens/s", S),
        ("The RTX 4090 reaches 30 tokens/s.", AND, "30 tokens/s", M),
        ("The RTX 4090 reaches 50 tokens/s.", AND, "50 tokens/s", S),
        ("The RTX 3090 reaches 50 tokens/s.", SENTENCES, "50 tokens/s", M),
        ("The RTX 3090 reaches 30 tokens/s.", SENTENCES, "30 tokens/s", S),
        ("The RTX 4090 reaches 50 tokens/s.", SENTENCES, "50 tokens/s", S),
        ("RTX 3090s reach 30 tokens/s.", AND, "30 tokens/s", S),
        # The names written whole in one sentence: told apart as well.
        ("The RTX 3090 reaches 50 tokens/s.", WHOLE, "50 tokens/s", M),
        ("The RTX 4090 reaches 30 tokens/s.", WHOLE, "30 tokens/s", M),
        ("The RTX 3090 reaches 30 tokens/s.", WHOLE, "30 tokens/s", S),
        # The model named; its digits are no seconds.
        ("They tested the RTX 3090.", AND, "RTX 3090", S),
        ("It took 3090 seconds.", AND, "3090 seconds", U),
        ("It took 3090 seconds.", SENTENCES, "3090 seconds", U),
        # A duration stays one.
        (
            "It stops 1200 seconds later.",
            "RTX 4090s reach 50 tokens/s and 1200s later it stops.",
            "1200 seconds",
            S,
        ),
    ],
)
def test_check_tells_the_models_figures_apart(
    explainer: str, source: str, written: str, expected: object
) -> None:
    assert status(explainer, source, written) == expected
