"""Blocks that are not prose: table rows read as sentences, code blocks cut short."""

from __future__ import annotations

import re

from service.engines.extractive.inline import clean_inline
from service.text import Block

MAX_CODE_LINES = 8

_SKIP_COLUMN = re.compile(r"^(prs?|pull requests?|links?|urls?|sources?|references?|refs?)$", re.I)


def table_sentences(block: Block) -> list[str]:
    """Table rows as sentences: "For <row label>, the post lists <header>: <cell>; ..."."""
    header = [clean_inline(h)[0] for h in block.header]
    out = []
    for row in block.rows:
        cells = [clean_inline(c)[0] for c in row]
        if not cells or not cells[0]:
            continue
        parts = []
        for h, v in zip(header[1:], cells[1:], strict=False):
            if not v or v in ("-", "—", "–") or _SKIP_COLUMN.match(h):
                continue
            parts.append(f"{h}: {v}" if h else v)
        if parts:
            out.append(f"For {cells[0]}, the post lists {'; '.join(parts)}.")
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
