"""A bare figure compared with a measured one ("7,027 tok/s vs 7,156 BF16 baseline") is
measured in its unit."""

from __future__ import annotations

import re

from service.numbers.number import QUANTITY, RANGE, Number, updated
from service.numbers.units import CURRENCY

# "7,027 tok/s vs 7,156 BF16 baseline": the figure compared with a measured one is
# measured in its unit, unless a noun after it says what it counts ("3.2 GB vs 4 cards",
# "vs 8 GPUs").
_VERSUS_GAP = re.compile(r"\s+(?:vs\.?|versus)\s+", re.I)
_COUNTED_AFTER = re.compile(
    r"[ \t]+(?:(?!(?:baseline|before|after|previously|earlier|originally|with|without|for|"
    r"from|on|in|at|and|or|the|using|under|when|while|per)\b)[a-z]{2,}|[A-Z][A-Za-z]*s)\b"
)


def share_compared_unit(s: str, nums: list[Number]) -> list[Number]:
    """A bare figure after "vs"/"versus" takes the unit of the figure it is compared with."""
    if "vs" not in s and "versus" not in s:
        return nums
    out = list(nums)
    for i in range(1, len(out)):
        a, b = out[i - 1], out[i]
        if (
            b.kind == QUANTITY
            and not b.unit
            and a.kind in (QUANTITY, RANGE)
            and a.unit
            and a.unit not in CURRENCY.values()
            and _VERSUS_GAP.fullmatch(s, a.end, b.start)
            and not _COUNTED_AFTER.match(s, b.end)
        ):
            out[i] = updated(b, unit=a.unit)
    return out
