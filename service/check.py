"""The number check: every number of an explainer against the source it explains.

Each number of the explainer gets a verdict:

- ``supported``: the source writes the same number (after normalisation) with the same
  unit, no more precision, a compatible hedge, and near the same things.
- ``misattached``: the source has the number, but not near the things the explainer
  ties it to (another model, operator, baseline).
- ``derived``: not written in the source but computable from one source sentence or
  table row: a rounding, the end of a range, the span of several values, a ratio,
  difference, sum or percentage. Shown for review; it does not fail the check.
- ``unsupported``: nothing in the source backs it.

Rules, in short (the module's tests spell them out):

- Quantities match after normalisation (``x``/``×``/``times``, ``%``/``percent``,
  thousands separators, dash styles, scale words). A bare number in the explainer
  matches any unit; a number with a unit needs the same unit in the source.
- Precision: the explainer may not write more digits than the source (``1.100`` for
  ``1.10`` is unsupported: false precision). Fewer digits is a rounding, ``derived``
  (``1.1`` for ``1.10`` or ``1.13``), and only in the same unit (``1.7`` shapes is no
  rounding of ``1.68x``). An explainer digit matches a source word ("1" for "one").
- Ranges match with both ends. A single value inside a source range is unsupported; a
  range end is ``derived``, or ``supported`` when a hedge says which end it is ("up to
  3.66x" for "1.17x–3.66x").
- Hedges keep their direction: "up to"/"at most"/"nearly" (upper) only for an upper
  bound in the source, "over"/"at least" (lower) only for a lower bound; "about" and no
  hedge go with anything.
- Identifiers and versions match verbatim (case-insensitive, hyphen/space tolerant); a
  version right after a product name must stand with that name in the source ("ROCm
  2.14" where the source has "PyTorch 2.14" is ``misattached``).
- Code lines of the explainer must be source lines, or their literals verbatim in it.
- Binding: the names within six words of a number in the explainer (model, operator,
  format, baseline, hardware: ``MXFP8``, ``RMSNorm``, ``Llama-3.1-8B``, ``Triton``; not
  across a comma or a relative clause) must all occur in the source clause where that
  number stands, its paragraph label or its headings; else ``misattached``. A bare count
  without names must share a noun with the source number, near it ("256 tokens" vs
  "256-token input"); a number with neither carries the names of the previous sentence
  of its paragraph (checked against the source sentence and the one before it). Two
  like figures of one sentence said of two names the other way round from the source
  ("1.95x over Triton and 1.20x over ATen") are both ``misattached``.
- Number words ("two baselines") are reported only when the source has the value as
  a word or a digit, so ordinary words never raise an alarm.
- Known limits: a source sentence that lists many figures and names binds loosely (any
  of its names goes with any of its figures); a figure stated with plain words only
  ("dropped 19%") is matched by value and hedge, not by what it is about.
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from functools import lru_cache

from service.models import (
    CheckReport,
    CheckStatus,
    DroppedFact,
    Explainer,
    Fact,
    NumberVerdict,
)
from service.numbers import Hedge, Kind, Number, extract_numbers, fold, identifier_key, prepare
from service.text import split_blocks, split_sentences

__all__ = ["Fact", "SourceIndex", "check_explainer", "fact_carried", "index_source"]


# --- the source, indexed once ------------------------------------------------------------------


@dataclass(slots=True)
class _Unit:
    """A place a source number stands: a clause of a sentence, a table row, a code line."""

    block: int
    display: str  # the sentence or table row as a reader sees it
    context: str  # lower-case text the binding looks names and nouns up in
    numbers: tuple[Number, ...]
    near: str  # the context plus the sentence before (for names carried from a sentence)
    text: str  # the text of its block (or line) as the extractor read it, lower case
    start: int  # where the unit's own clause lies in ``text``
    end: int
    _words: frozenset[str] | None = None

    @property
    def words(self) -> frozenset[str]:
        """The words of ``context`` (most names are looked up here), split on first use."""
        if self._words is None:
            self._words = frozenset(_WORD_TOKEN.findall(self.context))
        return self._words

    def mentions(self, name: _Name, *, near: bool = False) -> bool:
        if not near and "\x00" not in name.key:
            words = self.words
            return name.key in words or name.key + "s" in words
        return name.pattern.search(self.near if near else self.context) is not None


_Hit = tuple[int, Number]  # (unit index, number)


@dataclass(slots=True)
class SourceIndex:
    """A source text, split into units, with its numbers indexed by normalised value and
    its words by block, so that every look-up of a check is a dictionary access."""

    units: list[_Unit] = field(default_factory=list)
    singles: dict[Decimal, list[_Hit]] = field(default_factory=dict)
    ranges: dict[tuple[Decimal, Decimal], list[_Hit]] = field(default_factory=dict)
    range_lows: dict[Decimal, list[_Hit]] = field(default_factory=dict)
    range_highs: dict[Decimal, list[_Hit]] = field(default_factory=dict)
    words: frozenset[str] = frozenset()  # number words written in the source
    source_words: frozenset[str] = frozenset()  # every word of the source
    block_text: list[str] = field(default_factory=list)  # lower-case text of each block
    joined: str = ""  # the block texts joined by \x01, for finding a word's blocks
    block_starts: list[int] = field(default_factory=list)  # offsets of the blocks in it
    block_units: dict[int, list[int]] = field(default_factory=dict)
    unit_starts: dict[int, list[int]] = field(default_factory=dict)  # per block, sorted
    code_lines: dict[str, int] = field(default_factory=dict)  # squeezed line -> unit
    _rounded: dict[int, dict[Decimal, list[_Hit]]] = field(default_factory=dict)
    _derived: dict[str, list[_Derived]] = field(default_factory=dict)

    def occurrences(
        self, key: str, pattern: re.Pattern[str], *, version: bool = False
    ) -> Iterator[int]:
        """Units where a folded name occurs, in order: each place its first word is
        found is confirmed by the name's pattern right there (no block is searched)."""
        first = key.split("\x00", 1)[0]
        words = self.source_words
        if first not in words and first + "s" not in words and "v" + first not in words:
            return
        pos, last = self.joined.find(first), -1
        while pos >= 0:
            at = pos - 1 if version and pos > 0 and self.joined[pos - 1] == "v" else pos
            if pattern.match(self.joined, at):
                block = bisect.bisect_right(self.block_starts, pos) - 1
                units = self.block_units.get(block, [])
                if units:
                    offset = pos - self.block_starts[block]
                    k = bisect.bisect_right(self.unit_starts[block], offset) - 1
                    unit = units[max(k, 0)]
                    if unit != last:
                        yield unit
                        last = unit
            pos = self.joined.find(first, pos + len(first))

    def has(self, pattern: re.Pattern[str], key: str) -> bool:
        """Whether a name occurs anywhere in the source."""
        if "\x00" not in key:
            return key in self.source_words or key + "s" in self.source_words
        return next(self.occurrences(key, pattern), None) is not None

    def rounded(self, exp: int) -> dict[Decimal, list[_Hit]]:
        """Quantities written with more digits than ``exp``, by their value rounded to it
        (built on first use, once per source and precision)."""
        table = self._rounded.get(exp)
        if table is None:
            table = {}
            for value, hits in self.singles.items():
                finer = [h for h in hits if h[1].kind == Kind.QUANTITY and h[1].exp < exp]
                rounded = _quantize(value, exp) if finer else None
                if rounded is not None:
                    table.setdefault(rounded, []).extend(finer)
            self._rounded[exp] = table
        return table

    def derived(self, unit: str) -> list[_Derived]:
        """What a writer could compute within one unit for a number with ``unit``, sorted
        by value (built on first use, once per source and unit)."""
        table = self._derived.get(unit)
        if table is None:
            table = sorted(
                (
                    d
                    for u, source_unit in enumerate(self.units)
                    for d in _combinations(u, source_unit, unit)
                ),
                key=lambda d: d.value,
            )
            self._derived[unit] = table
        return table


