"""The source, indexed once per text: split into units (clauses of sentences, table rows,
code lines), each with its numbers and the context its names are looked up in."""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import lru_cache
from typing import TypeVar

from service.check.absent import squeezed, written_anyhow
from service.check.caps import MAX_PLACES_PER_VALUE, MAX_TABLE_CELLS, Cut
from service.check.clauses import source_clauses
from service.check.columns import column_noun, column_unit, render_row, with_columns
from service.check.derive import Derived, Operands, quantize
from service.check.names import (
    STOP_WORDS,
    Name,
    leading_word,
    name_key,
    name_pattern,
    named_inside,
    release_head,
    split_forms,
)
from service.check.sides import row_sides
from service.check.table import Row, make_row
from service.check.unit import Hit, Unit, squeeze, word_set
from service.numbers import Hedge, Number, extract_numbers, prepare
from service.numbers.context import stated_bounds
from service.numbers.number import QUANTITY, RANGE, WORD
from service.text import single_spaced, split_blocks, split_sentences

_DIGIT = re.compile(r"\d")
_K = TypeVar("_K")


@dataclass(slots=True)
class SourceIndex:
    """A source text, split into units, with its numbers indexed by normalised value and
    its words by block, so that every look-up of a check is a dictionary access."""

    units: list[Unit] = field(default_factory=list)
    singles: dict[Decimal, list[Hit]] = field(default_factory=dict)
    ranges: dict[tuple[Decimal, Decimal], list[Hit]] = field(default_factory=dict)
    range_lows: dict[Decimal, list[Hit]] = field(default_factory=dict)
    range_highs: dict[Decimal, list[Hit]] = field(default_factory=dict)
    words: frozenset[str] = frozenset()  # number words written in the source
    source_words: frozenset[str] = frozenset()  # every word of the source
    block_text: list[str] = field(default_factory=list)  # lower-case text of each block
    joined: str = ""  # the block texts joined by \x01, for finding a word's blocks
    cased: str = ""  # the same in their own case (a capital tells a name)
    block_starts: list[int] = field(default_factory=list)  # offsets of the blocks in it
    block_units: dict[int, list[int]] = field(default_factory=dict)
    unit_starts: dict[int, list[int]] = field(default_factory=dict)  # per block, sorted
    code_lines: dict[str, int] = field(default_factory=dict)  # squeezed line -> unit
    text_blocks: int = 0  # blocks of the text; a block past them is the title
    title: str = ""  # the post's title, prepared and lower case ("" for none)
    # Per block under a heading, its headings as written (outermost first).
    sections: dict[int, str] = field(default_factory=dict)
    rows: list[Row] = field(default_factory=list)  # table rows, for sentences restating one
    row_of: dict[int, Row] = field(default_factory=dict)  # the row of a table-row unit
    _rounded: dict[int, dict[Decimal, list[Hit]]] = field(default_factory=dict)
    _derived: dict[str, list[Derived]] = field(default_factory=dict)
    _operands: Operands | None = None
    _multipliers: list[Hit] | None = None
    _first: dict[tuple[str, str, bool], int | None] = field(default_factory=dict)
    _names: dict[str, tuple[str, re.Pattern[str]] | None] = field(default_factory=dict)
    _inside: dict[str, bool] = field(default_factory=dict)
    _anyhow: dict[str, bool] = field(default_factory=dict)
    _squeezed: str | None = None  # ``joined`` without separators (absent.squeezed)
    _labels: frozenset[str] | None = None
    # Per unit and unit of measure, the names of each of its figures of that measure (by
    # the figure's start): filled by ``bind.source_names`` for the units a check examines,
    # and by ``paired`` under "\x00respectively " + the measure for the names a source
    # list said "respectively" pairs its figures with (one memo of names per source).
    own_names: dict[tuple[int, str], dict[int, tuple[Name, ...]]] = field(default_factory=dict)
    _qualifiers: dict[str, frozenset[str]] = field(default_factory=dict)
    # The direction of a change each source figure a check examines is written with.
    directions: dict[tuple[int, int], int] = field(default_factory=dict)
    cut: Cut = field(default_factory=Cut)  # what was left out past the caps (check.caps)

    def occurrences(
        self, key: str, pattern: re.Pattern[str], *, version: bool = False
    ) -> Iterator[int]:
        """Units where a folded name occurs, in order: each place its first word is
        found is confirmed by the name's pattern right there (no block is searched)."""
        last = -1
        for pos in self._places(key, pattern, version):
            block = bisect.bisect_right(self.block_starts, pos) - 1
            units = self.block_units.get(block, [])
            if units:
                offset = pos - self.block_starts[block]
                k = bisect.bisect_right(self.unit_starts[block], offset) - 1
                unit = units[max(k, 0)]
                if unit != last:
                    yield unit
                    last = unit

    def _places(self, key: str, pattern: re.Pattern[str], version: bool) -> Iterator[int]:
        """Offsets in ``joined`` where the name occurs."""
        first = key.split("\x00", 1)[0]
        if not first or not _WORD_TOKEN_ONLY.fullmatch(first):
            # A name that starts with a separator ("_fp8_cast"), or whose first word holds
            # what no word token does ("$1e5"): no first word to look up (finding ""
            # would never move on), so the pattern searches the text.
            yield from (m.start() for m in pattern.finditer(self.joined))
            return
        words = self.source_words
        lead = leading_word(key)
        if lead:
            # "llama3" may stand as "llama 3" (the word "llama"), "llama\x003.1" as
            # "llama3.1" (the word it joins to): looked for from the leading word.
            parts = key.split("\x00", 2)
            joined = lead + parts[1] if first == lead and len(parts) > 1 else ""
            if first not in words and lead not in words and joined not in words:
                return
            first = lead
        elif version and release_head(key):
            first = release_head(key)  # "2.14" as "2.14.0", "0.3" as "0.3.x": no word
        elif first not in words and first + "s" not in words and "v" + first not in words:
            return
        pos = self.joined.find(first)
        while pos >= 0:
            at = pos - 1 if version and pos > 0 and self.joined[pos - 1] == "v" else pos
            if pattern.match(self.joined, at):
                yield pos
            pos = self.joined.find(first, pos + len(first))

    def first(self, key: str, pattern: re.Pattern[str], *, version: bool = False) -> int | None:
        """The first unit of :meth:`occurrences` (memoised: an explainer names the same
        things in many sentences, and every explainer of the source does)."""
        # By the pattern's text: hashing the compiled pattern hashes its whole code.
        memo = (key, pattern.pattern, version)
        if memo in self._first:
            return self._first[memo]
        found = next(self.occurrences(key, pattern, version=version), None)
        self._first[memo] = found
        return found

    def has(self, pattern: re.Pattern[str], key: str) -> bool:
        """Whether a name occurs anywhere in the source."""
        if "\x00" not in key and _WORD_TOKEN_ONLY.fullmatch(key):
            if key in self.source_words or key + "s" in self.source_words:
                return True
            if not split_forms(key):
                return False
        return self.first(key, pattern) is not None

    def name(self, word: str) -> tuple[str, re.Pattern[str]] | None:
        """A name word's folded key and pattern when the source has the name, else None
        (memoised: an explainer writes the same names in sentence after sentence)."""
        if word in self._names:
            return self._names[word]
        key = name_key(word)
        pattern = name_pattern(key)
        found = (key, pattern) if self.has(pattern, key) else None
        self._names[word] = found
        return found

    def written_anyhow(self, key: str, initials: str = "") -> bool:
        """Whether the source writes a name of folded ``key`` in any form, as part of a
        longer word too, an acronym spelt out from its ``initials`` too
        (:func:`~service.check.absent.written_anyhow`; memoised)."""
        memo = key + "\x01" + initials
        found = self._anyhow.get(memo)
        if found is None:
            if self._squeezed is None:
                self._squeezed = squeezed(self.joined)
            found = written_anyhow(self.joined, key, initials=initials, bare=self._squeezed)
            self._anyhow[memo] = found
        return found

    def named_inside(self, word: str) -> bool:
        """:func:`~service.check.names.named_inside` in the source (memoised), or a table
        row's label: the word alone in a row's first cell, and nowhere in lower case
        ("| Alpha | 36 |": a cell starts no sentence, so "Alpha trained for 36 hours"
        names the row, whatever the size of its table)."""
        if word not in self._inside:
            self._inside[word] = named_inside(self.cased, self.source_words, word) or (
                word in self.row_labels() and word.lower() not in self.cased
            )
        return self._inside[word]

    def row_labels(self) -> frozenset[str]:
        """The first cells of the source's table rows, as written (read on first use)."""
        if self._labels is None:
            self._labels = frozenset(r.label_text for r in self.rows)
        return self._labels

    def qualifiers(self, key: str, pattern: re.Pattern[str]) -> frozenset[str]:
        """The words the source writes right before a name, but stop words ("dense",
        "grouped", "scaled" of "GEMM"; memoised): where it writes several, a name so
        qualified is one kind of the thing, and "Grouped GEMM" is no "Dense GEMM"."""
        found = self._qualifiers.get(key)
        if found is None:
            words = set()
            for pos in self._places(key, pattern, False):
                m = _WORD_BEFORE.search(self.joined, max(0, pos - 24), pos)
                if m is not None:
                    words.add(m.group(1))
            found = self._qualifiers[key] = frozenset(words - STOP_WORDS)
        return found

    def rounded(self, exp: int) -> dict[Decimal, list[Hit]]:
        """Quantities written with more digits than ``exp``, by their value rounded to it
        (built on first use, once per source and precision)."""
        table = self._rounded.get(exp)
        if table is None:
            table = {}
            for value, hits in self.singles.items():
                finer = [h for h in hits if h[1].kind == QUANTITY and h[1].exp < exp]
                rounded = quantize(value, exp) if finer else None
                if rounded is not None:
                    table.setdefault(rounded, []).extend(finer)
            self._rounded[exp] = table
        return table

    def multipliers(self) -> list[Hit]:
        """The source's multipliers ("1.10x") by value (built on first use)."""
        if self._multipliers is None:
            self._multipliers = sorted(
                (h for hits in self.singles.values() for h in hits
                 if h[1].unit == "x" and h[1].kind == QUANTITY),
                key=lambda h: h[1].value or Decimal(0),
            )  # fmt: skip
        return self._multipliers

    def derived(self, unit: str) -> list[Derived]:
        """What a writer could compute within one unit, or from two cells of a table
        column, for a number with ``unit``, sorted by value (built on first use, once per
        source and unit)."""
        table = self._derived.get(unit)
        if table is None:
            table = self._derived[unit] = self.operands().derived(unit)
        return table

    def operands(self) -> Operands:
        """The source's operands (:class:`.derive.Operands`, read on first use)."""
        if self._operands is None:
            self._operands = Operands(self.units, self.rows)
        return self._operands


