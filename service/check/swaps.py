"""Swaps: two figures of an explainer sentence (or of two neighbouring ones) that the
source says of their names the other way round ("1.20x over Triton and 1.95x over ATen"
of the source's "1.95x over Triton and 1.20x over ATen"), both misattached."""

from __future__ import annotations

from collections.abc import Sequence

from service.check.index import SourceIndex
from service.check.names import Name
from service.check.said import said_of
from service.models import CheckStatus, NumberVerdict
from service.numbers import Number
from service.numbers.number import RANGE


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
