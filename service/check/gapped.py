"""A gapped list item: a later figure of a source list written with no verb or subject of
its own ("FP8 reaches 1.5x over BF16 on MI355X and 1.3x on MI300X") says only what tells
it from the item before ("on MI300X" for "on MI355X"); the phrases of that item it does
not say again are its own too ("over BF16": the 1.3x is over BF16 as well), as a list
item's own phrase of the same word replaces them ("... and 1.3x over FP16 on MI300X":
the 1.3x is over FP16, not BF16)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.check.names import Name
from service.numbers import Number

# The words that start a phrase of a figure's ("over BF16", "on MI300X", "with FP8").
_WORD = r"(?:for|on|over|across|in|with|at|against|versus|vs\.?|from|under|than|by)"
# A name right after such a word ("over BF16", "on the MI300X"): the phrase's own.
_PHRASE_END = re.compile(r"(?<![\w.])(" + _WORD + r")\s+(?:the\s+)?$")
# Phrases of a word and a name, and nothing else: no verb, no subject ("on MI355X with
# BF16"); a name of more words has digits in each word after its first ("Llama 3 8B").
_PHRASES = re.compile(
    r"(?:\s*(?<![\w.])" + _WORD + r"\s+(?:the\s+)?[\w./+-]+(?:\s+[\w./+-]*\d[\w./+-]*){0,2})*\s*"
)
# What joins two items of a list, the later written from its figure on.
_JOINED = re.compile(r"(?:\s*,\s*and|\s*,|\s+and)\s+$")


def _says(text: str, word: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` has a phrase of ``word``."""
    return (
        re.compile(r"(?<![\w.])" + re.escape(word) + r"(?![\w.])").search(text, start, end)
        is not None
    )


def distributed(text: str, figures: Sequence[Number], m: Number, x: Name, end: int) -> bool:
    """Whether name ``x``, of an earlier item of the list of like ``figures`` that ``m``
    ends an item of (in ``text`` up to ``end``), is ``m``'s as well: ``x`` stands right
    after the word of its phrase ("over BF16"), followed only by such phrases up to the
    next item, each later item up to ``m``'s is gapped (written from its figure on, after
    "and" or a comma, with no more than such phrases), and none of them nor ``m``'s says
    a phrase of that word of its own, nor one before ``x``'s."""
    k = next((i for i, n in enumerate(figures) if n.start == m.start), -1)
    after = figures[k + 1].start if k + 1 < len(figures) else end
    word = ""
    for j in range(k - 1, -1, -1):
        lo, hi = figures[j].end, figures[j + 1].start
        joined = _JOINED.search(text, lo, hi)
        if joined is None:
            return False
        if lo <= x.start < joined.start():
            found = _PHRASE_END.search(text, lo, x.start)
            if found is None or not _PHRASES.fullmatch(text, x.end, joined.start()):
                return False
            word = found.group(1)
            break
        if not _PHRASES.fullmatch(text, lo, joined.start()):
            return False
    if not word:
        return False
    # (Nor where an item before says a phrase of that word too: "1.5x over BF16 ...,
    # 1.4x over FP16 ... and 1.3x on MI300X" leaves the 1.3x's unsure.)
    return not (
        _says(text, word, figures[0].start, figures[j].start)
        or _says(text, word, figures[j + 1].start, after)
    )
