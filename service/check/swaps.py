"""Swaps: two figures of an explainer sentence (or of two neighbouring ones) that the
source says of their names the other way round ("1.20x over Triton and 1.95x over ATen"
of the source's "1.95x over Triton and 1.20x over ATen"), both misattached; and one
figure, the other left out, given the name the source tells from its own ("Blackwell
needs CUDA 13.2+" of "CUDA 13.3+ is required on Blackwell and CUDA 13.2+ on Hopper")."""

from __future__ import annotations

import re
from collections.abc import Container, Mapping, Sequence

from service.check.bind import bind_numbers
from service.check.index import SourceIndex
from service.check.known_names import known_names
from service.check.names import Name
from service.check.said import said_of
from service.check.unit import Unit
from service.models import CheckStatus, NumberVerdict
from service.numbers import Number
from service.numbers.number import QUANTITY, RANGE


def mark_swaps(
    idx: SourceIndex,
    verdicts: list[NumberVerdict],
    said: Sequence[tuple[int, Number, Name, tuple[Name, ...]]],
    first: int = 0,
) -> None:
    """Misattach both of two supported figures of a sentence, given as (verdict index,
    number, name it is said of, its names), that the source says of their names the
    other way round (``first``: where the sentence's own start; those before it are the
    paragraph's sentence before, paired with the sentence's own only). Two said nearest
    of a name both have are told apart by the names each has alone ("Blackwell needs
    CUDA 13.3+ and Hopper needs CUDA 13.2+": Blackwell and Hopper, not CUDA;
    :func:`told_apart`, :func:`swapped`)."""
    for i, (va, a, ea, na) in enumerate(said):
        # Swaps are between neighbouring figures; from ``first`` on, the sentence's own.
        for vb, b, eb, nb in said[max(i + 1, first) : i + 5]:
            like = a.unit == b.unit and a.kind == b.kind  # two speedups, two counts
            if not like or a.value == b.value:
                continue
            pair = swapped(idx, a, b, told_apart((a, ea, na), (b, eb, nb)))
            if pair is not None:
                for v, other in ((va, pair[1]), (vb, pair[0])):
                    verdicts[v] = verdicts[v].model_copy(
                        update={
                            "status": CheckStatus.MISATTACHED,
                            "reason": f"the source gives it for {other.key.replace(chr(0), '-')}",
                        }
                    )


def _units_with(idx: SourceIndex, n: Number) -> dict[int, Number]:
    """Source units holding the value (or range) of ``n``, with the number found there."""
    if n.kind == RANGE:
        assert n.value is not None and n.high is not None
        hits = idx.ranges.get((n.value, n.high), [])
    else:
        assert n.value is not None
        hits = idx.singles.get(n.value, [])
    out: dict[int, Number] = {}
    for u, m in hits:
        out.setdefault(u, m)
    return out


def swapped(
    idx: SourceIndex, a: Number, b: Number, pairs: Sequence[tuple[Name, Name]]
) -> tuple[Name, Name] | None:
    """Of ``pairs`` of names that tell two numbers of one sentence apart (:func:`told_apart`),
    the first the source says the other way round ("1.95x over Triton and 1.20x over ATen"
    for "1.20x over Triton and 1.95x over ATen"), where it says none the same way round
    (a name of the pair with its own number, in any unit holding both); else None."""
    ua, ub = _units_with(idx, a), _units_with(idx, b)
    crossed: tuple[Name, Name] | None = None
    for u in ua.keys() & ub.keys():
        unit = idx.units[u]
        for ea, eb in pairs:
            if not (unit.mentions(ea) and unit.mentions(eb)):
                continue  # the source says nothing here about which is which
            sa, sb = said_of(unit, ua[u], (ea, eb)), said_of(unit, ub[u], (ea, eb))
            if sa == ea.key or sb == eb.key:
                return None
            if sa == eb.key and sb == ea.key:
                crossed = crossed or (ea, eb)
    return crossed


def told_apart(
    a: tuple[Number, Name, Sequence[Name]], b: tuple[Number, Name, Sequence[Name]]
) -> list[tuple[Name, Name]]:
    """The pairs of names two figures of a sentence, each given as (figure, its nearest
    name, its names), are told apart by: their nearest names, where neither is a name of
    the other figure; else each name one has that the other lacks with each such name of
    the other's, nearest first (after it first, as the nearest is read): "CUDA" of
    "Blackwell needs CUDA 13.3+ and Hopper needs CUDA 13.2+ for cuBLASLt" tells nothing,
    Blackwell and Hopper do (the 13.2's cuBLASLt, nearer, is no name the source says of
    either figure); "Hopper" of "For Blackwell, CUDA 13.2+ is needed and for Hopper, CUDA
    13.3+" is the 13.2's only as the clause runs on to the comma, and the 13.3 has no name
    of its own: no pair."""
    (m, near_a, mine), (n, near_b, theirs) = a, b
    keys_a, keys_b = {x.key for x in mine}, {x.key for x in theirs}
    if near_a.key not in keys_b and near_b.key not in keys_a:
        return [(near_a, near_b)]
    alone_a = _by_nearness(m, [x for x in mine if x.key not in keys_b])
    alone_b = _by_nearness(n, [x for x in theirs if x.key not in keys_a])
    return [(x, y) for x in alone_a for y in alone_b]


