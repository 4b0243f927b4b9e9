"""Derived values: what a writer could compute from the numbers of one source unit (a
rounding, a ratio, a percentage, a difference or a sum), or from two cells of one column
of a source table, in two rows the explainer's sentence names ("PP2-512 is about twice
as fast as PP2-256")."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator, Sequence
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import TYPE_CHECKING, NamedTuple

from service.check.compared import (
    amount_claim,
    column_sense,
    in_row_asked,
    named_columns,
    speed_claim,
    way_round,
)
from service.check.names import Name, find_noun
from service.check.scope import opposed
from service.check.table import Row, norm_words
from service.check.unit import Hit, Unit
from service.numbers.number import (
    APPROX,
    LOWER,
    NO_HEDGE,
    QUANTITY,
    RANGE,
    UPPER,
    WORD,
    Hedge,
    Number,
)

if TYPE_CHECKING:
    from service.check.bind import Binding
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
Column = tuple[int, list[int], list[Operand]]  # (column, the unit of each row, operands)


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
    a frozen dataclass's time). ``b`` stands in unit ``other``: ``unit`` itself, or
    another row of its table, ``b`` in the same ``column`` as ``a``."""

    value: Decimal
    unit: int
    how: str
    a: Decimal
    b: Decimal
    a_text: str
    b_text: str
    other: int
    column: int = -1


# A writer computes from figures that stand near each other: each operand is paired with
# the few before and after it. Pairing all of them was quadratic: a unit of 10,000 bare
# numbers (a pasted data column with no sentence end) took a minute to index.
_NEAR_OPERANDS = 8


def combinations(
    u: int, ops: list[Operand], target: str, rows: Sequence[int] = (), column: int = -1
) -> Iterator[Derived]:
    """Values computable from two numbers of unit ``u`` (its :func:`operands`), near each
    other, for a number with unit ``target``; or, given ``rows`` (the unit of each operand),
    from two cells of table column ``column`` (:func:`column_operands`), rows near each
    other."""
    for i, (a, a_unit, a_text) in enumerate(ops):
        if not _combines(target, a_unit):
            continue  # nothing computed from numbers of this unit (a bare count for "x")
        for j in range(max(0, i - _NEAR_OPERANDS), min(len(ops), i + _NEAR_OPERANDS + 1)):
            b, b_unit, b_text = ops[j]
            if i == j or a_unit != b_unit or not b:
                continue
            for value, how in _combine(target, a, b, a_unit):
                if rows:
                    yield Derived(value, rows[i], how, a, b, a_text, b_text, rows[j], column)
                else:
                    yield Derived(value, u, how, a, b, a_text, b_text, u)


def column_operands(units: Sequence[Unit], rows: Sequence[Row]) -> list[Column]:
    """Per column of each source table, the figures its cells hold alone (a quantity, no
    multiplier), with the units of their rows, in order: a column's cells measure one
    thing, so a bare cell takes its column for its unit ("\x00" and the column's number):
    the ratio of two counts of GPUs is read, as no ratio of two bare counts of a sentence
    is. Only same-column pairs are read: across columns, a ratio of the cells of two
    measures is a coincidence."""
    columns: dict[tuple[int, int], tuple[list[int], list[Operand]]] = {}
    for row in rows:
        unit = units[row.unit]
        cells: dict[int, list[Number]] = {}
        column, pos = 0, unit.start
        for n in unit.numbers:  # the separators before each counted once
            column += unit.text.count(" | ", pos, n.start)
            pos = max(pos, n.start)
            cells.setdefault(column, []).append(n)
        for j, found in cells.items():
            n = found[0]
            alone = j and len(found) == 1 and n.kind == QUANTITY and n.unit != "x"
            if alone and n.value is not None:
                at, ops = columns.setdefault((row.header_unit, j), ([], []))
                at.append(row.unit)
                ops.append((n.value, n.unit or f"\x00{j}", n.text))
    return [(j, at, ops) for (_, j), (at, ops) in columns.items() if len(ops) >= 2]


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


