"""The check of a whole explainer, sentence by sentence, as a report."""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from service.check.absent import Prose, context_text, quoted
from service.check.beyond import counted_words, direct_noun, row_labels, title_counts
from service.check.bind import Binding, bind_numbers, said_of_other
from service.check.clauses import Clauses
from service.check.columns import render_row
from service.check.consecutive import Derived, consecutive_ends
from service.check.coverage import dropped_facts
from service.check.extreme import match_extreme
from service.check.figure_binding import figure_binding
from service.check.index import SourceIndex
from service.check.indexing import index_source
from service.check.known_names import initial, known_names
from service.check.match import Outcome, match_quantity, match_range
from service.check.mean import match_mean, stated_mean
from service.check.names import Name, is_name, without_vendors
from service.check.role import moved_beside, moved_versions, other_value, product_of
from service.check.scope import Sentence, over_count
from service.check.setting import unstated_scope
from service.check.shape import shapes
from service.check.sides import row_sides, side_in_row
from service.check.spacing import respaced
from service.check.strays import strays_of
from service.check.swaps import mark_borrowed, mark_swaps
from service.check.table import row_support
from service.check.unit import Unit, squeeze
from service.check.verbatim import first_located, match_verbatim, match_word
from service.check.word_counts import at_place, sequence_label
from service.frozen import slot_init
from service.models import CheckReport, CheckStatus, Explainer, Fact, NumberVerdict
from service.numbers import Hedge, Number, extract_numbers, identifier_key, prepare
from service.numbers.context import stated_extreme
from service.numbers.direction import NONE, may_have_direction, states_gain, way_of
from service.numbers.events import with_runs
from service.numbers.keywords import with_keyword
from service.numbers.number import LOWER, NO_HEDGE, QUANTITY, RANGE, VERSION, WORD
from service.numbers.words import stated_multiple
from service.text import split_blocks, split_sentences

_SECTION_NUMBER = re.compile(r"\d{1,2}\.\s+(?=\D)")
# Markers, not figures: a citation ("[3]", "[1, 2]") and an enumeration at the start of a
# sentence or clause ("(1) MXFP8 ...; (2) MXFP4 ..."), the explainer's own numbering.
_MARKER = re.compile(r"\[\d{1,3}(?:\s*[,\-–]\s*\d{1,3})*\]|(?:^|(?<=[;:,.]\s))\(\d{1,2}\)(?=\s)")


# A figure bound to nothing (shared: a Binding is immutable, and one is costly to build).
_UNBOUND = Binding()


def _names_of(binding: Binding) -> tuple[Name, ...]:
    """A figure's names, with those of a phrase leading its clause."""
    return (*binding.names, *binding.lead)


def _no_way() -> int:
    return NONE


@slot_init
@dataclass(frozen=True, slots=True)
class _Sentence:
    """A sentence, table row or code line of the explainer."""

    text: str
    group: int  # paragraph: names carry over between sentences of one group
    code: bool = False
    label_end: int = 0  # a table row: where its first cell (its label) ends in ``text``
    cell_sides: tuple[Hedge, ...] = ()  # a table row: per column, a max/min it states
    # Prose: not a heading, title or table row, whose capitals say no name (:mod:`.absent`).
    prose: bool = True


def _code_lines(code: str, group: int) -> list[_Sentence]:
    return [_Sentence(line, group, True) for line in code.splitlines() if line.strip()]


def _sentences_of(text: str, group: int, *, prose: bool = True) -> list[_Sentence]:
    out: list[_Sentence] = []
    for b, block in enumerate(split_blocks(text)):
        g = group * 1000 + b
        if block.kind == "code":
            out.extend(_code_lines(block.text, g))
        elif block.kind == "table":
            for row in block.rows:
                text = render_row(block.header, row)
                label_end, cell_sides = len(text.split(" | ", 1)[0]), row_sides(block.header, row)
                out.append(
                    _Sentence(text, g, label_end=label_end, cell_sides=cell_sides, prose=False)
                )
        elif block.kind == "heading":
            # "## 1. What is new": the section's number is the explainer's own (its
            # Markdown numbers the sections), not a claim about the post.
            m = _SECTION_NUMBER.match(block.text)
            out.append(_Sentence(block.text[m.end() :] if m else block.text, g, prose=False))
        else:
            sentences = split_sentences(block.text, code=True)
            out.extend(_Sentence(s, g, prose=prose) for s in sentences)
    return out


