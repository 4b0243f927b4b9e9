"""A measured figure with no name, said of one kind of a thing ("a frontier model would
cost an estimated $1M"), where the source's sentence of it writes another kind ("The
fine-tuned model could come in ... closer to $1M") and the sentence beside it gives the
explainer's kind a like figure ("a frontier model could easily cost an estimated $27M
per year"): the figure is the other kind's. Plain words carry no name to bind, and the
two sentences share most of them (model, cost), so only the word before the noun tells
the kinds apart."""

from __future__ import annotations

import re
from functools import lru_cache

from service.check.names import STOP_WORDS
from service.check.unit import Unit
from service.numbers import Number, extract_numbers
from service.numbers.number import QUANTITY, RANGE
from service.text import split_sentences

# A word and the word after it (overlapping: "a frontier model would" gives "frontier
# model" and "model would"), lower case, hyphens kept ("fine-tuned model").
_PAIR = re.compile(r"(?<![\w-])([a-z][a-z-]+)(?= ([a-z]+)(?![\w-]))")


@lru_cache(maxsize=1024)
def qualified_nouns(words: str) -> tuple[tuple[str, str], ...]:
    """The pairs of content words (a word, the noun after it) of the words of a figure's
    clause before it: "frontier model" of "A frontier model would cost an estimated".
    (Read when a source sentence asks, once per clause: most figures are never asked.)"""
    text = words.lower()
    return tuple(
        (m.group(1), m.group(2))
        for m in _PAIR.finditer(text)
        if _content(m.group(1)) and _content(m.group(2))
    )


def _content(word: str) -> bool:
    return len(word) >= 3 and word not in STOP_WORDS


def other_kind(unit: Unit, number: Number, words: str) -> str:
    """Why the source's ``number`` is another kind's than the pairs of the explainer's
    ``words`` say (:func:`qualified_nouns`): its sentence writes a pair's noun after another content
    word and never after the pair's, and the sentence before or after it in the paragraph
    writes the pair with a like figure (its unit). "" when none (most figures: no pair's
    noun in the sentence with another word before it)."""
    a, b = unit.sentence
    if not number.unit or a == b:
        return ""
    text = unit.text
    for q, h in qualified_nouns(words):
        if text.find(h, a, b) < 0:
            continue  # (most pairs: a find in C, no copy of the sentence, no pattern)
        sentence = text[a:b]
        noun = re.escape(h) + r"s?(?![\w-])"
        if re.search(r"(?<![\w-])" + re.escape(q) + " " + noun, sentence):
            continue  # the source says it of the explainer's kind
        theirs = [
            m.group(1)
            for m in re.finditer(r"(?<![\w-])([a-z][a-z-]+) " + noun, sentence)
            if _content(m.group(1))
        ]
        if not theirs:
            continue
        kind = re.compile(r"(?<![\w-])" + re.escape(q) + " " + noun)
        for beside in _beside(unit):
            if kind.search(beside.lower()) and any(
                m.unit == number.unit and m.kind in (QUANTITY, RANGE)
                for m in extract_numbers(beside, words=False)
            ):
                return f"the source says it of the {theirs[0]} {h}, not the {q} {h}"
    return ""


def _beside(unit: Unit) -> list[str]:
    """The sentences before and after the unit's in its paragraph, in their own case."""
    text = unit.cased if len(unit.cased) == len(unit.text) else unit.text
    b = unit.sentence[1]
    out = []
    if unit.before is not None and unit.before[0] != unit.before[1]:
        out.append(text[unit.before[0] : unit.before[1]])
    # (The rest of a long paragraph is not split for its first sentence: a sentence is
    # shorter than this, or read in part.)
    rest = text[b : b + 1000]
    after = split_sentences(rest, code=True) if rest.strip() else []
    if after:
        out.append(after[0])
    return out
