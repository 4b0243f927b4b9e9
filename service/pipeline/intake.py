"""Intake: a stored delivery parsed into items (worker).

worker -> process_delivery()  fetch? -> parse -> clean -> decide -> items, one transaction
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from service import changes, fetch, ingest, metrics, parse, queue
from service.dates import utc_from_iso
from service.errors import (
    FeedParseError,
    FetchError,
    NotAFeed,
    PlainfeedError,
    SignatureError,
)
from service.models import (
    Article,
    FeedDoc,
    ItemState,
)
from service.pipeline.base import in_chunks, insert_ignore
from service.pipeline.entries import Entries, feed_address
from service.store import tables as t
from service.store.db import transaction

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


# How far ahead of this clock an observation may be (the monitor's clock runs fast). One
# further ahead is no order at all: kept, it would make every later record look older.
_CLOCK_SKEW = timedelta(hours=1)


def _observed_at(sender: str, record: dict[str, Any]) -> datetime | None:
    """When the monitor observed the document a change record carries (its ``timestamp``,
    else the recorded ``observed_at``); None for other senders, which say nothing of it,
    and for a time in the future."""
    if sender != "change-record":
        return None
    meta = record.get("meta") or {}
    recorded = meta.get("recorded_headers") or {}
    at = utc_from_iso(meta.get("timestamp")) or utc_from_iso(recorded.get("observed_at"))
    return at if at is not None and at <= datetime.now(UTC) + _CLOCK_SKEW else None


def _observed_newest(s: Session, feed_id: int, observed: datetime) -> bool:
    """Record ``observed`` as the feed's newest observation; False when a document
    observed later was applied already. The conditional UPDATE locks the feed's row, so
    two deliveries of one feed decide one after the other (the later commit sees the
    earlier one's time)."""
    res = s.execute(
        update(t.Feed)
        .where(
            t.Feed.id == feed_id,
            or_(t.Feed.observed_at.is_(None), t.Feed.observed_at <= observed),
        )
        .values(observed_at=observed)
    )
    return bool(res.rowcount == 1)  # type: ignore[attr-defined]


class Intake(Entries):
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
        problems: list[str] = []
        validators: tuple[str | None, str | None] | None = None
        observed = _observed_at(sender, record) if body is not None else None
        try:
            if body is None:
                url = fetch_url or (feed.url if feed is not None else None)
                if not url:
                    raise FeedParseError("delivery has no feed document and nothing to fetch")
                got = self._fetch_feed(feed, url)
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
            doc = parse.parse_feed(body, content_type=ctype, url=fetch_url)
            articles, held = self._articles(named_feed, doc, fetch_url, problems)
        except FetchError as exc:
            if fetch.transient(exc) and claim.attempts < self.settings.max_attempts:
                self._retry_delivery(claim, owner, exc)
            else:
                self._fail_delivery(claim, owner, exc)
            return
        except PlainfeedError as exc:
            self._fail_delivery(claim, owner, exc)
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
                    stale = observed is not None and not _observed_newest(s, feed_id, observed)
                    if validators is not None and named_feed is not None and not stale:
                        s.execute(
                            update(t.Feed)
                            .where(t.Feed.id == named_feed)
                            .values(etag=validators[0], last_modified=validators[1])
                        )
                    new, changed, skipped, held_new = self._store_items(
                        s,
                        feed_id,
                        claim.id,
                        articles,
                        held,
                        apply_changes=doc.well_formed and not stale,
                    )
                    noted = [*doc.problems, *problems]
                    if skipped and stale:
                        noted.append(
                            f"{skipped} changed entr{'y' if skipped == 1 else 'ies'} not "
                            f"applied: the document was observed at {observed:%Y-%m-%dT%H:%M:%SZ}, "
                            "older than one applied to the feed before"
                        )
                    elif skipped:
                        noted.append(
                            f"{skipped} changed entr{'y' if skipped == 1 else 'ies'} not "
                            "applied: the document is not well-formed XML, and a stored "
                            "item is not replaced from a document read in part"
                        )
                    queue.finish(
                        s,
                        queue.DELIVERIES,
                        claim.id,
                        owner,
                        state="processed",
                        feed_id=feed_id,
                        items_new=len(new),
                        items_changed=len(changed),
                        items_skipped=held_new,
                        item_ids=sorted(new + changed),
                        problems="; ".join(noted) or None,
                        error=None,  # an earlier attempt's (a fetch that failed a moment)
                        processed_at=datetime.now(UTC),
                    )
                metrics.DELIVERIES.labels("processed").inc()
                metrics.ITEMS_CREATED.labels("new").inc(len(new))
                metrics.ITEMS_CREATED.labels("changed").inc(len(changed))
                metrics.ITEMS_CREATED.labels("skipped").inc(held_new)
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
            queue.finish(
                s,
                queue.DELIVERIES,
                claim.id,
                owner,
                state="processed",
                items_new=0,
                items_changed=0,
                item_ids=[],
                problems=note,
                error=None,
                processed_at=datetime.now(UTC),
            )
        metrics.DELIVERIES.labels("processed").inc()

    def _retry_delivery(self, claim: queue.Claim, owner: str, exc: FetchError) -> None:
        """Fetch again later (backoff as items): the feed's origin was down for a moment."""
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
                error=exc.detail,
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
        if feed_id is not None:
            feed = s.get(t.Feed, feed_id)
            if feed is not None and not feed.title and doc.title:
                feed.title = doc.title[:1024]
            return feed_id
        url = feed_address(doc, fetch_url)
        feed = s.scalars(select(t.Feed).where(t.Feed.url == url)).first()
        if feed is None:
            insert_ignore(
                s,
                t.Feed.__table__,
                [{"url": url, "title": doc.title[:1024], "created_at": datetime.now(UTC)}],
            )
            feed = s.scalars(select(t.Feed).where(t.Feed.url == url)).one()
        return feed.id

    def _store_items(
        self,
        s: Session,
        feed_id: int,
        delivery_id: int,
        articles: list[tuple[Any, Article]],
        held: set[str],
        *,
        apply_changes: bool = True,
    ) -> tuple[list[int], list[int], int, int]:
        """Insert the new items (``skipped`` when their key is ``held``, else ``pending``)
        and update the changed ones (unless ``apply_changes`` is false): the new pending
        ids, the changed ids, how many changes were not applied, and how many new items
        were stored skipped."""
        keys = [e.key for e, _ in articles]
        known = {
            row.key: (row.id, row.content_hash, row.state)
            for part in in_chunks(keys)
            for row in s.execute(
                select(t.Item.key, t.Item.id, t.Item.content_hash, t.Item.state).where(
                    t.Item.feed_id == feed_id, t.Item.key.in_(part)
                )
            )
        }
        decision = changes.decide_changes(
            {k: v[1] for k, v in known.items()}, [(e.key, a) for e, a in articles]
        )
        new_keys = [k for k, _ in decision.new]
        by_key = {e.key: (e, a) for e, a in articles}
        now = datetime.now(UTC)
        rows = []
        for key in new_keys:
            e, a = by_key[key]
            rows.append(
                {
                    "feed_id": feed_id,
                    "key": key,
                    "guid": e.guid,
                    "link": e.link,
                    "title": (a.title or "")[:1024],
                    "author": e.author,
                    "published": e.published,
                    "content_hash": a.hash,
                    "text": a.text,
                    "content_source": a.content_source,
                    "state": (ItemState.SKIPPED if key in held else ItemState.PENDING).value,
                    "delivery_id": delivery_id,
                    "next_attempt_at": now,
                    "created_at": now,
                    "updated_at": now,
                    "attempts": 0,
                }
            )
        # ON CONFLICT DO NOTHING: a concurrent delivery may have inserted the same item.
        insert_ignore(s, t.Item.__table__, rows)
        stored = [
            (row.id, row.state)
            for part in in_chunks(new_keys)
            for row in s.execute(
                select(t.Item.id, t.Item.state).where(
                    t.Item.feed_id == feed_id,
                    t.Item.key.in_(part),
                    t.Item.delivery_id == delivery_id,
                )
            )
        ]
        new_ids = [i for i, state in stored if state != ItemState.SKIPPED.value]
        changed_ids = []
        for key, a in decision.changed if apply_changes else ():
            item_id, old_hash, state = known[key]
            values: dict[str, Any] = {
                "title": (a.title or "")[:1024],
                "text": a.text,
                "content_hash": a.hash,
                "updated_at": now,
            }
            if state != ItemState.SKIPPED.value:
                # A skipped item takes the edit (a retry explains the current text) but
                # stays skipped: an edit of an old post is no reason to explain it.
                values.update(
                    state=ItemState.PENDING.value,
                    attempts=0,
                    last_error=None,
                    next_attempt_at=now,
                    lease_owner=None,
                    lease_until=None,
                )
            res = s.execute(
                update(t.Item)
                .where(t.Item.id == item_id, t.Item.content_hash == old_hash)
                .values(**values)
            )
            if res.rowcount == 1 and state != ItemState.SKIPPED.value:  # type: ignore[attr-defined]
                changed_ids.append(item_id)
        return (
            new_ids,
            changed_ids,
            0 if apply_changes else len(decision.changed),
            len(stored) - len(new_ids),
        )

    # --- items -----------
