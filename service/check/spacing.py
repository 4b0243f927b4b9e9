"""Product names written with a space more or less than the source writes them: "GB 300"
for "GB300", "GB300NVL72" for "GB300 NVL72", "GB300 NVL72" for "GB300NVL72". One name,
compared verbatim as the source writes it, not a figure "300" nor an unknown name.

"RTX 3090" where the source writes "RTX 3090s" (or names it "3090s" after "RTX 4090s")
takes the source's key, apart ("rtx\x003090"), so the names of its figures compare.

Only a form the source writes verbatim is taken: "GB 200" for a source's "GB300" stays the
figure 200 (unsupported), "GB200NVL72" an unknown name."""

from __future__ import annotations

import re

from service.check.index import SourceIndex
from service.check.verbatim import first_located, locate
from service.numbers import Number
from service.numbers.number import IDENTIFIER, QUANTITY, updated

# A short capitalised name right before a count, apart from it by one space or hyphen:
# "GB 300". (Three letters or more before a digit already match either way: names.py.)
# Not the unit of a figure before it ("80 GB 300 racks": 80 GB, then 300).
_LETTERS_BEFORE = re.compile(r"(?<![\w.-])(?<!\d\s)([A-Z]{2,5})[ -]$")
# Where a joined name may be split: a digit before a word and its digits ("300|nvl72"),
# a word before digits ("gb|300").
_DIGIT_WORD = re.compile(r"(?<=[0-9])(?=[a-z]{2,}[0-9])")
_WORD_DIGIT = re.compile(r"(?<=[a-z]{2})(?=[0-9])")


def respaced(idx: SourceIndex, s: str, text: str, nums: list[Number]) -> list[Number]:
    """``nums`` of the prepared sentence ``s`` with each name the source writes with
    other spacing read as that name (its key the source's form)."""
    out: list[Number] = []
    for n in nums:
        if n.kind == QUANTITY:
            named = _spaced_count(idx, s, text, n)
            if named is not None:
                n = named
        elif n.kind == IDENTIFIER and first_located(idx, n.key) is None:
            if out and out[-1].kind == IDENTIFIER and s[out[-1].end : n.start] in (" ", "-"):
                joined = _as_written(idx, out[-1].key + "\x00" + n.key)
                if joined is not None:  # "GB300 NVL72" for the source's "GB300NVL72"
                    out[-1] = updated(
                        out[-1], end=n.end, text=text[out[-1].start : n.end], key=joined
                    )
                    continue
            key = _as_written(idx, n.key)
            if key is not None:
                n = updated(n, key=key)
        out.append(n)
    return out


def _spaced_count(idx: SourceIndex, s: str, text: str, n: Number) -> Number | None:
    """The name "GB300" for the count of "GB 300" when the source writes it so (a bare
    count after a short word in capitals; most figures fail the first tests)."""
    if n.unit or n.start < 3 or s[n.start - 1] not in " -" or not s[n.start - 2].isupper():
        return None
    if not n.text.isdigit():
        return None
    m = _LETTERS_BEFORE.search(s, max(0, n.start - 7), n.start)
    if m is None:
        return None
    key = (m.group(1) + n.text).lower()
    if first_located(idx, key) is None:
        return None
    if _split_in_source(idx, key, m.group(1).lower(), n.text):
        # "RTX 3090" where the source writes "RTX 3090s" (or its list names "3090s" after
        # "RTX 4090s"): the source's key, its identifiers' ("rtx\x003090"), so that what
        # the source says of it is told from what it says of another (check.said).
        key = m.group(1).lower() + "\x00" + n.text
    start = m.start(1)
    return Number(text[start : n.end], start, n.end, IDENTIFIER, key=key)


def _split_in_source(idx: SourceIndex, key: str, letters: str, digits: str) -> bool:
    """Whether the source writes the name of joined ``key`` apart, its ``letters``, a
    space or a hyphen, then its ``digits`` ("RTX 3090s", "RTX-3090"), or names it by its
    digits alone after its line's plural (:attr:`~service.check.index.SourceIndex.listed`)."""
    if key in idx.listed:
        return True
    apart = re.compile(r"(?<![\w.-])" + re.escape(letters) + r"[ _-]" + re.escape(digits))
    return any(apart.search(idx.units[u].text) for u in locate(idx, key))


def _as_written(idx: SourceIndex, key: str) -> str | None:
    """The key of the source's spacing of the name ``key``: joined, or split between a
    digit and a word, or between a word in capitals and a digit ("GB 300", not the "a
    100" of "a 100 node cluster" nor the "GB 300" of "80 GB 300 W"); None when the
    source has none."""
    joined = key.replace("\x00", "")
    for form in (joined, _DIGIT_WORD.sub("\x00", joined)):
        if form != key and first_located(idx, form) is not None:
            return form
    form = _WORD_DIGIT.sub("\x00", joined, count=1)
    if form in (key, joined):
        return None
    head = re.compile(
        r"(?<![\w.-])(?<!\d\s)" + re.escape(form.split("\x00", 1)[0].upper()) + r"[ _-]"
    )
    # (In the unit's block: its clause's offsets hold only where lower case kept lengths.)
    if any(head.search(idx.units[u].cased) for u in locate(idx, form)):
        return form
    return None
