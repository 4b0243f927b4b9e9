"""Which items of a fetched feed are new, which changed, which stay as they are.

A pure decision over content hashes (like lemon24/reader's update intents): the
orchestrator reads the stored hashes, calls :func:`decide_changes`, and writes what it
says. Items that rotated out of the feed appear in no list: they are simply not touched.

Deliveries come out of order (a hub retrying an old distribution, a monitor replaying an
old record, a stale replica answering a fetch, two workers committing two documents of a
feed): an entry whose text differs from the stored one is only an edit when it is not
known to be older. Its own date (:func:`entry_date`) against the stored version's says
so; equal or unknown dates say nothing, and the edit is applied as it always was.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from service.models import Article, FeedEntry

# How far ahead of this clock a date may be and still order anything (clocks differ). A
# date further ahead is a typo (2099) or a broken clock: stored, it would make every
# later version look older for ever.
CLOCK_SKEW = timedelta(hours=1)


def entry_date(entry: FeedEntry, now: datetime) -> datetime | None:
    """The date of this version of an entry, by the publisher's clock: its ``updated``,
    else its ``published`` (a feed that does not date edits); None when it has neither
    or it lies more than :data:`CLOCK_SKEW` ahead of ``now``."""
    when = entry.updated or entry.published
    return when if when is not None and when <= now + CLOCK_SKEW else None


@dataclass(frozen=True, slots=True)
class Changes:
    """The decision for one fetch of a feed, in feed order."""

    new: tuple[tuple[str, Article], ...] = ()  # keys never seen: create, queue
    changed: tuple[tuple[str, Article], ...] = ()  # text differs: store, queue again
    unchanged: tuple[str, ...] = ()  # same text (maybe other markup): nothing to do
    # text differs, but the entry is dated before the stored version: an older version
    # delivered late, not applied
    older: tuple[tuple[str, Article], ...] = ()

    @property
    def to_queue(self) -> tuple[tuple[str, Article], ...]:
        """Everything that needs an explainer (again)."""
        return self.new + self.changed


def decide_changes(
    known: Mapping[str, str],
    incoming: Iterable[tuple[str, Article]],
    *,
    known_dates: Mapping[str, datetime | None] | None = None,
    dates: Mapping[str, datetime | None] | None = None,
) -> Changes:
    """Compare a feed's incoming items with the stored ``key -> content hash``.

    The hash is :attr:`Article.hash`, the hash of the cleaned text, so markup-only edits
    (an ``<img>`` attribute, whitespace, a tracking parameter in a link) change nothing,
    while any edit a reader would see (a figure in a paragraph) re-queues the item.
    ``known`` must hold hashes of articles built the same way (from the feed entry), not
    of pages fetched later for excerpt-only feeds. A key repeated in ``incoming`` counts
    once, first occurrence first.

    ``known_dates`` (the stored versions' :func:`entry_date`) and ``dates`` (the incoming
    ones') order two versions whose text differs: one strictly older than the stored is
    ``older``, not ``changed``. A date missing on either side gives no order.
    """
    known_dates, dates = known_dates or {}, dates or {}
    new: list[tuple[str, Article]] = []
    changed: list[tuple[str, Article]] = []
    older: list[tuple[str, Article]] = []
    unchanged: list[str] = []
    seen: set[str] = set()
    for key, article in incoming:
        if key in seen:
            continue
        seen.add(key)
        stored = known.get(key)
        if stored is None:
            new.append((key, article))
        elif stored == article.hash:
            unchanged.append(key)
        elif is_older(dates.get(key), known_dates.get(key)):
            older.append((key, article))
        else:
            changed.append((key, article))
    return Changes(
        new=tuple(new), changed=tuple(changed), unchanged=tuple(unchanged), older=tuple(older)
    )


def is_older(incoming: datetime | None, stored: datetime | None) -> bool:
    """Whether a version dated ``incoming`` is known to precede one dated ``stored``:
    only when both are known and strictly in that order."""
    return incoming is not None and stored is not None and incoming < stored
