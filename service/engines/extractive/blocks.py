"""Blocks that are not prose: table rows read as sentences, code blocks cut short."""

from __future__ import annotations

import re

from service.engines.extractive.inline import clean_inline
from service.text import Block, split_sentences

MAX_CODE_LINES = 8
MAX_WORDS = 80  # a longer sentence (a table row's too) is too long for a paragraph

_SKIP_COLUMN = re.compile(r"^(prs?|pull requests?|links?|urls?|sources?|references?|refs?)$", re.I)


def _column(header: str) -> str:
    """A column header as it reads inside a sentence ("Result" -> "result"; ATen stays)."""
    if header[:1].isupper() and header[1:2].islower() and not any(c.isupper() for c in header[1:]):
        return header[0].lower() + header[1:]
    return header


def _cell(text: str) -> str:
    """A cell as one part of a sentence: its own sentence breaks and semicolons as commas
    ("7.2, 7.14. 7.1 dropped; 7.14 via TheRock" -> "7.2, 7.14, 7.1 dropped, 7.14 via ...")."""
    parts = [p.rstrip(" .") for p in split_sentences(text)]
    return re.sub(r";\s+", ", ", ", ".join(p for p in parts if p)).rstrip(" ;")


def table_sentences(block: Block) -> list[str]:
    """Table rows as sentences: the row's label, then each cell with its column's name,
    "<label>: <column> <cell>; ..." ("Llama3-8B (dense): result +13.4% throughput"), or
    "<label>: <cell> in <column>; ..." when the column is a version ("CUDA: 12.6 in 2.13").
    The number check binds each cell to its row and column (``service.check.table``).
    A row over ``MAX_WORDS`` words is none."""
    header = [clean_inline(h)[0] for h in block.header]
    out = []
    for row in block.rows:
        label = _cell(clean_inline(row[0])[0]) if row else ""
        if not label:
            continue
        parts: list[str] = []
        words = len(label.split())
        for h, raw in zip(header[1:], row[1:], strict=False):
            if words > MAX_WORDS:
                # Too long to be kept: the row's other cells are not read (300 columns
                # of 300 rows, each cell cleaned and scored, took 7-18 s).
                parts = []
                break
            v = _cell(clean_inline(raw)[0])
            if not v or v in ("-", "—", "–") or _SKIP_COLUMN.match(h):
                continue
            words += len(v.split()) + len(h.split())
            if not h:
                parts.append(v)
            elif any(c.isdigit() for c in h):
                parts.append(f"{v} in {h}")
            else:
                parts.append(f"{_column(h)} {v}")
        if parts:
            out.append(f"{label}: {'; '.join(parts)}.")
    return out


def short_code(code: str) -> str:
    """The first lines of a code block (whole chunks between blank lines), or ''.
    Comment-only lines go: the explainer's prose does the explaining."""
    lines_in = code.strip("\n").split("\n")
    bare = [ln for ln in lines_in if not re.match(r"\s*(#|//)", ln)]
    if any(ln.strip() for ln in bare):
        code = re.sub(r"\n\s*\n(\s*\n)+", "\n\n", "\n".join(bare)).strip("\n")
    chunks = [c for c in re.split(r"\n\s*\n", code.strip("\n")) if c.strip()]
    kept: list[str] = []
    lines = 0
    for chunk in chunks:
        n = chunk.count("\n") + 1
        if lines + n > MAX_CODE_LINES:
            break
        kept.append(chunk.rstrip())
        lines += n
    return "\n\n".join(kept)
