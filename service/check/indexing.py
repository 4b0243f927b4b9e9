"""Indexing: the source, read once per text (:func:`index_source`, memoised) into a
:class:`~service.check.index.SourceIndex`: split into units (clauses of sentences, table
rows, code lines, its title), each with its numbers and the context its names are looked
up in, its numbers filed by normalised value, within the caps (:mod:`.caps`). The index
holds what this reads and answers the check's look-ups (:mod:`.index`)."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache
from typing import TypeVar

from service.check.caps import MAX_PLACES_PER_VALUE, Cut
from service.check.clauses import source_clauses
from service.check.columns import column_noun, column_unit, render_row, with_columns
from service.check.index import SourceIndex
from service.check.sides import row_sides
from service.check.table import make_row
from service.check.unit import Hit, Unit, squeeze, word_set
from service.numbers import Hedge, Number, extract_numbers, prepare
from service.numbers.context import stated_bounds
from service.numbers.number import IDENTIFIER, QUANTITY, RANGE, WORD
from service.text import single_spaced, split_blocks, split_sentences

_DIGIT = re.compile(r"\d")
_K = TypeVar("_K")
_LABEL = re.compile(r"^\s*\*\*([^*]{1,60}?)\*\*")
_CAPTION = re.compile(r"\s*[*_]?(?:Figure|Fig\.|Table)\s+\d+[.:]\s")


def _label(text: str, sentences: list[str]) -> str:
    """A paragraph's lead-in ("**MXFP8 A8W8.** With ..."): context for all its sentences.
    So is a caption's first sentence ("Figure 1: Rowwise FP8 training throughput on
    8xMI300X GPU with Llama3-8B (...). Rowwise FP8 ... delivers a 13.4% throughput gain
    over BF16, with peak memory nearly identical (~39 GB)."): it names what the figure
    shows, what every sentence after it is said of."""
    m = _LABEL.match(text)
    if m:
        return m.group(1)
    if len(sentences) > 1 and (len(sentences[0].split()) <= 4 or _CAPTION.match(text)):
        return sentences[0]
    return ""


def _place(table: dict[_K, list[Hit]], key: _K, hit: Hit, cut: Cut) -> None:
    hits = table.setdefault(key, [])
    if len(hits) < MAX_PLACES_PER_VALUE:
        hits.append(hit)
    else:  # a value written past its cap (check.caps): bounds each figure's matching
        cut.places += 1


def _index_numbers(idx: SourceIndex, unit_no: int, nums: Iterable[Number]) -> None:
    cut = idx.cut
    for n in nums:
        if n.kind == RANGE:
            assert n.value is not None and n.high is not None
            _place(idx.ranges, (n.value, n.high), (unit_no, n), cut)
            if n.change:  # "from 5,996 to 7,027": two measured values
                low = replace(n, kind=QUANTITY, high=None)
                high = replace(n, kind=QUANTITY, value=n.high, exp=n.high_exp, high=None)
                _place(idx.singles, n.value, (unit_no, low), cut)
                _place(idx.singles, n.high, (unit_no, high), cut)
                continue
            _place(idx.range_lows, n.value, (unit_no, n), cut)
            _place(idx.range_highs, n.high, (unit_no, n), cut)
        elif n.kind in (QUANTITY, WORD):
            assert n.value is not None
            _place(idx.singles, n.value, (unit_no, n), cut)
        elif n.kind == IDENTIFIER and n.text[0].isdigit() and "\x00" in n.key:
            # "3090s" of "RTX 4090s and 3090s" or of "RTX 4090s reach 50 and 3090s
            # reach 30", keyed "rtx\x003090": the line's model (numbers.plural), a name
            # the text does not write whole.
            idx.listed.setdefault(n.key.replace("\x00", ""), []).append(unit_no)


@lru_cache(maxsize=16)
def index_source(source_text: str, title: str, /) -> SourceIndex:
    """Split the source into units and index its numbers (memoised per text and title).

    Both arguments are positional and required: ``lru_cache`` keys ``f(a)``, ``f(a, "")``
    and ``f(a, title="")`` apart, and the gate (which indexes the post while the model
    writes) must hit the entry the check then asks for.

    Each block is prepared, folded and searched for numbers once; its sentences and
    clauses are slices of it. The post's ``title`` is its own words too: one more block,
    after the text's, read as a paragraph is, and context for nothing else.
    """
    idx = SourceIndex()
    headings: list[tuple[int, str]] = []
    heading_context = ""
    blocks = split_blocks(source_text)

    units = idx.units

    def lines(
        block: int,
        items: list[tuple[str, str, str]],
        prepared: str | None = None,
        column_units: Sequence[str] = (),
        sides: Sequence[tuple[Hedge, ...]] = (),
        column_nouns: Sequence[str] = (),
    ) -> None:
        """Units that are whole lines (a heading, code lines, table rows), given as
        (display, own text, extra context): their numbers are found in one pass
        (``prepared``: the lines' text already prepared; ``column_units``: a table's
        units per column, which the bare figures of its rows after the header take;
        ``column_nouns``: what a column's bare counts count, from its header;
        ``sides``: per row after the header, the side its label or headers state it as)."""
        joined = " |\n".join(own for _, own, _ in items)
        prepared = prepare(joined) if prepared is None else prepared
        lower = prepared.lower()
        nums = stated_bounds(prepared, extract_numbers(joined, prepared=prepared))
        starts = [n.start for n in nums]
        first_unit, unit_starts, pos = len(units), [], 0
        for k, (display, own, extra) in enumerate(items):
            end = pos + len(own)
            mine = tuple(nums[bisect.bisect_left(starts, pos) : bisect.bisect_left(starts, end)])
            side = sides[k - 1] if 0 < k <= len(sides) else ()
            if k and (any(column_units) or side or any(column_nouns)):
                mine = with_columns(joined, pos, mine, column_units, side, column_nouns)
            # The parts of the context after the line itself (those that are not empty).
            after = "".join("\x00" + x for x in (extra, heading_context) if x)
            if mine:
                _index_numbers(idx, len(units), mine)
            units.append(Unit(block, display, mine, lower, prepared, pos, end, after))
            unit_starts.append(pos)
            pos = end + 3
        # Each block's lines are read in one call: its units are these.
        idx.block_units[block] = list(range(first_unit, len(units)))
        idx.unit_starts[block] = unit_starts

    def prose(b: int, raw: str, text: str, prepared: str, *, capped: bool = True) -> None:
        """The units of a paragraph (or the title), a clause of a sentence each, with
        the sentence before each (``raw``: as written, for its label; ``text``: single
        spaced, ``prepared`` it prepared; ``capped``: its figures count to the cap, as
        the title's, read whatever the text's, do not)."""
        lower = prepared.lower()
        sentences = split_sentences(text, normalised=True, code=True)
        if not sentences:
            return
        label = _label(raw, sentences)
        label_context = prepare(label).lower() if label else ""
        # What each clause's context goes on with (the parts that are not empty).
        extra = "".join("\x00" + x for x in (label_context, heading_context) if x)
        if not capped or (len(text) + 1) // 2 <= idx.cut.figures_left:  # (runs of digits)
            found = extract_numbers(text, prepared=prepared)
        else:  # read to the sentence before MAX_SOURCE_FIGURES
            read = idx.cut.prose(prepared)
            found = extract_numbers(text[:read], prepared=prepared[:read])
        idx.cut.figures_left -= len(found) if capped else 0
        nums = stated_bounds(prepared, found)
        starts = [n.start for n in nums]
        first_unit, unit_starts = len(units), []
        pos, before = 0, (0, 0)  # the first sentence has none before it: ""
        for sentence in sentences:
            start = text.find(sentence, pos)
            start = pos if start < 0 else start
            end = pos = start + len(sentence)
            for c_start, c_end in source_clauses(text, start, end):
                first = bisect.bisect_left(starts, c_start)
                own = tuple(nums[first : bisect.bisect_left(starts, c_end, first)])
                if own:
                    _index_numbers(idx, len(units), own)
                units.append(
                    Unit(
                        b,
                        sentence,
                        own,
                        lower,
                        prepared,
                        c_start,
                        c_end,
                        extra,
                        before,
                        (start, end),
                    )
                )
                unit_starts.append(c_start)
            before = (start, end)
        idx.block_units[b] = list(range(first_unit, len(units)))
        idx.unit_starts[b] = unit_starts

    section = ""
    cased: list[str] = []
    for b, block in enumerate(blocks):
        if section:
            idx.sections[b] = section
        text = single_spaced(block.text) if block.kind in ("paragraph", "list_item") else block.text
        prepared = prepare(text)
        lower = prepared.lower()
        idx.block_text.append(lower)
        cased.append(prepared)
        if block.kind == "heading":
            headings = [h for h in headings if h[0] < block.level] + [(block.level, block.text)]
            section = prepare(" \n ".join(h for _, h in headings))
            heading_context = section.lower()
            lines(b, [(block.text, block.text, "")], prepared)  # one line: the block's text
        elif block.kind in ("paragraph", "list_item"):
            prose(b, block.text, text, prepared)
        elif block.kind == "code":
            code = [line for line in block.text.splitlines() if _DIGIT.search(line)]
            code_text = "\n".join(code)
            read = idx.cut.prose(code_text)  # the lines whose figures are all within the cap
            code = code[: code_text.count("\n", 0, read) + (read == len(code_text))]
            for i, line in enumerate(code):
                idx.code_lines.setdefault(squeeze(line), len(idx.units) + i)
            if code:
                lines(b, [(line.strip(), line, "") for line in code])
                idx.cut.figures_left -= sum(len(idx.units[u].numbers) for u in idx.block_units[b])
        elif block.kind == "table":
            caption = ""
            if b > 0 and blocks[b - 1].kind == "paragraph" and blocks[b - 1].text:
                caption = split_sentences(blocks[b - 1].text, code=True)[-1]
            heads, body = idx.cut.table(block.header, block.rows)  # within the caps
            header = " | ".join(heads)
            extra = prepare(f"{header} \n {caption}").lower()
            rows = [(header, header, prepare(caption).lower())]
            rows += [(render_row(heads, row), " | ".join(row), extra) for row in body]
            first = len(idx.units)
            lines(
                b,
                rows,
                column_units=[column_unit(h) for h in heads],
                column_nouns=[column_noun(h) for h in heads],
                sides=[row_sides(heads, row) for row in body],
            )
            idx.rows.extend(
                make_row(first + 1 + k, first, heads, row) for k, row in enumerate(body)
            )
            lowered = idx.units[first].text[idx.units[first].start : idx.units[first].end]
            for u in range(first + 1, len(idx.units)):
                idx.units[u].header = lowered
    idx.row_of = {row.unit: row for row in idx.rows}
    idx.text_blocks = len(blocks)
    if title.strip():
        title = " ".join(title.split())
        idx.title = prepare(title).lower()
        idx.block_text.append(idx.title)
        cased.append(prepare(title))
        heading_context = ""
        # Its sentences, as a paragraph's: a title given with a post may hold several
        # (as a text file's first line taken whole did: "Use ShapeVar(..., min=2,
        # max=128) for the batch dimension. The cache holds 64 entries."), and one unit
        # of them all bound the cache's 64 to the batch dimension's minimum (it was one
        # line, as a heading is).
        prose(len(blocks), title, title, prepare(title), capped=False)
    idx.words = frozenset(n.text.lower() for u in idx.units for n in u.numbers if n.kind == WORD)
    idx.joined = "\x01".join(idx.block_text)
    idx.cased = "\x01".join(cased)
    idx.block_starts = list(
        itertools.accumulate((len(t) + 1 for t in idx.block_text[:-1]), initial=0)
    )
    idx.source_words = word_set(idx.joined)
    return idx
