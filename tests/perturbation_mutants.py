"""The perturbation suite's mutant generators that change the words around a figure
(hedge, direction, opposite, aside_name, lead_name), and every mutant of the references.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal
from functools import cache

from service.numbers import Hedge, Kind, Number, extract_numbers
from tests.perturbation_figures import (
    _figure_values,
    decimal,
    digit,
    moved_name,
    moved_value,
    name,
    range_end,
    swapped,
    title_name,
    unit,
)
from tests.perturbation_source import (
    MOVED,
    Mutant,
    Reference,
    SourceFacts,
    U,
    _mentions,
    _replace,
    _sentence_span,
    _together,
    figures,
    names,
    references,
    source_facts,
)

_HEDGE = re.compile(
    r"(?P<h>up to|nearly|almost|at most|more than|over|beyond|at least|about|around|"
    r"roughly|approximately|~)\s*$",
    re.I,
)
_REVERSED = {Hedge.UPPER: "more than", Hedge.LOWER: "up to", Hedge.APPROX: "more than"}


def hedge(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    for n in figures(ref.explainer):
        if n.hedge is Hedge.NONE:
            continue
        m = _HEDGE.search(ref.explainer, max(0, n.start - 20), n.start)
        new = _REVERSED[n.hedge]
        if m is not None:
            text = _replace(ref.explainer, m.start("h"), m.end("h"), new)
            yield Mutant("hedge", ref.name, text, U, f"{m.group('h')} {n.text} -> {new}")
        elif ref.explainer[n.end : n.end + 1] == "+":  # "128K+ tokens"
            text = ref.explainer[: n.start] + f"{new} {n.text}" + ref.explainer[n.end + 1 :]
            yield Mutant("hedge", ref.name, text, U, f"{n.text}+ -> {new} {n.text}")


# Words that say which way a change goes, each with one of the other way (same form).
_TURNED = {
    "gain": "drop", "gains": "drops", "gained": "dropped", "drop": "gain", "drops": "gains",
    "dropped": "rose", "rose": "fell", "fell": "rose", "cut": "raised", "cutting": "raising",
    "reduced": "raised", "raised": "reduced", "reduction": "increase", "increase": "reduction",
    "lower": "higher", "higher": "lower", "fewer": "more", "less": "more",
}  # fmt: skip
_WAY = re.compile(r"\b(?P<w>" + "|".join(_TURNED) + r")\b", re.I)
_DOWN = re.compile(
    r"\b(?:drop\w*|fell|fall\w*|cut\w*|reduc\w*|lower\w*|fewer|less|decreas\w*)\b|(?<![\w-])-\d"
)
_UP = re.compile(
    r"\b(?:gain\w*|rose|rise\w*|rais\w*|increas\w*|higher|more|grew|boost\w*)\b|(?<![\w+])\+\d"
)


def _way_of(word: str) -> re.Pattern[str]:
    return _DOWN if _DOWN.search(word) else _UP


def direction(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    """A change turned around ("dropped about 19%" -> "rose about 19%"), where every source
    sentence with the value says it of a change the explainer's way, none the other."""
    for n in figures(ref.explainer):
        if n.unit != "%" or n.value is None:
            continue
        s0, s1 = _sentence_span(ref.explainer, n.start)
        window = [
            m for m in _WAY.finditer(ref.explainer, max(s0, n.start - 30), min(s1, n.end + 25))
        ]
        if len(window) != 1:
            continue
        m = window[0]
        word = m.group("w")
        way = _way_of(word.lower())
        other = _UP if way is _DOWN else _DOWN
        value = f"{n.value.normalize():f}"
        said = [s for s in facts.sentences if re.search(rf"(?<![\d.]){re.escape(value)}\s*%", s)]
        if not said or not all(way.search(s.lower()) and not other.search(s.lower()) for s in said):
            continue
        new = _TURNED[word.lower()]
        new = new.capitalize() if word[0].isupper() else new
        text = _replace(ref.explainer, m.start("w"), m.end("w"), new)
        yield Mutant("direction", ref.name, text, U, f"{word} {n.text} -> {new}")


