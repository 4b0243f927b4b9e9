"""Content negotiation of an explainer's representation (RFC 9110 12.5.1): the format an
Accept header asks for."""

from __future__ import annotations

import re

# The representations of an explainer and their media types, in the order the server
# prefers them when the client weighs several alike (``*/*``, ``text/*``, equal q): JSON,
# the default, first.
REPRESENTATIONS: tuple[tuple[str, str], ...] = (
    ("json", "application/json"),
    ("md", "text/markdown"),
    ("html", "text/html"),
    ("text", "text/plain"),
)
# Older names clients still send, read as the type served (so that "text/*,
# text/markdown;q=0" refuses Markdown, which goes out as text/markdown).
_ALIASES = {"text/x-markdown": "text/markdown"}
_Q = re.compile(r"(?:[01](?:\.\d*)?|\.\d+)")  # lenient: Java clients send "q=.2"


def parse_accept(accept: str) -> list[tuple[str, str, float]]:
    """The media ranges of an Accept header as (type, subtype, q), lower-cased.

    An element without a type/subtype is left out rather than failing the request; a q
    that is not a number of 0 to 1 ("q=abc", "q=", "q=1.5") is read as 1, as Django's
    MediaType.quality reads it: the client named the type, and leaving it out answered
    "text/markdown;q=abc" with JSON. A bare ``*`` (old clients) is read as ``*/*``.
    Parameters other than q are ignored: every representation is served in UTF-8 and has
    none."""
    ranges = []
    for element in accept.split(","):
        media, *params = (p.strip() for p in element.split(";"))
        media = "*/*" if media == "*" else media.lower()
        media = _ALIASES.get(media, media)
        kind, _, sub = media.partition("/")
        if not kind or not sub or (kind == "*" and sub != "*"):
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                value = value.strip()
                q = float(value) if _Q.fullmatch(value) and float(value) <= 1 else 1.0
                break
        ranges.append((kind, sub, q))
    return ranges


def _weight(media_type: str, ranges: list[tuple[str, str, float]]) -> float:
    """The q the ranges give a media type: that of the most specific range matching it
    (RFC 9110 12.5.1: text/html over text/* over */*), 0 when none does."""
    kind, _, sub = media_type.partition("/")
    best_specificity, q = -1, 0.0
    for rk, rs, rq in ranges:
        if rk == kind and rs == sub:
            specificity = 2
        elif rk == kind and rs == "*":
            specificity = 1
        elif rk == "*":
            specificity = 0
        else:
            continue
        # Two ranges as specific (a type repeated, with parameters ignored): the higher q.
        if specificity > best_specificity or (specificity == best_specificity and rq > q):
            best_specificity, q = specificity, rq
    return q


def negotiate(accept: str) -> str | None:
    """The format to answer an Accept header with: the representation of highest q, the
    server's order breaking ties; None when none is acceptable (q=0 refuses). No Accept,
    or one with no element that parses, accepts anything: JSON, as before Accept was read."""
    ranges = parse_accept(accept)
    if not ranges:
        return REPRESENTATIONS[0][0]
    best, best_q = None, 0.0
    for fmt, media_type in REPRESENTATIONS:
        q = _weight(media_type, ranges)
        if q > best_q:  # strictly: an equal q keeps the earlier, preferred one
            best, best_q = fmt, q
    return best
