"""The published explainers as Atom feeds (RFC 4287, written with lxml; feedgen 1.0
drops the ``rel`` of entry links): ``GET /feed.atom`` (every feed) and
``GET /feeds/{id}/feed.atom``, with conditional GET (ETag, Last-Modified).

The validator of a feed is one aggregate query (count and newest timestamps of its
published items); a feed reader that already has the current version gets a 304 without
any feed being built, and a built feed is kept by its ETag for the next reader; the
entries' HTML is kept too, so a new publication renders one entry, not fifty.
"""

from __future__ import annotations

import hashlib
import re
import threading
import uuid
from collections import OrderedDict
from datetime import UTC, datetime
from email.utils import format_datetime
from typing import Annotated, Any, Generic, TypeVar

import nh3
from fastapi import APIRouter, Query, Request, Response
from lxml import etree
from markupsafe import escape
from sqlalchemy import ColumnElement, Select, case, func, select
from sqlalchemy.orm import Session, defer

from service import __version__, render
from service.api.conditional import modified_since
from service.api.deps import DB, Ctx
from service.api.pages import feed_label, safe_url
from service.api.params import DIGITS, Id
from service.errors import NotFound
from service.languages import language_tag
from service.models import Explainer, ItemState
from service.store import tables as t
from service.store.feeds import shown_language

router = APIRouter(tags=["feeds"])

MEDIA_TYPE = "application/atom+xml; charset=utf-8"
ATOM_NS = "http://www.w3.org/2005/Atom"
XML_NS = "http://www.w3.org/XML/1998/namespace"
EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_XML_BAD = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")

K = TypeVar("K")
V = TypeVar("V")

Limit = Annotated[int, Query(ge=1, le=200, description="Newest entries to include"), DIGITS]


def xml_text(value: str | None) -> str:
    """Text that XML 1.0 can carry (a feed may hold control characters)."""
    return _XML_BAD.sub("", value or "")


def _el(parent: etree._Element, tag: str, text: str | None = None) -> etree._Element:
    el = etree.SubElement(parent, f"{{{ATOM_NS}}}{tag}")
    if text is not None:
        el.text = xml_text(text)
    return el


def _link(
    parent: etree._Element, href: str, rel: str, media_type: str, title: str | None = None
) -> None:
    el = etree.SubElement(parent, f"{{{ATOM_NS}}}link")
    el.set("href", xml_text(href))
    el.set("rel", rel)
    el.set("type", media_type)
    if title:
        el.set("title", xml_text(title))


def entry_id(feed_url: str | None, item: t.Item) -> str:
    """Stable across databases and hosts: derived from the source feed and item key."""
    return "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, f"{feed_url or ''}#{item.key}"))


def content_html(item: t.Item, ex: t.Explainer, explainer: Explainer, page_url: str) -> str:
    """The entry's HTML: the explainer, its source and the check, through nh3."""
    parts = [render.to_html(explainer)]
    source = safe_url(item.link)
    title = escape(item.title or "the source")
    if source:
        parts.append(f'<p>Source: <a href="{escape(source)}">{title}</a></p>')
    # The verdict, not the report: decoding 50 full reports (each number with its
    # sentences) was a third of the feed's build time; the page has the details.
    if ex.approved_at is not None and not ex.check_ok:
        who = escape(ex.approved_by or "a reviewer")
        verdict = f"not every number is supported by the post; published after review by {who}"
    else:
        verdict = "every number is supported by the post"
    parts.append(
        f"<p>Number check: {verdict}."
        f' <a href="{escape(page_url)}">See where each number comes from</a>.</p>'
    )
    return nh3.clean("\n".join(parts), link_rel="nofollow noopener noreferrer")


