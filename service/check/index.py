"""The source, indexed once per text: split into units (clauses of sentences, table rows,
code lines), each with its numbers and the context its names are looked up in, and the
look-ups of a check on them (built by :func:`~service.check.indexing.index_source`)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from decimal import Decimal

from service.check.absent import squeezed, written_anyhow
from service.check.caps import MAX_TABLE_CELLS, Cut
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
from service.check.table import Row
from service.check.unit import Hit, Unit
from service.numbers.number import QUANTITY


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
    # The units of each unit's sentence and the sentences around it (swaps._neighbours).
    neighbours: dict[int, list[int]] = field(default_factory=dict)
    # The direction of a change each source figure a check examines is written with.
    directions: dict[tuple[int, int], int] = field(default_factory=dict)
    cut: Cut = field(default_factory=Cut)  # what was left out past the caps (check.caps)
    # The units of each model a list names by its digits alone after its line's plural
    # ("RTX 4090s and 3090s": "rtx3090"), by the name's key without separators: a name
    # the text never writes whole, found by :meth:`occurrences` all the same.
    listed: dict[str, list[int]] = field(default_factory=dict)

    def occurrences(
        self, key: str, pattern: re.Pattern[str], *, version: bool = False
    ) -> Iterator[int]:
        """Units where a folded name occurs, in order: each place its first word is
        found is confirmed by the name's pattern right there (no block is searched); and
        a model a list names by its digits alone (:attr:`listed`)."""
        listed = self.listed.get(key.replace("\x00", "")) if self.listed and not version else None
        if listed:
            yield from sorted({*self._units(key, pattern, version), *listed})
        else:
            yield from self._units(key, pattern, version)

    def _units(self, key: str, pattern: re.Pattern[str], version: bool) -> Iterator[int]:
        """Units where the name is written, in order."""
        last = -1
        for pos in self._places(key, pattern, version):
            unit = self.unit_at(pos)
            if unit is not None and unit != last:
                yield unit
                last = unit

    def unit_at(self, pos: int) -> int | None:
        """The unit at offset ``pos`` of ``joined`` (None in a block of no units)."""
        block = bisect.bisect_right(self.block_starts, pos) - 1
        units = self.block_units.get(block, [])
        if not units:
            return None
        k = bisect.bisect_right(self.unit_starts[block], pos - self.block_starts[block]) - 1
        return units[max(k, 0)]

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
__all__ = ["MAX_TABLE_CELLS", "SourceIndex"]
