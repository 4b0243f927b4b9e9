"""Intake: a stored delivery parsed into items (worker).

worker -> process_delivery()  fetch? -> parse -> clean -> decide -> items, one transaction
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from service import fetch, ingest, metrics, parse, queue
from service.errors import (
    FeedParseError,
    FetchError,
    NotAFeed,
    PlainfeedError,
    SignatureError,
    Unprocessable,
)
from service.models import FeedDoc
from service.pipeline import order, outcome
from service.pipeline.apply import Apply
from service.pipeline.base import insert_ignore
from service.pipeline.entries import feed_address, feed_title, registered_feed
from service.store import tables as t
from service.store.db import transaction
from service.store.feeds import bodiless_refused, normal_url, note_shown, shown

log = logging.getLogger(__name__)


# The feed columns that keep a fetch's validators (service.store.tables.Feed).
_MAX_ETAG, _MAX_LAST_MODIFIED = 512, 128


def _storable_validators(
    etag: str | None, last_modified: str | None
) -> tuple[str | None, str | None]:
    """A validator the feed row cannot hold intact (too long, or with a NUL, which
    PostgreSQL refuses) is not kept: a cut one would never match, and the next fetch is
    then unconditional rather than the delivery failing."""

    def ok(value: str | None, cap: int) -> str | None:
        return value if value and len(value) <= cap and "\x00" not in value else None

    return ok(etag, _MAX_ETAG), ok(last_modified, _MAX_LAST_MODIFIED)


def _with_earlier_runs(
    s: Session,
    delivery_id: int,
    new: list[int],
    changed: list[int],
    skipped: int,
    problems: list[str],
) -> dict[str, object]:
    """The delivery's record after this run: its counts added to those of its earlier
    runs (a retry), its items among theirs, in id order, and its problems after theirs
    (service.pipeline.outcome). A retry that finds nothing new (the feed unchanged) must
    not forget which items the delivery created, nor what its earlier runs noted."""
    row = s.execute(
        select(
            t.Delivery.items_new,
            t.Delivery.items_changed,
            t.Delivery.items_skipped,
            t.Delivery.item_ids,
            t.Delivery.problems,
        ).where(t.Delivery.id == delivery_id)
    ).one()
    return {
        "items_new": (row.items_new or 0) + len(new),
        "items_changed": (row.items_changed or 0) + len(changed),
        "items_skipped": (row.items_skipped or 0) + skipped,
        "item_ids": sorted({*(row.item_ids or ()), *new, *changed}),
        "problems": outcome.with_earlier(row.problems, problems),
    }


def _first(exc: OperationalError) -> str:
    """The driver's own message, its first line: SQLAlchemy's text adds the statement, its
    parameters (a whole feed's) and a documentation link."""
    lines = str(exc.orig or exc).strip().splitlines()
    return lines[0].strip() if lines and lines[0].strip() else type(exc.orig or exc).__name__


class Intake(Apply):
    def process_delivery(self, claim: queue.Claim, owner: str) -> None:
        """Turn a stored delivery into items: fetch the feed when the delivery carries no
        document (conditional GET), parse, fetch the pages of new excerpt-only items,
        clean; then commit new items, the feed's validators and the delivery's outcome in
        one transaction, so a crash leaves either all or none."""
        if claim.expired and claim.attempts > self.settings.max_attempts:
            # Each claim ended with its worker (killed, out of memory): a delivery that
            # takes workers down with it must not be claimed for ever.
            self._fail_delivery(
                claim,
                owner,
                PlainfeedError(
                    f"gave up after {claim.attempts - 1} attempts; the last one's lease "
                    "expired without an outcome"
                ),
            )
            return
        with self.sessions() as s:
            d = s.get(t.Delivery, claim.id)
            if d is None:
                return
            feed = s.get(t.Feed, d.feed_id) if d.feed_id else None
            body, ctype, fetch_url = d.body, d.content_type, d.fetch_url
            named_feed, sender, record = d.feed_id, d.sender, dict(d.headers or {})
            force = d.forced_at is not None
        problems: list[str] = []
        validators: tuple[str | None, str | None] | None = None
        observed = order.observed_at(sender, record) if body is not None else None
        try:
            if body is None:
                url = fetch_url or (feed.url if feed is not None else None)
                if not url:
                    raise FeedParseError("delivery has no feed document and nothing to fetch")
                refused = bodiless_refused(feed) if feed is not None and url == feed.url else None
                if refused:
                    # Stored before migration 0017 refused it (422): its fetch would be
                    # refused too ("only http(s) URLs are fetched"), a reason that did not
                    # say the feed can only take documents, nor what to do.
                    raise Unprocessable(refused)
                # Forced (a rollback): not conditional, the origin's older document
                # is the one asked for, and it would be answered 304.
                got = self._fetch_feed(None if force else feed, url)
                if got.not_modified:
                    self._finish_unchanged(claim, owner, f"{url} not modified (HTTP 304)")
                    return
                body, ctype, fetch_url = got.body, got.content_type, url
                validators = (got.etag, got.last_modified)
                if parse.sniff(body, ctype) is None:
                    raise NotAFeed(
                        f"{got.url} answered {ingest.media_type(ctype) or 'a document'} "
                        "that is not an RSS, Atom, RDF or JSON Feed document"
                    )
            elif sender == "change-record":
                recorded = (record.get("meta") or {}).get("recorded_headers") or {}
                if recorded.get("etag") or recorded.get("last-modified"):
                    validators = (recorded.get("etag"), recorded.get("last-modified"))
            if validators is not None:
                validators = _storable_validators(*validators)
            # The document's own date of version, by its origin's clock (compared with
            # the Last-Modified stored from the document applied before, same clock).
            modified = order.modified_at(validators[1]) if validators is not None else None
            doc = parse.parse_feed(body, content_type=ctype, url=fetch_url)
            articles, held = self._articles(named_feed, doc, fetch_url, problems)
        except queue.LeaseLost:
            # The lease was lost while pages were read (service.abandon): another worker
            # owns the delivery now, and its outcome (failed, here) is not ours to write.
            raise
        except FetchError as exc:
            if fetch.transient(exc) and claim.attempts < self.settings.max_attempts:
                self._retry_delivery(claim, owner, exc)
            else:
                self._fail_delivery(claim, owner, exc)
            return
        except PlainfeedError as exc:
            self._fail_delivery(claim, owner, exc)
            return
        except OperationalError as exc:  # reading what the feed has stored: as below
            log.warning("delivery %s: database error, tried again later: %s", claim.id, _first(exc))
            self._retry_delivery(claim, owner, exc)
            return
        except Exception as exc:  # a bug must not lose the delivery: record it
            log.exception("delivery %s crashed", claim.id)
            self._fail_delivery(claim, owner, exc)
            return
        for attempt in range(3):
            try:
                with transaction(self.sessions) as s:
                    feed_id = self._resolve_feed(s, named_feed, doc, fetch_url)
                    if named_feed is None:
                        found = s.get(t.Feed, feed_id)
                        if found is not None and found.secret:
                            # Accepted unsigned because it named no feed; the document
                            # turned out to be a feed that only takes signed deliveries.
                            raise SignatureError(
                                f"unsigned document of feed {feed_id}, which has a secret: "
                                "nothing was taken from it"
                            )
                    stale = None  # why the document is older than one applied before
                    if modified is not None and named_feed is not None:
                        applied = order.modified_before(s, named_feed, modified)
                        if applied is not None:
                            stale = order.modified_reason(modified, applied)
                    if (
                        stale is None
                        and observed is not None
                        and not order.observed_newest(s, feed_id, observed)
                    ):
                        stale = order.observed_reason(observed)
                    if validators is not None and named_feed is not None and stale is None:
                        s.execute(
                            update(t.Feed)
                            .where(t.Feed.id == named_feed)
                            .values(etag=validators[0], last_modified=validators[1])
                        )
                    stored = self._store_items(
                        s,
                        feed_id,
                        claim.id,
                        articles,
                        held,
                        apply_changes=doc.well_formed,
                        document_older=stale is not None,
                        force=force,
                    )
                    noted = [*doc.problems, *problems]
                    if stored.not_applied and not doc.well_formed:
                        noted.append(
                            order.stale_note(
                                stored.not_applied,
                                "the document is not well-formed XML, and a stored item is "
                                "not replaced from a document read in part",
                            )
                        )
                    elif stored.not_applied and stale is not None:
                        noted.append(order.stale_note(stored.not_applied, stale))
                    if stored.older:
                        noted.append(order.older_note(stored.older))
                    if stored.raced:
                        noted.append(order.raced_note(stored.raced))
                    if stored.forced:
                        noted.append(order.forced_note(stored.forced, stale))
                    queue.finish(
                        s,
                        queue.DELIVERIES,
                        claim.id,
                        owner,
                        state="processed",
                        feed_id=feed_id,
                        **_with_earlier_runs(
                            s, claim.id, stored.new, stored.changed, stored.held_new, noted
                        ),
                        error=None,  # an earlier attempt's (a fetch that failed a moment)
                        processed_at=datetime.now(UTC),
                    )
                metrics.DELIVERIES.labels("processed").inc()
                metrics.ITEMS_CREATED.labels("new").inc(len(stored.new))
                metrics.ITEMS_CREATED.labels("changed").inc(len(stored.changed))
                metrics.ITEMS_CREATED.labels("skipped").inc(stored.held_new)
                return
            except SignatureError as exc:
                self._fail_delivery(claim, owner, exc)
                return
            except IntegrityError as exc:
                # A concurrent delivery of the same feed created the feed row first;
                # run the decision again against what is stored now.
                if attempt == 2:
                    self._fail_delivery(claim, owner, exc)
                    return
            except queue.LeaseLost:
                raise  # another worker owns the delivery now: its outcome is not ours
            except OperationalError as exc:
                # The database, not the document: a connection ended (a failover, a pooler
                # restarting), a deadlock, a lock waited on too long. Nothing of the run was
                # stored; it is tried again later, as a fetch that failed for a moment is
                # (it ended failed for good, its new posts never stored).
                log.warning(
                    "delivery %s: database error, tried again later: %s", claim.id, _first(exc)
                )
                self._retry_delivery(claim, owner, exc)
                return
            except Exception as exc:
                # A value the database refuses (or a bug): the delivery ends failed with
                # the reason, instead of staying claimed and retried on every lease.
                log.exception("delivery %s could not be stored", claim.id)
                self._fail_delivery(claim, owner, exc)
                return

    def _fetch_feed(self, feed: t.Feed | None, url: str) -> fetch.Fetched:
        """GET the feed, conditionally when its validators are stored for this URL."""
        own = feed is not None and feed.url == url
        return fetch.fetch_url(
            url,
            self.settings,
            etag=feed.etag if own and feed is not None else None,
            last_modified=feed.last_modified if own and feed is not None else None,
        )

    def _finish_unchanged(self, claim: queue.Claim, owner: str, note: str) -> None:
        with transaction(self.sessions) as s:
            earlier = s.scalar(select(t.Delivery.problems).where(t.Delivery.id == claim.id))
            queue.finish(
                s,
                queue.DELIVERIES,
                claim.id,
                owner,
                state="processed",
                # The counts and items of earlier runs (a retry) are kept, and their notes.
                problems=outcome.with_earlier(earlier, [note]),
                error=None,
                processed_at=datetime.now(UTC),
            )
        metrics.DELIVERIES.labels("processed").inc()

    def _retry_delivery(
        self, claim: queue.Claim, owner: str, exc: FetchError | OperationalError
    ) -> None:
        """Try again later (backoff as items): the feed's origin, or the database, failed
        for a moment."""
        delay = queue.backoff_seconds(
            claim.attempts, self.settings.backoff_base, self.settings.backoff_max
        )
        with transaction(self.sessions) as s:
            queue.retry_later(
                s,
                queue.DELIVERIES,
                claim.id,
                owner,
                attempts=claim.attempts,
                max_attempts=self.settings.max_attempts,
                error=exc.detail
                if isinstance(exc, FetchError)
                else f"database error: {_first(exc)}",
                delay=delay,
                error_column="error",
            )
        metrics.DELIVERIES.labels("retry").inc()

    def _fail_delivery(self, claim: queue.Claim, owner: str, exc: BaseException) -> None:
        reason = getattr(exc, "detail", None) or f"{exc.__class__.__name__}: {exc}"
        with transaction(self.sessions) as s:
            queue.finish(
                s,
                queue.DELIVERIES,
                claim.id,
                owner,
                state="failed",
                error=str(reason),
                processed_at=datetime.now(UTC),
            )
        metrics.DELIVERIES.labels("failed").inc()

    def _resolve_feed(
        self, s: Session, feed_id: int | None, doc: FeedDoc, fetch_url: str | None
    ) -> int:
        title = feed_title(doc)
        if feed_id is not None:
            feed = s.get(t.Feed, feed_id)
            if feed is not None and title and feed.title in (None, "", doc.title[:1024]):
                # Empty, or the title as sent, stored undecoded before titles were decoded.
                before = shown(feed)
                feed.title = title
                note_shown(feed, before)
            return feed_id
        # Registered in the normal form `POST /feeds` stores: as written, the same feed
        # registered by its URL was another feed. A feed with no URL is known by an
        # address built from its title as sent (feed_address): decoded, the feeds stored
        # before would no longer be found.
        feed = registered_feed(s, doc, fetch_url)
        url = normal_url(feed_address(doc, fetch_url))
        if feed is None:
            insert_ignore(
                s,
                t.Feed.__table__,
                [{"url": url, "title": title, "created_at": datetime.now(UTC)}],
            )
            feed = s.scalars(select(t.Feed).where(t.Feed.url == url)).one()
        elif title and feed.title == doc.title[:1024]:
            before = shown(feed)
            feed.title = title
            note_shown(feed, before)
        return feed.id

    # --- items -----------
