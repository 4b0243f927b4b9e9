"""The cleaned-text format, read back: blocks and sentences.

Cleaned text (what ``clean`` writes and what Markdown sources already are) is a light
Markdown: ``#`` headings, paragraphs separated by blank lines, ``-``/``1.`` list items,
fenced code blocks and pipe tables with a header row. The explainer engines and the
number check read it through these functions, so they agree on what a block and a
sentence are.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from typing import Literal

BlockKind = Literal["heading", "paragraph", "list_item", "code", "table"]


@dataclass(frozen=True, slots=True, init=False)
class Block:
    kind: BlockKind
    text: str
    level: int = 0  # heading level
    header: tuple[str, ...] = ()  # table header cells
    rows: tuple[tuple[str, ...], ...] = field(default=())  # table body rows

    def __init__(
        self,
        kind: BlockKind,
        text: str,
        level: int = 0,
        header: tuple[str, ...] = (),
        rows: tuple[tuple[str, ...], ...] = (),
    ) -> None:
        # What dataclass's __init__ does for a frozen class (the same parameters, each
        # field set by object.__setattr__), through the slots' own setters, which cost
        # half as much: a source is split into blocks by the hundred, cold.
        _kind(self, kind)
        _text(self, text)
        _level(self, level)
        _header(self, header)
        _rows(self, rows)


_kind, _text, _level, _header, _rows = (Block.__dict__[f.name].__set__ for f in fields(Block))


_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _cells(line: str) -> tuple[str, ...]:
    # A cell may hold a literal pipe written as `\|` (GFM); only bare pipes separate cells.
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    return tuple(c.strip().replace("\\|", "|") for c in _CELL_SPLIT.split(s))


def _row(cells: tuple[str, ...]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _starts_block(lines: list[str], i: int) -> bool:
    line = lines[i]
    return bool(
        _FENCE.match(line)
        or _HEADING.match(line)
        or _LIST.match(line)
        or (line.strip().startswith("|") and i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1]))
    )


# What a line that starts a block can begin with, after its indent: a fence, a heading, a
# table row or a list marker (or a digit: "1." items).
_MARKERS = frozenset("`~#|-*+")


def split_blocks(text: str) -> list[Block]:
    """Split cleaned text into blocks, in order."""
    lines = text.splitlines()
    blocks: list[Block] = []
    para: list[str] = []

    def flush() -> None:
        if para:
            blocks.append(Block("paragraph", " ".join(p.strip() for p in para)))
            para.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        # Most lines are a paragraph's: their first non-space character starts no block
        # (``str.lstrip`` strips exactly what ``\s`` matches; a heading has no indent;
        # ``str.isdigit`` holds for every ``\d``).
        head = line.lstrip()[:1]
        if head and head not in _MARKERS and not head.isdigit():
            para.append(line)
            i += 1
            continue
        if _FENCE.match(line):
            flush()
            fence = _FENCE.match(line).group(1)  # type: ignore[union-attr]
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                body.append(lines[i])
                i += 1
            blocks.append(Block("code", "\n".join(body)))
            i += 1
            continue
        if not line.strip():
            flush()
            i += 1
            continue
        m = _HEADING.match(line)
        if m:
            flush()
            blocks.append(Block("heading", m.group(2).strip(), level=len(m.group(1))))
            i += 1
            continue
        if line.strip().startswith("|") and i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1]):
            flush()
            header = _cells(line)
            rows: list[tuple[str, ...]] = []
            i += 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            raw = "\n".join([line] + [_row(r) for r in rows])
            blocks.append(Block("table", raw, header=header, rows=tuple(rows)))
            continue
        m = _LIST.match(line)
        if m:
            flush()
            item = [m.group(1).strip()]
            i += 1
            # Lazy continuation: a wrapped item goes on until a blank line or a new block.
            while i < len(lines) and lines[i].strip() and not _starts_block(lines, i):
                item.append(lines[i].strip())
                i += 1
            blocks.append(Block("list_item", " ".join(item)))
            continue
        para.append(line)
        i += 1
    flush()
    return blocks


# A sentence ends at . ! ? followed by space and an upper-case letter, digit or quote,
# but not after common abbreviations or inside numbers like 1.10x or 0.14.2b.
_ABBREV = {
    "e.g", "i.e", "etc", "vs", "approx", "fig", "eq", "no", "dr", "mr", "ms", "inc", "al", "incl",
}  # fmt: skip
# German (an explainer for a feed set to "de"), in its own case: the scales and units
# written after a figure, where German capitalises the noun that follows ("1,2 Mio.
# Nutzer" is one sentence, the figure's noun with it), and the common abbreviations
# before a noun. Case kept: "San Jose, CA. Explore ..." ends there. ("z. B.", "d. h.",
# "u. a." end on one letter, never a sentence end already.)
_GERMAN_ABBREV = {
    "Mio", "Mrd", "Tsd", "Bio", "Std", "Sek", "ca", "bzw", "z.B", "d.h", "u.a", "inkl",
    "bspw", "ggf", "evtl", "vgl", "Nr", "Abb",
}  # fmt: skip
# After a number "ms" is milliseconds, not a title: "from ~19 ms to ~7 ms. The ..." ends there;
# and a unit of one letter, in lower case, no initial: "Cold start takes 12 s. Warm ..."
# (read as "12 s. Warm" of one sentence, the next one's words were the figure's clause).
_UNIT_ABBREV = {"ms"}
_UNIT_LETTERS = {"s", "h"}
_NUMBER_END = re.compile(r"\d\s*$")
# The brackets and quotes a stop may close: "(about 2x faster.)", 'he said "it is 3x."'.
# German closes a quote with the marks English opens one with ("„Dann.“").
CLOSERS = "\"')]’”»“‘"
_CLOSED = f"[{re.escape(CLOSERS)}]*"
# The match starts at the stop itself (a leading character class lets the search skip
# ahead, where a look-behind is tried at every position) and takes the closers after it:
# the sentence ends where the match does, its ")" or quote with it (cut at the stop, the
# closer went to neither sentence). The space after is only looked at; the next
# sentence's strip drops it.
# What may open the next sentence before its capital or figure: a bracket or a quote,
# curly and German ones too ("It stops. “Then …”", "Er sagt. „Dann …“"). Its capital may
# be accented ("Über", "État"): Latin-1's capitals, the letters of the corpus's posts.
_OPENER = "[\"'(\\[“‘«„]?"
_CAPITAL = "A-Z0-9À-ÖØ-Þ"
_SENT_END = re.compile(rf"[.!?]{_CLOSED}(?=\s+{_OPENER}[{_CAPITAL}])")
_STOPS_CLOSERS = ".!?" + CLOSERS  # stripped off a sentence's last word to read it
# Or a code name that keeps its lower case there ("lu_factor and lu_solve move ...",
# "torch.compile works"), for the number check: the sentence before would hold its
# figures and names too ("Cholesky gets ... results. lu_factor ... 2–9x" gave Cholesky
# the 2–9x). (The extractive engine keeps such sentences with the one before them: "Three
# additions ...: torch.autograd.graph.node_creation_hook ..." reads as one.)
_SENT_END_CODE = re.compile(
    rf"[.!?]{_CLOSED}(?=\s+{_OPENER}(?:[{_CAPITAL}]|[a-z][a-z0-9]*(?:_|\.[a-z])))"
)


# The characters ``str.split()`` splits ASCII text at, but the space.
_ASCII_BREAKS = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f"


def single_spaced(text: str) -> str:
    """``" ".join(text.split())``: the text's runs of white space as one space, none at
    its ends. Most paragraphs are so already (their lines were stripped and joined by a
    space), and are returned as they are: an ASCII text with no other white space
    character, no two spaces in a row and none at an end (tests for ``in`` in C, where the
    split and join build and copy a string per word)."""
    if (
        text.isascii()
        and "  " not in text
        and text[:1] != " "
        and text[-1:] != " "
        and not any(map(text.__contains__, _ASCII_BREAKS))
    ):
        return text
    return " ".join(text.split())


def split_sentences(text: str, *, normalised: bool = False, code: bool = False) -> list[str]:
    """Split a paragraph into sentences without breaking numbers or abbreviations.

    ``normalised``: the caller has already collapsed the text's white space (it is
    ``" ".join(text.split())``), which is then not done twice. ``code``: a code name in
    lower case may start a sentence too (:data:`_SENT_END_CODE`).
    """
    if not normalised:
        text = single_spaced(text)
    if not text:
        return []
    out: list[str] = []
    start = 0
    for m in (_SENT_END_CODE if code else _SENT_END).finditer(text):
        end = m.end()
        candidate = text[start:end].strip()
        head, _, last_word = candidate.rpartition(" ")
        written = last_word.rstrip(_STOPS_CLOSERS)
        last = written.lower()
        unit = last in _UNIT_ABBREV or written in _UNIT_LETTERS
        unit = unit and _NUMBER_END.search(head) is not None
        if (
            (last in _ABBREV and not unit)
            or (len(last) == 1 and last.isalpha() and not unit)
            or written in _GERMAN_ABBREV
        ):
            continue
        if candidate:
            out.append(candidate)
        start = end
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def ends_at_stop(text: str) -> bool:
    """Whether ``text`` ends at a ``.``, ``!`` or ``?``, past the closers after it: a
    sentence of :func:`split_sentences` ends so ("It is fast (about 2x faster.)"). (As
    ``text[-1:] in ".!?"``, which it replaces for them, an empty text counts.)"""
    return text.rstrip(CLOSERS)[-1:] in ".!?"
