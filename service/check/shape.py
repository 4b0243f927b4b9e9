"""Shapes: sizes written as a product ("32 × 14336 × 4096", "4096x4096"), whose sides
the extractor reads as separate counts. A shape the source writes the same (its sides in
order) backs each of its sides: a side alone has no noun of its own to bind it."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

from service.check.index import SourceIndex
from service.numbers import Number

# The first digit read first, then what may not stand before it (a look-behind over it):
# a pattern that starts with a set is skipped ahead in C to a digit, where one that
# starts with a look-behind is tried at every position.
_SHAPE = re.compile(r"\d(?<![\w.]\d)\d*(?:[ \t]*[x×][ \t]*\d+)+(?![\w.]*\d)")
_SIDE = re.compile(r"\d+")


def _pattern(sides: Sequence[str]) -> re.Pattern[str]:
    return re.compile(
        r"(?<![\w.])" + r"\s*[x×]\s*".join(s.lstrip("0") or "0" for s in sides) + r"(?![\w.]*\d)"
    )


def shapes(idx: SourceIndex, s: str, nums: Sequence[Number]) -> dict[int, Iterable[int]]:
    """The sides of the shapes of the prepared sentence ``s`` that the source writes the
    same, by start, each with the source units the shape stands in (found on demand: the
    first one mostly does)."""
    if "x" not in s and "×" not in s:
        return {}
    out: dict[int, Iterable[int]] = {}
    for m in _SHAPE.finditer(s):
        sides = _SIDE.findall(m.group(0))
        pattern = _pattern(sides)
        if idx.first(sides[0], pattern) is None:  # memoised per source
            continue
        units = _Occurrences(idx, sides[0], pattern)
        for n in nums:
            if m.start() <= n.start < m.end():
                out[n.start] = units
    return out


class _Occurrences:
    """The units a shape occurs in, looked for each time they are iterated."""

    __slots__ = ("_idx", "_key", "_pattern")

    def __init__(self, idx: SourceIndex, key: str, pattern: re.Pattern[str]) -> None:
        self._idx, self._key, self._pattern = idx, key, pattern

    def __iter__(self) -> Iterator[int]:
        return self._idx.occurrences(self._key, self._pattern)
