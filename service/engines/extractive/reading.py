"""How much of a post the engine reads: to its first ``MAX_FIGURES`` figures. Each
figure of a sentence (and of a table row read as one) is weighed and each sentence
scored, some microseconds a figure, and the title's subject is looked for in the whole
text: the longest post of the corpus holds some hundreds of figures, but a body within
the API's limits can hold 90,000 written as prose (1.5 s of CPU, for sentences too long
to be kept or too many to be chosen) or a header row of 30,000 cells. What lies past the
cap is not read (``Reading.reason`` says what was left out, for the log); the number
check reads the whole source under its own caps (``service.check.caps``)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

# Runs of digits of a post read (in prose, tables and code alike): the check's
# MAX_SOURCE_FIGURES, some tens of times what a post of the corpus holds.
MAX_FIGURES = 10_000

_DIGITS = re.compile(r"\d+")
_SENTENCE_END = re.compile(r"[.!?]\s")
_FENCE = re.compile(r"^\s*(?:```|~~~)", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Reading:
    """The text read, and the runs of digits left out past ``MAX_FIGURES`` (0: none)."""

    text: str
    figures_left_out: int = 0

    def reason(self) -> str:
        """What was left out, for the engine's log ("" for nothing)."""
        if not self.figures_left_out:
            return ""
        return (
            f"the post was read only to its first {MAX_FIGURES:,} figures"
            f" ({self.figures_left_out:,} left out, with the text after them)"
        )


def read(text: str, most: int = MAX_FIGURES) -> Reading:
    """``text`` to the line holding its first run of digits past ``most``: a line of
    prose to the end of its sentence before that run, any other line (a table's row or
    header, a line of code) left out, with the lines after it."""
    if (len(text) + 1) // 2 <= most:
        # It cannot hold more runs than that (a run is a digit and what parts it from
        # the next): no regex pass for a post within the cap.
        return Reading(text)
    past = next(itertools.islice(_DIGITS.finditer(text), most, None), None)
    if past is None:
        return Reading(text)
    end = text.rfind("\n", 0, past.start()) + 1
    line = text[end : past.start()]
    in_code = len(_FENCE.findall(text, 0, end)) % 2 == 1
    if not in_code and not line.lstrip().startswith("|"):
        # Whole sentences only: a sentence cut at a figure would read as one ending
        # there, and the engine takes sentences word for word.
        ends = [m.end() for m in _SENTENCE_END.finditer(line)]
        end += ends[-1] if ends else 0
    return Reading(text[:end].rstrip(), len(_DIGITS.findall(text, end)))