_LABEL = re.compile(r"^\s*\*\*([^*]{1,60}?)\*\*")
_CLAUSE_SPLIT = re.compile(r";\s+")
_SQUEEZE = re.compile(r"\s+")


def _label(text: str, sentences: list[str]) -> str:
    """A paragraph's lead-in ("**MXFP8 A8W8.** With ..."): context for all its sentences."""
    m = _LABEL.match(text)
    if m:
        return m.group(1)
    if len(sentences) > 1 and len(sentences[0].split()) <= 4:
        return sentences[0]
    return ""


def _squeeze(line: str) -> str:
    return _SQUEEZE.sub(" ", line).strip()


def _render_row(header: Sequence[str], row: Sequence[str]) -> str:
    cells = []
    for i, cell in enumerate(row):
        name = header[i] if i < len(header) else ""
        cells.append(f"{name}: {cell}" if name else cell)
    return " | ".join(cells)


_WORD_TOKEN = re.compile(r"[a-z0-9]+(?:[.=+:][a-z0-9]+)*")


def _index_numbers(idx: SourceIndex, unit_no: int, nums: Iterable[Number]) -> None:
    for n in nums:
        if n.kind == Kind.RANGE:
            assert n.value is not None and n.high is not None
            idx.ranges.setdefault((n.value, n.high), []).append((unit_no, n))
            if n.change:  # "from 5,996 to 7,027": two measured values
                low = replace(n, kind=Kind.QUANTITY, high=None)
                high = replace(n, kind=Kind.QUANTITY, value=n.high, exp=n.high_exp, high=None)
                idx.singles.setdefault(n.value, []).append((unit_no, low))
                idx.singles.setdefault(n.high, []).append((unit_no, high))
                continue
            idx.range_lows.setdefault(n.value, []).append((unit_no, n))
            idx.range_highs.setdefault(n.high, []).append((unit_no, n))
        elif n.kind in (Kind.QUANTITY, Kind.WORD):
            assert n.value is not None
            idx.singles.setdefault(n.value, []).append((unit_no, n))


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    cuts = [start, *(m.end() for m in _CLAUSE_SPLIT.finditer(text, start, end)), end]
    return [(cuts[i], cuts[i + 1]) for i in range(len(cuts) - 1)]


