"""RSS 0.9x/1.0 (RDF)/2.0 and Atom through feedparser, with the guards it needs: elements
crowded with attributes, references to lone surrogates, documents cut short."""

from __future__ import annotations

import re
import xml.sax

import feedparser
import feedparser.encodings

from service.dates import utc_from_struct
from service.errors import FeedParseError
from service.models import FeedDoc, FeedEntry
from service.parse.entries import content_of, dedupe, make_entry, plain_text, summary_of
from service.parse.sniff import ROOT, SNIFF_BYTES, XML_PROLOG

# A document that its declared encoding does not decode (one stray byte in a "UTF-8"
# feed) went to chardet, whose scan takes time growing with the square of the longest
# run of letters (12,000: 35 s; a 300 KB run: hours of a worker, its lease renewed). Without
# it feedparser goes on to windows-1252, what browsers read such bytes as (and what
# clean.decode_document does), in linear time.
feedparser.encodings.lazy_chardet_encoding = None


def _kind(version: str, sniffed: str | None) -> str:
    if version.startswith("atom"):
        return "atom"
    if version in ("rss090", "rss10"):
        return "rdf"
    if version.startswith("rss"):
        return "rss"
    return sniffed or "rss"


# Attributes one element may have. feedparser's strict parser looks each attribute up
# by a linear scan of the element's others (xml.sax's getValueByQName): time grows with
# their square, 20,000 attributes (200 KB) took 5 s and 100,000 two minutes. No feed
# element has more than a handful; 128 cost no more than any other markup.
_MAX_ATTRIBUTES = 128
# A start tag's attributes (markup is ASCII: the bytes of any ASCII-compatible encoding
# match), and one attribute's value in them (a value holds no "<").
_START_TAG = re.compile(rb"<[A-Za-z_][^\s/<>]*((?:\s+[^\s=/<>]+\s*=\s*(?:\"[^\"<]*\"|'[^'<]*'))+)")
_ATTRIBUTE_VALUE = re.compile(rb"=\s*(?:\"[^\"<]*\"|'[^'<]*')")


def _crowded_element(body: bytes) -> bool:
    """Whether an element of the document has more than _MAX_ATTRIBUTES attributes."""
    if body[:2] in (b"\xff\xfe", b"\xfe\xff") or body[:2] in (b"<\x00", b"\x00<"):
        enc = (
            "utf-16"
            if body[:2] in (b"\xff\xfe", b"\xfe\xff")
            else ("utf-16-le" if body[:1] == b"<" else "utf-16-be")
        )
        body = body.decode(enc, errors="replace").encode("utf-8")
    for m in _START_TAG.finditer(body):
        attrs = m.group(1)
        # An attribute takes at least 5 bytes (' a=""'): most tags are not counted.
        if len(attrs) > 5 * _MAX_ATTRIBUTES and (
            len(_ATTRIBUTE_VALUE.findall(attrs)) > _MAX_ATTRIBUTES
        ):
            return True
    return False