class Operands:
    """A source's operands, read once: those of each unit with two or more, and of each
    table column (:func:`column_operands`)."""

    __slots__ = ("columns", "labels", "shared", "units")

    def __init__(self, units: Sequence[Unit], rows: Sequence[Row]) -> None:
        # A computation takes two operands: only the units with two have any (read once
        # per source, not once per unit of measure; most units have none).
        self.units = [
            (u, ops)
            for u, unit in enumerate(units)
            if unit.numbers and len(ops := operands(unit)) >= 2
        ]
        self.columns = column_operands(units, rows)
        # The rows whose label another row of their table shares ("Learned" at 256 GPUs
        # and at 512): the label names neither of them alone.
        seen: dict[tuple[int, str], int] = {}
        for row in rows:
            seen[row.header_unit, row.label] = seen.get((row.header_unit, row.label), 0) + 1
        self.shared = frozenset(r.unit for r in rows if seen[r.header_unit, r.label] > 1)
        self.labels: dict[int, list[str]] = {}  # per table, its labels
        for header, label in seen:
            self.labels.setdefault(header, []).append(label)

    def named(self, row: Row, words: str) -> int:
        """Where ``words`` (a sentence's, normalised) name table row ``row`` by its label,
        not inside another row's label that holds it ("FP8" of "FP8 + fusion"); -1 for
        nowhere, or a label too short or that another row shares."""
        label = row.label
        if len(label) <= 2 or row.unit in self.shared or label not in words:
            return -1
        for other in self.labels.get(row.header_unit, ()):
            if label in other and other != label:
                words = words.replace(other, " " * len(other))
        return words.find(label)

    def derived(self, target: str) -> list[Derived]:
        """Every value computable for a number with unit ``target``, sorted by value."""
        found = [d for u, ops in self.units for d in combinations(u, ops, target)]
        for j, rows, ops in self.columns:
            found.extend(combinations(-1, ops, target, rows, j))
        return sorted(found, key=lambda d: d.value)


def arithmetic(idx: SourceIndex, q: Number, binding: Binding) -> tuple[int, str] | None:
    """A ratio, percentage, difference or sum of two numbers of one source unit (of its
    figure's things: ``binding``), else of two cells of one column of a source table in
    rows the explainer's sentence names (:func:`_across`): the unit and how."""
    if q.value is None or not q.unit or q.kind not in (QUANTITY, WORD):
        return None
    if q.hedge in (UPPER, LOWER):
        return None  # a bound is no computation
    table = idx.derived(q.unit)
    half = Decimal(5).scaleb(q.exp - 1)
    lo = bisect.bisect_left(table, q.value - half, key=lambda d: d.value)
    across: list[tuple[bool, int, str]] = []  # (its column unnamed, unit, how)
    # Two cells of one row in two columns, when the sentence names two rows: a value of
    # one column of both ("98% faster" of PP2-512's and PP2-256's Global TPS) is the one
    # computed, not 128 (DP) and 5,324.21 (TPS/GPU) of one that land on it too.
    in_row: tuple[int, str] | None = None
    for d in table[lo:]:
        if d.value > q.value + half:
            break
        if q.value in (d.a, d.b) or quantize(d.value, q.exp) != q.value:
            continue  # 38% - 19% = 19% is a coincidence, not a derivation
        if d.other == d.unit:
            if binding.holds(idx.units[d.unit]):
                found = d.unit, f"{d.how} of {d.a_text} and {d.b_text}"
                if d.unit not in idx.row_of or binding.clause is None:
                    return found  # (no clause: no value of two rows to prefer)
                if in_row is None and in_row_asked(idx, d, binding.clause.sentence.text, q):
                    in_row = found
        elif binding.clause is not None and (at := _across(idx, d, binding)) is not None:
            row = idx.row_of[d.unit]
            headers = idx.units[row.header_unit].display.split(" | ")
            header = headers[d.column] if d.column < len(headers) else ""
            words = norm_words(binding.clause.sentence.text)
            named = _of_column(idx, d, at, words, norm_words(q.text))
            if named is not None:
                rows = f"rows {row.label_text} and {idx.row_of[d.other].label_text}"
                how = f"{d.how} of {d.a_text} and {d.b_text} ({rows}, column {header})"
                across.append((not named, d.unit, how))
    return min(across)[1:] if across else in_row


