"""A change the source writes the other way round, said of its names the other way round:
"SDPA is 2x slower than FlashAttention" says what "FlashAttention is 2x faster than
SDPA" says (its subject and its baseline swapped, the opposite word is right), where
"FlashAttention is 2x slower than SDPA" turns the result around. Only names decide: a
clause whose names cannot be told apart ("The kernel is 10% faster" for "The kernel is
10% slower") keeps the change turned, which the check flags."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.check.index import SourceIndex
from service.check.names import Name
from service.check.scope import Clause, figure_scope
from service.check.unit import Hit, Unit
from service.numbers import Number
from service.numbers.direction import DOWN, FASTER, SLOWER, direction, speed

# What the baseline of a comparison follows ("2x faster than SDPA", "a 1.5x speedup over
# SDPA", "10 % schneller als SDPA").
_THAN = re.compile(
    r"\b(?:than|over|against|vs\b\.?|versus|compared\s+(?:to|with)|relative\s+to|als"
    r"|gegenüber)\b",
    re.I,
)


def _sides(
    s: str, names: Sequence[Name], a: int, b: int, n: Number
) -> tuple[frozenset[str], frozenset[str]]:
    """The keys of ``names`` before figure ``n`` in its clause ``s[a:b]`` (its subject)
    and of those after a "than" (its baseline). The "than" may stand before the figure
    ("| Rowwise FP8 vs BF16 | +13.4% |", "Compared to BF16, FP8 is ..."): what follows it
    is no subject."""
    than = _THAN.search(s, a, b)
    cut = n.start if than is None else min(than.start(), n.start)
    subject = frozenset(x.key for x in names if a <= x.start and x.end <= cut)
    if than is None:
        return subject, frozenset()
    return subject, frozenset(x.key for x in names if than.end() <= x.start and x.end <= b)


def swapped_sides(
    s: str, span: tuple[int, int], n: Number, names: Sequence[Name], unit: Unit, m: Number
) -> bool:
    """Whether the explainer's figure ``n`` (its clause ``span`` of ``s``, its sentence's
    ``names``) and the source's ``m`` of ``unit`` are said of their names swapped: a name
    of each one's subject is the other's baseline, and no name stands on the same side
    in both (one name moved is no swap: "Dense models drop 13.4% over BF16" for
    "| Rowwise FP8 vs BF16 | +13.4% |")."""
    subject, baseline = _sides(s, names, span[0], span[1], n)
    if not (subject and baseline):
        return False
    a, b = figure_scope(unit.text, unit.numbers, m, unit.start, unit.end)
    patterns = {x.key: x.pattern for x in names}
    found = [
        Name(at.start(), at.end(), key, pattern)
        for key, pattern in patterns.items()
        for at in pattern.finditer(unit.text, a, b)
    ]
    their_subject, their_baseline = _sides(unit.text, found, a, b, m)
    if subject & their_subject or baseline & their_baseline:
        return False
    return bool(subject & their_baseline and baseline & their_subject)


def hit_direction(idx: SourceIndex, h: Hit) -> int:
    """The direction a source figure is written with (memoised per source)."""
    key = (h[0], h[1].start)
    found = idx.directions.get(key)
    if found is None:
        found = idx.directions[key] = direction(idx.units[h[0]].text, h[1])
    return found


def _slowdown_for_speedup(clause: Clause, n: Number, unit: Unit, m: Number) -> bool:
    """Whether the explainer's ``n`` is "a 10% slowdown" and the source's ``m`` "a 10%
    speedup" or "10% faster". A slowdown's direction is DOWN, not SLOWER (so that "-12%"
    backs it and "+12%" does not), and so is compared with the source's direction, which
    a word of speed is no UP of: the source's word of speed is asked here."""
    return speed(unit.text, m) == FASTER and speed(clause.sentence.text, n) == SLOWER


def turned_round(
    idx: SourceIndex, h: Hit, way: int, n: Number, clause: Clause | None, names: Sequence[Name]
) -> bool:
    """Whether source figure ``h`` says the change the explainer's ``n`` (written with the
    direction ``way``, in its ``clause``) says the other way round: written with the
    opposite direction (a change of speed by the source's word of speed alone: "10%
    faster" is no "10% lower latency"), and not of the names swapped."""
    unit = idx.units[h[0]]
    theirs = speed(unit.text, h[1]) if way in (FASTER, SLOWER) else hit_direction(idx, h)
    if theirs != -way and not (
        way == DOWN and clause is not None and _slowdown_for_speedup(clause, n, unit, h[1])
    ):
        return False
    return clause is None or not swapped_sides(
        clause.sentence.text, clause.span, n, names, unit, h[1]
    )
