"""Coverage: the key facts of the source that an explainer does not carry."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from service.models import DroppedFact, Explainer, Fact
from service.numbers import Kind, Number, extract_numbers
from service.text import split_blocks, split_sentences


def fact_carried(fact: Fact, numbers: Sequence[Number], text: str = "") -> bool:
    """Whether a fact's value is among the numbers (normalised; ranges need both ends)."""
    wanted = extract_numbers(fact.value)
    if not wanted:
        return fact.value.strip().lower() in text.lower()
    w = wanted[0]
    for n in numbers:
        if w.kind in (Kind.IDENTIFIER, Kind.VERSION):
            if n.key and n.key == w.key:
                return True
        elif w.kind == Kind.RANGE:
            if n.kind == Kind.RANGE and (n.value, n.high) == (w.value, w.high):
                return True
        elif (
            n.kind in (Kind.QUANTITY, Kind.WORD)
            and n.value == w.value
            and (not w.unit or not n.unit or w.unit == n.unit)
        ):
            return True
    return False


def dropped_facts(explainer: Explainer | str, facts: Sequence[Fact]) -> list[DroppedFact]:
    """The key facts whose value the explainer (its text and code) does not carry."""
    text = explainer if isinstance(explainer, str) else _full_text(explainer)
    numbers = extract_numbers(text)
    return [
        DroppedFact(value=f.value, about=f.about)
        for f in facts
        if f.key and not fact_carried(f, numbers, text)
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
