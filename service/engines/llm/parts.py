"""A long post cut into parts that fit the model's context: at headings first, then at
blank lines, never inside a fenced code block."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

_HEADING_LINE = re.compile(r"^#{1,6}\s")
_FENCE_LINE = re.compile(r"^\s*(```|~~~)")


def _chunks(text: str, starts_chunk: Callable[[str], bool]) -> list[str]:
    """Split ``text`` into chunks before lines where ``starts_chunk`` is true, never inside
    a fenced code block."""
    chunks: list[list[str]] = [[]]
    fence: str | None = None
    for line in text.splitlines():
        m = _FENCE_LINE.match(line)
        if fence is None and starts_chunk(line) and any(s.strip() for s in chunks[-1]):
            chunks.append([])
        chunks[-1].append(line)
        if m:
            fence = m.group(1) if fence is None else (None if m.group(1) == fence else fence)
    return [c for c in ("\n".join(lines).strip() for lines in chunks) if c]


def _starts_block(line: str) -> bool:
    return not line.strip() or bool(_HEADING_LINE.match(line))


def blocks(text: str) -> list[str]:
    """The blocks of ``text``: the chunks between blank lines and before headings."""
    return _chunks(text, _starts_block)


def _pack(pieces: Sequence[str], budget: int) -> list[str]:
    parts: list[str] = []
    current = ""
    for piece in pieces:
        if current and len(current) + 2 + len(piece) > budget:
            parts.append(current)
            current = piece
        else:
            current = f"{current}\n\n{piece}" if current else piece
    if current:
        parts.append(current)
    return parts


def split_for_context(text: str, budget: int) -> list[str]:
    """Cut cleaned text into parts of at most ``budget`` characters, at headings first,
    then at blank lines; a single block larger than the budget is cut hard.

    Raises :class:`ValueError` for a budget below one character: no part could hold any
    text, and the hard cut would never shorten a block (it looped for ever)."""
    if budget < 1:
        raise ValueError(f"a context budget of {budget} characters holds no text")
    text = text.strip()
    if len(text) <= budget:
        return [text]
    pieces: list[str] = []
    for section in _chunks(text, lambda line: bool(_HEADING_LINE.match(line))):
        if len(section) <= budget:
            pieces.append(section)
            continue
        for block in blocks(section):
            while len(block) > budget:
                cut = block.rfind(" ", 0, budget)
                cut = cut if cut > budget // 2 else budget
                pieces.append(block[:cut].strip())
                block = block[cut:].strip()
            if block:
                pieces.append(block)
    return _pack(pieces, budget)


def group_notes(notes: Sequence[str], budget: int) -> list[list[str]]:
    """Consecutive notes in groups of at most ``budget`` characters for one combining call
    each; one group when all fit.

    A group takes at least two notes even past the budget (a note is an answer, at most
    ``max_tokens`` long, so two overshoot by little): each round of merging then at least
    halves the notes, and merging ends."""
    groups: list[list[str]] = []
    size = 0
    for note in notes:
        if groups and (len(groups[-1]) < 2 or size + len(note) <= budget):
            groups[-1].append(note)
            size += len(note)
        else:
            groups.append([note])
            size = len(note)
    if len(groups) > 1 and len(groups[-1]) == 1:
        # A lone last note would be "merged" by itself: it joins the group before it.
        groups[-2].extend(groups.pop())
    return groups


_WORD = re.compile(r"[^\W_]{3,}")
_GAP = "\n\n[...]\n\n"


def passages_for(text: str, sentences: Sequence[str], budget: int) -> str:
    """The blocks of ``text`` nearest to ``sentences`` (by the words they share), in the
    post's order and within ``budget`` characters; ``[...]`` marks what is left out.

    The repair of a post longer than the context sees these instead of the post's first
    ``budget`` characters: a claim from its second half would otherwise find no number
    in what the model is shown, and the prompt has it drop the claim."""
    if len(text) <= budget:
        return text
    wanted = {w.casefold() for s in sentences for w in _WORD.findall(s)}
    found = blocks(text)
    ranked = sorted(
        range(len(found)),
        key=lambda i: (-len(wanted & {w.casefold() for w in _WORD.findall(found[i])}), i),
    )
    chosen: set[int] = set()
    size = 0
    for i in ranked:
        cost = len(found[i]) + len(_GAP)
        if size + cost > budget:
            continue
        chosen.add(i)
        size += cost
    out: list[str] = []
    for i in range(len(found)):
        if i in chosen:
            out.append(found[i])
        elif not out or out[-1] != "[...]":
            out.append("[...]")
    if not chosen:  # one block larger than the budget: its start, as before
        return text[: budget - len(_GAP)] + _GAP.rstrip()
    return "\n\n".join(out)
