"""Coverage: the key facts of the source that an explainer does not carry."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from functools import lru_cache

from service.models import DroppedFact, Explainer, Fact
from service.numbers import Kind, Number, extract_numbers
from service.text import split_blocks, split_sentences


@dataclass(frozen=True, slots=True)
class CarriedIndex:
    """The numbers of an explainer keyed the ways a fact is matched, built once so that
    each fact looks up its candidates instead of scanning every number (a long
    explainer against many facts was quadratic)."""

    keys: frozenset[str]  # the non-empty keys of numbers of any kind
    ranges: frozenset[tuple[Decimal | None, Decimal | None]]  # (low, high) of ranges
    # Decimals that compare equal hash equal (1.1 and 1.10), so looking a value up here
    # finds what comparing it with ``==`` number by number found.
    units: dict[Decimal | None, frozenset[str]]  # quantity or word value -> its units
    text: str  # lowercased, for a fact with no number in its value


def index_carried(numbers: Sequence[Number], text: str = "") -> CarriedIndex:
    """Index ``numbers`` (and ``text``) for :func:`carried`."""
    units: dict[Decimal | None, set[str]] = {}
    for n in numbers:
        if n.kind in (Kind.QUANTITY, Kind.WORD):
            units.setdefault(n.value, set()).add(n.unit)
    return CarriedIndex(
        keys=frozenset(n.key for n in numbers if n.key),
        ranges=frozenset((n.value, n.high) for n in numbers if n.kind == Kind.RANGE),
        units={value: frozenset(us) for value, us in units.items()},
        text=text.lower(),
    )


def carried(fact: Fact, index: CarriedIndex) -> bool:
    """Whether a fact's value is among the indexed numbers (normalised; ranges need both
    ends; a unit must agree only when both sides have one)."""
    wanted = extract_numbers(fact.value)
    if not wanted:
        return fact.value.strip().lower() in index.text
    w = wanted[0]
    if w.kind in (Kind.IDENTIFIER, Kind.VERSION):
        return w.key in index.keys  # never "": only non-empty keys are indexed
    if w.kind == Kind.RANGE:
        return (w.value, w.high) in index.ranges
    units = index.units.get(w.value)
    # "" among the units: a bare number of that value, which matches any unit.
    return units is not None and (not w.unit or "" in units or w.unit in units)


def fact_carried(fact: Fact, numbers: Sequence[Number], text: str = "") -> bool:
    """Whether a fact's value is among the numbers (normalised; ranges need both ends).

    For one fact; :func:`dropped_facts` indexes once for all of them."""
    return carried(fact, index_carried(numbers, text))


def dropped_facts(explainer: Explainer | str, facts: Sequence[Fact]) -> list[DroppedFact]:
    """The key facts whose value the explainer (its text and code) does not carry."""
    text = explainer if isinstance(explainer, str) else _full_text(explainer)
    index = index_carried(extract_numbers(text), text)
    return [
        DroppedFact(value=f.value, about=f.about) for f in facts if f.key and not carried(f, index)
    ]


def _full_text(explainer: Explainer) -> str:
    parts = [explainer.all_text()]
    parts.extend(s.code for s in explainer.sections if s.code)
    return "\n\n".join(parts)


@lru_cache(maxsize=16)  # the gate asks again for each repair round of one post
def headline_facts(source_text: str, title: str = "") -> tuple[Fact, ...]:
    """The figures a post leads with, as key facts, for a source that has no annotated
    ones (an evaluation case has): the measured quantities and ranges, with their unit,
    written in its title or its first paragraph. A bare number there ("Aug 31", "in
    2026", "3 new features") is a date or a count more often than a result, and is left
    out; so are names and versions."""
    lead = next((b.text for b in split_blocks(source_text) if b.kind == "paragraph"), "")
    facts: dict[str, Fact] = {}
    for where, text in (("the title", title), ("the first paragraph", lead)):
        for sentence in split_sentences(" ".join(text.split())):
            for n in extract_numbers(sentence, words=False):
                if n.kind in (Kind.QUANTITY, Kind.RANGE) and n.unit and n.text not in facts:
                    facts[n.text] = Fact(value=n.text, about=f"{where}: {_clip(sentence)}")
    return tuple(facts.values())


def _clip(sentence: str, width: int = 160) -> str:
    return sentence if len(sentence) <= width else sentence[: width - 1] + "…"