def _validator(s: Session, feed_id: int | None) -> tuple[int, datetime | None, datetime | None]:
    """The published entries' count, and the newest publication and change among the
    items ever published: one that left the feed (changed, re-queued) was updated when it
    left, so Last-Modified moves on then, never back to the newest entry still there."""
    cond: list[ColumnElement[bool]] = [t.Item.published_at.is_not(None)]
    if feed_id is not None:
        cond.append(t.Item.feed_id == feed_id)
    published = case((t.Item.state == ItemState.PUBLISHED.value, 1), else_=0)
    row = s.execute(
        select(
            func.coalesce(func.sum(published), 0),
            func.max(t.Item.published_at),
            func.max(t.Item.updated_at),
        ).where(*cond)
    ).one()
    changed = _aware(row[2])
    if feed_id is None:
        # Entries also leave the feed of all feeds with a removed feed's items.
        removed = _aware(
            s.scalar(select(func.max(t.FeedRemoval.removed_at)).where(t.FeedRemoval.published > 0))
        )
        if removed is not None and (changed is None or removed > changed):
            changed = removed
    # SQLite hands aggregates back as naive values or strings; normalise.
    return int(row[0]), _aware(row[1]), changed


def _sources(s: Session) -> tuple[str, datetime | None]:
    """What the feed of all feeds shows of its source feeds, and when that last changed:
    each entry's xml:lang is its feed's language, its author (when the item names none)
    the feed's label. A language set or a rename changes the document, and no
    publication moves the validator then: the ETag held the old one, and the built
    document was served from CACHE by it; Last-Modified stayed, and a reader asking only
    If-Modified-Since was told 304 (feeds.updated_at moves with them)."""
    # Per feed, an index probe (ix_items_feed_published), not a scan of every item.
    published = (
        select(t.Item.id)
        .where(t.Item.feed_id == t.Feed.id, t.Item.state == ItemState.PUBLISHED.value)
        .exists()
    )
    # Columns, not Feed rows: this runs on every conditional GET, a 304 included. The
    # label is feed_label's (name, else title, else URL).
    rows = s.execute(
        select(t.Feed.id, t.Feed.name, t.Feed.title, t.Feed.url, t.Feed.language, t.Feed.updated_at)
        .where(published)
        .order_by(t.Feed.id)
    ).all()
    # The language as the entries say it (xml:lang): "en-US" and "en-us" are one.
    key = "\n".join(
        f"{r.id}|{r.name or r.title or r.url}|{shown_language(r.language)}" for r in rows
    )
    changed = [d for d in (_aware(r.updated_at) for r in rows) if d is not None]
    return key, max(changed, default=None)


