"""Setting: the conditions a source figure is measured under that its paragraph states
before its sentence ("The colwise scales kernel used in the backward pass had ... On an
MI300X GPU: 7,290 us -> 1,170 us per MoE layer (6.2x speedup)"), its label and headings
too: read for an explainer figure whose clause names one side of an opposite pair
(:mod:`.scope`: forward/backward, input/output, ...), when the source's own clause of
the figure says neither."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from service.check.index import SourceIndex
from service.check.marks import CLAUSE_MARK, split_gap
from service.check.names import (
    STOP_WORDS,
    Name,
    content_words,
    find_noun,
    name_key,
    name_pattern,
    noun_pattern,
)
from service.check.products import DEVICES, counts_products, product_kind
from service.check.qualified import other_kind, other_subject
from service.check.scope import (
    AFTER_NOUN,
    HEAD_WORDS,
    PAIRS,
    SINGULAR_S,
    Clause,
    Marks,
    noun_phrase,
    pair_marks,
    unit_marks,
)
from service.check.unit import Hit, Unit
from service.check.window import item_mark, window_end, window_start
from service.numbers import Number, extract_numbers
from service.numbers.number import QUANTITY, RANGE

if TYPE_CHECKING:
    from service.check.bind import Binding

_SETTING = -2  # the key of a unit's setting in its memo of marks (Unit.marks)


def _stems(words: tuple[str, ...]) -> tuple[str, ...]:
    """The words of a pair that hold no shorter one of it ("input" finds "inputs")."""
    forms = [w for side in words for w in side.split()]
    return tuple(w for w in forms if not any(v != w and v in w for v in forms))


# The words of each pair, to look for in C before a paragraph is read for them.
_WORDS = [_stems(words) for words in PAIRS]


def _present(unit: Unit, words: Sequence[str]) -> bool:
    """Whether a word of ``words`` stands in the unit's paragraph up to its sentence's end,
    its label or headings (finds in C: most places of a value have none)."""
    end, context = unit.sentence[1] or unit.end, unit.context
    c = min(unit.end - unit.start, len(context))
    return any(unit.text.find(w, 0, end) >= 0 or context.find(w, c) >= 0 for w in words)


def _setting(unit: Unit) -> Marks:
    """The words of the pairs in the paragraph before the unit's sentence, its label and
    headings (read once per unit)."""
    found = unit.marks.get(_SETTING) if unit.marks is not None else None
    if found is None:
        a, context = unit.sentence[0], unit.context
        c = min(unit.end - unit.start, len(context))
        found = pair_marks(unit.text, 0, a) | pair_marks(context, c, len(context))
        if unit.marks is None:
            unit.marks = {}
        unit.marks[_SETTING] = found
    return found


def opposite_setting(
    clause: Clause,
    idx: SourceIndex,
    hits: Sequence[Hit],
    holds: Callable[[Hit], bool],
    chosen: Hit,
) -> tuple[int, str] | None:
    """A source unit of the explainer's figure (``hits`` that ``holds``) whose setting says
    only the other side of a pair the explainer's ``clause`` names, and the word of that
    side, when no figure of the value is said on the explainer's side, by its own clause
    or its setting (a figure written twice, as a summary's "up to a 6.2x speedup" that
    says neither and the detail's after "used in the backward pass", is one figure);
    else None. Its own clause first: a clause that says either side is what holds (the
    ``chosen`` hit's, most often: read for its binding already)."""
    mine = {mark for mark in clause.marks if isinstance(mark[0], int)}
    if not mine:
        return None
    # A pair the clause says one side of (not both, nor two granularities of four).
    said = [p for p, _ in mine]
    pairs = {p for p in said if isinstance(p, int) and said.count(p) == 1}
    # Each pair apart: "the colwise kernel ... in the forward pass" says colwise as the
    # source's clause does, and forward where it says backward.
    chosen_marks = unit_marks(idx.units[chosen[0]], chosen[1])
    for pair in sorted(p for p in pairs if isinstance(p, int)):
        if any(m in mine and m[0] == pair for m in chosen_marks):
            continue  # the figure the binding found is said on the explainer's side
        found = _other_side(pair, mine, idx, hits, holds)
        if found is not None:
            return found
    return None  # (no pairs: a clause that says both sides of its pairs, "256 in, 512 out")


def _other_side(
    pair: int,
    mine: set[tuple[int | str, int]],
    idx: SourceIndex,
    hits: Sequence[Hit],
    holds: Callable[[Hit], bool],
) -> tuple[int, str] | None:
    """:func:`opposite_setting` of one ``pair``: the first unit of a hit that holds whose
    clause, else setting, says only its other side, and that side's word there; None
    when one says the explainer's side (``mine``) of the value, or none says either."""
    other: tuple[int, str] | None = None
    for hit in hits:
        unit = idx.units[hit[0]]
        if not _present(unit, _WORDS[pair]):
            continue
        said = {m for m in unit_marks(unit, hit[1]) if m[0] == pair}
        said = said or {m for m in _setting(unit) if m[0] == pair}
        if not said or not holds(hit):
            continue
        if said & mine:
            return None  # this side (or both) is said of the value somewhere
        if other is None:
            side = next(iter(said))[1]
            # The side's word the source writes ("blockwise", not "colwise", its first).
            forms = PAIRS[pair][side].split()
            low = unit.paragraph.lower()  # its clause, paragraph and headings
            other = (hit[0], next((w for w in forms if w in low), forms[0]))
    return other


def _same_figure(mine: Number, theirs: Number) -> bool:
    """Whether a source figure is the value of a condition the explainer states (its
    unit, when it gives one; a range by both ends; hedges aside: "at 2,000 requests per
    minute" is the "up to 2,000 requests per minute" the source serves)."""
    if theirs.kind not in (QUANTITY, RANGE) or theirs.kind != mine.kind:
        return False
    if mine.unit and theirs.unit != mine.unit:
        return False
    return theirs.value == mine.value and theirs.high == mine.high


def unstated_condition(unit: Unit, conditions: Sequence[Number]) -> str:
    """The first of the explainer's ``conditions`` (the figures of a phrase leading its
    clause) that the source does not say of the figure in ``unit``, as written; "" when
    it says them all. The source says one in the figure's sentence, else before it in its
    paragraph, its label or headings, where its sentence states no other figure of that
    unit ("In a load test at 350 requests per minute, time-to-first-token dropped about
    19%" does not say 19% at the 2,000 requests per minute of the paragraph before).
    Read only for a sentence whose leading phrase holds a figure (few)."""
    a, b = unit.sentence
    sentence = unit.cased[a:b] if b > a else unit.cased[unit.start : unit.end]
    context = unit.context
    here = extract_numbers(sentence, words=False)
    before: list[Number] | None = None
    for c in conditions:
        if any(_same_figure(c, m) for m in here):
            continue
        if c.unit and any(m.unit == c.unit for m in here):
            return c.text  # the sentence states its own value of that unit
        if before is None:
            extra = context[min(unit.end - unit.start, len(context)) :]
            before = extract_numbers(unit.cased[:a], words=False) if b > a else []
            before += extract_numbers(extra, words=False)
        if not any(_same_figure(c, m) for m in before):
            return c.text
    return ""


def said_of_kind(unit: Unit, number: Number, kind: Name) -> bool:
    """Whether the source says its figure ``number`` in ``unit`` of ``kind``, a name with
    the word the explainer qualifies it by ("grouped GEMM"; :meth:`SourceIndex.qualifiers`):
    in its item of the clause (from the like figure before it to the like figure after:
    a list's "1.10x ... for the 15-shape BF16 dense-GEMM suite, ..., 1.20x ... across
    all 24 grouped-GEMM cases" says only the 1.20x of grouped GEMM), else, where the
    clause does not say it of another item, before it in its paragraph, its label or
    headings ("## Grouped GEMM: ..." over "FlyDSL reaches 1.20x")."""
    text, a, b = unit.text, unit.start, unit.end
    lo, hi = a, b
    for m in unit.numbers:
        if m.unit == number.unit and m.kind in (QUANTITY, RANGE) and a <= m.start < b:
            if m.end <= number.start:
                lo = max(lo, m.end)
            elif m.start >= number.end:
                hi = min(hi, m.start)
    if kind.pattern.search(text, lo, hi) is not None:
        return True
    found = kind.pattern.search(text, a, b)
    if found is not None:
        # Said of another item of the clause; but after the figure with no clause mark
        # between, the thing it qualifies named nowhere before it, it is a condition of
        # the items before too ("about 16% more requests per second and about 12% more
        # output tokens per second on identical GPUs"), not of one kind of many
        # ("1.10x ... for the 15-shape BF16 dense-GEMM suite, ..., 1.20x ... across all
        # 24 grouped-GEMM cases").
        thing = name_pattern(kind.key.split("\x00", 1)[1])
        return (
            number.end <= found.start()
            and CLAUSE_MARK.search(text, number.end, found.start()) is None
            and thing.search(text, a, found.start()) is None
        )
    context = unit.context
    extra = context[min(b - a, len(context)) :]
    return kind.pattern.search(text, 0, a) is not None or kind.pattern.search(extra) is not None


def _window(unit: Unit, number: Number) -> tuple[int, int]:
    """Where the words near a source figure lie (six either side), not past the split
    from a figure beside it ("time-to-first-token dropped about 19%, and end-to-end
    latency dropped about 38%": latency is the 38%'s)."""
    text = unit.text
    start = window_start(text, unit.start, number.start)
    end = window_end(text, number.end, unit.end)
    for m in unit.numbers:
        if m.kind not in (QUANTITY, RANGE) or m.start == number.start:
            continue
        if m.end <= number.start:
            start = max(start, split_gap(text, m.end, number.start)[1])
        elif number.end <= m.start:
            end = min(end, split_gap(text, number.end, m.start)[0])
    return start, end


def nearer_other(unit: Unit, number: Number, nouns: Sequence[str]) -> Number | None:
    """A like figure (its unit of measure) of the source's clause whose words hold two
    more of the explainer's ``nouns`` (the words before a figure with no name in its
    clause) than the figure's own: "End-to-end latency dropped about 19%" where the
    source's 19% is time-to-first-token's and "end-to-end latency dropped about 38%"
    follows it. Or one whose words hold all of two or more, where the figure's own lack
    one (not of the words before the first figure: the clause's subject) and say what
    it measures in words the explainer's are not (:func:`_own_words`): "Requests per
    second rose about 12%" for "about 16% more requests per second and about 12% more
    output tokens per second". None when there is none (most clauses have one figure of
    a unit). Two: a word or two of a paraphrase may stand anywhere ("plain decoding" for
    "Solo"). A figure with no word of its own before it has the words before the first
    ("Decode reaches 1,850 tok/s with CUDA graphs and 1,210 tok/s without them")."""
    like = [m for m in unit.numbers if m.unit == number.unit and m.kind in (QUANTITY, RANGE)]
    if len(like) < 2:
        return None
    text = unit.text
    lead = text[_window(unit, like[0])[0] : like[0].start]

    def held(m: Number) -> set[str]:
        start, end = _window(unit, m)
        words = text[start:end]
        if m is not like[0] and not _CONTENT.search(text, start, m.start):
            words += " " + lead
        return {w for w in nouns if find_noun(w, words) is not None}

    own = held(number)
    lacking = len(nouns) >= 2 and any(w not in own and find_noun(w, lead) is None for w in nouns)
    for m in like:
        if m.start == number.start:
            continue
        theirs = len(held(m))
        if theirs >= len(own) + 2:
            return m
        if lacking and theirs == len(nouns) and _own_words(unit, number, nouns):
            return m
    return None


def _own_words(unit: Unit, number: Number, nouns: Sequence[str]) -> bool:
    """Whether the words after a source figure, up to the split from the next, say what
    it measures with a word none of the explainer's ``nouns`` is ("12% more output
    tokens per second": output, tokens)."""
    words = content_words(unit.text[number.end : _window(unit, number)[1]], limit=6)
    return any(not any(noun_pattern(w).match(x) for w in nouns) for x in words)


_CONTENT = re.compile(r"[a-z]{4,}")  # a word of a figure's own before it
# A model's name right after a source count, in its own case: up to three words of
# capitals, the last with a digit or two capitals ("AMD Instinct MI355X", "NVIDIA H100").
_MODEL_NAME = re.compile(
    r"(?:[ \t]+[A-Z](?:[\w.-]*\w)?){0,2}[ \t]+(?=\w*(?:\d|[A-Z]\w*[A-Z]))[A-Z](?:[\w.-]*\w)?"
)


def _counted(words: Sequence[str]) -> str:
    """What the words after a source count count: the head of the phrase, its first
    plural (the last part of one joined: "gpu-hours" counts hours), not a word before
    it that says of what ("512 GPU nodes" counts nodes, "8 GPU hours" hours); all the
    words where none is a plural ("8 H100 80GB", "8 GPU") or the head is a device's
    noun, whose kind the words before say ("4 TPU v5e chips" counts TPUs)."""
    for word in words:
        if word.endswith("s") and not word.endswith(SINGULAR_S):
            head = word.rsplit("-", 1)[-1]
            return " ".join(words) if head.removesuffix("s") in DEVICES else head
    return " ".join(words)


def said_elsewhere(binding: Binding, unit: Unit, number: Number) -> str:
    """:meth:`Binding.against` for what a figure's clause says beyond its six words: a
    name further off (``far``: in the unit's context, else its paragraph up to its
    sentence's end), a kind of a name (``kinds``: :func:`said_of_kind`), the words of a
    figure with no name (``about``: :func:`nearer_other`), the figures of a leading
    phrase (``conditions``: :func:`unstated_condition`); "" when the source says them."""
    for x in binding.far:
        end = unit.sentence[1] or unit.end
        if not (unit.mentions(x) or x.pattern.search(unit.text, 0, end)):
            return f"the source gives it for other things ({x.key.replace(chr(0), '-')} not there)"
    for x in binding.kinds:
        if not said_of_kind(unit, number, x):
            return f"the source gives it for other things ({x.key.replace(chr(0), ' ')} not there)"
    other = nearer_other(unit, number, binding.about) if binding.about else None
    if other is not None:
        return f"the source says it of other things than its {other.text} there"
    kind = other_kind(unit, number, binding.qualified) if binding.qualified else ""
    if kind:
        return kind
    kind = other_subject(unit, number, binding.subject) if binding.subject else ""
    if kind:
        return kind
    why = other_count(unit, number, binding.direct)
    if why:
        return why
    if binding.conditions:
        missing = unstated_condition(unit, binding.conditions)
        if missing:
            return f"the source gives it at other conditions ({missing} not there)"
    return ""


def other_count(unit: Unit, number: Number, written: str) -> str:
    """Why the source's figure ``number`` in ``unit`` counts other things than the noun
    ``written`` right after a bare count of the explainer ("8 experts" for "8 layers and
    64 experts"; :func:`~service.check.beyond.direct_noun`), as written; "" when nothing
    says so. (:func:`said_elsewhere`'s, and a count word's: "eight experts".)"""
    direct = written.lower()
    # A name's plural (written with capitals: "GPUs", "PRs") is what the count counts
    # where the source writes the name too ("512 nodes with 8 GPUs each"); else it may
    # abbreviate the source's words ("40 PRs" for "40 pull requests", "8 LLMs" for "8
    # open models"). A hardware kind is a noun of its own ("8 GPUs" for "8 nodes": no).
    if direct != written and not product_kind(direct) and not find_noun(direct, unit.text):
        direct = ""
    if direct and number.kind == QUANTITY and number.unit and "/" not in number.unit:
        # A measure ("8 ms on GPUs", "8 hours"), no count of anything: "8 GPUs" is not
        # it, though "GPUs" stands near it (a rate, "8 requests per second", is left to
        # the nouns: "8 requests each second" says it).
        measure = number.text if not number.text[-1].isdigit() else f"{number.text} {number.unit}"
        return f'the source measures {measure} there, no count of "{direct}"'
    if direct and number.kind == QUANTITY and not number.unit:
        # What the source's count counts, right after it: "2,995 commits from 487
        # contributors" gives 487 no commits, though "commits" stands near it. Its
        # noun may follow a model's name ("8 AMD Instinct MI355X GPUs"), not more plain
        # words than three ("8 nodes hosting H100 GPUs" counts nodes).
        model = _MODEL_NAME.match(unit.cased, number.end)
        at = number.end if model is None else model.end()
        theirs = unit.text[number.end : at].split()
        theirs += noun_phrase(unit.text, at, STOP_WORDS, HEAD_WORDS, AFTER_NOUN)
        theirs += [number.noun] if number.noun else []
        if (
            theirs
            and not find_noun(direct, _counted(theirs))
            and not (product_kind(direct) and counts_products(unit, number, direct))
        ):
            # (A model's name is its kind: "8 GPUs" for "8x A100 80GB".)
            return f'the source counts {" ".join(theirs)} there, not "{direct}"'
        if item_mark(unit.text, number):
            return f'the source\'s ({number.text}) marks an item, no count of "{direct}"'
    return ""


# A heading that scopes its section to one platform or model: "FlexAttention Tile Configs
# for RDNA3", "... on MI355X" (its last words: "for" or "on" and a name with a digit or
# two capitals).
_SCOPED = re.compile(r"\s(?:for|on)\s+([A-Za-z][\w.-]*\d[\w.-]*|[A-Z][\w.-]*[A-Z][\w.-]*)\s*$")


def unstated_scope(idx: SourceIndex, u: int, sentence: str, paragraph: str = "") -> str:
    """The name the heading over source unit ``u`` scopes its subject to, where the
    explainer's ``sentence`` names that subject (a name of the heading before its scope,
    spaces and hyphens aside: "Flex attention") but not the scope, and the source writes
    the subject in another section too ("Flex attention is roughly 2-8x faster" of
    "#### FlexAttention Tile Configs for RDNA3", where FlexAttention is on MPS too); ""
    when the heading scopes nothing, or the sentence or its ``paragraph`` so far says it
    (spaces and hyphens aside too: "RDNA 3", "RDNA-3", as a name is matched), or the
    post's title does, or the subject's other places do (or are under the heading)."""
    section = idx.sections.get(idx.units[u].block, "")
    found = _scope(section) if section else None
    if found is None or _squeeze(found[0]) in _squeeze(f"{paragraph} {sentence}"):
        return ""
    scope, line, subjects = found
    scoped = _squeeze(scope)
    if scoped in _squeeze(idx.title):
        return ""  # "FooBar on MI300X": the post's own platform, every section's
    squeezed = _squeeze(sentence)
    for word in subjects:
        key = name_key(word)
        if word.lower() not in squeezed or not key:
            continue
        for v in idx.occurrences(key, name_pattern(key)):
            # Another place: not the heading itself (of the section before it), nor a
            # section under it, nor one that says the scope ("FooBar runs on the MI300X").
            unit = idx.units[v]
            other = idx.sections.get(unit.block, "")
            elsewhere = unit.block < idx.text_blocks and other != section
            if (
                elsewhere
                and not other.startswith(f"{section} \n")
                and unit.display.strip() != line.strip()
                and scoped not in _squeeze(unit.display)
            ):
                return scope
    return ""


def _squeeze(text: str) -> str:
    return text.lower().replace(" ", "").replace("-", "")


@lru_cache(maxsize=256)
def _scope(section: str) -> tuple[str, str, tuple[str, ...]] | None:
    """The scope a section's last heading names, that heading and the names of its subject
    (read once per section: every supported figure under it asks)."""
    line = section[section.rfind("\n") + 1 :]
    m = _SCOPED.search(line) if " for " in line or " on " in line else None
    if m is None:
        return None
    return m.group(1), line, tuple(_SUBJECT.findall(line, 0, m.start()))


# A name of a heading's subject: inner capitals or digits ("FlexAttention", "MXFP8").
_SUBJECT = re.compile(r"\b[A-Za-z][a-z]*[A-Z0-9][\w.-]*")
