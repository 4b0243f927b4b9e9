"""Entries: a parsed feed's entries as articles, before they are stored (worker).

worker -> process_delivery()  ... parse -> entries as articles (pages read, within a
budget; a first delivery capped) -> decide -> items
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urljoin, urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from service import abandon, clean, fetch
from service.clean.chars import prose
from service.errors import LeaseLost, PlainfeedError, Unprocessable
from service.models import Article, FeedDoc, FeedEntry
from service.pipeline.base import PipelineBase, in_chunks
from service.store import tables as t
from service.store.feeds import feed_at

log = logging.getLogger(__name__)


def _web_url(url: str | None, base: str | None = None) -> str | None:
    """``url`` (read against ``base``, if given) when it is an absolute http(s) URL,
    else None."""
    if not url:
        return None
    try:
        url = urljoin(base, url.strip()) if base else url.strip()
        parts = urlsplit(url)
    except ValueError:  # "http://[x": a bracket opened, no IPv6 address in it
        return None
    return url if parts.scheme.lower() in ("http", "https") and parts.netloc else None


def feed_address(doc: FeedDoc, fetch_url: str | None) -> str:
    """The address a document's feed is known by when the delivery named no feed: where
    it was fetched, else its self link, its link, its title. A document with none of them
    (a JSON Feed without feed_url or title) is refused: every such document, from any
    sender, would have gone into one nameless feed.

    A self link or link that is no http(s) URL is as none: any sender's document
    registered its feed at "javascript:..." (or at another feed's "urn:plainfeed:title:"
    address), where POST /feeds refuses all but http(s). A relative self link is read
    against an http(s) link."""
    link = _web_url(doc.link)
    self_url = _web_url(doc.self_url)
    if self_url is None and doc.self_url and link:
        # Written relative ("/feed.xml"): the feed's own address, read against its link.
        # Known by the link alone, a site's feeds (posts, comments) were one feed.
        self_url = _web_url(doc.self_url, link)
    if fetch_url or self_url or link:
        return fetch_url or self_url or link or ""
    if not doc.title.strip():
        raise Unprocessable(
            "the document names no feed (no self link, no link, no title): post it with "
            "?feed_id= of a registered feed"
        )
    return f"urn:plainfeed:title:{doc.title}"


def registered_feed(s: Session, doc: FeedDoc, fetch_url: str | None) -> t.Feed | None:
    """The feed registered at the address of a delivery that named none
    (:func:`feed_address`), else at the document's relative self link as written: its
    feed was registered there before self links were read as http(s) URLs, and known now
    by another address, its next delivery made a second feed (every entry new again)."""
    feed = feed_at(s, feed_address(doc, fetch_url))
    raw = doc.self_url
    if feed is not None or fetch_url or not raw or _web_url(raw):
        return feed
    try:
        relative = not urlsplit(raw.strip()).scheme  # not "javascript:", "urn:..."
    except ValueError:
        return None
    return feed_at(s, raw) if relative else None


def feed_title(doc: FeedDoc) -> str:
    """The title a feed is stored and shown with: entities left by double escaping
    decoded as an entry's title is (clean.prose: "AT&amp;T" -> "AT&T"). The parsers hand
    it over decoded once only (an Atom text title "AT&amp;amp;T", a JSON Feed's
    "AT&amp;T"), and pages escape it again when they show it."""
    return prose(doc.title)[:1024]


def _held_back(entries: Sequence[FeedEntry], cap: int) -> set[str]:
    """The keys of a feed's first delivery past its newest ``cap`` entries (0: none):
    newest by the entry's date (published, else updated), undated ones after the dated,
    in document order (a feed lists its newest first)."""
    if not cap:
        return set()

    def rank(pair: tuple[int, FeedEntry]) -> tuple[bool, float, int]:
        i, e = pair
        when = e.published or e.updated
        return (when is None, -when.timestamp() if when else 0.0, i)

    kept: set[str] = set()
    for _, e in sorted(enumerate(entries), key=rank):
        if len(kept) >= cap:
            break
        kept.add(e.key)
    return {e.key for e in entries} - kept


class Entries(PipelineBase):
    def _articles(
        self, feed_id: int | None, doc: FeedDoc, fetch_url: str | None, problems: list[str]
    ) -> tuple[list[tuple[Any, Article]], set[str]]:
        """Each entry as an article, and the keys of those to store as ``skipped``.

        An excerpt-only entry seen for the first time is read from its page
        (``content_source="page"``) while PLAINFEED_PAGE_FETCHES_PER_DELIVERY lasts; past
        it, the excerpt is stored as ``"excerpt"`` and the item's worker reads the page
        before explaining it (nothing is lost, and a delivery of hundreds of excerpts
        commits in seconds). One stored from its page before is left out, so the feed's
        excerpt never counts as a change of the page's text (nor replaces it when the page
        is read after this look: service.pipeline.apply). An edited excerpt of an item
        whose page is still to be read stays ``"excerpt"``. On a feed's first delivery
        the entries past the newest PLAINFEED_FIRST_DELIVERY_MAX_ITEMS are skipped: no
        page is read for them."""
        stored, first = self._stored_sources(feed_id, doc, fetch_url)
        held = _held_back(doc.entries, self.settings.first_delivery_max_items) if first else set()
        budget, deferred = self.settings.page_fetches_per_delivery, 0
        out: list[tuple[Any, Article]] = []
        for entry in doc.entries:
            source = stored.get(entry.key)
            if source == "page":
                continue
            article = clean.article_from_entry(entry)
            if not (entry.link and clean.is_excerpt(entry)) or source not in (None, "excerpt"):
                pass  # the feed's text (a full post, or an excerpt whose page was tried)
            elif source == "excerpt" or entry.key in held:
                # Its page is still to be read (an edit of the excerpt leaves it so); one
                # held back is read only if a retry asks for it to be explained.
                article = replace(article, content_source="excerpt")
            elif budget > 0:
                budget -= 1
                # Before each page (up to the budget, each up to the fetch timeout): a
                # delivery whose lease is lost stops reading, its outcome would be refused
                # (fenced by the lease owner) and the new holder reads them again.
                # Outside _page_article, whose handlers keep an excerpt on any error.
                abandon.check("reading an entry's page")
                article = self._page_article(entry.link, article, problems)
            else:
                deferred += 1
                article = replace(article, content_source="excerpt")
            out.append((entry, article))
        if deferred:
            problems.append(
                f"{deferred} page{'s' if deferred > 1 else ''} past "
                f"PLAINFEED_PAGE_FETCHES_PER_DELIVERY={self.settings.page_fetches_per_delivery}"
                " left to be read when their items are explained"
            )
        return out, held

    def _stored_sources(
        self, feed_id: int | None, doc: FeedDoc, fetch_url: str | None
    ) -> tuple[dict[str, str], bool]:
        """Where each stored entry's text came from, and whether the feed has no item at
        all yet (its first delivery)."""
        with self.sessions() as s:
            if feed_id is None:
                feed = registered_feed(s, doc, fetch_url)
                if feed is None:
                    return {}, True
                feed_id = feed.id
            keys = [e.key for e in doc.entries]
            stored = {
                row.key: row.content_source
                for part in in_chunks(keys)
                for row in s.execute(
                    select(t.Item.key, t.Item.content_source).where(
                        t.Item.feed_id == feed_id, t.Item.key.in_(part)
                    )
                )
            }
            first = not stored and (
                s.scalars(select(t.Item.id).where(t.Item.feed_id == feed_id).limit(1)).first()
                is None
            )
            return stored, first

    def _page_article(self, link: str, excerpt: Article, problems: list[str]) -> Article:
        try:
            article, note = fetch.page_or_excerpt(link, excerpt, self.settings)
        except LeaseLost:
            # The read was cut short, the lease lost (service.transport): not the page's
            # failure, and not the delivery's: the new holder of the lease reads it.
            raise
        except PlainfeedError as exc:
            problems.append(f"page {link} not read ({exc.detail}); kept the feed's excerpt")
            return excerpt
        except Exception as exc:
            # A bug in reading one page (an odd link, a parser's surprise) must cost only
            # that entry's page, as a worker reading it does: not the whole delivery.
            log.exception("reading page %s crashed; kept the feed's excerpt", link)
            problems.append(
                f"page {link} not read ({exc.__class__.__name__}); kept the feed's excerpt"
            )
            return excerpt
        if note:
            problems.append(note)
        return article
