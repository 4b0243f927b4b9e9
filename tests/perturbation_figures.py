"""The perturbation suite's mutant generators that change a figure or the name beside it
(digit, decimal, unit, range_end, name, moved_name, title_name, moved_value, swapped).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from decimal import Decimal

from service.numbers import Kind, Number, extract_numbers, fold
from tests.perturbation_source import (
    _CORE,
    MOVED,
    Mutant,
    Reference,
    SourceFacts,
    U,
    _core,
    _mentions,
    _name_forms,
    _near,
    _replace,
    _scale,
    _sentence_span,
    _together,
    _value_of,
    figures,
    names,
)

# --- mutant generators ----------------------------------------------------------------------------


def _digit_variants(numeral: str) -> Iterator[str]:
    positions = [i for i, c in enumerate(numeral) if c.isdigit()]
    last = positions[-1]
    for step in range(1, 10):
        d = (int(numeral[last]) + step) % 10
        if d == 0 and len(positions) == 1:
            continue
        yield numeral[:last] + str(d) + numeral[last + 1 :]


def digit(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    for n in figures(ref.explainer):
        if n.kind != Kind.QUANTITY:
            continue
        start, end = _core(n, ref.explainer)
        numeral = ref.explainer[start:end]
        scale = _scale(n, numeral)
        for new in _digit_variants(numeral):
            if _value_of(new).scaleb(scale) not in facts.values:
                text = _replace(ref.explainer, start, end, new)
                yield Mutant("digit", ref.name, text, U, f"{numeral} -> {new}")
                break


def decimal(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    for n in figures(ref.explainer):
        if n.kind != Kind.QUANTITY:
            continue
        start, end = _core(n, ref.explainer)
        numeral = ref.explainer[start:end].replace(",", "")
        point = numeral.find(".") if "." in numeral else len(numeral)
        digits = numeral.replace(".", "")
        if point <= 1:
            new = "0." + "0" * (1 - point) + digits
        else:
            new = digits[: point - 1] + "." + digits[point - 1 :]
        if _value_of(new).scaleb(_scale(n, ref.explainer[start:end])) not in facts.values:
            text = _replace(ref.explainer, start, end, new)
            yield Mutant("decimal", ref.name, text, U, f"{numeral} -> {new}")


_MULTIPLIER = re.compile(r"(?:\s*times|[x×]|-fold)$")


def unit(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    for n in figures(ref.explainer):
        if n.unit != "x" or n.value in facts.percents:
            continue
        m = _MULTIPLIER.search(ref.explainer, n.start, n.end)
        if m is None:
            continue  # a bare member of a list ("1.58 and 1.68 times")
        text = _replace(ref.explainer, m.start(), m.end(), "%")
        yield Mutant("unit", ref.name, text, U, f"{n.text} -> %")


def range_end(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    for n in figures(ref.explainer):
        if n.kind != Kind.RANGE:
            continue
        numerals = list(_CORE.finditer(ref.explainer, n.start, n.end))
        for which, m in (("low", numerals[0]), ("high", numerals[-1])):
            for new in _digit_variants(m.group(0)):
                if _value_of(new) not in facts.values:
                    text = _replace(ref.explainer, m.start(), m.end(), new)
                    yield Mutant("range_end", ref.name, text, U, f"{which} {m.group(0)} -> {new}")
                    break


def name(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    seen: set[str] = set()
    for n in extract_numbers(ref.explainer):
        if n.kind not in (Kind.IDENTIFIER, Kind.VERSION) or n.text in seen:
            continue
        seen.add(n.text)
        digits = [i for i, c in enumerate(n.text) if c.isdigit()]
        if not digits:
            continue
        i = digits[-1]
        for step in range(1, 10):
            new = n.text[:i] + str((int(n.text[i]) + step) % 10) + n.text[i + 1 :]
            if fold(new) not in facts.keys:
                text = _replace(ref.explainer, n.start, n.end, new)
                yield Mutant("name", ref.name, text, U, f"{n.text} -> {new}")
                break


def _figure_values(n: Number) -> tuple[Decimal, ...]:
    assert n.value is not None
    return (n.value,) if n.high is None else (n.value, n.high)


def _swapped_names(
    ref: Reference, facts: SourceFacts, pool: list[str], kind: str
) -> Iterator[Mutant]:
    """For each figure, a name the source ties to it swapped for the first of ``pool`` of
    its kind (a number in both or in neither) that the source never gives for the figures
    near that spot."""
    figs = figures(ref.explainer)
    for n in figs:
        for start, end, word in _near(ref.explainer, n):
            if not _together(facts, word, *_figure_values(n)):
                continue  # the source does not tie this name to the figure anyway
            nearby = [f for f in figs if any(x[0] == start for x in _near(ref.explainer, f))]
            digit_class = any(c.isdigit() for c in word)
            for other in pool:
                if any(c.isdigit() for c in other) != digit_class:
                    continue
                if other.lower() in word.lower() or word.lower() in other.lower():
                    continue  # the same name, or a longer or shorter form of it
                if any(_together(facts, other, *_figure_values(f)) for f in nearby):
                    continue
                text = _replace(ref.explainer, start, end, other)
                yield Mutant(kind, ref.name, text, MOVED, f"{n.text}: {word} -> {other}")
                break
            break


def moved_name(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    pool = list(dict.fromkeys(w for _, _, w in names(ref.explainer)))
    pool = [w for w in pool if _mentions(facts.keys.replace("\x00", " "), w.replace("-", " "))]
    yield from _swapped_names(ref, facts, pool, "moved_name")


def title_name(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    """A name next to a figure swapped for a name of the post's title, of its kind (a
    number in both or in neither), that the source never puts in a block with the figure:
    the title is context for every figure, but not over a name the source gives it
    ("FP8 reached 7,156 tok/s" for "7,156 BF16 baseline" in the FP8 post)."""
    pool = list(dict.fromkeys(w for _, _, w in names(ref.title)))
    yield from _swapped_names(ref, facts, pool, "title_name")


def _sentence_names(text: str, n: Number) -> list[str]:
    """Names of a figure's sentence, else of the sentence before it in its paragraph."""
    s_start, s_end = _sentence_span(text, n.start)
    found = [w for _, _, w in names(text, s_start, s_end)]
    if not found and s_start > 0 and text[s_start - 1] != "\n":
        p_start, _ = _sentence_span(text, s_start - 2)
        found = [w for _, _, w in names(text, p_start, s_start)]
    return found


