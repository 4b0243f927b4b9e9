"""The names of an explainer sentence (or a source clause) that the source knows, in
order: its identifiers the source writes, and its capitalised words that are names
(:func:`~service.check.names.is_name`, a sentence's first word only where the source
writes it so inside a sentence, or opens sentences alike with it: ``named_inside``) and
that the source writes, each as a :class:`Name`. Read before the binding (:mod:`.bind`),
which gives them to the figures near them; the name words the source lacks are kept on
request for :mod:`.absent`."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from service.check.index import SourceIndex
from service.check.name_tokens import NAME_TOKEN, name_tokens
from service.check.names import Name, is_name, name_pattern
from service.numbers import Number
from service.numbers.number import IDENTIFIER

_DIGIT = re.compile(r"\d")


def known_names(
    s: str,
    nums: Sequence[Number],
    idx: SourceIndex,
    start: int = 0,
    end: int | None = None,
    absent: list[tuple[int, int, bool]] | None = None,
) -> list[Name]:
    """The names of an explainer sentence (of ``s[start:end]``) that the source knows, in
    order. ``absent``: given, it gets where the name words stand that the source lacks
    (words, no identifiers), each with whether it is a name only where the explainer
    writes it so inside a sentence (a plain capitalised first word): :mod:`.absent`
    reads them, few of them."""
    out: list[Name] = []
    idents = [n for n in nums if n.kind == IDENTIFIER]
    for n in idents:
        pattern = name_pattern(n.key)
        if idx.has(pattern, n.key):
            out.append(Name(n.start, n.end, n.key, pattern))
    starts = [n.start for n in nums]
    end = len(s) if end is None else end
    scan = name_tokens(s, start, end) if s.isascii() else NAME_TOKEN.finditer(s, start, end)
    for m in scan:
        token = m.group(0)
        if token.islower() or _DIGIT.search(token):
            continue  # ordinary words; numbers and identifiers are handled above
        i = bisect.bisect_right(starts, m.start()) - 1
        if i >= 0 and m.start() < nums[i].end:
            continue
        first = initial(s, m.start())
        offset = 0
        for word in token.split("-"):
            at, offset = m.start() + offset, offset + len(word) + 1
            opening = first and at == m.start()
            if not is_name(word, opening) and not (
                # A capitalised first word the source writes so inside its sentences.
                opening and is_name(word, False) and idx.named_inside(word)
            ):
                if absent is not None and opening and is_name(word, False):
                    absent.append((at, at + len(word), True))  # (the source's: read later)
                continue
            e = at + len(word)
            if e == m.end() and s.startswith(" ", e):
                # "Flex attention" for the source's one word "FlexAttention": that name
                # (the next word's run of letters read by slicing, and looked up in the
                # source's words first: most pairs are none, and a name word is read in
                # every source clause too).
                nxt = s[e + 1 : e + 25].split(" ", 1)[0].rstrip(".,;:!?)")
                if len(nxt) > 2 and nxt.isalpha() and nxt.islower():
                    whole = (
                        idx.name(word + nxt) if (word + nxt).lower() in idx.source_words else None
                    )
                    if whole is not None:
                        out.append(Name(at, e + 1 + len(nxt), *whole))
                        continue
            known = idx.name(word)
            if known is not None:
                out.append(Name(at, at + len(word), *known))
            elif absent is not None:
                absent.append((at, at + len(word), opening and not is_name(word, True)))
    out.sort(key=lambda x: x.start)
    return out


_OPENERS = "\"'([*_`"


def initial(s: str, pos: int) -> bool:
    """Whether ``pos`` starts its sentence: nothing but white space and opening marks
    before it, or a sentence end. Read back from ``pos`` (a source clause is a slice of
    its whole paragraph: copying all before it for each word would cost more than the
    rest of the binding)."""
    j = pos - 1
    while j >= 0 and s[j].isspace():
        j -= 1
    if j < 0 or s[j] in ":.!?":
        return True
    return s[j] in _OPENERS and not s[: j + 1].strip(_OPENERS)