# Words of a condition or a part, each with its opposite (same form).
_OPPOSITES = {
    "enabled": "disabled", "disabled": "enabled", "forward": "backward", "backward": "forward",
    "input": "output", "output": "input", "inputs": "outputs", "outputs": "inputs",
    "dense": "sparse", "sparse": "dense", "maximum": "minimum", "minimum": "maximum",
    "aligned": "unaligned", "unaligned": "aligned",
}  # fmt: skip
_OPPOSITE_WORD = re.compile(r"(?<![\w-])(?P<w>" + "|".join(_OPPOSITES) + r")(?!\w)", re.I)
_PART_END = re.compile(r"[,;|]")


def _part(text: str, n: Number, others: list[Number]) -> tuple[int, int]:
    """The part of a figure's sentence that is its own: from the comma, semicolon, cell
    border or figure before it (from the sentence start for its first figure: "With them
    enabled, the speedup was 4.02 times") to the one after it."""
    s0, s1 = _sentence_span(text, n.start)
    before = [m.end for m in others if s0 <= m.end <= n.start]
    if before:
        before += [m.end() for m in _PART_END.finditer(text, s0, n.start)]
    after = [m.start for m in others if n.end <= m.start < s1]
    after += [m.start() for m in _PART_END.finditer(text, n.end, s1)]
    return max(before, default=s0), min(after, default=s1)


def _sides(text: str, start: int, end: int) -> set[str]:
    """The opposite-pair words in text[start:end], singular, lower case."""
    return {
        m.group("w").lower().removesuffix("s") for m in _OPPOSITE_WORD.finditer(text, start, end)
    }


