"""The value the extractor produces: a number found in a text, with its kind and hedge."""

from __future__ import annotations

from dataclasses import dataclass, replace
from decimal import Decimal
from enum import StrEnum


class Kind(StrEnum):
    QUANTITY = "quantity"
    RANGE = "range"
    VERSION = "version"
    IDENTIFIER = "identifier"
    WORD = "word"


class Hedge(StrEnum):
    """What a hedge word says about the true value relative to the number written."""

    NONE = "none"
    APPROX = "approx"  # about, around, roughly, ~
    UPPER = "upper"  # up to, at most, peaking at, nearly, under: the value is a maximum
    LOWER = "lower"  # over, more than, at least, above: the value is a minimum


@dataclass(frozen=True, slots=True)
class Number:
    """One number found in a text. ``start``/``end`` index the text as given."""

    text: str  # as written, unit included, hedge word excluded
    start: int
    end: int
    kind: Kind
    value: Decimal | None = None  # quantity or word; the low end of a range
    high: Decimal | None = None  # the high end of a range
    exp: int = 0  # decimal exponent of the last digit written (1.10 -> -2, $27M -> 6)
    high_exp: int = 0
    unit: str = ""  # canonical: "x", "%", "ms", "GiB", "$", "bit", ... ("" when bare)
    hedge: Hedge = Hedge.NONE
    key: str = ""  # identifiers and versions: the folded form compared verbatim
    noun: str = ""  # a noun hyphenated to the number: "15-shape" -> "shape"
    change: bool = False  # a range that is a change ("from 5,996 to 7,027", "7,290→1,170")


def updated(n: Number, **changes: object) -> Number:
    """``n`` with some fields changed (the passes of the extractor refine numbers)."""
    return replace(n, **changes)  # type: ignore[arg-type]
