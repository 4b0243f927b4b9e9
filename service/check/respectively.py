"""Figures and names paired by "respectively": the k-th figure of a list said of the k-th
name of a list ("RMSNorm and TopK, run in eager mode, reach 1.17x to 3.66x and
4.82x, respectively"), however far apart the lists stand; each figure is said of its own
name, not of the others (which the source gives another figure)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.check.names import IN_ORDER, Name
from service.numbers import Number


def list_marker(s: str, start: int, end: int) -> int:
    """Where the first marker of a list's order stands in ``s[start:end]``, "respectively"
    or "in that order" ("in this order", "in the same order"), else -1: both say the
    k-th figure of a list is the k-th name's."""
    said = s.find("respectively", start, end)
    if "order" in s[start:end] and (m := IN_ORDER.search(s, start, end)) is not None:
        said = m.start() if said < 0 else min(said, m.start())
    return said


# Between two names of one list: "MXFP8 and MXFP4", "BF16, MXFP8 and MXFP4" (a list ends
# with "and": "Over Triton and ATen, FlyDSL reaches ..." lists two names, not three).
_NAME_GAP = re.compile(r"\s*(?:,|,?\s*(?:and|&))\s*", re.I)
_LAST_GAP = re.compile(r"\s*,?\s*(?:and|&)\s*", re.I)
# Between a name and the list after it that it qualifies ("ATen's MXFP4 and MXFP8"):
# which names pair with the figures is then unsure.
_JOINED = re.compile(r"\s*(?:['’]s)?\s*|[-/]")


def last_list(s: str, names: Sequence[Name]) -> list[Name]:
    """The last list of two names or more of ``names`` (in order) in ``s``, when no name
    stands joined to it before (else [])."""
    i = len(names) - 1
    while i > 0:
        if _LAST_GAP.fullmatch(s, names[i - 1].end, names[i].start):
            run = [names[i]]
            j = i - 1
            while j >= 0:
                run.insert(0, names[j])
                if j == 0 or not _NAME_GAP.fullmatch(s, names[j - 1].end, names[j].start):
                    break
                j -= 1
            if j > 0 and _JOINED.fullmatch(s, names[j - 1].end, names[j].start):
                return []
            return run
        i -= 1
    return []


def paired_names(
    s: str,
    group: Sequence[Number],
    names: Sequence[Name],
    window: tuple[Sequence[Name], Sequence[Name]],
    start: int,
    end: int,
) -> list[Name]:
    """The names the figures of ``group`` (a list of figures in ``s[start:end]``, a
    sentence that says "respectively") pair with, in order, or [] when that is unsure:
    the names of its window after the figures ("1.58x and 1.68x for MXFP8 and MXFP4,
    respectively"), else a list of as many names after them up to "respectively", else
    a list of as many names before them ("MXFP8 and MXFP4 reach 1.58x and 1.68x,
    respectively"), else the names of its window before them when they are as many.
    "in that order" pairs as "respectively" does (:func:`list_marker`).
    ``window``: the names near the figures, (before, after)."""
    k = len(group)
    preceding, following = window
    if len(following) >= k:
        return list(following)
    said = list_marker(s, group[-1].end, end)
    if said >= 0:
        after = [x for x in names if group[-1].end <= x.start and x.end <= said]
        run = last_list(s, after)
        if len(run) == k and len({x.key for x in run}) == k:
            return run
    before = [x for x in names if start <= x.start and x.end <= group[0].start]
    run = last_list(s, before)
    if len(run) == k and len({x.key for x in run}) == k:
        return run
    if len({x.key for x in preceding}) == len(preceding) == k:
        return list(preceding)
    return []


# Between the phrases of a list of things said before its figures ("time to first token
# and end-to-end latency dropped about 19% and 38%, respectively").
_PHRASE_GAP = re.compile(r"\s*,\s*(?:and\s+)?|\s+and\s+", re.I)


def paired_phrases(s: str, group: Sequence[Number], start: int) -> list[tuple[int, int]]:
    """Where the plain-word phrase each figure of ``group`` is said of stands, in order,
    when "respectively" pairs them and the clause before the figures (from ``start``)
    lists exactly as many ("requests per second and output tokens per second rose about
    16% and 12%"); else []."""
    cuts = [start, *(x for m in _PHRASE_GAP.finditer(s, start, group[0].start) for x in m.span())]
    cuts.append(group[0].start)
    spans = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts), 2)]
    return spans if len(spans) == len(group) else []
