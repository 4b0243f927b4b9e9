"""check: a perturbation suite. Faithful explainers pass; every mutant of them is flagged.

References: the explainer 003 against the FlyDSL post (its attention sentences, which that
version of the post lacks, taken out) and faithful explainers of three other corpus posts
(``tests/data/explainers/``). From each, mutants are generated programmatically:

- ``digit``: one digit of a figure changed, to a value the source never writes;
- ``decimal``: the decimal point moved one place;
- ``unit``: a multiplier (``x``, ``times``) turned into a percentage;
- ``range_end``: one end of a range moved;
- ``name``: a version or a model/hardware name altered to one the source never names;
- ``moved_name``: the name next to a figure swapped for another name of the explainer
  that the source never puts with that figure (another model, operator, format);
- ``moved_value``: a figure replaced by a source figure of the same unit that the source
  gives only for other things;
- ``swapped``: two figures of one sentence exchanged where the source pairs them with
  the names the other way round;
- ``hedge``: a hedge reversed ("up to" -> "more than", "over" -> "up to",
  "about" -> "more than");
- ``direction``: a change turned around ("a 13.4% throughput gain" -> "drop", "dropped
  about 19%" -> "rose"), where the source says the value only of a change the other way;
- ``opposite``: the condition or part a figure is said of turned into its opposite ("with
  them enabled, the speedup was 4.02 times" -> "disabled"; "output tokens" -> "input"),
  where the source says the value only with the word the explainer had;
- ``aside_name``: a figure said "on" a name the source gives only the figures of a
  parenthesis before it in its sentence ("... (5,996 -> 7,027 tok/s on 8xMI325X GPU), and
  ... a 6.2x speedup": "a 6.2x speedup on MI325X");
- ``lead_name``: a sentence of measured figures opened with a phrase naming a name of the
  explainer that the source never puts in a block with them, nor in its title ("On
  MI325X, the kernel reaches 6.2x").

Each mutant is valid by construction, judged from the source text alone (values absent
from the source; names never in a block with the figure), not from the checker.
Bars: no false alarm on the references; every mutant unsupported or misattached.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from service.check import check_explainer
from service.clean import article_from_document, article_from_entry
from service.evaluate.cases import load_article, load_cases
from service.models import Article, CheckStatus
from service.numbers import Hedge, Kind, Number, extract_numbers, fold
from service.parse import parse_feed
from service.text import split_blocks, split_sentences

DATA = Path(__file__).parent / "data"
POSTS = DATA / "corpus" / "posts"
FEEDS = DATA / "corpus" / "feeds"
EVAL_CASES = Path(__file__).parent.parent / "eval" / "cases"
FLAGGED = {CheckStatus.UNSUPPORTED, CheckStatus.MISATTACHED}
U = frozenset({CheckStatus.UNSUPPORTED})
MOVED = frozenset({CheckStatus.MISATTACHED, CheckStatus.UNSUPPORTED})


@dataclass(frozen=True)
class Reference:
    name: str
    explainer: str
    source: str
    title: str  # the post's title, as its eval case (its feed) gives it


# The titles of the reference posts, as their eval cases give them (a post's own page
# does not always say it where the cleaner finds it).
_CASE_OF_POST = {
    "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl": "flydsl-amd-gpus",
    "pytorch-blog-fast-ondevice-agentic-ai-with-executorch": "executorch-muse-glimmer",
    "pytorch-blog-fp8-training-on-amd-gpus-with-torchtitan-and-torchao": (
        "fp8-training-amd-torchtitan"
    ),
    "pytorch-blog-how-shopify-built-a-continual-learning-loop": "shopify-continual-learning",
}


@cache
def _title(post: str) -> str:
    slug = _CASE_OF_POST[post]
    case = next(c for c in load_cases(EVAL_CASES) if c.slug == slug)
    return load_article(case).title or ""


@dataclass(frozen=True)
class Mutant:
    kind: str
    reference: str
    text: str
    expect: frozenset[CheckStatus]
    change: str  # what was changed, for the failure message


def _source(slug: str) -> str:
    path = next(POSTS.glob(slug + ".*"))
    return article_from_document(path.read_bytes(), filename=path.name).text


def _without_attention(text: str) -> str:
    """003 minus the sentences about attention results, which this post does not have."""
    lines = []
    for line in text.split("\n"):
        kept = [s for s in split_sentences(line) if not re.search(r"0\.92|0\.14\.2b", s)]
        lines.append(" ".join(kept) if kept or not line.strip() else "")
    return "\n".join(lines)


@cache
def references() -> tuple[Reference, ...]:
    flydsl = "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl"
    seed = (DATA / "seeds" / "003_9f84147b1b26c099.txt").read_text(encoding="utf-8")
    refs = [Reference("003-flydsl", _without_attention(seed), _source(flydsl), _title(flydsl))]
    for path in sorted((DATA / "explainers").glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        refs.append(Reference(path.stem, text, _source(path.stem), _title(path.stem)))
    return tuple(refs)


# --- what the source says, read independently of the checker --------------------------------------


@dataclass(frozen=True)
class SourceFacts:
    values: frozenset[Decimal]  # every value written (quantities, range ends, words)
    percents: frozenset[Decimal]
    keys: str  # folded text, for "is this name anywhere"
    blocks: tuple[tuple[str, frozenset[Decimal]], ...]  # (block + headings, lower; values)
    sentences: tuple[str, ...]


def _values(numbers: list[Number]) -> set[Decimal]:
    out: set[Decimal] = set()
    for n in numbers:
        if n.value is not None:
            out.add(n.value)
        if n.high is not None:
            out.add(n.high)
    return out


@cache
def source_facts(source: str) -> SourceFacts:
    numbers = extract_numbers(source)
    blocks = []
    sentences: list[str] = []
    headings: list[tuple[int, str]] = []
    for block in split_blocks(source):
        if block.kind == "heading":
            headings = [h for h in headings if h[0] < block.level] + [(block.level, block.text)]
        context = " \n ".join([block.text, *(h for _, h in headings)])
        blocks.append((context.lower(), frozenset(_values(extract_numbers(block.text)))))
        if block.kind == "table":
            sentences.extend(" | ".join(row) for row in block.rows)
        else:
            sentences.extend(split_sentences(block.text))
    return SourceFacts(
        values=frozenset(_values(numbers)),
        percents=frozenset(n.value for n in numbers if n.unit == "%" and n.value is not None),
        keys=fold(source),
        blocks=tuple(blocks),
        sentences=tuple(sentences),
    )


def _name_forms(name: str) -> list[str]:
    """A name and its shorter forms ("Llama-3.1-8B-Instruct", "Llama-3.1-8B")."""
    parts = name.split("-")
    return ["-".join(parts[:k]).lower() for k in range(len(parts), 1, -1)] or [name.lower()]


def _mentions(context: str, name: str) -> bool:
    return any(
        re.search(r"(?<![a-z0-9])" + re.escape(form) + r"s?(?![a-z0-9])", context)
        for form in _name_forms(name)
    )


def _together(facts: SourceFacts, name: str, *values: Decimal) -> bool:
    """Whether some source block (with its headings) has the name and all the values."""
    return any(
        _mentions(ctx, name) and all(v in vals for v in values) for ctx, vals in facts.blocks
    )


# --- the explainer's figures and names ------------------------------------------------------------

_CORE = re.compile(r"\d[\d,]*(?:\.\d+)?")
_NAME = re.compile(r"[A-Za-z][\w.=+]*(?:-[\w.=+]+)*")
_NOT_NAMES = {"The", "This", "That", "These", "Those", "It", "Its", "A", "An", "In", "On", "For"}


def figures(text: str) -> list[Number]:
    """Quantities and ranges of an explainer, without its section numbers."""
    out = []
    for n in extract_numbers(text):
        if n.kind not in (Kind.QUANTITY, Kind.RANGE):
            continue
        at_line_start = n.start == 0 or text[n.start - 1] == "\n"
        if at_line_start and text[n.end : n.end + 2] == ". ":
            continue
        out.append(n)
    return out


def names(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int, str]]:
    """Names (models, formats, operators, products) in text[start:end], with positions."""
    out = []
    for m in _NAME.finditer(text, start, len(text) if end is None else end):
        word = m.group(0).rstrip(".")
        if word in _NOT_NAMES or len(word) < 2:
            continue
        initial = re.search(r"(?:^|[.:!?]\s+|\n)$", text[max(0, m.start() - 3) : m.start()])
        digit = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
        caps = any(c.isupper() for c in word[1:])
        if digit or caps or (word[0].isupper() and not initial):
            out.append((m.start(), m.start() + len(word), word))
    return out


def _sentence_span(text: str, pos: int) -> tuple[int, int]:
    start = max(text.rfind("\n", 0, pos), text.rfind(". ", 0, pos) + 1, 0)
    ends = [i for i in (text.find(". ", pos), text.find("\n", pos)) if i >= 0]
    return start, min(ends) if ends else len(text)


def _near(text: str, n: Number, words: int = 4) -> list[tuple[int, int, str]]:
    """Names within a few words of a figure, inside its sentence, not across a comma."""
    s_start, s_end = _sentence_span(text, n.start)
    before = text[s_start : n.start]
    cut = max(before.rfind(","), before.rfind(";"), before.rfind(":"))
    left = s_start + cut + 1 if cut >= 0 else s_start
    tokens = list(re.finditer(r"\S+", text[left : n.start]))
    if len(tokens) > words:
        left += tokens[-words].start()
    after = text[n.end : s_end]
    cut = min([i for i in (after.find(","), after.find(";")) if i >= 0] or [len(after)])
    right = n.end + cut
    tokens = list(re.finditer(r"\S+", text[n.end : right]))
    if len(tokens) > words:
        right = n.end + tokens[words - 1].end()
    return [x for x in names(text, left, right) if not (n.start <= x[0] < n.end)]


def _replace(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _core(n: Number, text: str) -> tuple[int, int]:
    """Span of the first numeral of a figure (its low end for a range)."""
    m = _CORE.search(text, n.start, n.end)
    assert m is not None
    return m.start(), m.end()


def _value_of(numeral: str) -> Decimal:
    return Decimal(numeral.replace(",", ""))


def _scale(n: Number, numeral: str) -> int:
    """Powers of ten between the numeral written and the value (27M -> 6)."""
    assert n.value is not None
    raw = _value_of(numeral)
    return 0 if raw == 0 else (n.value / raw).adjusted()


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


# --- the bars -------------------------------------------------------------------------------------


@pytest.mark.parametrize("ref", references(), ids=lambda r: r.name)
def test_references_raise_no_false_alarm(ref: Reference) -> None:
    report = check_explainer(ref.explainer, ref.source, title=ref.title)
    flagged = [(n.text, n.status.value, n.reason) for n in report.numbers if n.status in FLAGGED]
    assert flagged == []
    assert len(report.numbers) >= 15


def _copyable() -> list[Any]:
    """Every eval case's post, every corpus post and the first 15 items of every corpus
    feed, cleaned: sources to copy verbatim (108 articles)."""
    out = [pytest.param(load_article(case), id=case.slug) for case in load_cases(EVAL_CASES)]
    out += [
        pytest.param(article_from_document(p.read_bytes(), filename=p.name), id=p.stem)
        for p in sorted(POSTS.iterdir())
    ]
    for feed in sorted(FEEDS.iterdir()):
        entries = parse_feed(feed.read_bytes()).entries[:15]
        out += [
            pytest.param(article_from_entry(e), id=f"{feed.stem}-{i}")
            for i, e in enumerate(entries)
        ]
    return out


@pytest.mark.parametrize("article", _copyable())
def test_a_post_copied_word_for_word_raises_no_alarm(article: Article) -> None:
    """The strictest faithful explainer is the post itself: every figure of it must be
    supported where it stands (its tables, asides and figure captions included)."""
    report = check_explainer(article.text, article.text, title=article.title)
    supported = CheckStatus.SUPPORTED
    wrong = [(n.text, n.status.value, n.sentence) for n in report.numbers if n.status != supported]
    assert wrong == []


_WRITTEN_OUT = {"x": " times", "×": " times", "%": " percent"}
_PLAIN_FIGURE = re.compile(r"[\d.,]+\s?[x×%]")


def _written_out(text: str) -> str:
    """Every plain multiplier and percentage of ``text`` in words ("1.10x" -> "1.10 times",
    "96%" -> "96 percent"), the rest unchanged."""
    out, pos = [], 0
    for n in extract_numbers(text):
        if n.kind == Kind.QUANTITY and n.unit in ("x", "%") and _PLAIN_FIGURE.fullmatch(n.text):
            word = _WRITTEN_OUT[n.text[-1]]
            out += [text[pos : n.start], n.text[:-1].rstrip(), word]
            pos = n.end
    return "".join(out) + text[pos:]


def _sentences_left_out(text: str, seed: int) -> str:
    """Each paragraph with some of its sentences left out (at least one kept)."""
    rng = random.Random(seed)
    kept = []
    for block in split_blocks(text):
        if block.kind in ("paragraph", "list_item"):
            sentences = split_sentences(block.text)
            kept.append(" ".join([s for s in sentences if rng.random() < 0.6] or sentences[:1]))
    return "\n\n".join(kept)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_shortened_or_reworded_copy_raises_no_alarm(seed: int) -> None:
    """Faithful edits of a copy keep every figure supported: multipliers and percentages
    written out in words, and sentences left out of each paragraph (names carried from a
    sentence that is gone stand earlier in the source paragraph)."""
    wrong = []
    for param in _copyable():
        (article,) = param.values
        for explainer in (_written_out(article.text), _sentences_left_out(article.text, seed)):
            report = check_explainer(explainer, article.text, title=article.title)
            supported = CheckStatus.SUPPORTED
            wrong += [(n.text, n.sentence) for n in report.numbers if n.status != supported]
    assert wrong == []


_FEWEST = {"aside_name": 1}


def test_every_mutant_is_flagged(capsys: pytest.CaptureFixture[str]) -> None:
    refs = {ref.name: ref for ref in references()}
    missed = []
    misattached: Counter[str] = Counter()
    for mutant in mutants():
        ref = refs[mutant.reference]
        report = check_explainer(mutant.text, ref.source, title=ref.title)
        statuses = {n.status for n in report.numbers}
        if not statuses & mutant.expect:
            missed.append((mutant.kind, mutant.reference, mutant.change))
        if CheckStatus.MISATTACHED in statuses:
            misattached[mutant.kind] += 1
    by_kind = Counter(m.kind for m in mutants())
    by_reference = Counter(m.reference for m in mutants())
    with capsys.disabled():
        print(f"\nperturbation suite: {len(mutants())} mutants, {len(missed)} missed")
        print(f"  {'kind':12} {'mutants':>7} {'misattached':>11}")
        for kind in (g.__name__ for g in GENERATORS):
            print(f"  {kind:12} {by_kind[kind]:7} {misattached[kind]:11}")
        for ref_name, count in sorted(by_reference.items()):
            print(f"  {ref_name:70} {count:4}")
    assert missed == []
    # A figure moved to other names is mostly told apart as misattached, not just unsupported.
    moved = sum(by_kind[k] for k in ("moved_name", "moved_value", "swapped"))
    assert sum(misattached[k] for k in ("moved_name", "moved_value", "swapped")) >= 0.8 * moved
    # The suite must keep its reach: every kind is represented (a parenthesis of figures
    # before another figure of the sentence is rare: one reference post has one).
    assert all(by_kind[g.__name__] >= _FEWEST.get(g.__name__, 3) for g in GENERATORS), by_kind
    assert len(mutants()) >= 200