@lru_cache(maxsize=16)
def index_source(source_text: str) -> SourceIndex:
    """Split the source into units and index its numbers (memoised per text).

    Each block is prepared, folded and searched for numbers once; its sentences and
    clauses are slices of it.
    """
    idx = SourceIndex()
    headings: list[tuple[int, str]] = []
    heading_context = ""
    blocks = split_blocks(source_text)

    def add(
        block: int,
        display: str,
        context: str,
        nums: tuple[Number, ...],
        near: str,
        text: str,
        span: tuple[int, int],
    ) -> None:
        unit_no = len(idx.units)
        idx.units.append(_Unit(block, display, context, nums, near or context, text, *span))
        idx.block_units.setdefault(block, []).append(unit_no)
        idx.unit_starts.setdefault(block, []).append(span[0])
        _index_numbers(idx, unit_no, nums)

    def lines(block: int, items: list[tuple[str, str, str]]) -> None:
        """Units that are whole lines (a heading, code lines, table rows), given as
        (display, own text, extra context): their numbers are found in one pass."""
        joined = " |\n".join(own for _, own, _ in items)
        prepared = prepare(joined)
        lower = prepared.lower()
        nums = extract_numbers(joined, prepared=prepared)
        starts = [n.start for n in nums]
        pos = 0
        for display, own, extra in items:
            end = pos + len(own)
            mine = tuple(nums[bisect.bisect_left(starts, pos) : bisect.bisect_left(starts, end)])
            context = "\x00".join(x for x in (lower[pos:end], extra, heading_context) if x)
            add(block, display, context, mine, "", lower, (pos, end))
            pos = end + 3

    for b, block in enumerate(blocks):
        text = (
            " ".join(block.text.split()) if block.kind in ("paragraph", "list_item") else block.text
        )
        prepared = prepare(text)
        lower = prepared.lower()
        idx.block_text.append(lower)
        if block.kind == "heading":
            headings = [h for h in headings if h[0] < block.level] + [(block.level, block.text)]
            heading_context = prepare(" \n ".join(h for _, h in headings)).lower()
            lines(b, [(block.text, block.text, "")])
        elif block.kind in ("paragraph", "list_item"):
            sentences = split_sentences(text)
            label = _label(block.text, sentences)
            label_context = prepare(label).lower() if label else ""
            nums = extract_numbers(text, prepared=prepared)
            starts = [n.start for n in nums]
            pos, before = 0, ""
            for sentence in sentences:
                start = text.find(sentence, pos)
                start = pos if start < 0 else start
                end = pos = start + len(sentence)
                this = lower[start:end]
                for c_start, c_end in _clauses(text, start, end):
                    first = bisect.bisect_left(starts, c_start)
                    own = tuple(nums[first : bisect.bisect_left(starts, c_end, first)])
                    parts = (lower[c_start:c_end], label_context, heading_context)
                    context = "\x00".join(x for x in parts if x)
                    near = f"{context}\x00{before}\x00{this}"
                    add(b, sentence, context, own, near, lower, (c_start, c_end))
                before = this
        elif block.kind == "code":
            code = [line for line in block.text.splitlines() if _DIGIT.search(line)]
            for i, line in enumerate(code):
                idx.code_lines.setdefault(_squeeze(line), len(idx.units) + i)
            if code:
                lines(b, [(line.strip(), line, "") for line in code])
        elif block.kind == "table":
            caption = ""
            if b > 0 and blocks[b - 1].kind == "paragraph" and blocks[b - 1].text:
                caption = split_sentences(blocks[b - 1].text)[-1]
            header = " | ".join(block.header)
            extra = prepare(f"{header} \n {caption}").lower()
            rows = [(header, header, prepare(caption).lower())]
            rows += [(_render_row(block.header, row), " | ".join(row), extra) for row in block.rows]
            lines(b, rows)
    idx.words = frozenset(
        n.text.lower() for u in idx.units for n in u.numbers if n.kind == Kind.WORD
    )
    idx.joined = "\x01".join(idx.block_text)
    idx.block_starts = list(
        itertools.accumulate((len(t) + 1 for t in idx.block_text[:-1]), initial=0)
    )
    idx.source_words = frozenset(_WORD_TOKEN.findall(idx.joined))
    return idx


# --- names and nouns ----------------------------------------------------------------------------

_NAME_TOKEN = re.compile(r"\w(?:\w|[.=+](?=\w))*")
_NOT_NAMES = frozenset({"I", "A", "An", "The"})


@lru_cache(maxsize=4096)
def _name_pattern(key: str) -> re.Pattern[str]:
    """A pattern for a folded name: plural-tolerant; a long model name also matches its
    shorter form ("Llama-3.1-8B-Instruct" matches "Llama-3.1-8B")."""
    segments = key.split("\x00")
    keep = len(segments)
    for i in range(2, len(segments)):
        head = segments[:i]
        if any(c.isdigit() for c in "".join(head)):
            keep = i
            break
    sep = r"[\x00\s_\-]+"  # folded text has NULs, raw text spaces, hyphens, underscores
    body = sep.join(re.escape(s) for s in segments[:keep])
    for s in segments[keep:]:
        body += "(?:" + sep + re.escape(s)
    body += ")?" * (len(segments) - keep)
    return re.compile(r"(?<![a-z0-9])" + body + r"s?(?![a-z0-9])")


def _name_key(word: str) -> str:
    key = fold(word)
    if len(word) > 2 and word.endswith("s") and any(c.isupper() or c.isdigit() for c in word[1:-1]):
        key = key[:-1]  # GPUs -> gpu, LLMs -> llm
    return key


def _is_name(word: str, initial: bool) -> bool:
    if len(word) < 2 or not word[0].isalpha() or word in _NOT_NAMES:
        return False
    if any(c.isupper() for c in word[1:]):
        return True  # ATen, RMSNorm, TopK, MXFP, vLLM, NT
    return word[0].isupper() and not initial  # Triton, Llama, Qwen in mid-sentence


@dataclass(frozen=True, slots=True)
class _Name:
    start: int
    end: int
    key: str
    pattern: re.Pattern[str]


def _names(s: str, nums: Sequence[Number], idx: SourceIndex) -> list[_Name]:
    """The names of an explainer sentence that the source knows, in order."""
    out: list[_Name] = []
    idents = [n for n in nums if n.kind == Kind.IDENTIFIER]
    for n in idents:
        pattern = _name_pattern(n.key)
        if idx.has(pattern, n.key):
            out.append(_Name(n.start, n.end, n.key, pattern))
    starts = [n.start for n in nums]
    for m in _NAME_TOKEN.finditer(s):
        token = m.group(0)
        if token.islower() or _DIGIT.search(token):
            continue  # ordinary words; numbers and identifiers are handled above
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and m.start() < nums[i].end:
            continue
        before = s[: m.start()].rstrip()
        initial = not before or before[-1] in ":.!?" or not before.strip("\"'([*_`")
        offset = 0
        for word in token.split("-"):
            start, offset = m.start() + offset, offset + len(word) + 1
            if not _is_name(word, initial and start == m.start()):
                continue
            key = _name_key(word)
            pattern = _name_pattern(key)
            if idx.has(pattern, key):
                out.append(_Name(start, start + len(word), key, pattern))
    out.sort(key=lambda x: x.start)
    return out


_STOP = frozenset(
    "the a an of and or to in on at for with by from per over across into than as is are "  # noqa: SIM905
    "was were be been each all more less most its their that which this these those some any "
    "other also only both up about under new same such then when while where who whose it "
    "they them there here not no nor but so very much many few several times percent between "
    "within without after before during against among around out off above below use uses "
    "used using make makes made get gets got run runs ran have has had show shows shown "
    "can could will would may might must should does did done".split()
)
_WORDS = re.compile(r"[A-Za-z][A-Za-z'-]*")