def _by_nearness(n: Number, names: Sequence[Name]) -> list[Name]:
    """``names`` (in order), nearest ``n`` first: those after it, then those before it,
    once each."""
    after = [x for x in names if x.start >= n.end]
    before = [x for x in names if x.end <= n.start][::-1]
    once: dict[str, Name] = {}
    for x in after + before:
        once.setdefault(x.key, x)
    return list(once.values())


# Words that set a name against the figure: "Hopper needs CUDA 13.2+, unlike Blackwell"
# gives the 13.2 to Hopper, not to Blackwell.
_SET_AGAINST = re.compile(
    r"\b(?:unlike|than|vs\.?|versus|compared\s+(?:with|to)|whereas|while|not|except"
    r"|instead\s+of|but)(?!\w)",
    re.I,
)


def mark_borrowed(
    idx: SourceIndex,
    s: str,
    nums: Mapping[Number, Sequence[Name]],
    verdicts: list[NumberVerdict],
    said: Sequence[tuple[int, Number, Name, tuple[Name, ...]]],
    first: int = 0,
) -> None:
    """Misattach a supported figure of a sentence ``s`` (its figures ``nums``, with their
    names; from ``said[first:]``, as :func:`mark_swaps` takes them) said of a name the
    source gives another like figure and not it, where the source tells the two apart
    (:func:`borrowed`): "Blackwell needs CUDA 13.2+" or "Blackwell and Hopper need CUDA
    13.2+" of "CUDA 13.3+ is required on Blackwell and CUDA 13.2+ on Hopper". Not where
    the explainer gives the other figure that name too, or no name, in the sentence or
    the one before ("13.3+ and 13.2+ on Blackwell and Hopper": which is which,
    :func:`mark_swaps` reads), nor a name it sets against the figure ("..., unlike
    Blackwell")."""
    given: dict[tuple[str, object, object, object], set[str] | None] = {}
    for b, names in (*nums.items(), *((b, names) for _, b, _, names in said[:first])):
        had = given.get(_like(b), set())
        given[_like(b)] = None if had is None or not names else had | {x.key for x in names}
    for v, a, _, names in said[first:]:
        if verdicts[v].status != CheckStatus.SUPPORTED or a.kind not in (QUANTITY, RANGE):
            continue
        mine = [
            x for x in names if not _SET_AGAINST.search(s, min(x.end, a.end), max(x.start, a.start))
        ]
        other = borrowed(idx, a, mine, given) if mine else None
        if other is not None:
            verdicts[v] = verdicts[v].model_copy(
                update={
                    "status": CheckStatus.MISATTACHED,
                    "reason": f"the source gives it for {other.key.replace(chr(0), '-')}",
                }
            )


def borrowed(
    idx: SourceIndex,
    a: Number,
    names: Sequence[Name],
    given: Mapping[tuple[str, object, object, object], set[str] | None],
) -> Name | None:
    """The name the source says the value of ``a`` of, where one of ``names`` is said of
    another like figure and not of it, in its sentence or a neighbouring one, and the
    source's figure has a name of its own that the other lacks (the source tells the two
    apart: "CUDA 13.3+ is required on Blackwell and CUDA 13.2+ on Hopper" gives 13.2 to
    Hopper, not Blackwell); None where some place the source writes the value says it of
    that name, or names it near the value without telling the two apart. ``given``: the
    like figures the explainer gives (:func:`_like`), with their names (None: none),
    not read as others where they have the name or none."""
    hits = _units_with(idx, a)
    for x in names:
        # No like figure of another value near any place of the value that the explainer
        # leaves to the name: nothing crossed, and no clause is bound (the costly part).
        if not any(
            _rivals(idx, v, m, x, given) for u, m in hits.items() for v in _neighbours(idx, u)
        ):
            continue
        crossed: Name | None = None
        for u, m in hits.items():
            # (A name the clause does not write is none of its figures'.)
            own = _figure_names(idx, u) if idx.units[u].mentions(x) else {}
            if x.key in {y.key for y in own.get(m.start, ())}:
                crossed = None
                break
            other = _crossed_by(idx, u, m, x, given, {y.key for y in names})
            if other is not None:
                crossed = crossed or other
            elif idx.units[u].mentions(x, near=True):
                crossed = None
                break
        if crossed is not None:
            return crossed
    return None


