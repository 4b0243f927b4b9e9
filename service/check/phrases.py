"""Phrases that name what the figures of a sentence's clause are measured on or of: one
leading the clause ("On MI325X GPUs, the kernel reaches 6.2x") and one ending the
sentence after a comma ("..., at about 39 GB, on DeepSeek-V3 671B.")."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from service.check.names import Name
from service.numbers import Number

# A phrase that opens a sentence and names what its figures are measured on or of ("On
# MI325X GPUs, the kernel reaches 6.2x"; "For Llama 3.3 70B, ..."; "In BF16, ..."): its
# names reach past the comma after it, where a figure's six words do not. A comma
# inside a figure ("At 2,000 requests per minute, ...") does not end it.
_LEADING = re.compile(
    r"\s*(?:[-*]\s+)?(?:on|for|in|with|using|under|at|across)\s+"
    r"(?:(?:the|an?)\s+)?(?P<rest>(?:[^,;:()\n]|,(?=\d)){1,80}?),\s",
    re.I,
)
# A phrase the sentence's subject starts in is no leading phrase: "On MoE shapes this
# data movement, not the 8-bit math, dominated": an article or a pronoun after its first
# words, or more words than a name and its noun take.
_SUBJECT = re.compile(r"\b(?:the|an?|this|that|these|those|it|its|we|they|our|there)\b", re.I)
_REACH_END = re.compile(r"[;:](?=\s)")


# A coordinator, then a phrase that leads the clause it joins ("..., 1.5x over ATen and
# with BF16, MI355X reaches 1.2x"): the phrase is the next clause's, as it would be
# opening the sentence (:data:`_LEADING`'s shape, its words no subject's).
_COORDINATED = re.compile(r"\s(?:and|or|while|whereas|but)(?=\s)", re.I)


def coordinated_lead(s: str, start: int, end: int) -> tuple[int, int] | None:
    """Where a coordinator of ``s[start:end]`` stands (start, end) when a phrase leading
    the clause it joins follows it, up to a comma before ``end``; else None."""
    for c in _COORDINATED.finditer(s, start, end):
        m = _LEADING.match(s, c.end(), end)
        if m and len(m.group("rest").split()) <= 6 and not _SUBJECT.search(m.group("rest")):
            return c.start(), c.end()
    return None


# A coordinator (after a comma or not), then a phrase leading the clause it joins: "On
# Blackwell, CUDA 13.3+ is required, and on Hopper, CUDA 13.2+"; "With FP8, MI355X
# reaches 1.5x over ATen and with BF16, ..." (:func:`leading_phrases`).
_LEAD_COORDINATED = re.compile(r",?\s+(?:and|but|while|whereas)(?=\s)", re.I)


def _lead(s: str, pos: int, end: int) -> tuple[int, int] | None:
    """Where a phrase leading a clause at ``pos`` lies (:data:`_LEADING`, its words no
    subject's); else None."""
    m = _LEADING.match(s, pos, end)
    if m and len(m.group("rest").split()) <= 6 and not _SUBJECT.search(m.group("rest")):
        return m.start(), m.end()
    return None


def leading_phrases(s: str, start: int, end: int) -> list[tuple[int, int, int]]:
    """Where each phrase leading a clause of ``s[start:end]`` (a preposition, then words
    up to a comma) lies, and where the figures it names things for end: at the next
    semicolon or colon (the clause goes on over commas: "On MI355X, FlyDSL reaches 1.58x
    for MXFP8, and 1.68x for MXFP4"), or at a coordinator (and its comma) that a phrase
    leading the next clause follows. A clause starts the sentence, follows a semicolon
    or colon ("...; on MI325X, forward fusion added 17%"), or follows a coordinator
    with such a phrase ("On Blackwell, CUDA 13.3+ is required, and on
    Hopper, CUDA 13.2+": Hopper's 13.2, not Blackwell's)."""
    out: list[tuple[int, int, int]] = []
    pos = start
    while pos < end:
        # (Most sentences have neither mark: two finds in C, not a regex search.)
        marked = s.find(";", pos, end) >= 0 or s.find(":", pos, end) >= 0
        stop = _REACH_END.search(s, pos, end) if marked else None
        reach = stop.start() if stop else end
        leads = [(pos, _lead(s, pos, reach))]
        if s.find(",", pos, reach) >= 0:
            for c in _LEAD_COORDINATED.finditer(s, pos, reach):
                lead = _lead(s, c.end(), reach)
                if lead is not None and (leads[-1][1] is None or leads[-1][1][1] <= c.start()):
                    leads.append((c.start(), lead))
        for k, (_, lead) in enumerate(leads):
            if lead is not None:
                out.append((*lead, leads[k + 1][0] if k + 1 < len(leads) else reach))
        if stop is None:
            break
        pos = stop.end()
    return out


# A phrase that ends a sentence after a comma and names what its figures were measured
# on ("..., at about 39 GB, on DeepSeek-V3 671B."; "..., measured on Llama3-8B."): the
# leading phrase's twin, its names reaching back over commas to the clause's start. So
# after the base of a comparison ("..., against BF16 on DeepSeek-V3 671B.", one word:
# the base itself is checked as the sentence's other figures and names are) and after
# "as" ("..., as on Llama3-8B.": there as well, so there too).
_TRAILING = re.compile(
    r",\s+(?:(?:against|over|versus|vs\.?)\s+[^\s,;:()]+\s+|(?:just\s+)?as\s+)?"
    r"(?:(?:measured|tested|run|benchmarked)\s+)?(?:on|for|with|using|across|under|in)\s+"
    r"(?:(?:the|an?)\s+)?(?P<rest>[^,;:()\n]{1,80}?)[\s.!?]*$",
    re.I,
)


def trailing_phrase(s: str, start: int, end: int) -> tuple[int, int, int] | None:
    """Where a phrase ending ``s[start:end]`` after a comma (a preposition, then a few
    words, no subject's: :data:`_SUBJECT`) lies, and from where its figures stand: the
    start of its clause, after the last semicolon or colon before it."""
    at = s.rfind(", ", start, end)
    m = _TRAILING.match(s, at, end) if at >= 0 else None
    if m is None or len(m.group("rest").split()) > 6 or _SUBJECT.search(m.group("rest")):
        return None
    back = max(s.rfind("; ", start, at), s.rfind(": ", start, at))
    return m.start(), m.end(), back + 1 if back >= 0 else start


def trailing_names(
    s: str,
    start: int,
    end: int,
    seq: Sequence[Number],
    names: Sequence[Name],
    name_starts: Sequence[int],
) -> list[tuple[tuple[Name, ...], int, int]]:
    """The names of a phrase ending the sentence (:func:`trailing_phrase`), with from
    where to where the figures they go with stand (bind's leads), when it names some and
    holds no figure."""
    trail = trailing_phrase(s, start, end)
    if trail is None:
        return []
    a, b, back = trail
    own = names[bisect.bisect_left(name_starts, a) : bisect.bisect_left(name_starts, b)]
    return [(tuple(own), back, a)] if own and not any(a <= n.start < b for n in seq) else []