def _nouns(text: str, limit: int = 3, *, last: bool = False) -> list[str]:
    """The first (or last) ``limit`` content words of a text."""
    parts = [
        part
        for word in _WORDS.findall(text)
        for part in word.lower().split("-")
        if len(part) >= 3 and part not in _STOP and part.isalpha()
    ]
    return parts[-limit:] if last else parts[:limit]


@lru_cache(maxsize=4096)
def _noun_pattern(word: str) -> re.Pattern[str]:
    """A noun's five-letter stem anywhere, or a whole-word abbreviation of it ("seq",
    "len", "tok" for "sequence", "length", "tokens")."""
    prefixes = [word[:k] for k in range(len(word) - 1, 2, -1) if word[:k] not in _STOP]
    alternatives = [re.escape(word[:5])]
    if prefixes:
        alternatives.append("(?:" + "|".join(map(re.escape, prefixes)) + ")(?![a-z])")
    return re.compile(r"(?<![a-z])(?:" + "|".join(alternatives) + ")")


# --- binding ------------------------------------------------------------------------------------

_CLAUSE_MARK = re.compile(r"[,;:](?=\s)|[()\[\]]|\s-\s")
_COORDINATOR = re.compile(
    r"\s(?:and|or|while|whereas|but|versus|vs\.?|compared\s+(?:with|to))\s", re.I
)
_LIST_GAP = re.compile(r"\s*(?:,|,?\s*(?:and|or|&))\s*", re.I)


@dataclass(frozen=True, slots=True)
class _Binding:
    names: tuple[_Name, ...] = ()
    nouns: tuple[str, ...] = ()
    inherited: tuple[_Name, ...] = ()
    nearest: _Name | None = None  # the name this number is said of, for swap detection

    def holds(self, unit: _Unit, number: Number | None = None) -> bool:
        if self.names:
            return all(unit.mentions(n) for n in self.names)
        if self.nouns:
            # The noun must stand near the number in the source too, when we know where.
            text = unit.context
            if number is not None:
                start = _window_start(unit.text, unit.start, number.start)
                end = _window_end(unit.text, number.end, unit.end, stop=False)
                text = unit.text[start:end]
            return any(_noun_pattern(s).search(text) for s in self.nouns)
        if self.inherited:  # the topic of the sentence before: so may the source's be
            return all(unit.mentions(n, near=True) for n in self.inherited)
        return True

    def missing(self, context: str) -> list[str]:
        names = self.names or self.inherited
        if self.names or not self.nouns:
            return [n.key.replace("\x00", "-") for n in names if not n.pattern.search(context)]
        return list(self.nouns)


_NEAR = 6  # words


_NONSPACE = re.compile(r"\S+")
_DIGIT = re.compile(r"\d")


def _window_start(s: str, left: int, pos: int) -> int:
    # Six words fit in a few hundred characters: never scan further back than that.
    starts = [m.start() for m in _NONSPACE.finditer(s, max(left, pos - 300), pos)]
    return starts[-_NEAR] if len(starts) > _NEAR else left


# The words after a number stop describing it at a relative clause or a verb in -ing
# ("a 30-billion-parameter model running on NVIDIA GPUs").
_CLAUSE_START = re.compile(
    r"(?:which|that|who|whom|whose|when|where|while|whereas|because|although|if|unless)"
    r"|[a-z]{3,}ing",
    re.I,
)
_ING_NOUNS = frozenset(
    "training serving thing decoding scaling string setting settings padding embedding "  # noqa: SIM905
    "batching checkpointing encoding sampling pooling caching routing tuning autotuning "
    "learning reasoning computing processing spending funding pricing ranking building "
    "morning evening timing ceiling".split()
)


def _window_end(s: str, pos: int, right: int, *, stop: bool) -> int:
    for count, m in enumerate(_NONSPACE.finditer(s, pos, right), 1):
        if stop and count > 1:
            word = m.group(0).strip(".,;:()\"'").lower()
            if _CLAUSE_START.fullmatch(word) and word not in _ING_NOUNS:
                return m.start()
        if count == _NEAR:
            return m.end()
    return right


def _split_gap(s: str, start: int, end: int) -> tuple[int, int]:
    """Where the words after one number stop belonging to it (first) and where the words
    before the next number start belonging to that one (second)."""
    marks = [m for m in _CLAUSE_MARK.finditer(s, start, end)]
    if marks:
        return marks[0].start(), marks[-1].end()
    m = _COORDINATOR.search(s, start, end)
    if m:
        return m.start(), m.end()
    return end, start


