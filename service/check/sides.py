"""The side a source or explainer table states a cell as: a maximum ("| Max value | 240 |",
a "Peak HBM" column) or a minimum, by its row's label or its column's header (as "has a
max of 240" states one in prose)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from service.numbers import Hedge, Number
from service.numbers.number import LOWER, NO_HEDGE, QUANTITY, UPPER

# A row's label or a column's header that opens with "max"/"min" ("Max value", "Minimum",
# "Max. batch", "Min") or "peak" ("Peak HBM": a maximum); not a name that ends with it
# ("M3 Max", "Qwen-Max"), both ("Min/Max"), nor a unit in brackets ("(min)": minutes,
# dropped first).
_EXTREME_CELL = re.compile(r"[^\w(\[]*(max|min|peak)(?:imum)?\.?(?![\w/-])", re.I)
_BRACKETED = re.compile(r"[(\[][^()\[\]]*[)\]]")
# Or that says it in brackets after its first words ("Value (max)", "Peak (max)
# throughput"): "(max)", "(maximum)", "(minimum)"; not "(min)", minutes as often.
_EXTREME_BRACKETED = re.compile(r"[(\[]\s*(max|maximum|minimum)\.?\s*[)\]]", re.I)


@lru_cache(maxsize=256)
def cell_side(cell: str) -> Hedge:
    """The side a row's label or a column's header states its figures as: UPPER for a
    maximum ("Max value", "Peak HBM"), LOWER for a minimum, else no hedge."""
    m = _EXTREME_CELL.match(_BRACKETED.sub(" ", cell)) or _EXTREME_BRACKETED.search(cell)
    if m is None:
        return NO_HEDGE
    return LOWER if m.group(1).lower().startswith("min") else UPPER


def row_sides(header: Sequence[str], row: Sequence[str]) -> tuple[Hedge, ...]:
    """Per column, the side a table row's cells are stated as: its label's ("| Max value |
    240 |" is a stated maximum, as "has a max of 240" is), else its column header's;
    () for a row with none (most)."""
    label = cell_side(row[0]) if row else NO_HEDGE
    sides = tuple(
        NO_HEDGE
        if j == 0
        else label
        if label is not NO_HEDGE
        else cell_side(header[j])
        if j < len(header)
        else NO_HEDGE
        for j in range(len(row))
    )
    return sides if any(s is not NO_HEDGE for s in sides) else ()


def side_in_row(text: str, sides: Sequence[Hedge], n: Number) -> Hedge:
    """The side ``n`` of an explainer's table row (``text``, as :func:`render_row` writes
    it) is stated as, by its column (:func:`row_sides`): a plain value only."""
    if n.kind != QUANTITY or n.hedge is not NO_HEDGE:
        return NO_HEDGE
    column = text.count(" | ", 0, n.start)
    return sides[column] if column < len(sides) else NO_HEDGE
