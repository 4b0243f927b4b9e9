"""Matching what is compared as written: identifiers and versions (a version with the
product it follows), and number words."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from decimal import Decimal

from service.check.index import SourceIndex
from service.check.match import Outcome
from service.check.names import Name, verbatim_pattern
from service.check.setting import other_count
from service.check.unit import Hit, Unit
from service.check.word_counts import counts_noun, placed, unplaced, word_counts_other
from service.models import CheckStatus
from service.numbers import Number
from service.numbers.number import QUANTITY, VERSION, WORD
from service.numbers.words import counts_events


def locate(idx: SourceIndex, key: str, *, version: bool = False) -> Iterator[int]:
    """Units of the source where a verbatim name occurs, in order (lazily: most callers
    want the first)."""
    return idx.occurrences(key, verbatim_pattern(key, version), version=version)


def first_located(idx: SourceIndex, key: str, *, version: bool = False) -> int | None:
    """The first unit of :func:`locate` (memoised per source)."""
    return idx.first(key, verbatim_pattern(key, version), version=version)


def match_verbatim(idx: SourceIndex, n: Number, product: Name | None) -> Outcome:
    """An identifier or version, verbatim; a version with the product it follows."""
    version = n.kind == VERSION
    first = first_located(idx, n.key, version=version)
    if first is None:
        return Outcome(CheckStatus.UNSUPPORTED, None, "not in the source")
    if product is not None:
        for u in locate(idx, n.key, version=version):  # from ``first`` on
            if _after_product(idx.units[u], n.key, product):
                return Outcome(CheckStatus.SUPPORTED, u)
        return Outcome(
            CheckStatus.MISATTACHED, first, f"the source does not give it for {product.key}"
        )
    return Outcome(CheckStatus.SUPPORTED, first)


# A word with a capital: a name (another product) standing between a product and a version.
_CAPITALISED = re.compile(r"[A-Za-z0-9]*[A-Z][A-Za-z0-9]*")


def _after_product(unit: Unit, key: str, product: Name) -> bool:
    """Whether the version ``key`` stands in ``unit`` after ``product`` with no other name
    between ("CUDA 12.6, 13.0 and 13.2", not the 7.14 of "CUDA 12.6 and ROCm 7.14": the
    clause names CUDA, but gives 7.14 for ROCm). A version found only in the unit's
    context (a heading) goes with a product anywhere in it."""
    text = unit.text
    found = False
    for m in verbatim_pattern(key, True).finditer(text, unit.start, unit.end):
        found = True
        ends = [p.end() for p in product.pattern.finditer(text, unit.start, m.start())]
        if not ends:
            continue
        # (A text whose lower case has another length has no offsets in common with it.)
        cased = unit.cased if len(unit.cased) == len(text) else text
        if not _CAPITALISED.search(cased, ends[-1], m.start()):
            return True
    return not found and product.pattern.search(unit.context) is not None


def match_word(
    idx: SourceIndex,
    w: Number,
    noun_of: Callable[[], str] | None = None,
    counted_of: Callable[[], tuple[str, tuple[str, ...]]] | None = None,
    place: str = "",
) -> Outcome | None:
    """A number word, when the source has its value (else it is no claim: None).
    ``noun_of``: the noun right after a bare count word ("eight experts"; read only
    when the source has the value), which a source count of the value must count too,
    as for digits ("8 layers and 64 experts" backs no "eight experts":
    :func:`~service.check.setting.other_count`). ``counted_of``: what it counts where the
    source writes the word too, and its phrase (:func:`~service.check.beyond.counted_words`:
    "four recent models" is not backed by "four design principles", :func:`_counts_other`).
    A count of events ("called twice") or of runs ("three runs": ``Number.runs``) no
    multiplier backs. ``place``: the plural of the sequence's label the word is a place
    after ("days" of "Day two"), which the source must name that place of
    (:func:`~.word_counts.placed`: "day two", "Day 2", "two days", "the second day"),
    not hold the value for other things ("Two tracks run"): misattached where it names
    other places of them, unsupported where none (:func:`~.word_counts.unplaced`)."""
    assert w.value is not None
    found = idx.singles.get(w.value, [])
    if place and found:
        u = placed(idx, found, w.value, place)
        if u is not None:
            return Outcome(CheckStatus.SUPPORTED, u)
        return unplaced(idx, found, place, w.text.lower())  # "Two tracks run": no day two
    if found and (w.runs or counts_events(w)):
        # "called twice" counts calls: the source's "2x faster" (or "twice as fast") has
        # the value as a multiplier, which says nothing of how often a thing ran.
        counted = [h for h in found if h[1].unit != "x"]
        if not counted:
            return Outcome(
                CheckStatus.UNSUPPORTED, None, f"the source writes {found[0][1].text}, a multiplier"
            )
        found = counted
    written = w.text.lower()
    # The word's own places, if any are read: where all are past the cap on its value's
    # (check.caps), it is read as the digits are (it was "supported" by no unit).
    words = [h for h in found if h[1].text.lower() == written] if written in idx.words else []
    if words:
        hits = words
        what = counted_of() if counted_of is not None else ("", ())
        why = _counts_other(idx, found, hits, *what) if what[0] else ""
        # Only where the source counts the noun otherwise ("three models"): else the
        # explainer may count what it names itself ("TorchAO and TorchTitan, two libraries").
        if why and _counted_otherwise(idx, w.value, what[0]):
            return Outcome(CheckStatus.MISATTACHED, hits[0][0], why)
        return Outcome(CheckStatus.SUPPORTED, hits[0][0])
    hits = found
    noun = noun_of() if hits and noun_of is not None else ""
    if noun:  # the first that counts it (a common value has hits by the hundred)
        held = next((h for h in hits if not other_count(idx.units[h[0]], h[1], noun)), None)
        if held is None:
            why = other_count(idx.units[hits[0][0]], hits[0][1], noun)
            return Outcome(CheckStatus.MISATTACHED, hits[0][0], why)
        return Outcome(CheckStatus.SUPPORTED, held[0])
    if hits:
        return Outcome(CheckStatus.SUPPORTED, hits[0][0])
    return None


def _counts_other(
    idx: SourceIndex, found: list[Hit], words: list[Hit], noun: str, phrase: tuple[str, ...]
) -> str:
    """Why the source's places of a count word's value (``found``; ``words``: those that
    write the word itself) count other things than the explainer's ``noun``: each place of
    the word counts a clear noun of its own (:func:`~.word_counts.word_counts_other`), and no
    place of the value counts the noun or may (digits: :func:`~.setting.other_count`;
    "4 of them", a figure with no noun, may; "Gemma 4", a name's, may not:
    :func:`_name_number`); "" when one does. (The word first: most places of a value, of
    a common one by the hundred, are digits.)"""
    why = ""
    for u, m in words:
        theirs = word_counts_other(idx.units[u], m, noun, phrase)
        if not theirs:
            return ""
        why = why or theirs
    mine = {id(h[1]) for h in words}
    for u, m in found:
        if id(m) in mine:
            continue
        unit = idx.units[u]
        # Another word of the value ("a dozen models" for "twelve models") as the word.
        other = word_counts_other(unit, m, noun, phrase) if m.kind == WORD else ""
        if not (
            other or (m.kind != WORD and (other_count(unit, m, noun) or _name_number(unit, m)))
        ):
            return ""
    return why


# A capitalised word right before a figure, and no word right after it: a name's number.
_NAME_BEFORE = re.compile(r"(?<![\w.-])[A-Z][\w.-]*[ \t]$")
_NOTHING_AFTER = re.compile(r"[ \t]*(?:[,.;:)]|$)")


def _name_number(unit: Unit, m: Number) -> bool:
    """Whether digits the source writes are part of a name, no count ("models like Gemma
    4, Qwen3", "performance on Blackwell, CDNA 4, and beyond"): a count of nothing, so
    not one of the explainer's noun either."""
    cased = unit.cased
    if len(cased) != len(unit.text) or not _NOTHING_AFTER.match(unit.text, m.end):
        return False  # (a text whose lower case has another length: offsets apart)
    return _NAME_BEFORE.search(cased, max(0, m.start - 40), m.start) is not None


def _counted_otherwise(idx: SourceIndex, value: Decimal, noun: str) -> bool:
    """Whether the source counts the explainer's ``noun`` with another figure than
    ``value`` ("We evaluated three models" where "four" counts design principles): so
    the explainer's count of it is the source's other count's, misattached. Without one
    the explainer may count what it names itself ("TorchAO and TorchTitan, two
    libraries"). Read only for a count word about to be so flagged (few): each block
    that writes the noun's stem, its counts."""
    stem, joined, seen = noun[:5], idx.joined, set()
    pos = joined.find(stem)
    while pos >= 0:
        block = bisect.bisect_right(idx.block_starts, pos) - 1
        if block not in seen and (pos == 0 or not joined[pos - 1].isalpha()):
            seen.add(block)
            for u in idx.block_units.get(block, []):
                unit = idx.units[u]
                for m in unit.numbers:
                    if (
                        m.value is not None
                        and m.value != value
                        and m.kind in (QUANTITY, WORD)
                        and not m.unit
                        and counts_noun(unit, m, noun)
                    ):
                        return True
        pos = joined.find(stem, pos + len(stem))
    return False
