"""numbers: a literal number assigned to a keyword in code ("min=2") is a figure, and the
side a keyword states ("max=128": a maximum)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from service.numbers import Hedge, Kind, extract_numbers
from service.numbers.context import stated_bounds, stated_extreme
from service.numbers.keywords import keyword_value, with_keyword


@pytest.mark.parametrize(
    ("text", "found"),
    [
        # Were the identifiers "min=2" and "max=128", which no explainer writes.
        ('ShapeVar("batch", min=2, max=128)', [("2", "2"), ("128", "128")]),
        ("max_tokens=4096", [("4096", "4096")]),
        ("--max-model-len=8192", [("8192", "8192")]),
        ("maxTokens=4096", [("4096", "4096")]),
        ("timeout=1.5s", [("1.5s", "1.5")]),
        ("sizes=8-256", [("8-256", "8")]),
    ],
)
def test_a_keyword_value_is_a_figure(text: str, found: list[tuple[str, str]]) -> None:
    nums = extract_numbers(text)
    assert [(n.text, str(n.value)) for n in nums] == found
    assert all(n.kind in (Kind.QUANTITY, Kind.RANGE) for n in nums)


@pytest.mark.parametrize(
    "text",
    [
        "TP=1",  # a setting in capitals: compared as written
        "USE_HW_AGNOSTIC=1",
        "fp8=1",  # a name with a digit
        "fp8=True",
        "n=8",  # a formula's variable
        "eps=1e-5",  # a scientific value stays the identifier it was
        "metric#bytes=1273367",
    ],
)
def test_other_assignments_stay_identifiers(text: str) -> None:
    (n,) = extract_numbers(text)
    assert (n.kind, n.text) == (Kind.IDENTIFIER, text.split("#")[-1])


@pytest.mark.parametrize(
    ("text", "side"),
    [
        ('ShapeVar("batch", min=2', Hedge.LOWER),
        ('ShapeVar("batch", max=128', Hedge.UPPER),
        ("max = 128", Hedge.UPPER),
        ('{"max_len": 4096', Hedge.UPPER),
        ("min_len: 16", Hedge.LOWER),
        ("--max-model-len=8192", Hedge.UPPER),
        ("maxTokens=4096", Hedge.UPPER),
        ("size=64", Hedge.NONE),
        ("min_max_ratio=3", Hedge.NONE),  # both: neither
        ("took 5 min: 30", Hedge.NONE),  # minutes
        ("batch 128", Hedge.NONE),
    ],
)
def test_the_side_a_keyword_states(text: str, side: Hedge) -> None:
    n = extract_numbers(text)[-1]
    assert stated_extreme(text, n) is side
    assert stated_bounds(text, [n])[0].hedge is side


def test_the_value_and_its_keyword_as_written() -> None:
    line = 'x = ShapeVar("batch", min=4, max = 128)'
    low, high = extract_numbers(line)
    assert (low.value, with_keyword(line, low)) == (Decimal(4), "min=4")
    assert with_keyword(line, high) == "128"  # spaced: the value alone, as before
    assert keyword_value("min=4") == 4
    assert keyword_value("TP=1") == 0
