"""Clause marks: where the words of one figure of a sentence stop and the next's start
(a comma, semicolon or colon, a parenthesis or bracket, a dash between spaces; else a
coordinating word between the two figures)."""

from __future__ import annotations

import re

from service.ascii import ascii_twin
from service.check.phrases import coordinated_lead

# A comma, semicolon or colon before white space, a parenthesis or bracket, or a dash
# between spaces. Written to start with a set of characters, each alternative then told by
# the character just read (a look-behind of one): the regex engine skips in C every
# position whose character is not in the set, where an alternation of sets is tried at
# every position (the same matches: each alternative's first character is its own).
CLAUSE_MARK = re.compile(r"[,;:()\[\]\s](?:(?<=[()\[\]])|(?<=[,;:])(?=\s)|(?<=\s)-\s)")
COORDINATOR = re.compile(
    r"\s(?:and|or|while|whereas|but|versus|vs\.?|compared\s+(?:with|to))\s", re.I
)
_COORDINATOR_ASCII = ascii_twin(COORDINATOR)  # for ASCII text (most): see service.ascii


def split_gap(s: str, start: int, end: int) -> tuple[int, int]:
    """Where the words after one number stop belonging to it (first) and where the words
    before the next number start belonging to that one (second)."""
    marks = list(CLAUSE_MARK.finditer(s, start, end))
    if marks:
        # "1.5x over ATen and with BF16, MI355X reaches 1.2x": the phrase after the
        # coordinator leads the next figure's clause; the comma after it ends no clause
        # of the figure before.
        lead = coordinated_lead(s, start, end)
        if lead is not None:
            return min(marks[0].start(), lead[0]), lead[1]
        return marks[0].start(), marks[-1].end()
    m = (_COORDINATOR_ASCII if s.isascii() else COORDINATOR).search(s, start, end)
    if m:
        return m.start(), m.end()
    return end, start
