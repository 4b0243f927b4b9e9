"""Two figures of the explainer that are both ends of one source range of consecutive
whole numbers ("October 20 and 21" of "October 20-21"): with nothing between the ends,
the two say what the range says, and are supported by it, not derived from it.

A range whose ends have values between them ("8 and 256" of "8-256") says more than its
ends: each stays derived, an end of a source range.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence

from service.check.index import SourceIndex
from service.numbers import Number
from service.numbers.context import LIST_GAP
from service.numbers.number import NO_HEDGE, QUANTITY, RANGE

# (verdict index, figure, source unit) of a figure the check derived (a range's end,
# which the unit must write as such: :func:`_holds`).
Derived = tuple[int, Number, int]


def _whole(n: Number) -> bool:
    """A bare, unhedged whole number (a count, a day): one with a unit or a fraction
    has values between it and the next ("8 and 9 GB" is no "8-9 GB")."""
    return (
        n.kind == QUANTITY
        and not n.unit
        and n.hedge is NO_HEDGE
        and n.exp == 0
        and n.value is not None
        and n.value == n.value.to_integral_value()
    )


def _holds(idx: SourceIndex, unit: int, low: Number, high: Number) -> bool:
    """Whether the source unit writes the range from ``low`` to ``high`` as a span, bare
    and unhedged (not a change: "rose from 20 to 21" says no day of both)."""
    return any(
        r.kind == RANGE
        and (r.value, r.high) == (low.value, high.value)
        and r.exp == r.high_exp == 0
        and not r.unit
        and r.hedge is NO_HEDGE
        and not r.change
        for r in idx.units[unit].numbers
    )


def consecutive_ends(
    idx: SourceIndex, s: str, derived: Sequence[Derived]
) -> Iterator[tuple[Derived, Derived]]:
    """The pairs of figures of sentence ``s`` (``derived``: its figures the check derived,
    in order) written as a list of two ("20 and 21", "20 or 21", "20, 21") that
    are the low and high end of one source range with the high end one more than the
    low, both units found for them writing it."""
    for a, b in itertools.pairwise(derived):
        low, high = a[1], b[1]
        if not (_whole(low) and _whole(high)):
            continue
        assert low.value is not None and high.value is not None
        if high.value != low.value + 1 or not LIST_GAP.fullmatch(s, low.end, high.start):
            continue
        if _holds(idx, a[2], low, high) and _holds(idx, b[2], low, high):
            yield a, b
