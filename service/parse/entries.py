"""What every feed format shares: an entry's fields as the rest of the pipeline reads them
(plain titles, HTML bodies, a key), and a document cut to what the database can hold."""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import datetime
from typing import Any

from service.clean.chars import prose
from service.models import FeedDoc, FeedEntry

_MAX_URL = 2048  # the key, guid and link columns of an item
_MAX_AUTHOR = 512
_MAX_TITLE = 1024  # the title columns of a feed and an item

_TAG = re.compile(r"<[^>]+>")


def plain_text(text: str | None, detail: Mapping[str, Any] | None = None) -> str:
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


def content_of(entry: Mapping[str, Any]) -> str | None:
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


def summary_of(entry: Mapping[str, Any]) -> str:
    # feedparser copies atom:content into `summary` when there is no summary; only a real
    # summary (one with summary_detail) counts.
    detail = entry.get("summary_detail")
    if not detail:
        return ""
    return _as_html(detail.get("value") or "", detail.get("type"))


def _digest(text: str) -> str:
    """A key's hash. "surrogatepass": a JSON Feed's "\\ud83d" (half an emoji, valid JSON)
    is still in the text here (storable replaces it later), and UTF-8 refused it: the
    UnicodeEncodeError failed the whole delivery."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def make_entry(
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
        key = "sha256:" + _digest(basis)
    # The item columns hold 2048 characters (key, guid, link) and 512 (author); PostgreSQL
    # refuses longer values, which failed the whole delivery. A long key is hashed so that
    # it stays one identity; a link cut short would lead nowhere, so it is dropped.
    if len(key) > _MAX_URL:
        key = "sha256:" + _digest(key)
    # feedparser's loose parser (a feed not well-formed) hands the author over HTML-escaped
    # ("Ann &lt;b&gt;"), and templates escape names twice: decoded here, once, as the title
    # is (clean.prose), the item page and the Atom feed showed a literal "&lt;b&gt;".
    author = prose(author) or None if author else author
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


def dedupe(entries: list[FeedEntry], problems: list[str]) -> tuple[FeedEntry, ...]:
    seen: set[str] = set()
    out: list[FeedEntry] = []
    for e in entries:
        if e.key in seen:
            problems.append(f"duplicate entry key {e.key!r}: later entry ignored")
            continue
        seen.add(e.key)
        out.append(e)
    return tuple(out)


# A UTF-16 surrogate on its own: JSON's "\ud800" and XML's "&#xD800;" (read by the
# loose parser) hand one over, and no UTF-8 text (the database, lxml) can hold it.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def storable(doc: FeedDoc) -> FeedDoc:
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
            # A key of NUL alone ("<guid>&#0;</guid>") left nothing: it was kept, NUL and
            # all, and PostgreSQL failed the delivery. Its hash is as stable an identity.
            key=fit(e.key) or "sha256:" + _digest(e.key),
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
