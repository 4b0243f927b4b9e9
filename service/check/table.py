"""Table rows restated: an explainer sentence that gives the cells of one source table row,
each with its column's name ("CUDA: 12.6, 13.0, 13.2 in 2.13; 12.6, 13.0, 13.2 in 2.14",
"Llama3-8B (dense): result +13.4% throughput").

A row's figures are said of its label (first cell) and of their column's header, which a
sentence written this way keeps apart with semicolons: no window of words sees that.

How the index reads a table's rows and headers is :mod:`.columns`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from service.check.columns import column_unit
from service.frozen import slot_init
from service.numbers import Number, extract_numbers, identifier_key, prepare
from service.numbers.number import (
    APPROX,
    IDENTIFIER,
    NO_HEDGE,
    QUANTITY,
    RANGE,
)

# One character of the set, then the rest of the run: a pattern that starts with a set
# (not a repeat of one) is skipped ahead in C to where the set matches.
_WORDS = re.compile(r"[^a-z0-9.+%×][^a-z0-9.+%×]*")
# The same for ASCII text, in C: each byte outside the set made a space, the spaces then
# collapsed by split() (the pattern's substitution pays for each gap, and a sentence has
# dozens).
_KEPT = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789.+%")
_GAPS = bytes(c if c in _KEPT else 32 for c in range(256))
_SEGMENT = re.compile(r";\s")
# A row of an explainer's own table comes as "<column>: <cell> | <column>: <cell>": its
# parts are the cells (a cell may hold a semicolon: "7.1 dropped; 7.14 via TheRock").
_CELL = re.compile(r"\s\|\s")


def norm_words(text: str, prepared: str | None = None) -> str:
    """Lower-case words of a text, one space apart, markup and punctuation gone
    (``prepared``: the text already read by ``prepare``)."""
    prepared = prepare(text) if prepared is None else prepared
    lowered = prepared.lower().replace(". ", " ")
    if lowered.isascii():
        kept = lowered.encode("ascii").translate(_GAPS).decode("ascii")
        return " " + " ".join(kept.split()).strip(" .") + " "
    return " " + _WORDS.sub(" ", lowered).strip(" .") + " "


class Row:
    """A source table row: its unit, the header's unit, and per column the header's words
    and the numbers of the header cell and of the row's cell.

    Every sentence with figures is compared with each row's label; a row's cells are read
    (their numbers found) only for a sentence that names the row: most rows never are."""

    __slots__ = (
        "_cell_numbers",
        "_cells",
        "header_numbers",
        "header_unit",
        "headers",
        "label",
        "unit",
        "units",
    )

    unit: int
    header_unit: int
    label: str  # the first cell, normalised
    headers: tuple[str, ...]  # per column, normalised ("" for a blank header)
    header_numbers: tuple[tuple[Number, ...], ...]
    units: tuple[str, ...]  # per column, the unit its header gives bare cells ("" for none)

    def __init__(
        self, unit: int, header_unit: int, header: Sequence[str], cells: Sequence[str]
    ) -> None:
        self.unit = unit
        self.header_unit = header_unit
        self.label = norm_words(cells[0]) if cells else ""
        self.headers, self.header_numbers, self.units = _header(tuple(header), len(cells))
        self._cells = tuple(cells)
        self._cell_numbers: tuple[tuple[Number, ...], ...] | None = None

    @property
    def label_text(self) -> str:
        """The first cell as written."""
        return " ".join(prepare(self._cells[0]).split()) if self._cells else ""

    @property
    def cell_numbers(self) -> tuple[tuple[Number, ...], ...]:
        """Per column, the numbers of the row's cell (found on first use), each bare
        figure with its column's unit: "12" under "Hours" is the "12 hours" a sentence
        writes, as the index reads it (:func:`with_columns`)."""
        if self._cell_numbers is None:
            self._cell_numbers = tuple(
                tuple(_with_unit(n, unit) for n in extract_numbers(c, words=False))
                for c, unit in zip(self._cells, self.units, strict=True)
            )
        return self._cell_numbers


def make_row(unit: int, header_unit: int, header: Sequence[str], cells: Sequence[str]) -> Row:
    """The row ``cells`` under ``header`` (cells as the source writes them)."""
    return Row(unit, header_unit, header, cells)


@lru_cache(maxsize=64)
def _header(
    header: tuple[str, ...], width: int
) -> tuple[tuple[str, ...], tuple[tuple[Number, ...], ...], tuple[str, ...]]:
    """A table's normalised headers, their numbers and the units they give their cells,
    for rows ``width`` cells wide: read once per table, not once per row."""
    headers = [header[i] if i < len(header) else "" for i in range(width)]
    return (
        tuple(norm_words(h) if h.strip() else "" for h in headers),
        tuple(tuple(extract_numbers(h, words=False)) for h in headers),
        tuple(column_unit(h) for h in headers),
    )


def _with_unit(n: Number, unit: str) -> Number:
    """``n`` with its column's ``unit`` when it has none (a bare quantity or range)."""
    return replace(n, unit=unit) if unit and not n.unit and n.kind in (QUANTITY, RANGE) else n


