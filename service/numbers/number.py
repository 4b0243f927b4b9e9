"""The value the extractor produces: a number found in a text, with its kind and hedge."""

from __future__ import annotations

from dataclasses import dataclass, fields
from decimal import Decimal
from enum import StrEnum
from typing import Any


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


# The members as module constants (the same objects): Python 3.11 reads a member as
# ``Kind.QUANTITY`` through the hook EnumType's __getattr__ puts on its classes, several
# times slower than a global, and the extractor and the check compare kinds and hedges
# number after number.
QUANTITY, RANGE, VERSION, IDENTIFIER, WORD = (
    Kind.QUANTITY,
    Kind.RANGE,
    Kind.VERSION,
    Kind.IDENTIFIER,
    Kind.WORD,
)
NO_HEDGE, APPROX, UPPER, LOWER = Hedge.NONE, Hedge.APPROX, Hedge.UPPER, Hedge.LOWER


@dataclass(frozen=True, slots=True, init=False)
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
    # A bare count of runs ("the median of 3 runs", "three trials": events.with_runs),
    # which no multiplier backs, as none backs a count of events (words.counts_events).
    # Its noun stands past the figure's text, so the check reads it, once per explainer
    # figure, and the figure carries it to every match that asks (match._unit_ok), as
    # it carries its unit. Its own field, not ``noun``: that one is what a hyphenated
    # count counts ("15-shape"), which the check reads as such. The extractor makes
    # Numbers by the hundred: the slot's one more set costs a source's index some 0.1M
    # of its 67M instructions (bench.check_instructions --split).
    runs: bool = False

    def __init__(
        self,
        text: str,
        start: int,
        end: int,
        kind: Kind,
        value: Decimal | None = None,
        high: Decimal | None = None,
        exp: int = 0,
        high_exp: int = 0,
        unit: str = "",
        hedge: Hedge = Hedge.NONE,
        key: str = "",
        noun: str = "",
        change: bool = False,
        runs: bool = False,
    ) -> None:
        # The __init__ dataclass writes for a frozen class, with these same parameters,
        # sets each field by object.__setattr__; the slots' own setters do the same work
        # in half the time, and the extractor makes numbers by the hundred per source.
        # tests/test_numbers_quantities.py holds this signature to the fields.
        _text(self, text)
        _start(self, start)
        _end(self, end)
        _kind(self, kind)
        _value(self, value)
        _high(self, high)
        _exp(self, exp)
        _high_exp(self, high_exp)
        _unit(self, unit)
        _hedge(self, hedge)
        _key(self, key)
        _noun(self, noun)
        _change(self, change)
        _runs(self, runs)


_FIELDS = tuple(f.name for f in fields(Number))
(
    _text,
    _start,
    _end,
    _kind,
    _value,
    _high,
    _exp,
    _high_exp,
    _unit,
    _hedge,
    _key,
    _noun,
    _change,
    _runs,
) = (Number.__dict__[name].__set__ for name in _FIELDS)


def updated(n: Number, **changes: Any) -> Number:
    """``n`` with some fields changed (the passes of the extractor refine numbers).

    What dataclasses.replace does, without its walk over the fields' metadata."""
    if not changes.keys() <= _FIELD_SET:  # as replace would
        raise TypeError(f"Number has no field {', '.join(changes.keys() - _FIELD_SET)}")
    # Some 40 calls a check: one read per field in the fields' order is cheap enough, and
    # a field added to Number is carried without touching this.
    return Number(*[changes.get(name, getattr(n, name)) for name in _FIELDS])


_FIELD_SET = frozenset(_FIELDS)
