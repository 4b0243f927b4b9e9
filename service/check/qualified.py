"""A measured figure with no name, said of one kind of a thing ("a frontier model would
cost an estimated $1M"), where the source's sentence of it writes another kind ("The
fine-tuned model could come in ... closer to $1M") and the sentence beside it gives the
explainer's kind a like figure ("a frontier model could easily cost an estimated $27M
per year"): the figure is the other kind's. Plain words carry no name to bind, and the
two sentences share most of them (model, cost), so only the word before the noun tells
the kinds apart. So, with names or none, a plain-word subject ("Uniform groups reach
1.23x over Triton") the source's clause of the figure gives another ("The
projection-dimension cases reach 1.23x"), the sentence beside writing the explainer's
with a like figure (:func:`other_subject`)."""

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


# A clause's plain-word subject before its figures: up to three words (hyphens read as
# spaces: "projection-dimension cases" is "projection dimension cases"), a verb, then
# the figures of a list ("uniform groups reach 1.21x and "), after an article.
_SUBJECT = re.compile(
    r"^\s*(?:(?:the|a|an|all) )?((?:[a-z][a-z-]* ){0,2}[a-z][a-z-]*) [a-z]+ "
    r"(?:[^\s;:,]+ (?:and |or )?)*$"
)


_MARK = re.compile(r"[;:,.](?=\s)")


@lru_cache(maxsize=1024)
def subject_of(words: str) -> str:
    """The plain-word subject of a figure's clause, from the ``words`` before the figure:
    "uniform groups" of "Uniform groups reach ", "projection dimension cases" of "the
    projection-dimension cases reach 1.23x and "; "" when the words are no subject and a
    verb (a name, a pronoun, a leading phrase), or a stop word is among them."""
    m = _SUBJECT.match(words.lower())
    if m is None:
        return ""
    words_of = m.group(1).replace("-", " ").split()
    if not all(_content(w) for w in words_of):
        return ""
    return " ".join(words_of)


def other_subject(unit: Unit, number: Number, subject: str) -> str:
    """Why the source's measured ``number`` is another subject's than the explainer's
    plain-word ``subject`` (two words or more: "uniform groups"): its sentence never
    writes that subject, its clause writes another ("The projection-dimension cases
    reach 1.23x"), and the sentence before or after it in the paragraph writes the
    explainer's with a like figure ("Uniform groups reach 1.21x"). "" when none. The
    names of the figure may all stand there: a source "respectively" pairs them with a
    sentence of another subject (:mod:`.paired`), and plain words are no names."""
    a, b = unit.sentence
    if not number.unit or a == b or " " not in subject:
        return ""
    text = unit.text
    # The clause starts after the last mark before the figure (a point ends a sentence
    # only before a space: "1.21x" has one of its own) and ends at the next semicolon.
    start = a
    for m in _MARK.finditer(text, a, number.start):
        start = m.end()
    end = text.find(";", number.end, b)
    if subject in text[start : b if end < 0 else end].replace("-", " "):
        return ""  # the source says it of the explainer's subject too ("... on uniform groups")
    theirs = subject_of(text[start : number.start])
    if not theirs or theirs == subject:
        return ""
    # Its sentence's other clauses ("The projection-dimension cases reach 1.23x and
    # 1.73x; the ragged cases reach 1.15x"), then the sentences beside it.
    cased = unit.cased if len(unit.cased) == len(unit.text) else text
    rest = cased[a:start] + " " + cased[b if end < 0 else end : b]
    for beside in [rest, *_beside(unit)]:
        if subject in beside.lower().replace("-", " ") and any(
            m.unit == number.unit and m.kind in (QUANTITY, RANGE)
            for m in extract_numbers(beside, words=False)
        ):
            return f"the source says it of the {theirs}, not the {subject}"
    return ""