def _explainer_sentences(explainer: Explainer | str) -> list[_Sentence]:
    if isinstance(explainer, str):
        return _sentences_of(explainer, 0)
    out = _sentences_of(explainer.title, 0, prose=False)
    g = 1
    for section in explainer.sections:
        out.extend(_sentences_of(section.heading, g, prose=False))
        g += 1
        for paragraph in section.paragraphs:
            out.extend(_sentences_of(paragraph, g))
            g += 1
        if section.code:
            out.extend(_code_lines(section.code, g))
            g += 1
    if explainer.takeaway:
        out.extend(_sentences_of(explainer.takeaway, g))
    return out


_IN_DOUBT = frozenset((CheckStatus.UNSUPPORTED, CheckStatus.MISATTACHED))


def _verdict(idx: SourceIndex, n: Number, sentence: str, outcome: Outcome) -> NumberVerdict:
    unit = idx.units[outcome.unit] if outcome.unit is not None else None
    reason = outcome.reason
    if outcome.status in _IN_DOUBT and (cut := idx.cut.reason()):
        # Figures past a cap were not read (check.caps): the figure, or its place with the
        # explainer's names, may be one, and a reader who finds it there should know why
        # the check did not (the verdict stands).
        reason = f"{reason}; {cut}" if reason else cut
    # Validated construction: pydantic-core checks these seven fields in C, faster than
    # model_construct walks them in Python (2.5 against 6 us a verdict, 78 a check).
    return NumberVerdict(
        text=n.text,
        kind=n.kind.value,
        status=outcome.status,
        sentence=sentence,
        source=unit.display if unit else None,
        source_block=unit.block if unit and unit.block < idx.text_blocks else None,
        reason=reason,
    )


def _check_code(idx: SourceIndex, sentence: _Sentence) -> list[NumberVerdict]:
    """A code line of the explainer: the same line in the source, or each literal verbatim."""
    nums = extract_numbers(sentence.text, words=False)
    if not nums:
        return []
    unit = idx.code_lines.get(squeeze(sentence.text))
    out = []
    for n in nums:
        if unit is not None:
            outcome = Outcome(CheckStatus.SUPPORTED, unit)
        else:
            first = first_located(idx, identifier_key(with_keyword(sentence.text, n)))
            outcome = (
                Outcome(CheckStatus.SUPPORTED, first)
                if first is not None
                else Outcome(CheckStatus.UNSUPPORTED, None, "not in the source verbatim")
            )
        out.append(_verdict(idx, n, sentence.text, outcome))
    return out


def _product_before(s: str, n: Number, names: Sequence[Name]) -> Name | None:
    """The name written right before a version ("PyTorch 2.14", "AOTriton 0.14.2b")."""
    for name in names:
        if name.end <= n.start and not s[name.end : n.start].strip():
            return name
    return None


# The word right before a version ("TensorFlow 2.14"), its last hyphenated part.
_WORD_BEFORE = re.compile(r"(?<![\w.-])(?:[\w.+]+-)*(?P<w>[A-Za-z][\w.+]*)[ \t]+$")


def _unknown_product(idx: SourceIndex, s: str, n: Number) -> str | None:
    """The name written right before a version when the source never names it
    ("TensorFlow 2.14" in the explainer of a post on PyTorch 2.14): the source gives the
    version for no such product."""
    m = _WORD_BEFORE.search(s, max(0, n.start - 60), n.start)
    if m is None:
        return None
    word = m.group("w")
    if not is_name(word, initial(s, m.start("w"))) or idx.name(word) is not None:
        return None
    return word