def _rivals(
    idx: SourceIndex,
    v: int,
    m: Number,
    x: Name,
    given: Mapping[tuple[str, object, object, object], set[str] | None],
) -> bool:
    """Whether unit ``v`` can hold a like figure of another value than source figure ``m``
    with the name ``x``: the checks of :func:`_crossed_by` that need no binding (binding
    a clause is the costly part, and most places of a value have no such neighbour)."""
    for w in idx.units[v].numbers:
        if (w.unit, w.kind) != (m.unit, m.kind) or (w.value, w.high) == (m.value, m.high):
            continue
        told = given.get(_like(w), set())
        if told is not None and x.key not in told:
            # (Last: the first look for a name splits the clause's context into words.)
            return idx.units[v].mentions(x)
    return False


def _crossed_by(
    idx: SourceIndex,
    u: int,
    m: Number,
    x: Name,
    given: Mapping[tuple[str, object, object, object], set[str] | None],
    said: Container[str],
) -> Name | None:
    """The name of its own a source figure ``m`` of unit ``u`` has where a like figure of
    another value, in its sentence or a neighbouring one of its paragraph, has the name
    ``x`` and not that one; else None. Where the explainer gives that figure too
    (``given``), not a name the explainer says its own figure of as well (``said``:
    "Blackwell and Hopper need CUDA 13.3+ and CUDA 13.2+ respectively" says both names of
    the 13.3, and which is which is the list's)."""
    for v in _neighbours(idx, u):
        if not _rivals(idx, v, m, x, given):
            continue
        theirs = _figure_names(idx, v)
        for w in idx.units[v].numbers:
            if w.start not in theirs or (w.unit, w.kind) != (m.unit, m.kind):
                continue
            told = given.get(_like(w), set())
            if (w.value, w.high) == (m.value, m.high) or told is None or x.key in told:
                continue
            keys = {y.key: y for y in theirs[w.start]}
            if x.key not in keys:
                continue
            # Its own name in the slot the other's stands in ("on Hopper" for "on
            # Blackwell"): not "on MI300X" for the "FP8" the sentence's subject is.
            slot = _slot(idx.units[v], w, keys[x.key])
            mine = _figure_names(idx, u).get(m.start, ())
            for y in _by_nearness(m, [y for y in mine if y.key not in keys]):
                if _slot(idx.units[u], m, y) == slot and not (_like(w) in given and y.key in said):
                    return y
    return None


# The words that start a name's phrase (:func:`_slot`).
_PHRASE_WORD = re.compile(
    r"\b(?:for|on|over|across|in|with|at|against|versus|vs|from|under|per|than|of|by)\b"
)


def _slot(unit: Unit, n: Number, x: Name) -> str:
    """The word that starts the phrase of a source figure's name (the last preposition
    between the figure and it, or between the figure before it, else the start of its
    clause, and it; "" for none: a subject, "Blackwell needs ...")."""
    if x.start >= n.end:
        lo = n.end
    else:
        lo = max([unit.start, *(k.end for k in unit.numbers if k.end <= x.start)])
    found = _PHRASE_WORD.findall(unit.text, lo, x.start)
    return found[-1] if found else ""


def _like(n: Number) -> tuple[str, object, object, object]:
    """What a like figure of the same value has the same: unit, kind, value, high."""
    return n.unit, n.kind, n.value, n.high


def _neighbours(idx: SourceIndex, u: int) -> list[int]:
    """Unit ``u`` and the units of its sentence and of the sentences right before and
    after it in its block (a line: ``u`` alone)."""
    out = idx.neighbours.get(u)
    if out is None:
        unit = idx.units[u]
        if unit.before is None:
            out = [u]
        else:
            out = []
            for v in idx.block_units.get(unit.block, [u]):
                other = idx.units[v]
                if other.sentence in (unit.sentence, unit.before) or other.before == unit.sentence:
                    out.append(v)
        idx.neighbours[u] = out
    return out


def _figure_names(idx: SourceIndex, u: int) -> dict[int, tuple[Name, ...]]:
    """The names of each quantity and range of source unit ``u``, by its start, read as the
    explainer's are, with those of a phrase leading its clause (memoised in the index's
    own names under "\\x00led")."""
    own = idx.own_names.get((u, "\x00led"))
    if own is None:
        unit = idx.units[u]
        figures = [n for n in unit.numbers if n.kind in (QUANTITY, RANGE)]
        own = {}
        if figures and len(unit.cased) == len(unit.text):
            s, start, end = unit.cased, unit.start, unit.end
            names = known_names(s, unit.numbers, idx, start, end)
            bound = bind_numbers(s, figures, names, start, end, leading=True)
            own = {
                n.start: tuple({x.key: x for x in (*b.names, *b.lead)}.values())
                for n in figures
                if (b := bound.get(n.start)) is not None
            }
        idx.own_names[(u, "\x00led")] = own
    return own