def opposite(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    """The condition or part a figure is said of turned into its opposite ("with them
    enabled, the speedup was 4.02 times" -> "disabled"; "output tokens" -> "input"), where
    every source sentence (or table row) with the value says it with that word, in the
    figure's own part, and never with the other."""
    figs = [n for n in extract_numbers(ref.explainer) if n.value is not None]
    for n in figures(ref.explainer):
        if n.value is None:
            continue
        a, b = _part(ref.explainer, n, [f for f in figs if f.start != n.start])
        words = list(_OPPOSITE_WORD.finditer(ref.explainer, a, b))
        if len({w.group("w").lower() for w in words}) != 1:
            continue  # none, or both sides already
        word = words[0].group("w").lower().removesuffix("s")
        other = _OPPOSITES[word].removesuffix("s")
        parts = [
            _sides(sentence, *_part(sentence, m, [x for x in nums if x.start != m.start]))
            for sentence in facts.sentences
            for nums in [extract_numbers(sentence)]
            for m in nums
            if m.value == n.value and m.kind == n.kind
        ]
        if not parts or not all(word in p and other not in p for p in parts):
            continue
        text = ref.explainer
        for w in reversed(words):
            new = _OPPOSITES[w.group("w").lower()]
            new = new.capitalize() if w.group("w")[0].isupper() else new
            text = _replace(text, w.start("w"), w.end("w"), new)
        yield Mutant("opposite", ref.name, text, MOVED, f"{n.text}: {word} -> {other}")


_DATA_ASIDE = re.compile(r"\([^()]*\d[^()]*\)")


def _asides_before(sentence: str, value: Decimal) -> list[tuple[re.Match[str], Number]]:
    """Parentheses of figures in a source sentence that follow a figure of their own and
    stand before a figure of ``value`` outside them, with that figure."""
    nums = [m for m in extract_numbers(sentence) if m.kind in (Kind.QUANTITY, Kind.RANGE)]
    asides = list(_DATA_ASIDE.finditer(sentence))
    outside = [m for m in nums if not any(a.start() <= m.start < a.end() for a in asides)]
    return [
        (a, x)
        for a in asides
        for x in outside
        if x.value == value
        and x.start >= a.end()
        and any(m.end <= a.start() for m in outside if m.value != value)
    ]


def aside_name(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    """A figure said of a name the source gives only the figures of a parenthesis before
    it ("... recovered 89% of the overhead (5,996 -> 7,027 tok/s on 8xMI325X GPU), and the
    colwise scales optimization delivered a 6.2x speedup": "6.2x ... on MI325X"), and
    puts in no block with the value outside such a parenthesis."""
    for n in figures(ref.explainer):
        if n.kind != Kind.QUANTITY or n.value is None:
            continue
        found = [
            (a, sentence)
            for sentence in facts.sentences
            for a, _ in _asides_before(sentence, n.value)
        ]
        candidates = dict.fromkeys(
            w for a, sentence in found for _, _, w in names(sentence, *a.span())
        )
        for word in candidates:
            word = word.removeprefix("8x").removeprefix("x")  # "8xMI325X": the name in it
            if not word[:1].isalpha():
                continue
            stripped = [_DATA_ASIDE.sub(" ", ctx) for ctx, vals in facts.blocks if n.value in vals]
            if any(_mentions(ctx, word) for ctx in stripped):
                continue  # the source puts it with the value outside a parenthesis
            _, end = _part(ref.explainer, n, [f for f in figures(ref.explainer) if f != n])
            end -= ref.explainer[end - 1] == "."
            text = ref.explainer[:end] + f" on {word}" + ref.explainer[end:]
            yield Mutant("aside_name", ref.name, text, MOVED, f"{n.text}: + on {word}")
            break


_FUNCTION_WORDS = {"The", "This", "These", "It", "Its", "A", "An", "Each", "Both", "All"}


def lead_name(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    """A sentence of measured figures opened with a phrase naming a name of the explainer
    the source never puts in a block with any of them, nor in its title ("On MI325X, the
    kernel reaches 6.2x" where the source gives 6.2x on MI300X): the phrase names what
    the figures before its clause's end (a semicolon or colon) are of."""
    pool = list(dict.fromkeys(w for _, _, w in names(ref.explainer)))
    pool = [w for w in pool if _mentions(facts.keys.replace("\x00", " "), w.replace("-", " "))]
    pool = [w for w in pool if not _mentions(ref.title.lower(), w)]
    done: set[int] = set()
    for n in figures(ref.explainer):
        s0, s1 = _sentence_span(ref.explainer, n.start)
        if not n.unit or s0 in done:
            continue
        done.add(s0)
        start = s0 + len(ref.explainer[s0:s1]) - len(ref.explainer[s0:s1].lstrip("\n .*-"))
        if ref.explainer.startswith(("|", "#"), start):
            continue  # a table row or a heading: no sentence to lead
        end = min([i for i in (ref.explainer.find(c, start, s1) for c in ";:") if i >= 0] or [s1])
        measured = [f for f in figures(ref.explainer) if f.unit and start <= f.start < end]
        if not measured:
            continue
        said = {w.lower() for _, _, w in names(ref.explainer, s0, s1)}
        for other in pool:
            if other.lower() in said or any(
                _together(facts, other, *_figure_values(f)) for f in measured
            ):
                continue
            first = ref.explainer[start:s1].split(" ", 1)[0]
            rest = ref.explainer[start:]
            if first in _FUNCTION_WORDS:
                rest = rest[0].lower() + rest[1:]
            text = ref.explainer[:start] + f"On {other}, " + rest
            yield Mutant("lead_name", ref.name, text, MOVED, f"{n.text}: On {other}, ...")
            break


GENERATORS = (
    digit, decimal, unit, range_end, name, moved_name, title_name, moved_value, swapped, hedge,
    direction, opposite, aside_name, lead_name,
)  # fmt: skip


@cache
def mutants() -> tuple[Mutant, ...]:
    out: dict[str, Mutant] = {}
    for ref in references():
        facts = source_facts(ref.source)
        for generate in GENERATORS:
            for mutant in generate(ref, facts):
                if mutant.text != ref.explainer:
                    out.setdefault(mutant.text, mutant)
    return tuple(out.values())
