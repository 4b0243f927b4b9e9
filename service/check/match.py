"""Matching: the verdict on one number of the explainer against the indexed source (as
written; else a range end, a rounding, a computation or a span: derived; else written
for other things: misattached; else unsupported). Which of the source's figures of a value
hold the number's binding is read in :mod:`.first_bound`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from service.check.bind import Binding
from service.check.derive import (
    arithmetic as derived_value,
)
from service.check.derive import (
    close_to,
    multipliers_of_gain,
    rounding_exps,
    rounding_hedge_ok,
    said_near,
)
from service.check.first_bound import first_bound
from service.check.index import SourceIndex
from service.check.names import Name
from service.check.scope import after_across
from service.check.turned import hit_direction, turned_round
from service.check.unit import Hit, Unit
from service.frozen import slot_init
from service.models import CheckStatus
from service.numbers import Hedge, Number
from service.numbers.direction import DOWN, NONE, UP
from service.numbers.number import APPROX, LOWER, NO_HEDGE, QUANTITY, UPPER, WORD, updated
from service.numbers.words import counts_events


def _unit_ok(mine: Number, theirs: Number) -> bool:
    if mine.unit:
        return mine.unit == theirs.unit
    # A bare figure takes any unit, but a count of events or of runs no multiplier: "ran
    # 3 times" or "the median of 3 runs" (Number.runs) is not the source's "3x faster"
    # (the unit is tested first: most hits have none).
    return theirs.unit != "x" or not (mine.runs or counts_events(mine))


def _hedge_ok(mine: Hedge, theirs: Hedge) -> bool:
    if mine in (NO_HEDGE, APPROX):
        return True
    return mine == theirs


@slot_init
@dataclass(frozen=True, slots=True)
class Outcome:
    """A verdict and the source unit that backs it."""

    status: CheckStatus
    unit: int | None = None
    reason: str | None = None


def _spans(unit: Unit, like: Number) -> list[tuple[tuple[Decimal, int], tuple[Decimal, int]]]:
    """Per unit of measure, the (min, max) of the values and range ends of a source unit
    that a range like ``like`` could span (its own unit, any unit when it is bare; its
    hedge: "more than 2-8x" spans no "roughly 2-8x", whose ends are values too)."""
    by_unit: dict[str, list[tuple[Decimal, int]]] = {}
    for n in unit.numbers:
        if (
            n.value is None
            or n.kind == WORD
            or not _unit_ok(like, n)
            or not _hedge_ok(like.hedge, n.hedge)
        ):
            continue
        values = by_unit.setdefault(n.unit, [])
        values.append((n.value, n.exp))
        if n.high is not None:
            values.append((n.high, n.high_exp))
    return [
        (min(v, key=lambda x: x[0]), max(v, key=lambda x: x[0]))
        for v in by_unit.values()
        if len(v) >= 2
    ]


_RANK = {
    CheckStatus.SUPPORTED: 3,
    CheckStatus.DERIVED: 2,
    CheckStatus.MISATTACHED: 1,
    CheckStatus.UNSUPPORTED: 0,
}
_TURNED = {UPPER: LOWER, LOWER: UPPER}


def _never() -> bool:
    return False


def match_quantity(
    idx: SourceIndex,
    q: Number,
    binding: Binding,
    way: Callable[[], int] | None = None,
    gain: Callable[[], bool] = _never,
    across: bool = False,
    names: Sequence[Name] = (),
    keep: Callable[[Hit], bool] | None = None,
) -> Outcome:
    """A single value, with its unit, precision, hedge and ``way``: the direction of the
    change the explainer writes it with (:func:`direction`; read only when needed, None
    when it can have none). ``across``: "over 24 cases" may say "across", as a source
    count after "across" or "over" says it (:func:`after_across`). ``keep``: the source
    figures that may back it, without ``way`` (all when None).

    A change written with words matches the source's signed value ("drops 12%" for
    "-12%"), a signed value the source's words ("-12%" for "12% lower"); a source figure
    of the other direction backs neither ("rises 12%" for "-12%", nor for "drops 12%").
    A percentage the explainer states as a gain (``gain``: "10% faster") the source does
    not write is derived from a multiplier it does (1.10x)."""
    outcome = (
        _match_quantity(idx, q, binding, keep)
        if way is None
        else _signed(idx, q, binding, way, names)
    )
    if across and outcome.status == CheckStatus.UNSUPPORTED:
        keep = lambda h: after_across(idx.units[h[0]], h[1])  # noqa: E731
        spread = _match_quantity(idx, updated(q, hedge=NO_HEDGE), binding, keep)
        return spread if spread.status == CheckStatus.SUPPORTED else outcome
    if outcome.status != CheckStatus.UNSUPPORTED or q.unit != "%":
        return outcome
    found = list(multipliers_of_gain(idx, q)) if gain() else []
    if not found:
        return outcome
    # Of the names of its whole clause, each in the sentence of the multiplier (:func:`said_near`).
    a, b = binding.clause.span if binding.clause is not None else (q.start, q.end)
    mine = {x.key: x for x in (*binding.names, *(x for x in names if a <= x.start < b))}
    hits = [h for h in found if said_near(idx.units[h[0]], tuple(mine.values()))]
    unit = first_bound(idx, hits, binding).unit if hits else None
    if unit is None:
        why = f"the source gives {found[0][1].text} for other things than {', '.join(mine)}"
        return Outcome(CheckStatus.MISATTACHED, found[0][0], why.replace("\x00", "-"))
    hit = next(h for h in hits if h[0] == unit)
    return Outcome(CheckStatus.DERIVED, unit, f"{hit[1].text} as a percent gain")


def _signed(
    idx: SourceIndex,
    q: Number,
    binding: Binding,
    way: Callable[[], int],
    names: Sequence[Name] = (),
) -> Outcome:
    """:func:`match_quantity` for a figure of a sentence with a sign or a word of a
    direction, without the gain from a multiplier. A source figure of the other
    direction backs it where the two say it of their names swapped ("B is 2x slower
    than A" for "A is 2x faster than B": :func:`.turned.turned_round`)."""
    assert q.value is not None

    def keep(h: Hit) -> bool:  # a source figure's direction is read only for a change
        w = way()
        return w == NONE or not turned_round(idx, h, w, q, binding.clause, names)

    outcome = _match_quantity(idx, q, binding, keep)
    if outcome.status == CheckStatus.SUPPORTED:
        return outcome
    flip: Callable[[Hit], bool] | None
    if q.value < 0:  # the source's words: "12% lower"
        flip = lambda h: hit_direction(idx, h) == DOWN  # noqa: E731
    elif way() == DOWN:  # the source's signed value: "-12%"
        flip = None
    else:
        if way() != NONE and outcome.status == CheckStatus.UNSUPPORTED:
            turned = [h for h in idx.singles.get(q.value, []) if not keep(h)]
            if way() in (DOWN, UP):  # ("-2x" is no change of speed)
                turned += [h for h in idx.singles.get(-q.value, []) if h[1].kind == QUANTITY]
            if turned:
                return _turned(turned)
        return outcome
    # The value of the other sign; a bound keeps its side of the change ("fell by nearly
    # 12%" is a value above -12%).
    signed = updated(q, value=-q.value, hedge=_TURNED.get(q.hedge, q.hedge))
    other = _match_quantity(idx, signed, binding, flip, arithmetic=False)
    best = other if _RANK[other.status] > _RANK[outcome.status] else outcome
    if q.value > 0 and best.status == CheckStatus.UNSUPPORTED:
        # A change down the source writes up ("a 10% slowdown" for "a 10% speedup",
        # "drops 12%" for "+12%") says so, as a change up does.
        turned = [h for h in idx.singles.get(q.value, []) if not keep(h)]
        if turned:
            return _turned(turned)
    return best


def _turned(turned: Sequence[Hit]) -> Outcome:
    """Unsupported: the source's figures ``turned`` say the change the other way round."""
    reason = f"the source's change goes the other way ({turned[0][1].text})"
    return Outcome(CheckStatus.UNSUPPORTED, None, reason)


def _match_quantity(
    idx: SourceIndex,
    q: Number,
    binding: Binding,
    keep: Callable[[Hit], bool] | None,
    *,
    arithmetic: bool = True,
) -> Outcome:
    """:func:`match_quantity` for the hits ``keep`` keeps (all when None)."""
    assert q.value is not None
    hits = idx.singles.get(q.value, [])
    exact = [
        h
        for h in hits
        if _unit_ok(q, h[1])
        and (
            (h[1].kind == QUANTITY and _hedge_ok(q.hedge, h[1].hedge) and h[1].exp == q.exp)
            or (h[1].kind == WORD and q.exp == 0 and _hedge_ok(q.hedge, h[1].hedge))
        )
        and (keep is None or keep(h))
    ]
    first = first_bound(idx, exact, binding, exact=True)
    if first.unit is not None:
        return Outcome(CheckStatus.SUPPORTED, first.unit)
    lent = first.lent
    # A range end: supported when a hedge names that end, else derived.
    for ends, which, hedge in (
        (idx.range_highs, "high", UPPER),
        (idx.range_lows, "low", LOWER),
    ):
        cands = [
            h
            for h in ends.get(q.value, [])
            if _unit_ok(q, h[1])
            and (h[1].high_exp if which == "high" else h[1].exp) == q.exp
            and (keep is None or keep(h))
        ]
        end = first_bound(idx, cands, binding)
        lent = lent or end.lent
        end_unit = end.unit
        if end_unit is not None and q.hedge in (hedge, NO_HEDGE, APPROX):
            if q.hedge == hedge:
                return Outcome(CheckStatus.SUPPORTED, end_unit)
            return Outcome(CheckStatus.DERIVED, end_unit, f"the {which} end of a source range")
    if lent is not None:
        # The value stands with all the explainer's names, but said of other things: a
        # rounding or a computation that lands on it is a coincidence ("2x on H100" for
        # "2x on A100 and 1.5x on H100" is no rounding of 1.5x).
        return _misattached(idx, first.anywhere, binding, lent)
    # A rounding of a more precise source number.
    cands = [
        h
        for exp in rounding_exps(q)
        for h in idx.rounded(exp).get(q.value, [])
        if q.unit == h[1].unit  # a rounding keeps its unit: 1.7 is no rounding of 1.68x
        and rounding_hedge_ok(q, h[1])
        and (exp == q.exp or close_to(q, h[1]))
        and (keep is None or keep(h))
    ]
    rounding = first_bound(idx, cands, binding)
    lent, unit = lent or rounding.lent, rounding.unit
    if unit is not None:
        hit = next(h for h in cands if h[0] == unit)
        return Outcome(CheckStatus.DERIVED, unit, f"rounded from {hit[1].text}")
    found = derived_value(idx, q, binding) if arithmetic else None
    if found is not None:
        return Outcome(CheckStatus.DERIVED, found[0], found[1])
    if first.anywhere is not None or lent is not None:
        return _misattached(idx, first.anywhere, binding, lent, first.why)
    return Outcome(CheckStatus.UNSUPPORTED, None, _why_not(idx, q, hits))


def _misattached(
    idx: SourceIndex,
    unit: int | None,
    binding: Binding,
    lent: tuple[int, tuple[str, ...]] | None = None,
    why: str = "",
) -> Outcome:
    """The source has the number in ``unit``, but not with what the explainer binds it to
    (``lent``: in a unit that says it of other things, named, and gives the explainer's
    name to another figure; ``why``: what ``unit`` says against it)."""
    if lent is not None:
        said_of = ", ".join(lent[1])
        return Outcome(CheckStatus.MISATTACHED, lent[0], f"the source gives it for {said_of}")
    assert unit is not None
    if why:
        return Outcome(CheckStatus.MISATTACHED, unit, why)
    missing = ", ".join(binding.missing(idx.units[unit].context))
    return Outcome(
        CheckStatus.MISATTACHED, unit, f"the source gives it for other things ({missing} not there)"
    )


def _why_not(idx: SourceIndex, q: Number, hits: list[Hit]) -> str:
    for _, h in hits:
        if h.kind != QUANTITY:
            continue
        if q.unit and h.unit != q.unit:
            return f"the source writes {h.text}, with another unit"
        if not _unit_ok(q, h):
            return f"the source writes {h.text}, a multiplier"
        if h.exp > q.exp:
            return f"more precise than the source ({h.text})"
        if not _hedge_ok(q.hedge, h.hedge):
            return f"the hedge turns around the source's ({h.hedge.value} bound {h.text})"
    if q.value is not None and (q.value in idx.range_lows or q.value in idx.range_highs):
        return "the source has it only as a range end, with another hedge or unit"
    return "not in the source"


def match_range(idx: SourceIndex, r: Number, binding: Binding) -> Outcome:
    """A range: both ends as a source range, or the span of several source values."""
    assert r.value is not None and r.high is not None
    hits = idx.ranges.get((r.value, r.high), [])
    exact = [
        h
        for h in hits
        if _unit_ok(r, h[1])
        and _hedge_ok(r.hedge, h[1].hedge)
        and h[1].exp == r.exp
        and h[1].high_exp == r.high_exp
    ]
    first = first_bound(idx, exact, binding, exact=True)
    if first.unit is not None:
        return Outcome(CheckStatus.SUPPORTED, first.unit)
    ends = _change_ends(idx, r, binding) if r.change else None
    if ends is not None:
        return Outcome(CheckStatus.SUPPORTED, ends)
    # The span of several values or ranges of one sentence (min to max); not for a change,
    # which says which value came first ("went from 5,996 to 7,156" is no span of
    # "5,996 -> 7,027 vs 7,156").
    lows = (
        set()
        if r.change
        else {u for u, _ in idx.singles.get(r.value, [])}
        | {u for u, _ in idx.range_lows.get(r.value, [])}
    )
    highs = {u for u, _ in idx.singles.get(r.high, [])} | {
        u for u, _ in idx.range_highs.get(r.high, [])
    }
    for u in sorted(lows & highs):
        unit = idx.units[u]
        if not binding.holds(unit):
            continue
        for lo, hi in _spans(unit, r):
            if (lo, hi) == ((r.value, r.exp), (r.high, r.high_exp)):
                return Outcome(CheckStatus.DERIVED, u, "the span of several values in one sentence")
    if first.anywhere is not None:
        return _misattached(idx, first.anywhere, binding, first.lent, first.why)
    if hits:
        return Outcome(CheckStatus.UNSUPPORTED, None, f"the source writes {hits[0][1].text}")
    return Outcome(CheckStatus.UNSUPPORTED, None, "not in the source as a range")


def _change_ends(idx: SourceIndex, r: Number, binding: Binding) -> int | None:
    """A source unit that writes both ends of the change ``r`` as values of their own, in
    its order ("from roughly 6,000 tokens down to about 1,500" for "from 6,000 to 1,500
    tokens"): a change is two measured values, and the source need not write them as
    one range. (A change the source writes as one is matched as a range, and only so:
    its ends have no order of their own here, "from 1,500 to 6,000" would pass too.)"""
    assert r.value is not None and r.high is not None
    highs: dict[int, list[int]] = {}
    for u, h in idx.singles.get(r.high, []):
        if h.kind == QUANTITY and not h.change and h.exp == r.high_exp and _unit_ok(r, h):
            highs.setdefault(u, []).append(h.start)
    for u, h in idx.singles.get(r.value, []) if highs else []:
        if (
            u in highs
            and h.kind == QUANTITY
            and not h.change
            and h.exp == r.exp
            and _unit_ok(r, h)
            and _hedge_ok(r.hedge, h.hedge)
            and any(h.start < b for b in highs[u])
            and binding.holds(idx.units[u], h)
        ):
            return u
    return None
