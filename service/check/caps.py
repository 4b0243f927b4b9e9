"""How much of a pathological source the index reads: a post's tables are tens of cells and
its prose some hundreds of figures, but a body within the API's limits can hold a table of
90,000 cells, a header row of 30,000 or 90,000 figures written as prose, each costing the
index 0.4 to 0.8 s of CPU (2-4 s on a busy machine). Past a cap the figures are not read:
one only they hold is not found (unsupported, for a person to look at), and its reason
says why (``Cut.reason``)."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass

# Table cells of a source indexed, in all: a 300x300 table took 0.8 s of CPU to index.
MAX_TABLE_CELLS = 10_000
# Columns of a table indexed (its header's and each row's first cells): each header cell
# is read for its unit and noun, 30,000 took 1 s; a post's tables have tens of columns.
MAX_TABLE_COLUMNS = 1_000
# Numbers outside tables indexed (prose, list items, code lines): 90,000 took 0.7 s; the
# longest post of the corpus holds some hundreds. A block that may hold more than are left
# is read to where its runs of digits reach the cap.
MAX_SOURCE_FIGURES = 10_000

# Places of one value indexed (per value, range end or range): each explainer figure of
# that value is matched against every place, so a source writing "1" 10,000 times and an
# explainer writing it 2,500 times cost 51 s of CPU (h3's probe of POST /check). A post
# writes its most frequent value some tens of times (a whole feed of the corpus: "0" 101
# times); the first places are kept, in the order the source writes them.
MAX_PLACES_PER_VALUE = 256

_DIGITS = re.compile(r"\d+")
_SENTENCE_END = re.compile(r"[.!?;:]\s")


@dataclass(slots=True)
class Cut:
    """What the index left out past its caps (all 0: nothing), and what it may still read."""

    rows: int = 0  # table rows past MAX_TABLE_CELLS
    cells: int = 0  # their cells, with those past MAX_TABLE_COLUMNS of the rows read
    columns: int = 0  # cells of headers and rows read past MAX_TABLE_COLUMNS
    figures: int = 0  # runs of digits outside tables past MAX_SOURCE_FIGURES
    places: int = 0  # places of a value past MAX_PLACES_PER_VALUE
    cells_left: int = MAX_TABLE_CELLS
    figures_left: int = MAX_SOURCE_FIGURES

    def table(
        self, header: Sequence[str], rows: Sequence[Sequence[str]]
    ) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
        """A table's header and the rows read: each to MAX_TABLE_COLUMNS cells, the rows
        that fit in the cells left (MAX_TABLE_CELLS in all)."""
        sizes = [min(len(row), MAX_TABLE_COLUMNS) for row in rows]
        read = bisect.bisect_right(list(itertools.accumulate(sizes)), self.cells_left)
        self.cells_left -= sum(sizes[:read])
        self.rows += len(rows) - read
        self.cells += sum(len(row) for row in rows[read:])
        self.columns += sum(
            max(0, len(cells) - MAX_TABLE_COLUMNS) for cells in (header, *rows[:read])
        )
        body = [tuple(row[:MAX_TABLE_COLUMNS]) for row in rows[:read]]
        return tuple(header[:MAX_TABLE_COLUMNS]), body

    def prose(self, text: str) -> int:
        """Where the figures read of a text outside tables end: all of it (``len``), or the
        end of the sentence before the one holding the first run of digits past the cap
        (that run's start, where the text has no sentence end before it). The caller
        takes the numbers it reads there from ``figures_left`` (below 0 where they are
        more than its runs of digits: number words)."""
        if (len(text) + 1) // 2 <= self.figures_left:
            # It cannot hold more runs of digits than are left: no regex pass (the check's
            # every source is read so; a run is a digit and what parts it from the next).
            return len(text)
        left = max(0, self.figures_left)
        past = next(itertools.islice(_DIGITS.finditer(text), left, None), None)
        if past is None:
            return len(text)
        ends = [m.end() for m in _SENTENCE_END.finditer(text, 0, past.start())]
        end = ends[-1] if ends else past.start()
        self.figures += len(_DIGITS.findall(text, end))
        self.figures_left = 0
        return end

    def reason(self) -> str:
        """What an unsupported figure's reason adds: what was left out ("" for nothing)."""
        parts = []
        if self.rows:
            parts.append(
                f"the source's tables were read only to their first {MAX_TABLE_CELLS:,} cells"
                f" ({self.rows:,} rows, {self.cells:,} cells left out)"
            )
        if self.columns:
            parts.append(
                f"the source's tables were read only to their first {MAX_TABLE_COLUMNS:,}"
                f" columns ({self.columns:,} cells left out)"
            )
        if self.figures:
            parts.append(
                f"the source's text was read only to its first {MAX_SOURCE_FIGURES:,} figures"
                f" outside tables ({self.figures:,} left out)"
            )
        if self.places:
            parts.append(
                f"the source's figures were read only to the first {MAX_PLACES_PER_VALUE:,}"
                f" places of each value ({self.places:,} left out)"
            )
        return "; ".join(parts)