def _same(mine: Number, theirs: Number) -> bool:
    """The figure as the cell writes it: value, precision, unit and hedge (or verbatim)."""
    if mine.kind in (QUANTITY, RANGE) and theirs.kind in (QUANTITY, RANGE):
        return (
            mine.kind == theirs.kind
            and (mine.value, mine.high, mine.exp, mine.high_exp)
            == (theirs.value, theirs.high, theirs.exp, theirs.high_exp)
            and (not mine.unit or mine.unit == theirs.unit)
            and mine.hedge in (NO_HEDGE, APPROX, theirs.hedge)
        )
    return identifier_key(mine.text) == identifier_key(theirs.text)


@slot_init
@dataclass(frozen=True, slots=True)
class RowReading:
    """What a sentence restating a table row says: the unit backing each figure that
    stands under its column (by start), and the figures it puts under a column or row
    the table does not give them for (by start: the unit that has them, and where)."""

    backed: dict[int, int]
    crossed: dict[int, tuple[int, str]]


def row_support(
    rows: Sequence[Row], text: str, nums: Sequence[Number], prepared: str | None = None
) -> RowReading:
    """How ``text`` restates one of ``rows`` (its label written in it): every figure but
    identifiers a cell of that row (or a header) in a ``;``-separated part of the sentence
    that names its column. When not all are, nothing is backed this way; and when the
    sentence is written as the row ("<label>: ..."), figures put under the wrong column of
    the row, or taken from a row it does not name, are reported. (``prepared``: ``text``
    already read by ``prepare``.)"""
    figures = [n for n in nums if n.kind != IDENTIFIER]
    if not figures or not rows:
        return RowReading({}, {})
    norm = norm_words(text, prepared)
    named = [row for row in rows if len(row.label) > 2 and row.label in norm]
    if not named:  # most sentences: no row to read them against
        return RowReading({}, {})
    segment = _CELL if " | " in text else _SEGMENT
    cuts = [0, *(m.end() for m in segment.finditer(text)), len(text) + 1]
    parts = [norm_words(text[cuts[i] : cuts[i + 1]]) for i in range(len(cuts) - 1)]
    crossed: dict[int, tuple[int, str]] = {}
    if segment is _CELL:  # the label is the first cell's, after its column's name
        lead = norm_words(text.split(" | ", 1)[0].split(":", 1)[-1])
    else:
        lead = norm_words(text.split(":", 1)[0]) if ":" in text else ""
    described: dict[int, int] = {}  # figures said of another row by its cells' words
    # The words after a figure, read when a figure needs its column ("256 GPUs"): most
    # figures of a sentence naming a row are its cells.
    after: dict[int, str] = {}

    def words_after(m: Number) -> str:
        if m.start not in after:
            after[m.start] = norm_words(text[m.end : m.end + 40])
        return after[m.start]

    for row in named:
        backed: dict[int, int] = {}
        for n in figures:
            part = parts[next(i for i in range(len(parts)) if cuts[i] <= n.start < cuts[i + 1])]
            unit = _backing(row, part, n)
            if unit is not None:
                backed[n.start] = unit
                continue
            if lead != row.label:
                # Prose that mentions the row: its binding is the general one, but for a
                # figure the row lacks in every cell and another row labelled as one of
                # the same family holds ("The PP2-512 run reached 1,362,998" of the
                # PP2-256 row): the label named is what the figure is said of, though
                # the words between are more than a window's; of two named, the nearer
                # ("PP2-512, on 512 GPUs, ... PP2-256": 512 of PP2-512, not PP4-512).
                noun = words_after(n)
                holder = _nearest_holder(text, named, n, noun) if len(named) > 1 else None
                if holder is not None:
                    if holder[0] != holder[1].label_text:
                        crossed.setdefault(n.start, (holder[1].unit, f"for {holder[1].label_text}"))
                    continue
                held = _holds(row, n, after=noun)
                mate = None if held else _other_row(rows, named, row, n, noun, family=True)
                said_of = _said_of(text, nums, row, mate, n) if mate is not None else None
                if mate is not None and said_of is mate:
                    described[n.start] = mate.unit  # "the 1,362,998 of the 256-GPU run"
                elif mate is not None and said_of is row:
                    crossed.setdefault(n.start, (mate.unit, f"for {mate.label_text}"))
                elif mate is None and not held and _first_of_column(row, figures, words_after, n):
                    # "Forced balanced routing reached 683,961 global TPS": the row's
                    # figure of the column its noun names, which another row holds.
                    owner = _other_row(rows, named, row, n, noun)
                    other = _other_column(row, noun, n) if owner is None else None
                    if owner is not None:
                        crossed.setdefault(n.start, (owner.unit, f"for {owner.label_text}"))
                    elif other is not None:  # "5,324.21 global TPS": the row's TPS/GPU
                        crossed.setdefault(n.start, (row.unit, f"under {other}"))
                continue
            other = _other_column(row, part, n)
            if other is not None:
                crossed.setdefault(n.start, (row.unit, f"under {other}"))
                continue
            elsewhere = _other_row(rows, named, row, n)
            if elsewhere is not None:
                crossed.setdefault(n.start, (elsewhere.unit, f"for {elsewhere.label_text}"))
        if len(backed) == len(figures):
            return RowReading(backed, {})
    return RowReading({k: v for k, v in described.items() if k not in crossed}, crossed)


