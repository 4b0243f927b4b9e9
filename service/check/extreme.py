"""A value the explainer states as a thing's maximum or minimum ("e4m3fnuz has a minimum
of 240"): its value, which a plain source figure backs, but of its side: no source
figure stated or bounded on the other side backs it (a hedge keeps its direction)."""

from __future__ import annotations

from service.check.bind import Binding
from service.check.index import SourceIndex
from service.check.match import Outcome, match_quantity
from service.check.unit import Hit
from service.models import CheckStatus
from service.numbers import Hedge, Number
from service.numbers.number import LOWER, RANGE, UPPER


def match_extreme(idx: SourceIndex, q: Number, binding: Binding, side: Hedge) -> Outcome:
    """:func:`match_quantity` for ``q`` stated as a maximum (``side`` UPPER) or minimum
    (LOWER), of the source figures not of the other side: not "has a max of 240" nor
    "up to 240", nor the high end of "10 to 240", for "has a minimum of 240"."""
    assert q.value is not None
    value, upper = q.value, side is UPPER

    def keep(h: Hit) -> bool:
        n = h[1]
        if n.kind == RANGE:  # a range's high end is its maximum, its low end its minimum
            return (n.value if upper else n.high) != value or n.value == n.high
        return n.hedge is side or n.hedge not in (UPPER, LOWER)

    outcome = match_quantity(idx, q, binding, keep=keep)
    if outcome.status != CheckStatus.UNSUPPORTED:
        return outcome
    ends = idx.range_lows if upper else idx.range_highs
    turned = [h for h in (*idx.singles.get(value, ()), *ends.get(value, ())) if not keep(h)]
    if not turned:
        return outcome
    other = "minimum" if upper else "maximum"
    reason = f"the source has it as a {other}, a bound of the other side ({turned[0][1].text})"
    return Outcome(CheckStatus.UNSUPPORTED, None, reason)
