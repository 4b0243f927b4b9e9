"""The cheap look at a body's first bytes that tells which feed format it is (or none):
enough for the webhook to answer 422 without parsing."""

from __future__ import annotations

import re

SNIFF_BYTES = 16_384

# What may precede the root element of an XML document: declaration, processing
# instructions, comments, a doctype (with an internal subset) and whitespace.
XML_PROLOG = re.compile(
    r"\A(?:\s+|<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>)*", re.S | re.I
)
ROOT = re.compile(r"<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)")


def _head_text(body: bytes) -> str:
    head = body[:SNIFF_BYTES]
    if head.startswith(b"\xef\xbb\xbf"):
        head = head[3:]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")) or head[:2] in (b"<\x00", b"\x00<"):
        # UTF-16 feeds exist; cut at an even length so the last code unit is whole.
        enc = (
            "utf-16"
            if head[:2] in (b"\xff\xfe", b"\xfe\xff")
            else ("utf-16-le" if head[:1] == b"<" else "utf-16-be")
        )
        return head[: len(head) // 2 * 2].decode(enc, errors="replace")
    # Markup names are ASCII: latin-1 decodes any byte and keeps them intact.
    return head.decode("latin-1")


def sniff(body: bytes, content_type: str | None = None) -> str | None:
    """The feed format of ``body`` from its first bytes: "rss", "atom", "rdf", "json",
    or None when the bytes are no feed (an HTML page, an empty body, random bytes)."""
    text = _head_text(body).lstrip()
    if not text:
        return None
    if text.startswith("{"):
        if "jsonfeed.org/version/" in text:
            return "json"
        ctype = (content_type or "").split(";", 1)[0].strip().lower()
        if ctype == "application/feed+json" and '"items"' in text:
            return "json"
        return None
    m = XML_PROLOG.match(text)
    rest = text[m.end() :] if m else text
    root = ROOT.match(rest)
    if root is None:
        return None
    name = root.group(2).lower()
    if name == "rss":
        return "rss"
    if name == "feed":
        return "atom"
    if name == "rdf":
        return "rdf"
    return None
