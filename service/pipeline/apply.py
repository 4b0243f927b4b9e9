"""Apply: a delivery's entries written to its feed's items (worker, in the delivery's
transaction).

worker -> process_delivery()  ... decide (service.changes) -> apply -> items

New entries are inserted; changed ones replace the stored version unless it is known to
be newer (service.pipeline.order says what is evidence of order). What is not applied is
returned with its reason, for the delivery's ``problems``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session

from service import changes
from service.models import Article, ItemState
from service.pipeline.base import in_chunks, insert_ignore
from service.pipeline.entries import Entries
from service.store import tables as t

# (entry key, the date of its version in the delivery, the date of the version stored)
Dated = tuple[str, datetime | None, datetime | None]


@dataclass(frozen=True, slots=True)
class _Stored:
    """What a delivery did to its feed's items."""

    new: list[int]  # ids of the new items queued (pending)
    changed: list[int]  # ids of the items whose edit was applied and queued again
    not_applied: int  # changed entries left as stored: the document is not to be trusted
    held_new: int  # new items stored skipped (a first delivery's older entries)
    # entries with other text dated before the stored version
    older: list[Dated] = field(default_factory=list)
    # changed entries another delivery's version replaced while this one was decided
    # (two workers at once): the date given is the version kept's
    raced: list[Dated] = field(default_factory=list)
    # entries applied though the evidence said older (a forced delivery)
    forced: list[Dated] = field(default_factory=list)


def _not_page() -> Any:
    """A text read from the post's page is never replaced by a delivery's entry: the
    feed's excerpt is less of the post (service.pipeline.entries leaves such an entry
    out). Checked on the row as written, since a worker may read the page between the
    delivery's look at the items and its writes: the excerpt applied then was stored
    over the page, still marked "page", and no later delivery replaced it."""
    return t.Item.content_source != "page"


def _may_replace(old_hash: str, new_hash: str, new_date: datetime | None) -> Any:
    """The condition under which the UPDATE of an item to a version dated ``new_date``
    applies, checked against the row as it is when written (a concurrent delivery of the
    feed may have changed it since it was read; on PostgreSQL the UPDATE waits for that
    one's commit and checks the row it left): a version strictly newer than the stored
    one replaces it; otherwise only the version read (``old_hash``), and not one known to
    be newer. Without the dates' order, of two deliveries taking the same entry to two
    versions the first to commit won, even when it was the older one."""
    unread = t.Item.content_hash == old_hash
    if new_date is None:
        return and_(_not_page(), unread)
    return and_(
        _not_page(),
        t.Item.content_hash != new_hash,
        or_(
            t.Item.entry_date < new_date,
            and_(unread, or_(t.Item.entry_date.is_(None), t.Item.entry_date <= new_date)),
        ),
    )


