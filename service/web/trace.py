"""Where every number comes from: an explainer and its check report laid out for a page.

Pure functions. The explainer's text is cut into pieces, each number of the check report
becoming its own piece that points at the source element (sentence, table row or block)
holding it; the source's cleaned text is cut into blocks and sentences with stable ids.
Everything from the feed stays text here; the only HTML made is :func:`inline_html`,
which escapes first and passes its output through an nh3 allow-list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import escape

import nh3
from markupsafe import Markup

from service.models import CheckReport, CheckStatus, Explainer, NumberVerdict
from service.text import split_blocks, split_sentences

# --- the source -----------


@dataclass(frozen=True, slots=True)
class Sentence:
    id: str
    text: str  # as split_sentences gives it (whitespace collapsed)


@dataclass(frozen=True, slots=True)
class Row:
    id: str
    cells: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class SourceBlock:
    id: str
    kind: str  # heading, paragraph, list_item, code, table
    level: int = 0
    sentences: tuple[Sentence, ...] = ()
    header: tuple[str, ...] = ()
    rows: tuple[Row, ...] = ()
    code: str = ""


def source_blocks(text: str) -> list[SourceBlock]:
    """The cleaned text as blocks whose sentences and table rows carry ids
    (``b3``, ``b3-s1``, ``b3-r0``); block indexes are those of ``split_blocks``."""
    out = []
    for i, b in enumerate(split_blocks(text)):
        bid = f"b{i}"
        if b.kind == "code":
            out.append(SourceBlock(bid, "code", code=b.text))
        elif b.kind == "table":
            rows = tuple(Row(f"{bid}-r{k}", r) for k, r in enumerate(b.rows))
            out.append(SourceBlock(bid, "table", header=b.header, rows=rows))
        else:
            # Sentences as the check's index cuts them (code=True: a code name in lower
            # case starts one), so that the sentence a verdict quotes is one of the page's:
            # "lu_factor moves ..." was lit with the sentence before it.
            parts = (
                [" ".join(b.text.split())]
                if b.kind == "heading"
                else split_sentences(b.text, code=True)
            )
            sents = tuple(Sentence(f"{bid}-s{j}", s) for j, s in enumerate(parts))
            out.append(SourceBlock(bid, b.kind, level=b.level, sentences=sents))
    return out


# --- matching a verdict to its source element -----------

_MARKUP = re.compile(r"\*\*|__|`|\[|\]\([^)]*\)")


def _norm(s: str) -> str:
    """Compare sentences across markup and whitespace differences."""
    return " ".join(_MARKUP.sub("", s).replace("|", " ").split()).casefold()


def _row_texts(header: tuple[str, ...], cells: tuple[str, ...]) -> tuple[str, ...]:
    """A row as the check may quote it: its cells, or each cell labelled with its
    column ("Model: Llama-3.1-8B | Speedup: 1.13x")."""
    labelled = " | ".join(
        f"{header[i]}: {c}" if i < len(header) and header[i] else c for i, c in enumerate(cells)
    )
    return (_norm(" ".join(cells)), _norm(labelled))


def _find_target(v: NumberVerdict, blocks: list[SourceBlock]) -> str | None:
    """The id of the sentence or row that supports ``v``; its block when only the
    block is known; None when the check found no support."""
    if v.source is None and v.source_block is None:
        return None
    want = _norm(v.source) if v.source else ""
    number = _norm(v.text)
    if v.source_block is not None and 0 <= v.source_block < len(blocks):
        candidates = [blocks[v.source_block]]
    else:
        candidates = blocks
    # Exact match first, then containment either way, then the number alone.
    for test in (
        lambda t: bool(want) and t == want,
        lambda t: bool(want) and (want in t or t in want) and len(t) > 3,
        lambda t: bool(number) and number in t,
    ):
        for b in candidates:
            for sent in b.sentences:
                if test(_norm(sent.text)):
                    return sent.id
            for row in b.rows:
                if any(test(text) for text in _row_texts(b.header, row.cells)):
                    return row.id
    if v.source_block is not None and 0 <= v.source_block < len(blocks):
        return blocks[v.source_block].id
    return None


# --- the explainer -----------


@dataclass(frozen=True, slots=True)
class NumberRef:
    """One number of the check report, placed on the page."""

    index: int
    text: str
    status: str
    kind: str
    target: str | None  # id of the supporting source element
    source: str | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class Piece:
    """A run of explainer text; ``number`` (an index into ``Traced.numbers``) is set
    when the run is a checked number."""

    text: str
    number: int | None = None


@dataclass(frozen=True, slots=True)
class TracedSection:
    heading: list[Piece]
    paragraphs: list[list[Piece]]
    code: str | None


@dataclass(frozen=True, slots=True)
class Traced:
    title: list[Piece]
    sections: list[TracedSection]
    takeaway: list[Piece] | None
    numbers: list[NumberRef]  # every verdict, in report order
    placed: frozenset[int]  # indexes of numbers found in the explainer's text
    blocks: list[SourceBlock]
    cited: frozenset[str] = field(default_factory=frozenset)  # source ids a number cites

    def count(self, status: str) -> int:
        return sum(1 for n in self.numbers if n.status == status)


def _bounded(text: str, start: int, end: int) -> bool:
    """The match is a whole token: no letter or digit glued to either side."""
    before = text[start - 1] if start > 0 else " "
    after = text[end] if end < len(text) else " "
    return not before.isalnum() and not after.isalnum()


class _Placer:
    """Cuts explainer strings into pieces, consuming each verdict at most once, in the
    order of the report (which is reading order), so a number written twice in one
    sentence gets its two verdicts."""

    def __init__(self, verdicts: list[NumberVerdict]) -> None:
        self.verdicts = verdicts
        self.used: set[int] = set()

    def cut(self, raw: str) -> list[Piece]:
        text = " ".join(raw.split())
        spans: list[tuple[int, int, int]] = []
        for idx, v in enumerate(self.verdicts):
            if idx in self.used or not v.text:
                continue
            sentence = " ".join(v.sentence.split())
            lo = text.find(sentence) if sentence else -1
            if lo < 0:
                continue
            hi = lo + len(sentence)
            pos = lo
            while (hit := text.find(v.text, pos, hi)) >= 0:
                end = hit + len(v.text)
                free = all(end <= a or hit >= b for a, b, _ in spans)
                if free and _bounded(text, hit, end):
                    spans.append((hit, end, idx))
                    self.used.add(idx)
                    break
                pos = hit + 1
        spans.sort()
        pieces: list[Piece] = []
        at = 0
        for a, b, idx in spans:
            if a > at:
                pieces.append(Piece(text[at:a]))
            pieces.append(Piece(text[a:b], idx))
            at = b
        if at < len(text):
            pieces.append(Piece(text[at:]))
        return pieces


def trace(explainer: Explainer, report: CheckReport | None, source_text: str) -> Traced:
    """Lay out ``explainer`` with each checked number pointing at its source element."""
    blocks = source_blocks(source_text)
    verdicts = list(report.numbers) if report else []
    numbers = [
        NumberRef(
            index=i,
            text=v.text,
            status=v.status.value,
            kind=v.kind,
            target=_find_target(v, blocks),
            source=v.source,
            reason=v.reason,
        )
        for i, v in enumerate(verdicts)
    ]
    placer = _Placer(verdicts)
    return Traced(
        title=placer.cut(explainer.title),
        sections=[
            TracedSection(
                heading=placer.cut(s.heading),
                paragraphs=[placer.cut(p) for p in s.paragraphs],
                code=s.code,
            )
            for s in explainer.sections
        ],
        takeaway=placer.cut(explainer.takeaway) if explainer.takeaway else None,
        numbers=numbers,
        placed=frozenset(placer.used),
        blocks=blocks,
        cited=frozenset(
            n.target
            for n in numbers
            if n.target and n.status in (CheckStatus.SUPPORTED, CheckStatus.DERIVED)
        ),
    )


# --- inline markup of the source -----------

_ALLOWED_TAGS = {"a", "strong", "code"}
_CODE = re.compile(r"`([^`]+)`")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\((https?://[^\s)\"'<>]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*")


def _inline_plain(escaped: str) -> str:
    s = _IMAGE.sub(lambda m: f"[image: {m.group(1)}]" if m.group(1) else "[image]", escaped)
    s = _LINK.sub(lambda m: f'<a href="{m.group(2)}">{m.group(1)}</a>', s)
    return _BOLD.sub(r"<strong>\1</strong>", s)


def plain_text(text: str) -> str:
    """Cleaned text without its inline Markdown (for quoting a source sentence inside a
    link, where links and emphasis cannot nest)."""
    s = _IMAGE.sub(lambda m: m.group(1), text)
    s = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", s)
    return s.replace("**", "").replace("`", "")


def inline_html(text: str) -> Markup:
    """Light inline Markdown of cleaned text (links, bold, code) as safe HTML.

    The text is escaped before any tag is made, so nothing of the feed's own markup can
    survive; nh3 then keeps only the allow-listed tags and http(s) link targets.
    """
    out = []
    at = 0
    for m in _CODE.finditer(text):
        out.append(_inline_plain(escape(text[at : m.start()], quote=False)))
        out.append(f"<code>{escape(m.group(1), quote=False)}</code>")
        at = m.end()
    out.append(_inline_plain(escape(text[at:], quote=False)))
    html = "".join(out)
    if "<" not in html:
        return Markup(html)  # escaped text without any tag made: nothing to sanitise
    cleaned = nh3.clean(
        html,
        tags=_ALLOWED_TAGS,
        attributes={"a": {"href"}},
        url_schemes={"http", "https"},
        link_rel="nofollow noopener noreferrer",
    )
    return Markup(cleaned)