def _bindings(
    s: str,
    nums: Sequence[Number],
    names: Sequence[_Name],
    start: int = 0,
    end: int | None = None,
) -> dict[int, _Binding]:
    """Names and nouns of each quantity, range and number word of a sentence (of
    ``s[start:end]``), by start."""
    end = len(s) if end is None else end
    marks = [m.start() for m in _CLAUSE_MARK.finditer(s, start, end)]
    name_starts = [x.start for x in names]  # names come sorted by position
    said_respectively = s.find("respectively", start, end) >= 0
    seq = [n for n in nums if n.kind in (Kind.QUANTITY, Kind.RANGE, Kind.WORD)]
    groups: list[list[Number]] = []
    for n in seq:
        if groups and _LIST_GAP.fullmatch(s, groups[-1][-1].end, n.start):
            groups[-1].append(n)
        else:
            groups.append([n])
    out: dict[int, _Binding] = {}
    chained: tuple[_Name, ...] = ()
    for g, group in enumerate(groups):
        first, last = group[0], group[-1]
        noun_left = -1
        inherit: tuple[_Name, ...] = ()
        if g > 0:
            prev = groups[g - 1][-1]
            left = _split_gap(s, prev.end, first.start)[1]
            if left == prev.end:  # "8 bits instead of 16": the unit word describes both
                noun_left = prev.start
                if len(s[prev.end : first.start].split()) <= _NEAR:
                    # "4.82x over ATen across 10 cases": one phrase, one measurement
                    inherit = chained
        else:
            k = bisect.bisect_left(marks, first.start)
            left = marks[k - 1] + 1 if k else start
        if g + 1 < len(groups):
            right = _split_gap(s, last.end, groups[g + 1][0].start)[0]
        else:
            k = bisect.bisect_left(marks, last.end)
            right = marks[k] if k < len(marks) else end
        # Names count when near: within a few words on either side.
        left = max(left, _window_start(s, left, first.start))
        names_right = _window_end(s, last.end, right, stop=True)
        right = _window_end(s, last.end, right, stop=False)
        own = [
            *names[
                bisect.bisect_left(name_starts, left) : bisect.bisect_left(name_starts, first.start)
            ],
            *names[
                bisect.bisect_left(name_starts, last.end) : bisect.bisect_left(
                    name_starts, names_right
                )
            ],
        ]
        bound = tuple(dict.fromkeys([*inherit, *own]))
        chained = bound
        nouns: list[str] = []
        if not bound:  # nouns bind only a number without names
            # A few words either side, across commas ("a very low value, around 0.2").
            next_start = groups[g + 1][0].start if g + 1 < len(groups) else end
            prev_end = groups[g - 1][-1].end if g > 0 else 0
            noun_left = noun_left if noun_left >= 0 else prev_end
            noun_left = max(noun_left, _window_start(s, noun_left, first.start))
            noun_right = _window_end(s, last.end, next_start, stop=False)
            nouns = [n.noun for n in group if n.noun] + _nouns(s[last.end : noun_right])
            nouns += _nouns(s[noun_left : first.start], last=True)
        following = [x for x in own if x.start >= last.end]
        preceding = [x for x in own if x.start < first.start]
        respectively = said_respectively and len(group) > 1 and len(following) >= len(group)
        for i, n in enumerate(group):
            if respectively:
                nearest: _Name | None = following[i]
            else:
                nearest = following[0] if following else (preceding[-1] if preceding else None)
            out[n.start] = _Binding(names=bound, nouns=tuple(nouns), nearest=nearest)
    return out


def _said_of(unit: _Unit, n: Number, names: Sequence[_Name]) -> str | None:
    """Which of ``names`` a source number is said of, read as the explainer's are (from
    the few numbers around it: a long list sentence costs no more than a short one)."""
    nums = unit.numbers
    i = bisect.bisect_left(nums, n.start, key=lambda m: m.start)
    lo, hi = max(0, i - 3), min(len(nums), i + 4)
    start = nums[lo - 1].end if lo > 0 else unit.start
    end = nums[hi].start if hi < len(nums) else unit.end
    found = [
        _Name(m.start(), m.end(), name.key, name.pattern)
        for name in names
        for m in name.pattern.finditer(unit.text, start, end)
    ]
    found.sort(key=lambda x: x.start)
    nearest = _bindings(unit.text, nums[lo:hi], found, start, end).get(n.start, _Binding()).nearest
    return nearest.key if nearest else None


def _units_with(idx: SourceIndex, n: Number) -> dict[int, Number]:
    """Source units holding the value (or range) of ``n``, with the number found there."""
    if n.kind == Kind.RANGE:
        assert n.value is not None and n.high is not None
        hits = idx.ranges.get((n.value, n.high), [])
    else:
        assert n.value is not None
        hits = idx.singles.get(n.value, [])
    out: dict[int, Number] = {}
    for u, m in hits:
        out.setdefault(u, m)
    return out


def _swapped(idx: SourceIndex, a: Number, b: Number, ea: _Name, eb: _Name) -> bool:
    """Two numbers of one sentence said of two names the other way round from the source
    ("1.95x over Triton and 1.20x over ATen" for "1.20x over Triton and 1.95x over ATen")."""
    ua, ub = _units_with(idx, a), _units_with(idx, b)
    crossed = straight = False
    for u in ua.keys() & ub.keys():
        unit = idx.units[u]
        if not (unit.mentions(ea) and unit.mentions(eb)):
            continue  # the source says nothing here about which is which
        sa, sb = _said_of(unit, ua[u], (ea, eb)), _said_of(unit, ub[u], (ea, eb))
        if sa == ea.key or sb == eb.key:
            straight = True
        elif sa == eb.key and sb == ea.key:
            crossed = True
    return crossed and not straight


# --- matching -------------------------------------------------------------------------------------


def _unit_ok(mine: Number, theirs: Number) -> bool:
    return not mine.unit or mine.unit == theirs.unit


def _hedge_ok(mine: Hedge, theirs: Hedge) -> bool:
    if mine in (Hedge.NONE, Hedge.APPROX):
        return True
    return mine == theirs


def _quantize(value: Decimal, exp: int) -> Decimal | None:
    try:
        return value.quantize(Decimal(1).scaleb(exp), rounding=ROUND_HALF_UP)
    except InvalidOperation:
        return None


@dataclass(frozen=True, slots=True)
class _Outcome:
    status: CheckStatus
    unit: int | None = None
    reason: str | None = None


def _first_bound(
    idx: SourceIndex, hits: Iterable[_Hit], binding: _Binding
) -> tuple[int | None, int | None]:
    """(a hit whose context holds the binding, any hit at all) as unit indices."""
    any_hit: int | None = None
    for unit, number in hits:
        if any_hit is None:
            any_hit = unit
        if binding.holds(idx.units[unit], number):
            return unit, any_hit
    return None, any_hit