class Apply(Entries):
    def _store_items(
        self,
        s: Session,
        feed_id: int,
        delivery_id: int,
        articles: list[tuple[Any, Article]],
        held: set[str],
        *,
        apply_changes: bool = True,
        document_older: bool = False,
        force: bool = False,
    ) -> _Stored:
        """Insert the new items (``skipped`` when their key is ``held``, else ``pending``)
        and update the changed ones (none unless ``apply_changes``).

        An entry dated before the stored version (service.changes) is not applied. When
        the document as a whole is known to be older than one applied before
        (``document_older``: its Last-Modified or observation time), an entry is judged
        by its own date where it has one: applied when dated after the stored version
        (a post edited since, in a document cached before another post's edit), else not
        (equal or unknown dates say nothing, and the document's date stands). ``force``
        (a person's explicit retry: a publisher's rollback) applies every changed and
        older entry, and says which."""
        keys = [e.key for e, _ in articles]
        known = {
            row.key: (row.id, row.content_hash, row.state, row.entry_date)
            for part in in_chunks(keys)
            for row in s.execute(
                select(
                    t.Item.key, t.Item.id, t.Item.content_hash, t.Item.state, t.Item.entry_date
                ).where(t.Item.feed_id == feed_id, t.Item.key.in_(part))
            )
        }
        now = datetime.now(UTC)
        dates: dict[str, datetime | None] = {}
        for e, _ in articles:
            dates.setdefault(e.key, changes.entry_date(e, now))
        decision = changes.decide_changes(
            {k: v[1] for k, v in known.items()},
            [(e.key, a) for e, a in articles],
            known_dates={k: v[3] for k, v in known.items()},
            dates=dates,
        )
        new_ids, held_new = self._insert_new(
            s, feed_id, delivery_id, articles, held, decision, dates
        )
        if not apply_changes:
            return _Stored(new_ids, [], len(decision.changed) + len(decision.older), held_new)
        forced: list[Dated] = []
        to_apply: list[tuple[str, Article]] = []
        refused = 0
        for key, a in decision.changed:
            if document_older and not changes.is_older(known[key][3], dates[key]):
                # No date of its own newer than the stored one: the document's stands.
                if not force:
                    refused += 1
                    continue
                forced.append((key, dates[key], known[key][3]))
            to_apply.append((key, a))
        if force:
            forced += [(k, dates[k], known[k][3]) for k, _ in decision.older]
            to_apply += decision.older
        changed_ids: list[int] = []
        raced: list[Dated] = []
        unwritten: set[str] = set()
        for key, a in to_apply:
            item_id = self._apply_change(s, known[key], a, dates[key], now, force=force)
            if item_id is None:
                unwritten.add(key)
                raced += self._lost(s, known[key][0], key, a, dates[key])
            elif item_id:
                changed_ids.append(item_id)
        # A forced entry not written (its page read meanwhile) is not said to be applied.
        forced = [f for f in forced if f[0] not in unwritten]
        older = [] if force else [(k, dates[k], known[k][3]) for k, _ in decision.older]
        lost_older = [r for r in raced if changes.is_older(r[1], r[2])]
        return _Stored(
            new=new_ids,
            changed=changed_ids,
            not_applied=refused,
            held_new=held_new,
            older=older + lost_older,
            raced=[r for r in raced if r not in lost_older],
            forced=forced,
        )

    def _insert_new(
        self,
        s: Session,
        feed_id: int,
        delivery_id: int,
        articles: list[tuple[Any, Article]],
        held: set[str],
        decision: changes.Changes,
        dates: dict[str, datetime | None],
    ) -> tuple[list[int], int]:
        """Insert the new entries; the ids of those queued, and how many stored skipped."""
        now = datetime.now(UTC)
        new_keys = [k for k, _ in decision.new]
        by_key = {e.key: (e, a) for e, a in articles}
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
                    "entry_date": dates[key],
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
        return new_ids, len(stored) - len(new_ids)

    def _apply_change(
        self,
        s: Session,
        stored: tuple[int, str, str, datetime | None],
        a: Article,
        date: datetime | None,
        now: datetime,
        *,
        force: bool,
    ) -> int | None:
        """Write one changed entry over its item: the item's id when it is queued again,
        0 when written but not queued (a skipped item), None when the row changed under
        this delivery so that the version no longer applies."""
        item_id, old_hash, state, _ = stored
        values: dict[str, Any] = {
            "title": (a.title or "")[:1024],
            "text": a.text,
            "content_hash": a.hash,
            # With its text: where it came from says whether its page is still to be
            # read ("excerpt") and whether a delivery may replace it ("page").
            "content_source": a.content_source,
            "updated_at": now,
        }
        if date is not None or force:
            # An undated version keeps the stored date: a missing date is no evidence
            # of anything, and clearing it let any older version back in after it.
            # A forced one is the version stored now, with its own date (or none).
            values["entry_date"] = date
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
        condition = (
            and_(_not_page(), t.Item.content_hash != a.hash)
            if force
            else _may_replace(old_hash, a.hash, date)
        )
        res = s.execute(update(t.Item).where(t.Item.id == item_id, condition).values(**values))
        if res.rowcount != 1:  # type: ignore[attr-defined]
            return None
        return item_id if state != ItemState.SKIPPED.value else 0

    @staticmethod
    def _lost(s: Session, item_id: int, key: str, a: Article, date: datetime | None) -> list[Dated]:
        """An entry whose UPDATE found the row changed since it was read: nothing to say
        when the version now stored is this one (the same edit, committed by another
        delivery first), else the version kept, for the delivery's problems. (Before, a
        race lost by the older version went unsaid.) Nothing either when the item's page
        was read meanwhile: the entry is left out, as it is when the page was read
        before the delivery looked."""
        row = s.execute(
            select(t.Item.content_hash, t.Item.entry_date, t.Item.content_source).where(
                t.Item.id == item_id
            )
        ).first()
        if row is None or row.content_hash == a.hash or row.content_source == "page":
            return []
        return [(key, date, row.entry_date)]