def _with_label(binding: Binding, names: Sequence[Name], label_end: int) -> Binding:
    """A figure of a row of the explainer's own table is said of its row's label too
    ("Format: MXFP8 | Speedup: 1.68x"): no window of words reaches across the cells, and
    the figure bound nothing, or only its cell's names."""
    label = tuple(x for x in names if x.end <= label_end)
    if not label:
        return binding
    return Binding(
        names=tuple(dict.fromkeys((*label, *binding.names))),
        nouns=binding.nouns,
        nearest=binding.nearest or label[-1],
    )


def _shape_unit(idx: SourceIndex, units: Iterable[int], n: Number, binding: Binding) -> int | None:
    """The first unit holding a shape the source writes as the explainer does that says it
    of the names the explainer does (a side of it is ``n``)."""
    return next((u for u in units if not binding.names or binding.holds(idx.units[u], n)), None)


def _check_sentences(
    idx: SourceIndex, sentences: Sequence[_Sentence], context: str = ""
) -> list[NumberVerdict]:
    verdicts: list[NumberVerdict] = []
    carried: tuple[Name, ...] = ()
    group = -1
    # The supported figures of the paragraph's sentence before, with their names: a swap
    # may cross a sentence's end ("Blackwell needs CUDA 13.3+. Hopper needs 13.2+.").
    said_before: list[tuple[int, Number, Name, tuple[Name, ...]]] = []
    paragraph = ""  # its sentences so far, this one too: a scope said in an earlier one
    # The explainer's prose, read on first use (:mod:`.absent`).
    prose = Prose(lambda: (x.text for x in sentences if x.prose and not x.code))
    for sentence in sentences:
        if sentence.group != group:
            group, carried, paragraph, said_before = sentence.group, (), "", []
        paragraph += " " + sentence.text
        if sentence.code:
            verdicts.extend(_check_code(idx, sentence))
            continue
        text = sentence.text
        s = prepare(text)
        nums = extract_numbers(text, prepared=s)
        if not nums:
            continue
        nums = respaced(idx, s, text, nums)
        s, labels = row_labels(idx, title_counts(idx, s, nums), nums)
        if "(" in s or "[" in s:
            markers = [m.span() for m in _MARKER.finditer(s)]
            if markers:
                nums = [n for n in nums if not any(a <= n.start < b for a, b in markers)]
                if not nums:
                    continue
        nums = with_runs(s, nums)  # "the median of 3 runs": read once, carried by the figure
        row = row_support(idx.rows, text, nums, s)
        sides = shapes(idx, s, nums) if len(nums) > 1 else {}
        directional: bool | None = None  # read at the sentence's first quantity
        wording: Sentence | None = None  # its opposite-pair words, read on first use
        lacked: list[tuple[int, int, bool]] = []
        names = without_vendors(s, known_names(s, nums, idx, absent=lacked), idx.joined)
        bindings = bind_numbers(s, nums, names, leading=True)
        # The names of its figures that the source never writes: none, in most sentences;
        # read for the first figure the source would back (most figures of a post the
        # explainer's names are not in are not found either).
        strays: dict[int, list[Name]] | None = None if lacked else {}
        clauses: Clauses | None = None  # read on first use: most figures have names
        own: dict[Name, None] = {}  # the names of the sentence's figures so far, once each
        said: list[tuple[int, Number, Name, tuple[Name, ...]]] = []
        # Supported versions after a product, and the supported figures with the source
        # units backing them: a version is read in its role with a figure of its clause.
        versions: list[tuple[int, Number, Name]] = []
        figures: list[tuple[Number, Unit]] = []
        derived: list[Derived] = []  # its figures derived, with their units
        for n in nums:
            if n.start in row.backed:  # a cell of the source table row the sentence restates
                outcome = Outcome(CheckStatus.SUPPORTED, row.backed[n.start])
                verdicts.append(_verdict(idx, n, text, outcome))
                continue
            if n.start in row.crossed:  # under another column of that row in the source
                unit, where = row.crossed[n.start]
                reason = f"the source's table gives it {where}"
                verdicts.append(
                    _verdict(idx, n, text, Outcome(CheckStatus.MISATTACHED, unit, reason))
                )
                continue
            binding = bindings.get(n.start) or _UNBOUND
            product: Name | None = None  # a version's, read below
            shape = _shape_unit(idx, sides[n.start], n, binding) if n.start in sides else None
            if shape is not None:
                verdicts.append(_verdict(idx, n, text, Outcome(CheckStatus.SUPPORTED, shape)))
                continue
            if sentence.label_end and n.start > sentence.label_end:
                binding = _with_label(binding, names, sentence.label_end)
            # A multiplier word ("twice as fast", "six times faster") the source has the
            # value of is a figure: matched with its unit, hedge and binding, as "6x" is.
            multiplier = n.kind == WORD and bool(n.unit)
            multiplier = multiplier and (stated_multiple(n) or match_word(idx, n) is not None)
            if n.kind in (QUANTITY, RANGE) or multiplier:
                if binding.names:
                    own.update(dict.fromkeys(binding.names))
                elif said_of_other(s, n):
                    binding = _UNBOUND  # "the 1,362,998 of the other run": not of its names
                elif not (binding.nouns and not n.unit):
                    # Said of its clause's names, else of the names of the sentence's
                    # figures so far, else of the last sentence that bound some.
                    clauses = clauses or Clauses(s, names)
                    topic = clauses.names_before(n.start) or tuple(own)
                    binding = Binding(inherited=topic or carried)
                else:
                    binding = Binding(nouns=binding.nouns)
                # What its clause says beyond names; the sentence's opposite-pair words
                # are read when a source clause asks.
                wording = wording or Sentence(s)
                first = bindings.get(n.start) or _UNBOUND
                label = labels.get(n.start)
                binding = figure_binding(idx, s, nums, names, n, binding, first, wording, label)
                if n.kind == RANGE:
                    outcome = match_range(idx, n, binding)
                elif n.kind == QUANTITY:
                    # Read when needed: most figures need neither.
                    if directional is None:
                        directional = may_have_direction(s)
                    way = way_of(s, n, directional)
                    gain = functools.partial(states_gain, s, n, way or _no_way)
                    across = n.hedge is LOWER and over_count(s, nums, n)  # "over 24 cases"
                    side = stated_extreme(s, n)  # "has a minimum of 240": of its side
                    if side is NO_HEDGE and sentence.cell_sides:  # "| Min value | 240 |"
                        side = side_in_row(text, sentence.cell_sides, n)
                    if side is not NO_HEDGE:
                        outcome = match_extreme(idx, n, binding, side)
                    else:
                        outcome = match_quantity(idx, n, binding, way, gain, across, names)
                        if outcome.status == CheckStatus.DERIVED and stated_mean(s, n):
                            # "the mean is 1.57x": no end of a range of other things.
                            again = functools.partial(
                                match_quantity, idx, n, binding, None, gain, across, names
                            )
                            outcome = match_mean(idx, n, outcome, again)
                else:
                    outcome = match_quantity(idx, n, binding)
                outcome = at_place(idx, s, n, outcome)  # "Day 2" of "the second day"
                if outcome.status in (CheckStatus.SUPPORTED, CheckStatus.DERIVED):
                    if strays is None:
                        strays = strays_of(
                            idx, s, text, nums, names, lacked, sentence.prose, prose, context
                        )
                    stray = strays.get(n.start)
                else:
                    stray = None
                if stray:
                    # "Triton is 2x faster" of "FlexAttention is 2x faster": an entity
                    # the post never names, the source's figure is of other things.
                    outcome = Outcome(CheckStatus.MISATTACHED, outcome.unit, quoted(stray))
            elif n.kind == WORD:
                # A count word counts its noun, as digits do ("eight experts").
                noun_of = None if n.unit else functools.partial(direct_noun, s, n)
                counted_of = None if n.unit else functools.partial(counted_words, s, n)
                place = "" if n.unit else sequence_label(s, n)  # "Day two": of days
                found = match_word(idx, n, noun_of, counted_of, place)
                if found is None:
                    continue  # an ordinary word, not a claim the source could back
                outcome = found
            else:
                product = _product_before(s, n, names) if n.kind == VERSION else None
                unknown = _unknown_product(idx, s, n) if n.kind == VERSION and not product else None
                outcome = match_verbatim(idx, n, product)
                if unknown is not None and outcome.status == CheckStatus.SUPPORTED:
                    # The version is in the source, for other products than this one.
                    reason = f"the source does not name {unknown}"
                    outcome = Outcome(CheckStatus.MISATTACHED, outcome.unit, reason)
                elif "=" in n.text and outcome.status == CheckStatus.SUPPORTED:
                    other = other_value(idx, s, n)  # "USE_X=0 enables" for "enabled by USE_X=1"
                    if other:
                        reason = f"the source says it of {other}"
                        outcome = Outcome(CheckStatus.MISATTACHED, outcome.unit, reason)
            if outcome.status == CheckStatus.SUPPORTED and n.unit and outcome.unit is not None:
                only = unstated_scope(idx, outcome.unit, s, paragraph)
                if only:  # "Flex attention is 2-8x faster" of "... Configs for RDNA3"
                    reason = f"the source gives it for {only} only ({only} not there)"
                    outcome = Outcome(CheckStatus.MISATTACHED, outcome.unit, reason)
            if outcome.status == CheckStatus.SUPPORTED:
                if binding.nearest is not None:
                    lead = (bindings.get(n.start) or _UNBOUND).lead  # a bare figure's too
                    said.append((len(verdicts), n, binding.nearest, (*binding.names, *lead)))
                if n.kind == VERSION:
                    named = product or product_of(idx, s, n)
                    if named is not None:
                        versions.append((len(verdicts), n, named))
                elif n.kind in (QUANTITY, RANGE) and outcome.unit is not None:
                    figures.append((n, idx.units[outcome.unit]))
            elif outcome.status == CheckStatus.DERIVED and outcome.unit is not None:
                derived.append((len(verdicts), n, outcome.unit))
            verdicts.append(_verdict(idx, n, text, outcome))
        mark_swaps(idx, verdicts, [*said_before, *said], len(said_before))
        given = {n: _names_of(bindings.get(n.start) or _UNBOUND) for n in nums}
        mark_borrowed(idx, s, given, verdicts, [*said_before, *said], len(said_before))
        said_before = said
        for pair in consecutive_ends(idx, s, derived) if len(derived) > 1 else ():
            for i, n, unit in pair:  # "October 20 and 21" of "October 20-21"
                verdicts[i] = _verdict(idx, n, text, Outcome(CheckStatus.SUPPORTED, unit))
        moved = dict(moved_versions(s, versions, figures)) if versions and figures else {}
        for i, other in moved_beside(idx, s, versions) if len(versions) > 1 else ():
            moved.setdefault(i, other)
        if moved:
            for i, other in moved.items():
                reason = f"the source gives {other} there"
                verdicts[i] = verdicts[i].model_copy(
                    update={"status": CheckStatus.MISATTACHED, "reason": reason}
                )
        if own:
            carried = tuple(own)
    return verdicts


def check_explainer(
    explainer: Explainer | str,
    source_text: str,
    facts: Sequence[Fact] | None = None,
    *,
    title: str = "",
    context_names: Iterable[str | None] = (),
) -> CheckReport:
    """Check every number of an explainer against the cleaned source text.

    ``explainer`` is an :class:`Explainer` or its text (Markdown or plain); ``source_text``
    is the source as cleaned text (light Markdown); ``title`` the post's title, which is
    the post's own words too (a feed entry's text does not repeat it). With ``facts``, key
    facts whose value the explainer does not carry are reported as dropped.

    ``context_names`` are the names the post's context gives it (its feed's title, its
    author or publisher: "PyTorch Blog"; ``None`` or blank for one unknown): a figure said
    of a name the source never writes but these do is not misattached for it
    (:mod:`.absent`). They back no figure and bind no name, and stay out of the index (its
    memo is per text and title).
    """
    idx = index_source(source_text, title)
    numbers = _check_sentences(idx, _explainer_sentences(explainer), context_text(context_names))
    dropped = dropped_facts(explainer, facts) if facts else []
    return CheckReport(numbers=numbers, dropped=dropped)
