"""Feed bytes -> a FeedDoc: RSS 0.9x/1.0 (RDF)/2.0 and Atom through feedparser, JSON Feed
1.0/1.1 by hand (feedparser 6.0.x has no JSON Feed support).

``sniff`` is the cheap look at the first bytes that lets the webhook answer 422 without
parsing; ``parse_feed`` is the full parse the worker does.
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import xml.sax
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

import feedparser

from service.dates import utc_from_iso, utc_from_struct
from service.errors import FeedParseError
from service.models import FeedDoc, FeedEntry

_SNIFF_BYTES = 16_384
_MAX_URL = 2048  # the key, guid and link columns of an item
_MAX_AUTHOR = 512
_MAX_TITLE = 1024  # the title columns of a feed and an item

# What may precede the root element of an XML document: declaration, processing
# instructions, comments, a doctype (with an internal subset) and whitespace.
_XML_PROLOG = re.compile(
    r"\A(?:\s+|<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^\[>]*(?:\[.*?\])?\s*>)*", re.S | re.I
)
_ROOT = re.compile(r"<([A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)")


def _head_text(body: bytes) -> str:
    head = body[:_SNIFF_BYTES]
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
    m = _XML_PROLOG.match(text)
    rest = text[m.end() :] if m else text
    root = _ROOT.match(rest)
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


# --- feedparser ---------------------------------------------------------------------------


def _kind(version: str, sniffed: str | None) -> str:
    if version.startswith("atom"):
        return "atom"
    if version in ("rss090", "rss10"):
        return "rdf"
    if version.startswith("rss"):
        return "rss"
    return sniffed or "rss"


_TAG = re.compile(r"<[^>]+>")


def _plain(text: str | None, detail: Mapping[str, Any] | None = None) -> str:
    """A title-like field as one line of plain text."""
    if not text:
        return ""
    kind = (detail or {}).get("type", "text/plain")
    if kind in ("text/html", "application/xhtml+xml") and ("<" in text or "&" in text):
        text = html.unescape(_TAG.sub(" ", text))
    return " ".join(text.split())


def _as_html(value: str, kind: str | None) -> str:
    # feedparser hands plain-text fields over decoded; the rest of the pipeline reads HTML.
    if kind == "text/plain":
        return html.escape(value, quote=False).replace("\n", "<br>\n")
    return value


def _content(entry: Mapping[str, Any]) -> str | None:
    contents = entry.get("content") or []
    chosen = None
    for c in contents:
        if c.get("type") in ("text/html", "application/xhtml+xml"):
            chosen = c
            break
    if chosen is None and contents:
        chosen = contents[0]
    if chosen is None:
        return None
    value = chosen.get("value") or ""
    if not value.strip():
        return None
    return _as_html(value, chosen.get("type"))


def _summary(entry: Mapping[str, Any]) -> str:
    # feedparser copies atom:content into `summary` when there is no summary; only a real
    # summary (one with summary_detail) counts.
    detail = entry.get("summary_detail")
    if not detail:
        return ""
    return _as_html(detail.get("value") or "", detail.get("type"))


def _entry(
    *,
    guid: str | None,
    link: str | None,
    title: str,
    author: str | None,
    published: datetime | None,
    updated: datetime | None,
    summary_html: str,
    content_html: str | None,
    categories: tuple[str, ...],
) -> FeedEntry:
    """A FeedEntry with its key: the guid, else the link, else a hash of title and date."""
    key = guid or link
    if not key:
        date = published or updated
        basis = f"{title}\n{date.isoformat() if date else ''}"
        if not title and date is None:
            basis += "\n" + (content_html or summary_html)  # nothing else identifies it
        key = "sha256:" + hashlib.sha256(basis.encode("utf-8")).hexdigest()
    # The item columns hold 2048 characters (key, guid, link) and 512 (author); PostgreSQL
    # refuses longer values, which failed the whole delivery. A long key is hashed so that
    # it stays one identity; a link cut short would lead nowhere, so it is dropped.
    if len(key) > _MAX_URL:
        key = "sha256:" + hashlib.sha256(key.encode("utf-8")).hexdigest()
    return FeedEntry(
        key=key,
        guid=guid[:_MAX_URL] if guid else guid,
        link=link if link is None or len(link) <= _MAX_URL else None,
        title=title,
        author=author[:_MAX_AUTHOR] if author else author,
        published=published,
        updated=updated,
        summary_html=summary_html,
        content_html=content_html,
        categories=categories,
    )


def _dedupe(entries: list[FeedEntry], problems: list[str]) -> tuple[FeedEntry, ...]:
    seen: set[str] = set()
    out: list[FeedEntry] = []
    for e in entries:
        if e.key in seen:
            problems.append(f"duplicate entry key {e.key!r}: later entry ignored")
            continue
        seen.add(e.key)
        out.append(e)
    return tuple(out)


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


def _parse_xml(
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
            _entry(
                guid=(e.get("id") or "").strip() or None,
                link=(e.get("link") or "").strip() or None,
                title=_plain(e.get("title"), e.get("title_detail")),
                author=_plain(e.get("author"), e.get("author_detail")) or None,
                # dict.get: FeedParserDict.get("updated_parsed") falls back to the published
                # date, and RSS has no update date.
                published=utc_from_struct(dict.get(e, "published_parsed")),
                updated=utc_from_struct(dict.get(e, "updated_parsed")),
                summary_html=_summary(e),
                content_html=_content(e),
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
        title=_plain(feed.get("title"), feed.get("title_detail")),
        link=feed.get("link") or None,
        self_url=self_url,
        hub_urls=hubs,
        entries=_dedupe(entries, problems),
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
    head = body[:_SNIFF_BYTES].decode("utf-8", "replace")
    prolog = _XML_PROLOG.match(head)
    m = _ROOT.match(head, prolog.end() if prolog else 0)
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


# A UTF-16 surrogate on its own: JSON's "\ud800" and XML's "&#xD800;" (read by the
# loose parser) hand one over, and no UTF-8 text (the database, lxml) can hold it.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _storable(doc: FeedDoc) -> FeedDoc:
    """``doc`` with what the database cannot hold taken out: NUL characters (PostgreSQL
    refuses them in text), lone surrogates (U+FFFD instead: one in a title failed the
    whole delivery), feed links longer than a URL column (the feed is then known by
    another of its addresses), titles cut to their column."""

    def fit(value: str | None) -> str | None:
        if not value:
            return value
        if "\x00" in value:
            value = value.replace("\x00", "")
        return LONE_SURROGATE.sub("\ufffd", value)

    def url(value: str | None) -> str | None:
        value = fit(value)
        return value if value and len(value) <= _MAX_URL else None

    entries = tuple(
        replace(
            e,
            key=fit(e.key) or e.key,
            guid=fit(e.guid),
            link=fit(e.link),
            title=fit(e.title) or "",
            author=fit(e.author),
            summary_html=fit(e.summary_html) or "",
            content_html=fit(e.content_html),
            categories=tuple(fit(c) or "" for c in e.categories),
        )
        for e in doc.entries
    )
    return replace(
        doc,
        title=(fit(doc.title) or "")[:_MAX_TITLE],
        link=url(doc.link),
        self_url=url(doc.self_url),
        hub_urls=tuple(h for h in map(url, doc.hub_urls) if h),
        entries=entries,
    )


# --- JSON Feed ------------------------------------------------------------------------------


def _json_str(value: object) -> str | None:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)  # JSON Feed 1.0 producers sometimes write numeric ids
    return None


def _json_author(item: Mapping[str, Any]) -> str | None:
    authors = item.get("authors")
    if not isinstance(authors, list):
        author = item.get("author")  # JSON Feed 1.0
        authors = [author] if isinstance(author, dict) else []
    names = [
        a["name"].strip() for a in authors if isinstance(a, dict) and isinstance(a.get("name"), str)
    ]
    names = [n for n in names if n]
    return ", ".join(names) or None


def _text_to_html(text: str) -> str:
    paras = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "\n".join(
        "<p>" + html.escape(p, quote=False).replace("\n", "<br>\n") + "</p>" for p in paras
    )


def _parse_json(body: bytes) -> FeedDoc:
    try:
        doc = json.loads(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise FeedParseError(f"JSON Feed could not be read: {exc}") from exc
    if not isinstance(doc, dict):
        raise FeedParseError("JSON Feed could not be read: top level is not an object")
    version = doc.get("version")
    if not isinstance(version, str) or not version.startswith("https://jsonfeed.org/version/"):
        raise FeedParseError(f"JSON Feed could not be read: unknown version {version!r}")
    items = doc.get("items")
    if not isinstance(items, list):
        raise FeedParseError("JSON Feed could not be read: `items` is not a list")
    problems: list[str] = []
    entries: list[FeedEntry] = []
    for n, item in enumerate(items):
        if not isinstance(item, dict):
            problems.append(f"item {n} is not an object: ignored")
            continue
        content = _json_str(item.get("content_html"))
        if content is None and _json_str(item.get("content_text")):
            content = _text_to_html(str(item["content_text"]))
        summary = _json_str(item.get("summary"))  # plain text in JSON Feed
        tags = item.get("tags")
        entries.append(
            _entry(
                guid=_json_str(item.get("id")),
                link=_json_str(item.get("url")) or _json_str(item.get("external_url")),
                title=_plain(_json_str(item.get("title"))),
                author=_json_author(item),
                published=utc_from_iso(item.get("date_published")),
                updated=utc_from_iso(item.get("date_modified")),
                summary_html=html.escape(summary, quote=False) if summary else "",
                content_html=content,
                categories=tuple(t.strip() for t in tags if isinstance(t, str) and t.strip())
                if isinstance(tags, list)
                else (),
            )
        )
    hubs_raw = doc.get("hubs")
    hubs = (
        tuple(h["url"] for h in hubs_raw if isinstance(h, dict) and isinstance(h.get("url"), str))
        if isinstance(hubs_raw, list)
        else ()
    )
    return FeedDoc(
        kind="json",
        title=_plain(_json_str(doc.get("title"))),
        link=_json_str(doc.get("home_page_url")),
        self_url=_json_str(doc.get("feed_url")),
        hub_urls=hubs,
        entries=_dedupe(entries, problems),
        problems=tuple(problems),
    )


def parse_feed(body: bytes, *, content_type: str | None = None, url: str | None = None) -> FeedDoc:
    """Parse a feed document. Raises :class:`FeedParseError` with the parser's reason when
    no feed can be read; a malformed document that still yields entries comes back with
    the parser's complaint in ``problems``."""
    if not body or not body.strip():
        raise FeedParseError("feed could not be read: the document is empty")
    kind = sniff(body, content_type)
    if kind == "json" or (kind is None and body.lstrip()[:1] == b"{"):
        return _storable(_parse_json(body))  # JSON but no JSON Feed: it says why
    return _storable(_parse_xml(body, content_type, url, kind))