def _spans(unit: _Unit, like: Number) -> list[tuple[tuple[Decimal, int], tuple[Decimal, int]]]:
    """Per unit of measure, the (min, max) of the values and range ends of a source unit
    that a range like ``like`` could span (its own unit; any unit when it is bare)."""
    by_unit: dict[str, list[tuple[Decimal, int]]] = {}
    for n in unit.numbers:
        if n.value is None or n.kind == Kind.WORD or not _unit_ok(like, n):
            continue
        values = by_unit.setdefault(n.unit, [])
        values.append((n.value, n.exp))
        if n.high is not None:
            values.append((n.high, n.high_exp))
    return [
        (min(v, key=lambda x: x[0]), max(v, key=lambda x: x[0]))
        for v in by_unit.values()
        if len(v) >= 2
    ]


_RATIO_UNITS = frozenset({"x", "%", "pp"})


_CITATION = re.compile(r"\[[\d,\s\-–]+\]")


def _operands(unit: _Unit) -> list[tuple[Decimal, str, str]]:
    """(value, unit, text) of the numbers of a source unit that arithmetic may combine:
    quantities and both ends of a change; no multipliers, no citation marks ("[5,6]")."""
    cited = [m.span() for m in _CITATION.finditer(unit.text, unit.start, unit.end)]
    out: list[tuple[Decimal, str, str]] = []
    for n in unit.numbers:
        if n.value is None or n.unit == "x" or any(a <= n.start < b for a, b in cited):
            continue
        if n.kind == Kind.QUANTITY:
            out.append((n.value, n.unit, n.text))
        elif n.kind == Kind.RANGE and n.change and n.high is not None:
            out.extend([(n.value, n.unit, n.text), (n.high, n.unit, n.text)])
    return out


@dataclass(frozen=True, slots=True)
class _Derived:
    value: Decimal
    unit: int
    how: str
    a: Decimal
    b: Decimal
    a_text: str
    b_text: str


def _combinations(u: int, unit: _Unit, target: str) -> Iterator[_Derived]:
    """Values computable from two numbers of one unit, for a number with unit ``target``."""
    operands = _operands(unit)
    for i, (a, a_unit, a_text) in enumerate(operands):
        for j, (b, b_unit, b_text) in enumerate(operands):
            if i == j or a_unit != b_unit or not b:
                continue
            for value, how in _combine(target, a, b, a_unit):
                yield _Derived(value, u, how, a, b, a_text, b_text)


def _arithmetic(idx: SourceIndex, q: Number, binding: _Binding) -> tuple[int, str] | None:
    """A ratio, percentage, difference or sum of two numbers of one source unit."""
    if q.value is None or not q.unit or q.kind != Kind.QUANTITY:
        return None
    if q.hedge in (Hedge.UPPER, Hedge.LOWER):
        return None  # a bound is no computation
    table = idx.derived(q.unit)
    half = Decimal(5).scaleb(q.exp - 1)
    lo = bisect.bisect_left(table, q.value - half, key=lambda d: d.value)
    for d in table[lo:]:
        if d.value > q.value + half:
            break
        if q.value in (d.a, d.b):
            continue  # 38% - 19% = 19% is a coincidence, not a derivation
        if _quantize(d.value, q.exp) == q.value and binding.holds(idx.units[d.unit]):
            return d.unit, f"{d.how} of {d.a_text} and {d.b_text}"
    return None


def _combine(target: str, a: Decimal, b: Decimal, unit: str) -> list[tuple[Decimal, str]]:
    """What a writer could compute from a and b for a number with unit ``target``."""
    if target == "x":
        return [(a / b, "ratio")] if unit and unit not in _RATIO_UNITS else []
    if target == "%" and unit != "%":
        return [(a / b * 100, "percentage"), (abs(a - b) / b * 100, "percent change")]
    if target == unit:
        return [(abs(a - b), "difference"), (a + b, "sum")]
    return []


def _match_quantity(idx: SourceIndex, q: Number, binding: _Binding) -> _Outcome:
    assert q.value is not None
    hits = idx.singles.get(q.value, [])
    exact = [
        h
        for h in hits
        if _unit_ok(q, h[1])
        and (
            (h[1].kind == Kind.QUANTITY and _hedge_ok(q.hedge, h[1].hedge) and h[1].exp == q.exp)
            or (h[1].kind == Kind.WORD and q.exp == 0)
        )
    ]
    bound, anywhere = _first_bound(idx, exact, binding)
    if bound is not None:
        return _Outcome(CheckStatus.SUPPORTED, bound)
    # A range end: supported when a hedge names that end, else derived.
    for ends, which, hedge in (
        (idx.range_highs, "high", Hedge.UPPER),
        (idx.range_lows, "low", Hedge.LOWER),
    ):
        cands = [
            h
            for h in ends.get(q.value, [])
            if _unit_ok(q, h[1]) and (h[1].high_exp if which == "high" else h[1].exp) == q.exp
        ]
        end_unit, _ = _first_bound(idx, cands, binding)
        if end_unit is not None and q.hedge in (hedge, Hedge.NONE, Hedge.APPROX):
            if q.hedge == hedge:
                return _Outcome(CheckStatus.SUPPORTED, end_unit)
            return _Outcome(CheckStatus.DERIVED, end_unit, f"the {which} end of a source range")
    # A rounding of a more precise source number.
    cands = [
        h
        for h in idx.rounded(q.exp).get(q.value, [])
        if q.unit == h[1].unit  # a rounding keeps its unit: 1.7 is no rounding of 1.68x
        and _hedge_ok(q.hedge, h[1].hedge)
    ]
    unit, _ = _first_bound(idx, cands, binding)
    if unit is not None:
        hit = next(h for h in cands if h[0] == unit)
        return _Outcome(CheckStatus.DERIVED, unit, f"rounded from {hit[1].text}")
    found = _arithmetic(idx, q, binding)
    if found is not None:
        return _Outcome(CheckStatus.DERIVED, found[0], found[1])
    if anywhere is not None:
        missing = ", ".join(binding.missing(idx.units[anywhere].context))
        return _Outcome(
            CheckStatus.MISATTACHED,
            anywhere,
            f"the source gives it for other things ({missing} not there)",
        )
    return _Outcome(CheckStatus.UNSUPPORTED, None, _why_not(idx, q, hits))