def parse_xml(
    body: bytes, content_type: str | None, url: str | None, sniffed: str | None
) -> FeedDoc:
    if _crowded_element(body):
        raise FeedParseError(
            f"feed could not be read: an element has more than {_MAX_ATTRIBUTES} "
            "attributes, which no feed has (reading them would take minutes)"
        )
    headers: dict[str, str] = {}
    if url:
        headers["content-location"] = url  # the base of relative links
        # With any header but no content type feedparser complains "no Content-type";
        # application/xml lets the document's own encoding declaration decide.
        headers["content-type"] = "application/xml"
    if content_type:
        headers["content-type"] = content_type
    # No sanitizing here: clean drops scripts and markup anyway, and the sanitizer is
    # 80% of feedparser's time on the PyTorch feed (105 ms -> 21 ms without it).
    try:
        d = feedparser.parse(
            body, response_headers=headers, sanitize_html=False, resolve_relative_uris=False
        )
    except UnicodeEncodeError:
        # The loose parser encodes each character reference to UTF-8; one to a lone
        # surrogate (&#xD800;, which no XML allows) raised out of it: read it as U+FFFD.
        try:
            d = feedparser.parse(
                _CHAR_REF.sub(_no_surrogate, body),
                response_headers=headers,
                sanitize_html=False,
                resolve_relative_uris=False,
            )
        except UnicodeEncodeError as err:
            raise FeedParseError(f"feed could not be read: {err}") from err
    problems: list[str] = []
    exc = d.get("bozo_exception")
    if d.get("bozo") and exc is not None:
        problems.append(f"{type(exc).__name__}: {exc}")
    well_formed = not isinstance(exc, xml.sax.SAXException)
    version = d.get("version") or ""
    feed = d.get("feed") or {}
    if not d.entries and (not version or problems or not feed):
        reason = problems[0] if problems else "no RSS, Atom or RDF feed found"
        raise FeedParseError(f"feed could not be read: {reason}")

    entries: list[FeedEntry] = []
    for e in d.entries:
        tags = e.get("tags") or ()
        entries.append(
            make_entry(
                guid=(e.get("id") or "").strip() or None,
                link=(e.get("link") or "").strip() or None,
                title=plain_text(e.get("title"), e.get("title_detail")),
                author=plain_text(e.get("author"), e.get("author_detail")) or None,
                # dict.get: FeedParserDict.get("updated_parsed") falls back to the published
                # date, and RSS has no update date.
                published=utc_from_struct(dict.get(e, "published_parsed")),
                updated=utc_from_struct(dict.get(e, "updated_parsed")),
                summary_html=summary_of(e),
                content_html=content_of(e),
                categories=tuple(t["term"].strip() for t in tags if (t.get("term") or "").strip()),
            )
        )
    if not well_formed and entries and _cut_short(body):
        # A truncated document (an artifact cut off in transit): its last entry stops
        # mid-way, and the loose parser returns what it read of it as if whole.
        problems.append(
            f"the document ends before its root element closes: its last entry "
            f"({entries[-1].key}) was left out"
        )
        entries.pop()
    links = feed.get("links") or []
    self_url = next((lk.get("href") for lk in links if lk.get("rel") == "self"), None)
    hubs = tuple(lk["href"] for lk in links if lk.get("rel") == "hub" and lk.get("href"))
    return FeedDoc(
        kind=_kind(version, sniffed),
        title=plain_text(feed.get("title"), feed.get("title_detail")),
        link=feed.get("link") or None,
        self_url=self_url,
        hub_urls=hubs,
        entries=dedupe(entries, problems),
        problems=tuple(problems),
        well_formed=well_formed,
    )


_CHAR_REF = re.compile(rb"&#(?:[xX]([0-9a-fA-F]{1,8})|([0-9]{1,10}));")


def _no_surrogate(m: re.Match[bytes]) -> bytes:
    """A numeric character reference, U+FFFD's when it names a surrogate."""
    code = int(m.group(1), 16) if m.group(1) else int(m.group(2))
    return b"&#xFFFD;" if 0xD800 <= code <= 0xDFFF else m.group(0)


def _cut_short(body: bytes) -> bool:
    """Whether an XML document ends before the end tag of its root element."""
    head = body[:SNIFF_BYTES].decode("utf-8", "replace")
    prolog = XML_PROLOG.match(head)
    m = ROOT.match(head, prolog.end() if prolog else 0)
    if m is None:
        return False  # no root element to be seen (another encoding): cannot tell
    end = f"</{m.group(1) or ''}{m.group(2)}>".encode()
    return not _without_epilog(body).endswith(end)


def _without_epilog(body: bytes) -> bytes:
    """The document without what may follow its root element: white space, comments
    ("<!-- cache ratio ... -->" of a caching plugin), processing instructions."""
    # An end index moves back over them, the document is copied once: a copy per comment
    # took time growing with their square (400,000 comments, 3.2 MB: 15 s).
    end = _rstripped(body, len(body))
    while True:
        for close, opener in ((b"-->", b"<!--"), (b"?>", b"<?")):
            if body.endswith(close, 0, end) and (start := body.rfind(opener, 0, end)) >= 0:
                end = _rstripped(body, start)
                break
        else:
            return body[:end]


_WHITE = frozenset(b" \t\n\r\x0b\x0c")  # what bytes.rstrip() takes away


def _rstripped(body: bytes, end: int) -> int:
    """Where ``body[:end].rstrip()`` ends, without copying it."""
    while end > 0 and body[end - 1] in _WHITE:
        end -= 1
    return end