def moved_value(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    source_numbers = [
        m for m in extract_numbers(ref.source) if m.kind == Kind.QUANTITY and m.value is not None
    ]
    explainer_values = {v for n in figures(ref.explainer) for v in _figure_values(n)}
    for n in figures(ref.explainer):
        if n.kind != Kind.QUANTITY:
            continue
        around = _sentence_names(ref.explainer, n)
        if not around:
            continue
        start, end = _core(n, ref.explainer)
        for donor in source_numbers:
            assert donor.value is not None
            if donor.unit != n.unit or donor.value in explainer_values:
                continue
            if any(_together(facts, w, donor.value) for w in around):
                continue
            numeral = _CORE.search(donor.text)
            if numeral is None or _scale(donor, numeral.group(0)) != _scale(
                n, ref.explainer[start:end]
            ):
                continue
            text = _replace(ref.explainer, start, end, numeral.group(0))
            change = f"{n.text} -> {numeral.group(0)} (said of {', '.join(around)})"
            yield Mutant("moved_value", ref.name, text, MOVED, change)
            break


def _pairs_in(sentence: str, a: Decimal, b: Decimal, x: str, y: str) -> str | None:
    """How a source sentence pairs two values with two names, read by order alone:
    the first two of the four belong together, and the last two."""
    nums = {
        n.value: n.start
        for n in extract_numbers(sentence)
        if n.value in (a, b) and n.kind == Kind.QUANTITY
    }
    spots = {}
    for word in (x, y):
        for form in _name_forms(word):
            m = re.search(r"(?<![a-z0-9])" + re.escape(form), sentence.lower())
            if m:
                spots[word] = m.start()
                break
    if len(nums) < 2 or len(spots) < 2:
        return None
    order = sorted([(nums[a], a), (nums[b], b), (spots[x], x), (spots[y], y)])
    first, second = {order[0][1], order[1][1]}, {order[2][1], order[3][1]}
    if first in ({a, x}, {b, y}) and second in ({a, x}, {b, y}):
        return "straight"
    if first in ({a, y}, {b, x}) and second in ({a, y}, {b, x}):
        return "swapped"
    return None


def swapped(ref: Reference, facts: SourceFacts) -> Iterator[Mutant]:
    figs = [n for n in figures(ref.explainer) if n.kind == Kind.QUANTITY]
    for i, a in enumerate(figs):
        for b in figs[i + 1 :]:
            if a.unit != b.unit or a.value == b.value:
                continue
            if _sentence_span(ref.explainer, a.start) != _sentence_span(ref.explainer, b.start):
                continue
            na, nb = _near(ref.explainer, a, 5), _near(ref.explainer, b, 5)
            xa = [w for s, _, w in na if s > a.end] or [w for _, _, w in na]
            xb = [w for s, _, w in nb if s > b.end] or [w for _, _, w in nb]
            if not xa or not xb or xa[0] == xb[0]:
                continue
            assert a.value is not None and b.value is not None
            readings = {_pairs_in(s, a.value, b.value, xa[0], xb[0]) for s in facts.sentences}
            if "straight" not in readings or "swapped" in readings:
                continue
            (sa, ea), (sb, eb) = _core(a, ref.explainer), _core(b, ref.explainer)
            va, vb = ref.explainer[sa:ea], ref.explainer[sb:eb]
            text = ref.explainer[:sa] + vb + ref.explainer[ea:sb] + va + ref.explainer[eb:]
            yield Mutant("swapped", ref.name, text, MOVED, f"{va} <-> {vb} ({xa[0]}, {xb[0]})")