def _why_not(idx: SourceIndex, q: Number, hits: list[_Hit]) -> str:
    for _, h in hits:
        if h.kind != Kind.QUANTITY:
            continue
        if q.unit and h.unit != q.unit:
            return f"the source writes {h.text}, with another unit"
        if h.exp > q.exp:
            return f"more precise than the source ({h.text})"
        if not _hedge_ok(q.hedge, h.hedge):
            return f"the hedge turns around the source's ({h.hedge.value} bound {h.text})"
    if q.value is not None and (q.value in idx.range_lows or q.value in idx.range_highs):
        return "the source has it only as a range end, with another hedge or unit"
    return "not in the source"


def _match_range(idx: SourceIndex, r: Number, binding: _Binding) -> _Outcome:
    assert r.value is not None and r.high is not None
    hits = idx.ranges.get((r.value, r.high), [])
    exact = [
        h
        for h in hits
        if _unit_ok(r, h[1])
        and _hedge_ok(r.hedge, h[1].hedge)
        and h[1].exp == r.exp
        and h[1].high_exp == r.high_exp
    ]
    bound, anywhere = _first_bound(idx, exact, binding)
    if bound is not None:
        return _Outcome(CheckStatus.SUPPORTED, bound)
    # The span of several values or ranges of one sentence (min to max).
    lows = {u for u, _ in idx.singles.get(r.value, [])} | {
        u for u, _ in idx.range_lows.get(r.value, [])
    }
    highs = {u for u, _ in idx.singles.get(r.high, [])} | {
        u for u, _ in idx.range_highs.get(r.high, [])
    }
    for u in sorted(lows & highs):
        unit = idx.units[u]
        if not binding.holds(unit):
            continue
        for lo, hi in _spans(unit, r):
            if (lo, hi) == ((r.value, r.exp), (r.high, r.high_exp)):
                return _Outcome(
                    CheckStatus.DERIVED, u, "the span of several values in one sentence"
                )
    if anywhere is not None:
        missing = ", ".join(binding.missing(idx.units[anywhere].context))
        return _Outcome(
            CheckStatus.MISATTACHED,
            anywhere,
            f"the source gives it for other things ({missing} not there)",
        )
    if hits:
        return _Outcome(CheckStatus.UNSUPPORTED, None, f"the source writes {hits[0][1].text}")
    return _Outcome(CheckStatus.UNSUPPORTED, None, "not in the source as a range")


@lru_cache(maxsize=4096)
def _verbatim_pattern(key: str, version: bool) -> re.Pattern[str]:
    """A folded identifier, verbatim up to case and separators, in folded or plain text."""
    body = r"[\x00\s_\-]+".join(re.escape(part) for part in key.split("\x00"))
    prefix = "v?" if version else ""
    return re.compile(r"(?<![a-z0-9.])" + prefix + body + r"s?(?![a-z0-9]|\.[a-z0-9])")


def _locate(idx: SourceIndex, key: str, *, version: bool = False) -> Iterator[int]:
    """Units of the source where a verbatim name occurs, in order (lazily: most callers
    want the first)."""
    return idx.occurrences(key, _verbatim_pattern(key, version), version=version)


def _match_verbatim(idx: SourceIndex, n: Number, product: _Name | None) -> _Outcome:
    units = _locate(idx, n.key, version=n.kind == Kind.VERSION)
    first = next(units, None)
    if first is None:
        return _Outcome(CheckStatus.UNSUPPORTED, None, "not in the source")
    if product is not None:
        for u in (first, *units):
            if product.pattern.search(idx.units[u].context):
                return _Outcome(CheckStatus.SUPPORTED, u)
        return _Outcome(
            CheckStatus.MISATTACHED, first, f"the source does not give it for {product.key}"
        )
    return _Outcome(CheckStatus.SUPPORTED, first)


def _match_word(idx: SourceIndex, w: Number) -> _Outcome | None:
    assert w.value is not None
    if w.text.lower() in idx.words:
        hits = [h for h in idx.singles.get(w.value, []) if h[1].text.lower() == w.text.lower()]
        return _Outcome(CheckStatus.SUPPORTED, hits[0][0] if hits else None)
    hits = idx.singles.get(w.value, [])
    if hits:
        return _Outcome(CheckStatus.SUPPORTED, hits[0][0])
    return None


# --- the explainer, sentence by sentence -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Sentence:
    text: str
    group: int  # paragraph: names carry over between sentences of one group
    code: bool = False


def _sentences_of(text: str, group: int) -> list[_Sentence]:
    out: list[_Sentence] = []
    for b, block in enumerate(split_blocks(text)):
        g = group * 1000 + b
        if block.kind == "code":
            out.extend(_Sentence(line, g, True) for line in block.text.splitlines() if line.strip())
        elif block.kind == "table":
            for row in block.rows:
                out.append(_Sentence(_render_row(block.header, row), g))
        elif block.kind == "heading":
            out.append(_Sentence(block.text, g))
        else:
            out.extend(_Sentence(s, g) for s in split_sentences(block.text))
    return out


def _explainer_sentences(explainer: Explainer | str) -> list[_Sentence]:
    if isinstance(explainer, str):
        return _sentences_of(explainer, 0)
    out = _sentences_of(explainer.title, 0)
    g = 1
    for section in explainer.sections:
        out.extend(_sentences_of(section.heading, g))
        g += 1
        for paragraph in section.paragraphs:
            out.extend(_sentences_of(paragraph, g))
            g += 1
        if section.code:
            out.extend(
                _Sentence(line, g, True) for line in section.code.splitlines() if line.strip()
            )
            g += 1
    if explainer.takeaway:
        out.extend(_sentences_of(explainer.takeaway, g))
    return out


