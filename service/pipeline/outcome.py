"""A delivery's ``problems`` across its runs: a retry (POST /deliveries/{id}/retry) adds
what it notes to what the earlier runs noted, as it adds to their counts and item_ids
(service.pipeline.intake). The latest run's notes were all that was left: a retry that
found the feed unchanged (304) said only that, and the parser's complaints, the entries
not applied as older, or an earlier run's failure were gone."""

from __future__ import annotations

import re
from collections.abc import Iterable

from service.queue import ERROR_TEXT_CHARS

SEPARATOR = "; "
# As an error is kept (queue.error_text): the earlier runs' notes give way first.
PROBLEMS_CHARS = ERROR_TEXT_CHARS
# The notes of one run kept, the first (a feed of thousands of bad entries noted each,
# and all were stored, on every run); the others are counted. Within PROBLEMS_CHARS too.
RUN_PROBLEMS = 20
_LEFT_OUT = re.compile(r"\[([\d,]+) characters of earlier problems left out\]; ")


def earlier_failure(error: str) -> str:
    """An earlier run's failure as one of the problems the retry keeps (``error`` says
    only why the delivery is failed now)."""
    return f"an earlier run failed: {error}"


def _without(text: str, note: str) -> str:
    """``text`` (notes joined by SEPARATOR) without ``note`` where it is a whole one. A
    note may hold the separator itself ("page ... not read (...); kept the feed's
    excerpt"): the stored text is not split into notes, the note is looked for whole."""
    padded, gone = f"{SEPARATOR}{text}{SEPARATOR}", f"{SEPARATOR}{note}{SEPARATOR}"
    while gone in padded:
        padded = padded.replace(gone, SEPARATOR)
    return padded[len(SEPARATOR) : -len(SEPARATOR)] if len(padded) > len(SEPARATOR) else ""


def _capped(notes: list[str]) -> list[str]:
    """The first RUN_PROBLEMS of one run's notes, within PROBLEMS_CHARS (the first one is
    kept whole whatever its length), and how many were left out."""
    kept: list[str] = []
    size = 0
    for note in notes:
        size += len(note) + len(SEPARATOR)
        if len(kept) == RUN_PROBLEMS or (kept and size > PROBLEMS_CHARS):
            break
        kept.append(note)
    left = len(notes) - len(kept)
    return [*kept, f"[{left:,} more problems left out]"] if left else kept


def with_earlier(earlier: str | None, latest: Iterable[str]) -> str | None:
    """The problems of every run, newest last: a note said again is said where it was
    said last (each earlier text was made so: it holds each note once). Past
    PROBLEMS_CHARS the earlier runs' oldest notes are left out, and so many characters
    counted; the latest run's own follow whole: its first RUN_PROBLEMS, and a count of
    the others."""
    own = _capped(list(dict.fromkeys(p for p in latest if p)))
    rest, dropped = earlier or "", 0
    left_out = _LEFT_OUT.match(rest)
    if left_out:  # left out by an earlier retry: counted on
        dropped = int(left_out[1].replace(",", ""))
        rest = rest[left_out.end() :]
    for note in own:
        rest = _without(rest, note)
    room = PROBLEMS_CHARS - len(SEPARATOR.join(own)) - len(SEPARATOR)
    if len(rest) > room:
        # The oldest go first, from one note's start (where the separator was).
        cut = rest.find(SEPARATOR, len(rest) - max(room, 0))
        kept = rest[cut + len(SEPARATOR) :] if cut >= 0 else ""
        dropped += len(rest) - len(kept)
        rest = kept
    mark = [f"[{dropped:,} characters of earlier problems left out]"] if dropped else []
    return SEPARATOR.join([*mark, *([rest] if rest else []), *own]) or None
