"""The source's own "respectively" across sentences: a list of figures the source says
"respectively" of ("in that order", :func:`~service.check.respectively.list_marker`) with
no list of names in its sentence ("Across all 24 cases, FlyDSL reaches 1.20x ... over
Triton and 1.95x over ATen. Uniform groups reach 1.21x and 2.12x, respectively") pairs in
order with the sentence before: its like figures' own names (1.21x is over Triton, 2.12x
over ATen), else its last list of as many names; the sentence right after goes on with it
("The projection-dimension cases reach 1.23x and 1.73x"). A list in the sentence itself is
read by the binding (:func:`~service.check.respectively.paired_names`)."""

from __future__ import annotations

from collections.abc import Sequence

from service.check.bind import Binding, bind_numbers
from service.check.index import SourceIndex
from service.check.known_names import known_names
from service.check.names import Name
from service.check.respectively import last_list, list_marker
from service.check.unit import Hit
from service.numbers import Number
from service.numbers.context import list_runs
from service.numbers.number import QUANTITY, RANGE

_NONE: dict[int, tuple[Name, ...]] = {}


def _previous(idx: SourceIndex, u: int) -> list[Number]:
    """The numbers of the sentence before unit ``u``'s, in its block."""
    unit = idx.units[u]
    before = unit.before
    if before is None or before[1] <= before[0]:
        return []
    return [
        n
        for v in idx.block_units.get(unit.block, ())
        if idx.units[v].sentence == before
        for n in idx.units[v].numbers
    ]


def _pairs(idx: SourceIndex, u: int, measure: str) -> dict[int, tuple[Name, ...]]:
    """Per figure of unit ``u`` with unit of measure ``measure`` in a list its sentence
    says "respectively" of, the name of the sentence before it pairs with (by start);
    {} for most units. Memoised per source, beside the units' own names."""
    key = (u, "\x00respectively " + measure)
    found = idx.own_names.get(key)
    if found is not None:
        return found
    found = idx.own_names[key] = _read(idx, u, measure)
    return found


def _read(idx: SourceIndex, u: int, measure: str) -> dict[int, tuple[Name, ...]]:
    unit = idx.units[u]
    s0, s1 = unit.sentence
    text, cased = unit.text, unit.cased
    if len(cased) != len(text):
        return _NONE
    if list_marker(text, s0, s1) < 0:
        return _continued(idx, u, measure)
    figures = [n for n in unit.numbers if n.kind in (QUANTITY, RANGE) and n.unit == measure]
    groups = [
        g for g in list_runs(text, figures) if len(g) > 1 and list_marker(text, g[-1].end, s1) >= 0
    ]
    if len(groups) != 1:
        return _NONE
    group = groups[0]
    # A list of names of its own sentence pairs as the binding reads it.
    here = known_names(cased, unit.numbers, idx, s0, list_marker(text, group[-1].end, s1))
    lists = (
        [x for x in here if x.end <= group[0].start],
        [x for x in here if x.start >= group[-1].end],
    )
    if any(len(last_list(cased, part)) == len(group) for part in lists):
        return _NONE
    before = _previous(idx, u)
    b0, b1 = unit.before or (0, 0)
    names = known_names(cased, before, idx, b0, b1)
    theirs = [n for n in before if n.kind in (QUANTITY, RANGE) and n.unit == measure]
    run: Sequence[Name] = []
    if len(theirs) == len(group):
        # Each like figure's own name, nearest it: "1.20x ... over Triton and 1.95x over ATen".
        bound = bind_numbers(cased, theirs, names, b0, b1)
        run = [x for n in theirs if (x := bound.get(n.start, Binding()).nearest) is not None]
    if len(run) != len(group) or len({x.key for x in run}) != len(group):
        run = last_list(cased, names)
    if len(run) != len(group) or len({x.key for x in run}) != len(group):
        return _NONE
    return {n.start: (x,) for n, x in zip(group, run, strict=True)}


def _sentence_units(idx: SourceIndex, u: int, span: tuple[int, int]) -> list[int]:
    """The units of the sentence at ``span`` in unit ``u``'s block."""
    return [v for v in idx.block_units.get(idx.units[u].block, ()) if idx.units[v].sentence == span]


def _continued(idx: SourceIndex, u: int, measure: str) -> dict[int, tuple[Name, ...]]:
    """A pairing by "respectively" gone on in the sentence right after, in its paragraph
    ("Uniform groups reach 1.21x and 2.12x, respectively. The projection-dimension cases
    reach 1.23x and 1.73x; the ragged cases reach 1.15x and 1.73x"): each list of figures
    of unit ``u``'s sentence in the unit of measure pairs in order as that one, when all
    its figures in that unit stand in lists of as many and it names nothing the sentence
    before does not (a name of its own may be what they are said over). Only the
    sentence right after: further on, a writer has moved on as often as not."""
    unit = idx.units[u]
    text, cased = unit.text, unit.cased
    before = unit.before
    if before is None or before[1] <= before[0] or list_marker(text, *before) < 0:
        return _NONE
    if not any(n.unit == measure and n.kind in (QUANTITY, RANGE) for n in unit.numbers):
        return _NONE
    pairings = [p for v in _sentence_units(idx, u, before) if (p := _pairs(idx, v, measure))]
    if len(pairings) != 1:
        return _NONE
    pairing = pairings[0]
    k = len(pairing)
    run = [pairing[start][0] for start in sorted(pairing)]
    mine = [n for v in _sentence_units(idx, u, unit.sentence) for n in idx.units[v].numbers]
    figures = [n for n in mine if n.kind in (QUANTITY, RANGE) and n.unit == measure]
    groups = list_runs(text, figures)
    if any(len(g) != k for g in groups):
        return _NONE
    s0, s1 = unit.sentence
    b0, b1 = before
    said = {x.key for x in known_names(cased, _previous(idx, u), idx, b0, b1)}
    if any(x.key not in said for x in known_names(cased, mine, idx, s0, s1)):
        return _NONE
    own = {n.start for n in unit.numbers}
    return {n.start: (x,) for g in groups for n, x in zip(g, run, strict=True) if n.start in own}


def of_pair(
    idx: SourceIndex, hits: Sequence[Hit], binding: Binding
) -> tuple[int | None, tuple[int, str] | None]:
    """The first hit whose unit lacks names of the explainer's that the source pairs with
    its figure by "respectively" across sentences, and says nothing against it (the
    explainer's "1.21x over Triton" for "... over Triton and 1.95x over ATen. Uniform
    groups reach 1.21x and 2.12x, respectively"); else None, and the first unit that
    pairs a missing name with another figure of its list, with a reason naming the
    figure's own ("1.21x over ATen": "the source gives it for Triton")."""
    blocked: tuple[int, str] | None = None
    for u, m in hits:
        if m.kind not in (QUANTITY, RANGE):
            continue
        pairs = _pairs(idx, u, m.unit)
        if m.start not in pairs:
            continue
        unit = idx.units[u]
        missing = {x.key for x in binding.names if not unit.mentions(x)}
        mine = pairs[m.start][0]
        others = {x.key for start, xs in pairs.items() if start != m.start for x in xs}
        if missing and missing & others:
            if blocked is None:
                blocked = (u, f"the source gives it for {unit.cased[mine.start : mine.end]}")
        elif missing == {mine.key}:
            why = binding.against(unit, m)
            if not why:
                return u, None
            # Paired so, but said of another subject ("The projection-dimension cases
            # reach 1.23x" for "Uniform groups reach 1.23x over Triton"): why not.
            blocked = blocked or (u, why)
    return None, blocked