def _verdict(idx: SourceIndex, n: Number, sentence: str, outcome: _Outcome) -> NumberVerdict:
    unit = idx.units[outcome.unit] if outcome.unit is not None else None
    return NumberVerdict.model_construct(  # the fields are ours and valid: skip validation
        text=n.text,
        kind=n.kind.value,
        status=outcome.status,
        sentence=sentence,
        source=unit.display if unit else None,
        source_block=unit.block if unit else None,
        reason=outcome.reason,
    )


def _check_code(idx: SourceIndex, sentence: _Sentence) -> list[NumberVerdict]:
    """A code line of the explainer: the same line in the source, or each literal verbatim."""
    nums = [n for n in extract_numbers(sentence.text, words=False)]
    if not nums:
        return []
    unit = idx.code_lines.get(_squeeze(sentence.text))
    out = []
    for n in nums:
        if unit is not None:
            outcome = _Outcome(CheckStatus.SUPPORTED, unit)
        else:
            first = next(_locate(idx, identifier_key(n.text)), None)
            outcome = (
                _Outcome(CheckStatus.SUPPORTED, first)
                if first is not None
                else _Outcome(CheckStatus.UNSUPPORTED, None, "not in the source verbatim")
            )
        out.append(_verdict(idx, n, sentence.text, outcome))
    return out


def _product_before(s: str, n: Number, names: Sequence[_Name]) -> _Name | None:
    """The name written right before a version ("PyTorch 2.14", "AOTriton 0.14.2b")."""
    for name in names:
        if name.end <= n.start and not s[name.end : n.start].strip():
            return name
    return None


def _check_sentences(idx: SourceIndex, sentences: Sequence[_Sentence]) -> list[NumberVerdict]:
    verdicts: list[NumberVerdict] = []
    carried: tuple[_Name, ...] = ()
    group = -1
    for sentence in sentences:
        if sentence.group != group:
            group, carried = sentence.group, ()
        if sentence.code:
            verdicts.extend(_check_code(idx, sentence))
            continue
        text = sentence.text
        s = prepare(text)
        nums = extract_numbers(text, prepared=s)
        if not nums:
            continue
        names = _names(s, nums, idx)
        bindings = _bindings(s, nums, names)
        own: list[_Name] = []
        said: list[tuple[int, Number, _Name]] = []
        for n in nums:
            binding = bindings.get(n.start, _Binding())
            if n.kind in (Kind.QUANTITY, Kind.RANGE):
                if binding.names:
                    own.extend(binding.names)
                elif not (binding.nouns and not n.unit):
                    binding = _Binding(inherited=carried)
                else:
                    binding = _Binding(nouns=binding.nouns)
                if n.kind == Kind.RANGE:
                    outcome = _match_range(idx, n, binding)
                else:
                    outcome = _match_quantity(idx, n, binding)
            elif n.kind == Kind.WORD:
                found = _match_word(idx, n)
                if found is None:
                    continue  # an ordinary word, not a claim the source could back
                outcome = found
            else:
                product = _product_before(s, n, names) if n.kind == Kind.VERSION else None
                outcome = _match_verbatim(idx, n, product)
            if outcome.status == CheckStatus.SUPPORTED and binding.nearest is not None:
                said.append((len(verdicts), n, binding.nearest))
            verdicts.append(_verdict(idx, n, text, outcome))
        for i, (va, a, ea) in enumerate(said):
            for vb, b, eb in said[i + 1 : i + 5]:  # swaps are between neighbouring figures
                like = a.unit == b.unit and a.kind == b.kind  # two speedups, two counts
                if like and ea.key != eb.key and a.value != b.value and _swapped(idx, a, b, ea, eb):
                    for v, other in ((va, eb), (vb, ea)):
                        verdicts[v] = verdicts[v].model_copy(
                            update={
                                "status": CheckStatus.MISATTACHED,
                                "reason": "the source gives it for "
                                f"{other.key.replace(chr(0), '-')}",
                            }
                        )
        if own:
            carried = tuple(dict.fromkeys(own))
    return verdicts


# --- coverage -------------------------------------------------------------------------------------


def fact_carried(fact: Fact, numbers: Sequence[Number], text: str = "") -> bool:
    """Whether a fact's value is among the numbers (normalised; ranges need both ends)."""
    wanted = extract_numbers(fact.value)
    if not wanted:
        return fact.value.strip().lower() in text.lower()
    w = wanted[0]
    for n in numbers:
        if w.kind in (Kind.IDENTIFIER, Kind.VERSION):
            if n.key and n.key == w.key:
                return True
        elif w.kind == Kind.RANGE:
            if n.kind == Kind.RANGE and (n.value, n.high) == (w.value, w.high):
                return True
        elif (
            n.kind in (Kind.QUANTITY, Kind.WORD)
            and n.value == w.value
            and (not w.unit or not n.unit or w.unit == n.unit)
        ):
            return True
    return False


def _dropped(explainer: Explainer | str, facts: Sequence[Fact]) -> list[DroppedFact]:
    text = explainer if isinstance(explainer, str) else _full_text(explainer)
    numbers = extract_numbers(text)
    return [
        DroppedFact(value=f.value, about=f.about)
        for f in facts
        if f.key and not fact_carried(f, numbers, text)
    ]


def _full_text(explainer: Explainer) -> str:
    parts = [explainer.all_text()]
    parts.extend(s.code for s in explainer.sections if s.code)
    return "\n\n".join(parts)


# --- entry point ---------------------------------------------------------------------------------


def check_explainer(
    explainer: Explainer | str,
    source_text: str,
    facts: Sequence[Fact] | None = None,
) -> CheckReport:
    """Check every number of an explainer against the cleaned source text.

    ``explainer`` is an :class:`Explainer` or its text (Markdown or plain); ``source_text``
    is the source as cleaned text (light Markdown). With ``facts``, key facts whose value
    the explainer does not carry are reported as dropped.
    """
    idx = index_source(source_text)
    numbers = _check_sentences(idx, _explainer_sentences(explainer))
    dropped = _dropped(explainer, facts) if facts else []
    return CheckReport(numbers=numbers, dropped=dropped)
