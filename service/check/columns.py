"""How the index reads a source table: a row as a reader sees it (each cell after its
column's name), and the unit or the noun a column's header gives its bare cells (the side
a cell is stated as, a maximum or a minimum: :mod:`.sides`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from service.numbers import Hedge, Number, extract_numbers
from service.numbers.number import NO_HEDGE, QUANTITY, RANGE, updated


def render_row(header: Sequence[str], row: Sequence[str]) -> str:
    """A table row as a reader sees it: each cell after its column's name."""
    cells = []
    for i, cell in enumerate(row):
        name = header[i] if i < len(header) else ""
        cells.append(f"{name}: {cell}" if name else cell)
    return " | ".join(cells)


# A header's unit: "Latency (ms)", "Throughput [tok/s]", "Speedup (x)", "Share (%)".
_HEADER_UNIT = re.compile(r"[(\[]\s*([^()\[\]\d]{1,16}?)\s*[)\]]\s*$")


@lru_cache(maxsize=256)
def column_unit(header: str) -> str:
    """The unit a table column's header gives its cells ("" for none): in brackets after
    its name ("Latency (ms)"), or the header that is a unit alone ("Hours": "36" under
    it is 36 h, as "36 hours" in prose)."""
    m = _HEADER_UNIT.search(header)
    if m is None:
        # (Not one letter: a column "x" or "h" is a coordinate or a dimension.)
        alone = header.strip().lower()
        return _unit_of(alone) if not alone.isalpha() or len(alone) > 1 else ""
    return _unit_of(m.group(1))


def _unit_of(words: str) -> str:
    """The unit ``words`` name, read after a 1 ("" when they are more, or no unit)."""
    found = extract_numbers(f"1 {words}", words=False)
    if len(found) != 1 or found[0].kind != QUANTITY or found[0].end != len(words) + 2:
        return ""
    return found[0].unit if found[0].value == 1 else ""


# A header that is one plural noun ("GPUs", "Nodes", "Experts"): what its cells count.
_COUNTED = re.compile(r"[A-Za-z][A-Za-z-]*[A-Za-z]s")


@lru_cache(maxsize=256)
def column_noun(header: str) -> str:
    """What a table column's bare counts count, lower case, where its header is one
    plural noun and no unit ("gpus" of "GPUs"; "" for "LBS / microbatches", "Hours",
    "Speedup (x)"): "256" under "GPUs" is "256 GPUs", as "256 GPUs" in prose is, and no
    count of nodes."""
    h = header.strip()
    if not _COUNTED.fullmatch(h):
        return ""
    if h.lower().endswith(("ss", "us", "is")) and not h[:-1].isupper():
        return ""  # a singular ("Status", "Bus"); not an acronym's plural ("GPUs")
    found = extract_numbers(f"1 {h.lower()}", words=False)
    return "" if any(n.unit for n in found) else h.lower()


def with_columns(
    text: str,
    start: int,
    nums: tuple[Number, ...],
    column_units: Sequence[str],
    sides: Sequence[Hedge] = (),
    column_nouns: Sequence[str] = (),
) -> tuple[Number, ...]:
    """A table row's numbers (the row at ``start`` of ``text``), each bare figure with its
    column's unit: "2.26" under "ATen (ms)" is 2.26 ms, as an explainer writes it; each
    bare count with its column's noun (``column_nouns``: "256" under "GPUs" counts gpus);
    and each plain value under a column ``sides`` gives a side a bound of that side: the
    source's "| Max value | 240 |" backs "up to 240", not "a minimum of 240" (as
    :func:`service.numbers.context.stated_bounds` reads "has a max of 240")."""
    out = []
    column, pos = 0, start
    for n in nums:  # in order: the separators are counted once, not from the row's start
        column += text.count(" | ", pos, n.start)
        pos = max(pos, n.start)
        unit = column_units[column] if column < len(column_units) else ""
        if unit and not n.unit and n.kind in (QUANTITY, RANGE):
            n = replace(n, unit=unit)
        noun = column_nouns[column] if column < len(column_nouns) else ""
        if noun and not (n.unit or n.noun) and n.kind == QUANTITY and _alone(text, n):
            n = replace(n, noun=noun)
        side = sides[column] if column < len(sides) else NO_HEDGE
        if side is not NO_HEDGE and n.kind == QUANTITY and n.hedge is NO_HEDGE:
            n = updated(n, hedge=side)
        out.append(n)
    return tuple(out)


def _alone(text: str, n: Number) -> bool:
    """Whether a cell holds the number alone ("| 256 |"; not "| 2 / 8 / 128 / 64 |")."""
    before = text.rfind("|", 0, n.start)
    after = text.find("|", n.end)
    end = len(text) if after < 0 else after
    return not text[before + 1 : n.start].strip() and not text[n.end : end].strip()