def _of_column(
    idx: SourceIndex, d: Derived, at: tuple[int, int], words: str, figure: str
) -> bool | None:
    """Whether the sentence (``words``, its rows named at ``at``) names the column of a value
    derived from two of its cells; None when it says the value of another column or
    the other way round. A claim of speed ("twice as fast") is of a column of throughput
    or time, the row it says is faster the faster by it ("PP2-256 is twice as fast as
    PP2-512" is no ratio of the Global TPS column, nor of GPUs); a column named as a
    measure ("twice the TPS/GPU of PP2-256") is the one compared: another's cells back
    nothing."""
    row = idx.row_of[d.unit]
    claim = speed_claim(words)
    headers = idx.units[row.header_unit].display.split(" | ")

    def sense(j: int) -> int:
        return column_sense(headers[j] if j < len(headers) else "", row.units[j])

    named = {j for j in named_columns(words, headers) if claim is None or sense(j)}
    if named and d.column not in named:
        return None
    if claim is None:
        # An amount: "PP2-256 has twice the global TPS of PP2-512" is the other way round.
        more = amount_claim(words, figure, d.how)
        # The row before the claim has the larger value (ratio, percent change), or is
        # the part (percentage: a); the base of a percent change is the row after it.
        larger = 0 if d.how == "percentage" or d.a > d.b else 1
        if more is not None and not way_round(more, at, larger, 1):
            return None
        return bool(named)
    way = sense(d.column)
    if not way:
        return None  # "twice as fast" of two counts of GPUs
    if d.how == "ratio" or d.how == "percent change":
        faster = 0 if (d.a > d.b) == (way > 0) else 1
        base = 1 if d.how == "percent change" and way > 0 else -1
        if not way_round(claim, at, faster, base):
            return None
    return bool(named)


def _across(idx: SourceIndex, d: Derived, binding: Binding) -> tuple[int, int] | None:
    """Where the explainer's sentence names both rows of a value derived from a table
    column, each by its label or its cell's figure ("PP2-512 is twice as fast as
    PP2-256", "2,694,493 TPS, about twice the 1,362,998 of the smaller run"): their
    places in its words; None unless it says it of the things of the two rows: each of
    its names in one of them (or their headings), a noun in one, nothing opposite in
    either. A name in a heading over the table is in every row: a ratio of any two cells
    of it would back "FlyDSL is 2x faster" there. A label two rows of the table share
    ("Learned" at 256 GPUs and at 512) names neither (:meth:`Operands.named`)."""
    clause = binding.clause
    assert clause is not None
    s = clause.sentence.text
    words = norm_words(s)
    operands = idx.operands()
    at: list[int] = []
    for u, text in ((d.unit, d.a_text), (d.other, d.b_text)):
        where = operands.named(idx.row_of[u], words)
        if where >= 0:
            at.append(where)
        elif _written(s, text):
            at.append(words.find(norm_words(text)))
        else:
            return None
    a, b = idx.units[d.unit], idx.units[d.other]
    if binding.names:
        held = all(a.mentions(x) or b.mentions(x) for x in binding.names)
    elif binding.nouns:
        held = any(find_noun(x, a.context) or find_noun(x, b.context) for x in binding.nouns)
    else:
        held = all(a.mentions(x, near=True) or b.mentions(x, near=True) for x in binding.inherited)
    if held and not opposed(clause, a, None) and not opposed(clause, b, None):
        return at[0], at[1]
    return None


def _written(s: str, figure: str) -> bool:
    """Whether sentence ``s`` writes a source figure as the source does ("1,362,998")."""
    at = s.find(figure)
    while at >= 0:
        end = at + len(figure)
        if not (at and s[at - 1] in _FIGURE_CHARS) and not s[end : end + 1].isdigit():
            return True
        at = s.find(figure, at + 1)
    return False


_FIGURE_CHARS = frozenset("0123456789.,")


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
