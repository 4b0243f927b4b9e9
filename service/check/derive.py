"""Derived values: what a writer could compute from the numbers of one source unit (a
rounding, a ratio, a percentage, a difference or a sum)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TYPE_CHECKING, NamedTuple

from service.check.names import Name
from service.check.unit import Hit, Unit
from service.numbers.number import APPROX, LOWER, NO_HEDGE, QUANTITY, RANGE, UPPER, Hedge, Number

if TYPE_CHECKING:
    from service.check.index import SourceIndex


def quantize(value: Decimal, exp: int) -> Decimal | None:
    """``value`` rounded half up to the digit ``10**exp`` (None when it cannot be)."""
    try:
        return value.quantize(Decimal(1).scaleb(exp), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return None


_RATIO_UNITS = frozenset({"x", "%", "pp"})
_CITATION = re.compile(r"\[[\d,\s\-–]+\]")


Operand = tuple[Decimal, str, str]  # (value, unit, text)


def operands(unit: Unit) -> list[Operand]:
    """(value, unit, text) of the numbers of a source unit that arithmetic may combine:
    quantities and both ends of a change; no multipliers, no citation marks ("[5,6]")."""
    cited = [m.span() for m in _CITATION.finditer(unit.text, unit.start, unit.end)]
    out: list[Operand] = []
    for n in unit.numbers:
        if n.value is None or n.unit == "x" or any(a <= n.start < b for a, b in cited):
            continue
        if n.kind == QUANTITY:
            out.append((n.value, n.unit, n.text))
        elif n.kind == RANGE and n.change and n.high is not None:
            out.extend([(n.value, n.unit, n.text), (n.high, n.unit, n.text)])
    return out


class Derived(NamedTuple):
    """A value computable in source unit ``unit``: the ``how`` of ``a`` and ``b`` (a named
    tuple: a source's table holds hundreds of them, and a tuple is built in a fraction of
    a frozen dataclass's time)."""

    value: Decimal
    unit: int
    how: str
    a: Decimal
    b: Decimal
    a_text: str
    b_text: str


# A writer computes from figures that stand near each other: each operand is paired with
# the few before and after it. Pairing all of them was quadratic: a unit of 10,000 bare
# numbers (a pasted data column with no sentence end) took a minute to index.
_NEAR_OPERANDS = 8


def combinations(u: int, ops: list[Operand], target: str) -> Iterator[Derived]:
    """Values computable from two numbers of unit ``u`` (its :func:`operands`), near each
    other, for a number with unit ``target``."""
    for i, (a, a_unit, a_text) in enumerate(ops):
        if not _combines(target, a_unit):
            continue  # nothing computed from numbers of this unit (a bare count for "x")
        for j in range(max(0, i - _NEAR_OPERANDS), min(len(ops), i + _NEAR_OPERANDS + 1)):
            b, b_unit, b_text = ops[j]
            if i == j or a_unit != b_unit or not b:
                continue
            for value, how in _combine(target, a, b, a_unit):
                yield Derived(value, u, how, a, b, a_text, b_text)


def _combines(target: str, unit: str) -> bool:
    """Whether :func:`_combine` computes anything from two numbers of ``unit``."""
    if target == "x":
        return bool(unit) and unit not in _RATIO_UNITS
    return (target == "%" and unit != "%") or target == unit


def _combine(target: str, a: Decimal, b: Decimal, unit: str) -> list[tuple[Decimal, str]]:
    """What a writer could compute from a and b for a number with unit ``target``."""
    if target == "x":
        # The larger over the smaller: "6.2x" for 7,290 and 1,170 us. A fraction is written
        # as a share ("84% of the BF16 throughput"), and one "0.8x" for 5,996 and 7,156
        # was a figure that happened to land on it.
        return [(a / b, "ratio")] if unit and unit not in _RATIO_UNITS and a > b else []
    if target == "%" and unit != "%":
        return [(a / b * 100, "percentage"), (abs(a - b) / b * 100, "percent change")]
    if target == unit:
        return [(abs(a - b), "difference"), (a + b, "sum")]
    return []


def multipliers_of_gain(idx: SourceIndex, q: Number) -> Iterator[Hit]:
    """Source multipliers that a percent gain ``q`` ("10% faster") states as a percentage:
    1.10x, or one that rounds to it at the digits ``q`` gives (1.134x for "13% faster"),
    for the writer computed 1.134 - 1 = 13.4%; or one with fewer digits than ``q`` that
    is its value exactly, as a whole percentage (1.1x for "10% faster": its last digit
    is a zero the multiplier implies; "13%" or "10.0% faster" is no 1.1x). A hedged
    gain finds these too, of a bound of its side (:func:`_bound_ok`). The caller says
    that ``q`` is a gain."""
    if q.unit != "%" or q.value is None or q.value <= 0:
        return
    value, exp = 1 + q.value / 100, q.exp - 2
    whole = q.exp >= 0  # "10%", not "10.0%": a digit past the multiplier's is a claim
    half = Decimal(5).scaleb(exp - 1)
    table = idx.multipliers()
    lo = bisect.bisect_left(table, value - half, key=lambda h: h[1].value or Decimal(0))
    for h in table[lo:]:
        assert h[1].value is not None
        if h[1].value > value + half:
            break
        rounds = h[1].exp <= exp and quantize(h[1].value, exp) == value
        if (rounds or (whole and h[1].value == value)) and _bound_ok(q.hedge, h[1], value):
            yield h


def _bound_ok(hedge: Hedge, m: Number, value: Decimal) -> bool:
    """Whether a gain hedged "up to" or "over" may restate multiplier ``m`` (``value``:
    the gain as a multiplier): a bound of the same side ("up to 13% faster" for
    "peaking at 1.13x"), on that side of the gain when rounded ("up to 13%" is no
    1.134x); no hedge and "about" go with any multiplier."""
    if hedge not in (UPPER, LOWER):
        return True
    assert m.value is not None
    if m.hedge != hedge:
        return False
    return m.value <= value if hedge == UPPER else m.value >= value


def said_near(unit: Unit, names: Sequence[Name]) -> bool:
    """Whether the paragraph of a source multiplier names all ``names`` (a percent gain's
    names: those of its whole clause in the explainer, not only the six words around it)
    up to the end of its sentence: its label ("**BF16.**") and its sentence mostly. A
    gain is a computation from one figure: the names must stand with that figure, not
    only in a heading over it ("Grouped GEMM is 10% faster" is no gain of a 1.10x under
    "Dense GEMM"). A table row has no sentence: its label and headings."""
    if not names:
        return True
    end = unit.sentence[1]
    if not end:
        return all(unit.mentions(x) for x in names)
    return all(x.pattern.search(unit.text, 0, end) is not None for x in names)


def rounding_exps(q: Number) -> range:
    """The digits ``q`` may be a rounding to: its last written one; under a hedge, the
    trailing zeros of a whole number are no digits ("about 3,000 commits" rounds 2,995
    to the thousand, or the ten, :func:`close_to` it; a bare "3,000" claims every
    digit)."""
    if q.hedge is NO_HEDGE or q.exp != 0 or q.value is None or not q.value:
        return range(q.exp, q.exp + 1)
    digits = str(abs(q.value.to_integral_value()))
    if q.value != q.value.to_integral_value() or len(digits) > 40:
        return range(q.exp, q.exp + 1)
    return range(0, len(digits) - len(digits.rstrip("0")) + 1)


def close_to(q: Number, theirs: Number) -> bool:
    """Whether a source value is within 5% of a hedged whole number rounded past its
    last written digit: "about 500" for 487, not "about 10%" for 7% (a rounding to the
    ten, but no figure a reader would take 7% for)."""
    assert q.value is not None and theirs.value is not None
    return abs(theirs.value - q.value) * 20 <= abs(q.value)


def rounding_hedge_ok(q: Number, theirs: Number) -> bool:
    """Whether a hedged rounding says which side of it the source value lies on: "nearly
    2x" (upper) for 1.95x, "over 2x" (lower) for 2.04x; not "nearly 2x" for 2.04x. A
    source bound of the same direction holds when the rounding does not cut it ("up to
    2x" for "up to 1.95x"); "about" and no hedge go with any rounding, as with any value.
    A source value written with "about" is taken as written."""
    if q.hedge in (NO_HEDGE, APPROX):
        return True
    assert q.value is not None and theirs.value is not None
    if theirs.hedge not in (NO_HEDGE, APPROX, q.hedge):
        return False  # an approximate value has a side too: "nearly 20%" for "about 19%"
    if q.hedge == UPPER:
        return theirs.value < q.value or (theirs.hedge == UPPER and theirs.value == q.value)
    return theirs.value > q.value or (theirs.hedge == LOWER and theirs.value == q.value)
