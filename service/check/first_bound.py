"""Which source figures hold a number's binding: of the source's figures of its value
(its hits), the first whose unit says it of the same things, else why none does (the
first hit's clause says against it, or its names are lent to another figure of the
explainer's), read for each candidate set of a match (:mod:`.match`: as written, a
range end, a rounding, a multiplier of a gain)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from service.check.antecedent import said_before
from service.check.bind import Binding
from service.check.index import SourceIndex
from service.check.said import borrowed, of_title
from service.check.setting import opposite_setting
from service.check.unit import Hit
from service.frozen import slot_init


@slot_init
@dataclass(frozen=True, slots=True)
class _Bound:
    """Which hits of a number hold its binding: the first that does, the first of all,
    and the first whose names are borrowed (with what the source says it of)."""

    unit: int | None
    anywhere: int | None
    lent: tuple[int, tuple[str, ...]] | None = None
    why: str = ""  # what the first hit's clause says against the explainer's figure


def first_bound(
    idx: SourceIndex, hits: Sequence[Hit], binding: Binding, *, exact: bool = False
) -> _Bound:
    """The first hit whose context holds the binding, as unit indices.

    Names carried from an earlier explainer sentence are looked for in the source
    sentence and the one before it, then, failing that, anywhere before it in its
    paragraph: the explainer carries the topic of the last sentence that named one, and
    a sentence it copies from the source must not be misattached. A hit whose unit gives
    one of the explainer's names to another of its figures, and this one to things the
    explainer does not name, does not hold (:func:`borrowed`). ``exact``: the hits are
    the value as written, whose setting is read too (:func:`_turned_setting`)."""
    any_hit = hits[0][0] if hits else None
    lent: tuple[int, tuple[str, ...]] | None = None
    if binding.nouns and not binding.names and len(hits) > 1:
        # Bound by nouns, any one of which holds: the hit with the most of them.
        best, most, closest, nearest, chosen = None, 0, 0, hits[0], hits[0]
        for unit, number in hits:
            near = binding.nouns_near(idx.units[unit], number, strict=False)
            if near > closest:
                closest, nearest = near, (unit, number)
            if near > most and not binding.against(idx.units[unit], number):
                best, most, chosen = unit, near, (unit, number)
        turned = _turned_setting(idx, hits, binding, chosen) if best is not None and exact else None
        if turned is not None:
            return _Bound(None, turned[0], turned)
        # Of none: the hit whose nouns are nearest tells what the source counts there.
        why = binding.against(idx.units[nearest[0]], nearest[1]) if closest and best is None else ""
        return _Bound(best, nearest[0] if why else any_hit, why=why)
    for unit, number in hits:
        if binding.holds(idx.units[unit], number):
            # (The names past its six words too: "1.58x ... across the 17 shapes for MXFP4".)
            mine = (*binding.names, *binding.far) if binding.far else binding.names
            other = borrowed(idx, unit, number, mine, binding.listed) if mine else ()
            if not other:
                turned = _turned_setting(idx, hits, binding, (unit, number)) if exact else None
                if turned is not None:
                    return _Bound(None, turned[0], lent or turned)
                return _Bound(unit, any_hit, lent)
            lent = lent or (unit, other)
    if binding.inherited and not binding.names and not binding.nouns:
        for unit, number in hits:
            if binding.holds(idx.units[unit], number, paragraph=True):
                return _Bound(unit, any_hit, lent)
    # Names of the post's subject, in its title and not in the clause.
    titled, blocked = of_title(idx, hits, binding) if lent is None else (None, None)
    if titled is not None:
        return _Bound(titled, any_hit)
    # Names of the sentence before, which the figure's clause points back to ("The result").
    pointed = said_before(idx, hits, binding) if lent is None and blocked is None else None
    if pointed is not None:
        return _Bound(pointed[0], pointed[1], why=pointed[2])
    # What the first hit (the one a misattached verdict shows) says against the figure,
    # else the source's own name for it that held a title's name off, where it says it.
    why = binding.refuted(idx.units[hits[0][0]], hits[0][1]) if hits else ""
    if not why and blocked is not None:
        return _Bound(None, blocked[0], lent, blocked[1])
    return _Bound(None, any_hit, lent, why)


def _turned_setting(
    idx: SourceIndex, hits: Sequence[Hit], binding: Binding, chosen: Hit
) -> tuple[int, tuple[str, ...]] | None:
    """:func:`opposite_setting` for a figure whose clause names a side of a pair (few), as
    names lent (what the source gives it for: a rounding or computation landing on the
    value is a coincidence); ``chosen``: the hit that holds, by names and clause."""
    clause = binding.clause
    if clause is None or not clause.marks:
        return None
    holds = lambda h: binding.names_hold(idx.units[h[0]], h[1])  # noqa: E731
    found = opposite_setting(clause, idx, hits, holds, chosen)
    return None if found is None else (found[0], (f'the opposite ("{found[1]}")',))
