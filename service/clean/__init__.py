"""The clean step: posts as clean text (HTML, Markdown or plain text -> cleaned text), and
articles from feed entries and whole documents.

The cleaned-text format is the light Markdown that :mod:`service.text` reads back:
``#`` headings, paragraphs separated by blank lines, ``-``/``1.`` list items, fenced
code blocks and pipe tables with a header row. Every number the reader sees must
survive, because the number check proves explainers against this text.
"""

from __future__ import annotations

import codecs
import re
from datetime import datetime
from typing import Literal

from service.clean.chars import (
    code_text,
    guard_fences,
    normalize_text,
    prose,
    squeeze_blank_lines,
)
from service.clean.html_text import clean_html, html_document
from service.clean.md_text import clean_markdown, front_matter_title
from service.errors import InputError, Unprocessable
from service.models import Article, FeedEntry
from service.text import ends_at_stop, split_sentences

__all__ = [
    "DocumentKind",
    "article_from_document",
    "article_from_entry",
    "clean_html",
    "clean_markdown",
    "clean_plain",
    "decode_document",
    "guess_kind",
    "is_excerpt",
    "looks_binary",
    "normalize_text",
    "opening_title",
    "text_title",
]

DocumentKind = Literal["html", "md", "text"]


def clean_plain(text: str) -> str:
    """Plain text to cleaned text: characters normalised, line breaks and paragraphs kept."""
    return guard_fences(squeeze_blank_lines(code_text(text)))


# --- articles ----------------------------------------------------------------------------


# Lines that open a post's body without naming it ("TL;DR", "Summary").
_GENERIC_HEADING = re.compile(
    r"^(tl;?\s?dr|summary|introduction|intro|overview|abstract|background|contents|"
    r"table of contents|key takeaways|highlights)\s*:?$",
    re.I,
)


def _opening(text: str) -> list[str]:
    """The text's lines from the first that is not blank or a generic lead-in."""
    lines = [line.strip() for line in text.split("\n") if line.strip()]
    while lines and _GENERIC_HEADING.match(lines[0].lstrip("#").strip(" *_:")):
        lines.pop(0)
    return lines


def _leading_heading(text: str) -> str:
    """The heading the text opens with, if it opens with one. A heading further down
    names a section ("Performance Improvements" of a release post carried without its
    title), not the post."""
    lines = _opening(text)
    return lines[0].lstrip("#").strip() if lines and lines[0].startswith("#") else ""


_TITLE_WORDS = 25  # a first sentence this short reads as a title


def opening_title(text: str) -> str:
    """A title for an untitled item: the heading it opens with, else its first sentence
    when short, else its first words. (A text file has none: :func:`text_title`; the
    extractive engine titles it so.)"""
    heading = _leading_heading(text)
    if heading:
        return heading
    lines = _opening(text)
    if not lines:
        return ""
    sentences = split_sentences(lines[0])
    if sentences and ends_at_stop(sentences[0]) and len(sentences[0].split()) <= _TITLE_WORDS:
        return sentences[0]
    words = " ".join(lines).split()
    return " ".join(words[:12]) + (" …" if len(words) > 12 else "")


# A plain-text source's first line is its title only when it reads as one: a Markdown
# heading, or one short line (at most this many characters) of one sentence.
_TITLE_CHARS = 150
_HEADING_LINE = re.compile(r"#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*")
_ITEM_OR_ROW = re.compile(r"(?:[-*+]|\d+[.)])[ \t]|\|")  # "- 2x faster", "| GPU | 50 |"