# What a word token of ``source_words`` can be made of (WORD_TOKEN's characters): a key
# with anything else is never among them.
_WORD_TOKEN_ONLY = re.compile(r"[a-z0-9.=+:]+")
_WORD_BEFORE = re.compile(r"([a-z]{3,})[ -]$")  # the word before a name, in ``joined``
_LABEL = re.compile(r"^\s*\*\*([^*]{1,60}?)\*\*")
_CAPTION = re.compile(r"\s*[*_]?(?:Figure|Fig\.|Table)\s+\d+[.:]\s")
__all__ = ["MAX_TABLE_CELLS", "SourceIndex", "index_source"]


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


@lru_cache(maxsize=16)
def index_source(source_text: str, title: str, /) -> SourceIndex:
    """Split the source into units and index its numbers (memoised per text and title).

    Both arguments are positional and required: ``lru_cache`` keys ``f(a)``, ``f(a, "")``
    and ``f(a, title="")`` apart, and the gate (which indexes the post while the model
    writes) must hit the entry the check then asks for.

    Each block is prepared, folded and searched for numbers once; its sentences and
    clauses are slices of it. The post's ``title`` is its own words too: it becomes one
    more unit, after the text's blocks, and context for nothing else.
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
            sentences = split_sentences(text, normalised=True, code=True)
            if not sentences:
                continue
            label = _label(block.text, sentences)
            label_context = prepare(label).lower() if label else ""
            # What each clause's context goes on with (the parts that are not empty).
            extra = "".join("\x00" + x for x in (label_context, heading_context) if x)
            if (len(text) + 1) // 2 <= idx.cut.figures_left:  # (as many runs of digits at most)
                found = extract_numbers(text, prepared=prepared)
            else:  # read to the sentence before MAX_SOURCE_FIGURES
                read = idx.cut.prose(prepared)
                found = extract_numbers(text[:read], prepared=prepared[:read])
            idx.cut.figures_left -= len(found)
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
        lines(len(blocks), [(title, title, "")])
    idx.words = frozenset(n.text.lower() for u in idx.units for n in u.numbers if n.kind == WORD)
    idx.joined = "\x01".join(idx.block_text)
    idx.cased = "\x01".join(cased)
    idx.block_starts = list(
        itertools.accumulate((len(t) + 1 for t in idx.block_text[:-1]), initial=0)
    )
    idx.source_words = word_set(idx.joined)
    return idx