# What a figure is said of in its own words: "the 1,362,998 of the 256-GPU run".
_OF = re.compile(r"\s+of\s+(?:the\s+|an?\s+)?[^,;:()]{1,40}?(?=[,;:()]|\.(?!\d)|$)")


def _said_of(text: str, nums: Sequence[Number], row: Row, mate: Row, n: Number) -> Row | None:
    """The row ``n`` is said of, of ``row`` (which the sentence names) and ``mate`` (which
    holds it): the row its own "of" phrase describes by a cell only that row holds ("about
    twice the 1,362,998 of the 256-GPU run": the mate's 256 GPUs; "... of the 512-GPU
    run": the named row's count), or names; ``row`` when it has no such phrase (the family
    rule); by size, of a phrase that says which is smaller or larger ("of the smaller
    run": the row of the fewer GPUs, :func:`_smaller`); None when the phrase tells
    neither ("of the other run")."""
    m = _OF.match(text, n.end)
    if m is None:
        return row
    words = norm_words(m.group(0))
    inside = [x for x in nums if m.start() <= x.start < m.end()]
    # The columns the phrase names ("GPU" of "256-GPU": "GPUs"), else every column.
    named = [j for j, h in enumerate(row.headers) if h and (h in words or _one(h) in words)]
    for one, other in ((mate, row), (row, mate)):
        if one.label in words or any(
            _holds(one, x, named) and not _holds(other, x, named) for x in inside
        ):
            return one
    sign = next((s for w, s in _SIZE.items() if w in words), 0)
    smaller = _smaller(mate, row) if sign else None
    if smaller is None:
        return None
    return mate if smaller == (sign < 0) else row


# Words of size that tell one of two rows from the other ("of the smaller run").
_SIZE = {" smaller ": -1, " larger ": 1, " bigger ": 1}


def _smaller(one: Row, other: Row) -> bool | None:
    """Whether row ``one`` is the smaller of the two by the first column of size (its
    header a count of GPUs, nodes, ... or parameters: "| PP2-256 | 256 |") whose cells
    hold one quantity each, of one unit, and differ; None when no column does (a
    latency column says no run's size: the smaller model may be the slower)."""
    for h, mine, theirs in zip(
        one.headers[1:], one.cell_numbers[1:], other.cell_numbers[1:], strict=False
    ):
        if len(mine) == len(theirs) == 1 and _SIZE_COLUMN.search(h):
            a, b = mine[0], theirs[0]
            if QUANTITY == a.kind == b.kind and a.unit == b.unit and a.value != b.value:
                assert a.value is not None and b.value is not None
                return a.value < b.value
    return None


# A column of a run's or a model's size (Row.headers: normalised words).
_SIZE_COLUMN = re.compile(
    r" (?:gpus?|nodes?|devices?|chips?|accelerators?|hosts?|ranks?|params|parameters|size) "
)


def _one(header: str) -> str:
    """A normalised header of one word in the singular (" gpus " -> " gpu ")."""
    return header[:-2] + " " if header.endswith("s ") and header.count(" ") == 2 else header


def _noun_columns(row: Row, after: str) -> list[int]:
    """The columns of ``row`` a figure's unit noun names (``after``: the normalised words
    after it, " gpus ..." of "256 GPUs", " global tps ..." of "683,961 global TPS")."""
    return [
        j
        for j, h in enumerate(row.headers)
        if j and h and (after.startswith(h) or after.startswith(_one(h)))
    ]