def text_title(text: str) -> str:
    """The title of a cleaned plain-text source: its first line where that reads as a
    title, a Markdown heading ("# Incident report") or a short line of one sentence
    (:data:`_TITLE_CHARS`), no list item or table row, that ends no lead-in (",", ";" or
    ":") nor a sentence run on the next line (a line of its own, or "." ending none and
    the next line no continuation in lower case); else "" (no title). The check reads
    the title as the post's own words for every figure: a first paragraph taken whole
    ("Use ShapeVar(...) for the batch dimension. The cache holds 64 entries.") made the
    names of its sentences the whole post's."""
    lines = text.lstrip("\n").split("\n")
    first = lines[0].strip()
    heading = _HEADING_LINE.fullmatch(first)
    if heading is not None:
        return heading.group(1).strip()
    if not first or len(first) > _TITLE_CHARS or first.endswith((",", ";", ":")):
        return ""
    if _ITEM_OR_ROW.match(first):
        return ""  # a list's first item or a table's first row
    if _GENERIC_HEADING.match(first) or len(split_sentences(first)) > 1:
        return ""  # a lead-in ("Summary") names nothing; two sentences are a paragraph
    after = lines[1].strip() if len(lines) > 1 else ""
    if after and (first.endswith(".") or after[0].islower()):
        return ""  # a paragraph's first line: its sentence runs on below
    return first


def article_from_entry(entry: FeedEntry) -> Article:
    """A feed entry as an article: its full content when the feed carries it, else its
    summary."""
    text = clean_html(entry.content_html) if entry.content_html else ""
    if not text and entry.summary_html:
        text = clean_html(entry.summary_html)
    title = prose(entry.title) or opening_title(text)
    return Article(
        title=title,
        text=text,
        url=entry.link,
        author=entry.author,
        published=entry.published or entry.updated,
        content_source="feed",
    )


_HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".shtml")
_MD_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd", ".mdx")
_TEXT_SUFFIXES = (".txt", ".text")
_HTML_START = re.compile(
    r"\A\s*<(?:!doctype\s+html|html|head|body|meta|[a-z][a-z0-9]*[\s>/])", re.I
)
_HTML_BLOCKS = re.compile(r"<(?:p|div|br|h[1-6]|ul|ol|li|table|article|section)\b[^>]*>", re.I)
_MD_SIGNALS = re.compile(
    r"^(?:#{1,6}\s|```|~~~|\|.*\|\s*$|\s*[-*+]\s|\s*\d+\.\s)|\]\([^)]+\)|\*\*\S", re.M
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9._:-]+)""", re.I)


# Python codecs that no web page is written in: they read escapes or encoded host names
# out of the text ("\\u003c" became "<"), or, UTF-7, markup out of plain letters.
_NO_PAGE_CODECS = frozenset(
    {"unicode-escape", "raw-unicode-escape", "utf-7", "idna", "punycode", "undefined"}
)


def _meta_codec(label: str) -> str | None:
    """The codec a <meta> charset names, as browsers read it (WHATWG Encoding): a UTF-16
    or UTF-32 label in a document that ASCII reads is UTF-8; None for no such codec."""
    try:
        name = codecs.lookup(label).name
    except LookupError:
        return None
    if name.startswith(("utf-16", "utf-32")):
        return "utf-8"
    return None if name in _NO_PAGE_CODECS else name


def decode_document(data: bytes) -> str:
    """The text of a document's bytes: UTF-8 (a BOM skipped), UTF-16 by its BOM, the
    charset an HTML <meta> names, else cp1252 (latin-1's superset). Every input file is
    read so: `plainfeed explain` and both files of `plainfeed check`."""
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    m = _META_CHARSET.search(data[:4096])
    codec = _meta_codec(m.group(1).decode("ascii")) if m else None
    if codec:
        try:
            return data.decode(codec, errors="replace")
        except (LookupError, UnicodeError):
            # UnicodeError: a codec that decodes bytes but not with errors="replace"
            # ("idna", "punycode"); it escaped as a crash, failing a whole delivery.
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


# Characters that text does not hold: C0 controls other than whitespace, and the
# replacement character that undecodable bytes became. Binary data (an image, a PDF, an
# archive) decoded as cp1252 is about 15% of them; text with a stray NUL is far below.
_NOT_TEXT = re.compile("[\x00-\x08\x0e-\x1f\ufffd]")
_BINARY_SHARE = 0.10


def looks_binary(text: str) -> bool:
    """Whether decoded bytes are binary data rather than text (sampled at the start)."""
    sample = text[:65536]
    return len(_NOT_TEXT.findall(sample)) > len(sample) * _BINARY_SHARE


def guess_kind(text: str, filename: str | None = None) -> DocumentKind:
    """Whether a document is HTML, Markdown or plain text: by file name, else by content."""
    if filename:
        name = filename.lower()
        if name.endswith(_HTML_SUFFIXES):
            return "html"
        if name.endswith(_MD_SUFFIXES):
            return "md"
        if name.endswith(_TEXT_SUFFIXES):
            return "text"
    head = text[:8192]
    if _HTML_START.match(head):
        return "html"
    if _MD_SIGNALS.search(head):
        return "md"
    if _HTML_BLOCKS.search(head):
        return "html"
    return "text"


def article_from_document(
    data: bytes | str,
    *,
    kind: DocumentKind | None = None,
    filename: str | None = None,
    url: str | None = None,
    title: str | None = None,
) -> Article:
    """A document given whole (an HTML page, a Markdown post, plain text) as an article.

    Raises :class:`InputError` for an unknown ``kind`` and :class:`Unprocessable` when
    the document holds no text.
    """
    text = decode_document(data) if isinstance(data, bytes) else data
    if isinstance(data, bytes) and looks_binary(text):
        # Cleaned, it would be a page of noise that the engines explain and the check
        # reads numbers from.
        raise Unprocessable("the document is binary data, not HTML, Markdown or text")
    if kind is None:
        kind = guess_kind(text, filename)
    author: str | None = None
    published: datetime | None = None
    site_name: str | None = None
    if kind == "html":
        cleaned, found_title, author, published, site_name = html_document(text)
    elif kind == "md":
        cleaned = clean_markdown(text)
        found_title = front_matter_title(text) or _leading_heading(cleaned)
    elif kind == "text":
        cleaned = clean_plain(text)
        found_title = text_title(cleaned)
    else:
        raise InputError(f"unknown document kind {kind!r}: expected html, md or text")
    if not cleaned.strip():
        raise Unprocessable(f"the {kind} document holds no text")
    if not title and not found_title and kind != "text":
        found_title = opening_title(cleaned)
    # (A text's first sentence is no title in place of its first line: the check would
    # read it as the post's title all the same.)
    return Article(
        title=prose(title) if title else found_title,
        text=cleaned,
        url=url,
        author=author,
        site_name=site_name,
        published=published,
        content_source="file",
    )


# --- excerpts ----------------------------------------------------------------------------

# The endings that mark a cut description: "...", "…", "[…]", "[...]", "[&#8230;]" (the
# entity decoded or not), and the "Continue reading" / "Read more" links of blog engines.
_CUT = re.compile(
    r"(?:\.\.\.|…|\[\s*(?:…|\.\.\.|&#8230;|&hellip;)\s*\]|(?:continue reading|read more)\b.{0,200})"
    r"\s*$",
    re.I | re.S,
)
# A summary at least this long that is not cut is a whole post carried in the summary
# field (common in RSS 2.0 without content:encoded).
_FULL_WORDS = 200
_LONG_CONTENT = 20_000  # characters of HTML; no feed cuts an excerpt this long


def is_excerpt(entry: FeedEntry) -> bool:
    """Whether the feed carries only an excerpt of the post (so the page must be fetched)."""
    content_html = entry.content_html or ""
    if len(content_html) > _LONG_CONTENT:
        return False
    content = clean_html(content_html) if content_html else ""
    summary = clean_html(entry.summary_html) if entry.summary_html else ""
    if not content:
        if not summary:
            return True
        return bool(_CUT.search(summary)) or len(summary.split()) < _FULL_WORDS
    if not _CUT.search(content):
        return False
    return len(content.split()) < _FULL_WORDS or content == summary