def _aware(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value  # type: ignore[no-any-return]


def _matches(if_none_match: str, etag: str) -> bool:
    tags = [tag.strip() for tag in if_none_match.split(",")]
    bare = etag.removeprefix("W/")
    return any(tag == "*" or tag.removeprefix("W/") == bare for tag in tags)


def _not_modified(request: Request, etag: str, last_modified: datetime) -> bool:
    inm = request.headers.get("if-none-match")
    if inm is not None:
        return _matches(inm, etag)
    # (A date later than now is no condition: RFC 9110 13.1.3; it was a 304 for good.)
    since = modified_since(request.headers.get("if-modified-since"), datetime.now(UTC))
    return since is not None and last_modified.replace(microsecond=0) <= since


class _Cache(Generic[K, V]):
    """A small LRU shared by the process's requests."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._data: OrderedDict[K, V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K) -> V | None:
        with self._lock:
            value = self._data.get(key)
            if value is not None:
                self._data.move_to_end(key)
            return value

    def put(self, key: K, value: V) -> None:
        with self._lock:
            self._data[key] = value
            self._data.move_to_end(key)
            while len(self._data) > self.size:
                self._data.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._data.clear()


# Built feeds by ETag.
CACHE: _Cache[str, bytes] = _Cache(64)
# Entries by everything they show: an explainer row never changes but for its approval,
# so after a publication only the new entry is rendered and sanitised again.
ENTRIES: _Cache[tuple[Any, ...], tuple[str, str | None, str]] = _Cache(2048)


def _entry_parts(item: t.Item, ex: t.Explainer, page: str) -> tuple[str, str | None, str]:
    """(title, takeaway, content HTML) of an entry."""
    # The row's id, hash and creation time name it even across databases (tests, or a
    # server pointed at another one); then everything of it an entry shows.
    key = (
        ex.id,
        ex.content_hash,
        ex.created_at,
        ex.approved_at,
        ex.approved_by,
        ex.check_ok,
        item.title,
        item.link,
        page,
    )
    parts = ENTRIES.get(key)
    if parts is None:
        explainer = Explainer.model_validate(ex.body)
        parts = (explainer.title, explainer.takeaway, content_html(item, ex, explainer, page))
        ENTRIES.put(key, parts)
    return parts


def _entries(
    s: Session, newest: Select[t.Item], limit: int, *, copies: bool
) -> tuple[list[t.Item], dict[int, t.Explainer]]:
    """The newest ``limit`` items that are entries, with their explainers. ``copies``
    (the feed of all feeds): a post two feeds carry is one entry, the copy of an
    explainer (``reused_from``) left out while its original is an entry too. Read in
    pages until ``limit`` are found: left out after the LIMIT, they made a shorter feed."""
    rows: list[t.Item] = []
    latest: dict[int, t.Explainer] = {}
    while True:
        page = list(s.scalars(newest.offset(len(rows)).limit(limit)))
        rows += page
        by_id = {i.id: i for i in page}
        for ex in s.scalars(
            select(t.Explainer)
            .options(defer(t.Explainer.check))
            .where(t.Explainer.item_id.in_(list(by_id)))
            .order_by(t.Explainer.id)
        ):
            if ex.content_hash == by_id[ex.item_id].content_hash:
                latest[ex.item_id] = ex  # the newest explainer of the current content wins
        shown = {ex.id for ex in latest.values()}
        items = [
            i for i in rows if i.id in latest and not (copies and latest[i.id].reused_from in shown)
        ]
        if len(items) >= limit or len(page) < limit:
            return items[:limit], latest


def build_feed(
    s: Session,
    feed: t.Feed | None,
    *,
    public_url: str,
    self_path: str,
    updated: datetime,
    limit: int,
) -> bytes:
    """The Atom document of the newest ``limit`` published explainers."""
    base = public_url.rstrip("/")
    cond = [t.Item.state == ItemState.PUBLISHED.value]
    if feed is not None:
        cond.append(t.Item.feed_id == feed.id)
    newest = (
        select(t.Item)
        .options(defer(t.Item.text))  # the source text is not in the feed
        .where(*cond)
        .order_by(t.Item.published_at.desc(), t.Item.id.desc())
    )
    items, latest = _entries(s, newest, limit, copies=feed is None)
    feeds = {
        f.id: f
        for f in s.scalars(
            select(t.Feed).where(t.Feed.id.in_({i.feed_id for i in items if i.feed_id}))
        )
    }

    root = etree.Element(f"{{{ATOM_NS}}}feed", nsmap={None: ATOM_NS})
    # The feed's explainers are written in its language setting (README: "English",
    # "French"): "en" was said of every feed. Where the setting has no sure tag, and for
    # the feed of all feeds (its entries say their own), it stays "en".
    lang = shown_language(feed.language if feed is not None else None)
    root.set(f"{{{XML_NS}}}lang", lang)
    if feed is None:
        _el(root, "id", "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, base + "/feed.atom")))
        _el(root, "title", "Plainfeed: plain-language explainers")
        _link(root, base + "/", "alternate", "text/html")
    else:
        _el(root, "id", "urn:uuid:" + str(uuid.uuid5(uuid.NAMESPACE_URL, feed.url + "#plainfeed")))
        _el(root, "title", f"Plainfeed: {feed_label(feed)}")
        _link(root, f"{base}/?feed={feed.id}", "alternate", "text/html")
    _link(root, base + self_path, "self", "application/atom+xml")
    _el(root, "subtitle", "Explainers whose every number was checked against the post.")
    _el(root, "updated", updated.isoformat())
    _el(_el(root, "author"), "name", "Plainfeed")
    gen = _el(root, "generator", "Plainfeed")
    gen.set("version", __version__)
    gen.set("uri", base + "/")
    for item in items:
        found = latest.get(item.id)
        if found is None:
            continue
        ex = found
        src_feed = feeds.get(item.feed_id) if item.feed_id else None
        page = f"{base}/ui/items/{item.id}"
        title, takeaway, html = _entry_parts(item, ex, page)
        entry = _el(root, "entry")
        entry_lang = language_tag(src_feed.language) if src_feed else None
        if entry_lang and entry_lang != lang:
            entry.set(f"{{{XML_NS}}}lang", entry_lang)
        _el(entry, "id", entry_id(src_feed.url if src_feed else None, item))
        _el(entry, "title", title)
        _link(entry, page, "alternate", "text/html")
        source = safe_url(item.link)
        if source:
            _link(entry, source, "via", "text/html", title=item.title)
        name = item.author or (feed_label(src_feed) if src_feed else None) or "Plainfeed"
        _el(_el(entry, "author"), "name", name)
        published = item.published_at or ex.created_at
        stamps = [d for d in (published, ex.approved_at, ex.created_at) if d is not None]
        _el(entry, "published", (item.published or published).isoformat())
        _el(entry, "updated", max(stamps).isoformat())
        if takeaway:
            _el(entry, "summary", takeaway)
        _el(entry, "content", html).set("type", "html")
    out: bytes = etree.tostring(root, xml_declaration=True, encoding="utf-8")
    return out


def _serve(request: Request, s: Session, ctx: Ctx, feed: t.Feed | None, limit: int) -> Response:
    count, newest_pub, newest_upd = _validator(s, feed.id if feed else None)
    # What the document shows of its feeds (a rename, a language) moves Last-Modified on
    # as it moves the ETag.
    shows, shown_at = (
        (f"{feed_label(feed)}|{shown_language(feed.language)}", feed.updated_at)
        if feed
        else _sources(s)
    )
    stamps = [d for d in (newest_pub, newest_upd, _aware(shown_at)) if d is not None]
    fallback = feed.created_at if feed is not None else EPOCH
    updated = max(stamps) if stamps else fallback
    base = ctx.settings.public_url.rstrip("/")
    path = request.url.path
    key = "|".join(
        [
            base,
            path,
            str(limit),
            str(count),
            updated.isoformat(),
            # A rename or a new language changes the document (its title, its xml:lang).
            shows,
        ]
    )
    etag = '"' + hashlib.sha256(key.encode()).hexdigest()[:32] + '"'
    headers = {
        "ETag": etag,
        "Last-Modified": format_datetime(updated.astimezone(UTC), usegmt=True),
        "Cache-Control": "public, max-age=60",
    }
    if _not_modified(request, etag, updated):
        return Response(status_code=304, headers=headers)
    body = CACHE.get(etag)
    if body is None:
        body = build_feed(s, feed, public_url=base, self_path=path, updated=updated, limit=limit)
        CACHE.put(etag, body)
    return Response(body, media_type=MEDIA_TYPE, headers=headers)


@router.get(
    "/feed.atom",
    response_class=Response,
    responses={
        200: {"content": {"application/atom+xml": {}}},
        304: {"description": "Not modified"},
    },
)
def all_feeds(request: Request, s: DB, ctx: Ctx, limit: Limit = 50) -> Response:
    """The newest published explainers of every feed, as Atom."""
    return _serve(request, s, ctx, None, limit)


@router.get(
    "/feeds/{feed_id}/feed.atom",
    response_class=Response,
    responses={
        200: {"content": {"application/atom+xml": {}}},
        304: {"description": "Not modified"},
        404: {"description": "Unknown feed"},
    },
)
def one_feed(feed_id: Id, request: Request, s: DB, ctx: Ctx, limit: Limit = 50) -> Response:
    """The newest published explainers of one feed, as Atom."""
    feed = s.get(t.Feed, feed_id)
    if feed is None:
        raise NotFound(f"no feed with id {feed_id}")
    return _serve(request, s, ctx, feed, limit)
