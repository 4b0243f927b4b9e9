"""Clauses: where an explainer sentence's clauses start (its clause marks, asides
skipped), read once per sentence: what a figure with no name near it is said of first;
and the clauses a source sentence is indexed as (its parts between semicolons)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from service.check.marks import CLAUSE_MARK
from service.check.names import Name


class Clauses:
    """A sentence's clause marks and asides, found once: the names of the clause before
    each of its figures (:meth:`names_before`), what a figure with no name near it is
    said of first ("the experimental Helion backend can reduce latency by up to 50%").
    (Scanning the sentence up to each figure was quadratic: a "sentence" of
    thousands of figures with no end, pasted data, took seconds.)

    A mark or a name counts as in an aside only when the aside closes before the figure,
    as a scan up to the figure finds it: asides hold no digit, so a figure is in one only
    when it is a number word."""

    __slots__ = ("_mark_ends", "_marks", "_names", "_starts")

    def __init__(self, s: str, names: Sequence[Name]) -> None:
        asides = [m.span() for m in _ASIDE.finditer(s)]
        aside_starts = [a for a, _ in asides]

        def aside_end(pos: int) -> int:
            """The end of the aside holding ``pos`` (-1: none)."""
            k = bisect.bisect_right(aside_starts, pos) - 1
            return asides[k][1] if k >= 0 and pos < asides[k][1] else -1

        # (end of the mark, end of the aside holding it), in order.
        self._marks = [(m.end(), aside_end(m.start())) for m in CLAUSE_MARK.finditer(s)]
        self._mark_ends = [end for end, _ in self._marks]
        self._names = [(x, aside_end(x.start)) for x in names]  # names come sorted
        self._starts = [x.start for x in names]

    def names_before(self, before: int) -> tuple[Name, ...]:
        """The names of the clause that ends at ``before`` (from the last comma, colon,
        semicolon, parenthesis or dash before it, asides skipped), once each."""
        k = bisect.bisect_right(self._mark_ends, before) - 1
        while k >= 0 and 0 <= self._marks[k][1] <= before:
            k -= 1  # a mark inside an aside closed before the figure: the clause goes on
        start = self._marks[k][0] if k >= 0 else 0
        lo = bisect.bisect_left(self._starts, start)
        hi = bisect.bisect_left(self._starts, before)
        return tuple(
            {
                x.key: x
                for x, aside in self._names[lo:hi]
                if x.end <= before and not 0 <= aside <= before
            }.values()
        )


# A parenthesis without a digit is an aside ("the Helion backend (the component that
# does the work) can reduce latency by up to 50%"): the clause goes on around it.
_ASIDE = re.compile(r"\([^()\d]*\)")


_CLAUSE_SPLIT = re.compile(r";\s+")


def source_clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """The clauses of the source sentence at ``text[start:end]``, as (start, end): its
    parts between semicolons, each a unit of the index."""
    if text.find(";", start, end) < 0:  # most sentences: no semicolon, one clause
        return [(start, end)]
    cuts = [start, *(m.end() for m in _CLAUSE_SPLIT.finditer(text, start, end)), end]
    return [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]