def _first_of_column(
    row: Row, figures: Sequence[Number], after: Callable[[Number], str], n: Number
) -> bool:
    """Whether ``n`` names a column of ``row`` by its unit noun that no figure before it
    names: the row's own figure of that column, not one compared with it ("813,168
    global TPS, against 683,961 global TPS before")."""
    mine = set(_noun_columns(row, after(n)))
    return bool(mine) and not any(
        mine.intersection(_noun_columns(row, after(m))) for m in figures if m.start < n.start
    )


def _holds(row: Row, n: Number, columns: Sequence[int] = (), after: str = "") -> bool:
    """Whether a cell of ``row`` (of ``columns``, when given; else of the columns its unit
    noun names, ``after`` it, when the row has them: "256 GPUs" is no 256 under "DP")
    holds ``n``."""
    columns = columns or (_noun_columns(row, after) if after else ())
    cells = row.cell_numbers
    chosen = [cells[j] for j in columns if j < len(cells)] if columns else cells
    return any(_same(n, m) for cell in chosen for m in cell)


def _nearest_holder(
    text: str, named: Sequence[Row], n: Number, after: str
) -> tuple[str, Row] | None:
    """The label named nearest ``n`` and the nearest named row that holds it (in the
    column its unit noun names, ``after`` it: :func:`_holds`), or None."""
    low = text.lower()

    def distance(row: Row) -> int:
        label = row.label_text.lower()
        spots = [m.start() for m in re.finditer(re.escape(label), low)] if label else []
        return min((abs(n.start - p) for p in spots), default=len(text) + 1)

    ordered = sorted(named, key=distance)  # two rows of one label stay together
    holder = next((r for r in ordered if _holds(r, n, after=after)), None)
    return None if holder is None else (ordered[0].label_text, holder)


def _other_row(
    rows: Sequence[Row],
    named: Sequence[Row],
    row: Row,
    n: Number,
    after: str = "",
    *,
    family: bool = False,
) -> Row | None:
    """Another row of ``row``'s table, one the sentence does not name, that holds ``n``
    (in the column its unit noun names, ``after`` it: :func:`_holds`; ``family``: one
    whose label is an identifier of the family of ``row``'s)."""
    table = [r for r in rows if r.header_unit == row.header_unit and r not in named]
    if family:
        kind = _family(row.label_text)
        table = [r for r in table if kind and _family(r.label_text) == kind]
    return next((r for r in table if _holds(r, n, after=after)), None)


# A run of letters or of digits of an identifier's key, to tell its family by.
_RUN = re.compile(r"[a-z]+|[0-9]+")


@lru_cache(maxsize=256)
def _family(label: str) -> str:
    """The family of a row label that is one identifier alone, as its key is written: its
    leading letters, then a mark per run of letters or digits, and its separators (the
    same for "PP2-256" and "PP4-512"; none for "Llama3-8B (dense)", "Alpha"): "" for
    another label."""
    found = extract_numbers(label, words=False)
    if len(found) != 1 or found[0].kind != IDENTIFIER or found[0].text != label:
        return ""
    key = found[0].key
    lead = re.match(r"[a-z]*", key)
    marks = _RUN.sub(lambda m: "9" if m.group(0)[0].isdigit() else "a", key)
    return f"{lead.group(0) if lead else ''} {marks}"


def _other_column(row: Row, part: str, n: Number) -> str | None:
    """The header of another column holding ``n`` when ``part`` names a column of the row
    whose cell does not ("ROCm: 7.14 in 2.13" where 7.14 is under 2.14)."""
    named = [j for j in range(1, len(row.headers)) if row.headers[j] and row.headers[j] in part]
    if not named:
        return None
    for j, numbers in enumerate(row.cell_numbers):
        if j > 0 and j not in named and any(_same(n, m) for m in numbers):
            return row.headers[j].strip()
    return None


def _backing(row: Row, part: str, n: Number) -> int | None:
    """The unit backing ``n`` in a part of the sentence: its row's cell under a column the
    part names (or the row's label), or that column's header itself."""
    for j, numbers in enumerate(row.cell_numbers):
        named = j == 0 or not row.headers[j] or row.headers[j] in part
        if named and any(_same(n, m) for m in numbers):
            return row.unit
    for j, numbers in enumerate(row.header_numbers):
        if row.headers[j] in part and any(_same(n, m) for m in numbers):
            return row.header_unit
    return None
