"""Order: whether a delivery's document is older than what its feed has applied (worker).

Deliveries are processed out of order: a WebSub hub retries an old distribution, a
monitor replays an old record, a replica that missed the last edit answers a fetch, two
workers commit two documents of one feed. An older document must not put an edited entry
back to its older text (and pay to explain it again). Evidence of order, each compared
only with the same clock:

- an entry's own date (``updated``, else ``published``) against the stored version's
  (service.changes.entry_date; the publisher's clock, per entry);
- a change record's ``timestamp`` (the monitor's observation) against the feed's newest
  applied one (``feeds.observed_at``; the monitor's clock);
- a document's ``Last-Modified`` (a fetch's, or the one a monitor recorded) against the
  one stored from the last applied document (``feeds.last_modified``; the origin's clock).

Equal or missing times are no evidence: the document is applied as it always was. An
entry is judged by its own date where it has one: in a document older by the other two,
an entry dated after the stored version is applied (service.pipeline.apply).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import or_, select, update
from sqlalchemy.orm import Session

from service.changes import CLOCK_SKEW
from service.dates import utc_from_http, utc_from_iso
from service.store import tables as t


def _at(when: datetime | None) -> str:
    return f"{when:%Y-%m-%dT%H:%M:%SZ}" if when is not None else "undated"


def _sane(when: datetime | None) -> datetime | None:
    """``when``, unless it lies further ahead of this clock than clocks differ: such a
    time (a broken clock, a typo) is no order at all; kept, it would make every later
    document look older."""
    return when if when is not None and when <= datetime.now(UTC) + CLOCK_SKEW else None


def observed_at(sender: str, record: dict[str, Any]) -> datetime | None:
    """When the monitor observed the document a change record carries (its ``timestamp``,
    else the recorded ``observed_at``); None for other senders, which say nothing of it,
    and for a time in the future."""
    if sender != "change-record":
        return None
    meta = record.get("meta") or {}
    recorded = meta.get("recorded_headers") or {}
    return _sane(utc_from_iso(meta.get("timestamp")) or utc_from_iso(recorded.get("observed_at")))


def observed_newest(s: Session, feed_id: int, observed: datetime) -> bool:
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


def modified_at(last_modified: str | None) -> datetime | None:
    """A document's ``Last-Modified`` as a time that orders it; None when it is missing,
    unreadable or in the future."""
    return _sane(utc_from_http(last_modified))


def modified_before(s: Session, feed_id: int, modified: datetime) -> datetime | None:
    """The ``Last-Modified`` of the document applied to the feed before, when this one's
    (``modified``) is older; else None. The feed's row is locked (PostgreSQL; SQLite
    serialises writers), so two deliveries of one feed compare one after the other."""
    stored = s.scalars(
        select(t.Feed.last_modified).where(t.Feed.id == feed_id).with_for_update()
    ).first()
    applied = modified_at(stored)
    return applied if applied is not None and modified < applied else None


def stale_note(changed: int, reason: str) -> str:
    return f"{changed} changed entr{'y' if changed == 1 else 'ies'} not applied: {reason}"


def observed_reason(observed: datetime) -> str:
    return (
        f"the document was observed at {_at(observed)}, older than one applied to the feed before"
    )


def modified_reason(modified: datetime, applied: datetime) -> str:
    return (
        f"the document was last modified at {_at(modified)} (Last-Modified), older than "
        f"the one applied to the feed before ({_at(applied)})"
    )


def older_note(older: Sequence[tuple[str, datetime | None, datetime | None]]) -> str:
    """Why entries with other text were not applied: each (key, its date, the stored
    version's date), the first three named."""
    named = "; ".join(
        f"{key[:200]} dated {_at(incoming)}, older than the version stored ({_at(stored)})"
        for key, incoming, stored in older[:3]
    )
    more = f"; and {len(older) - 3} more" if len(older) > 3 else ""
    return stale_note(len(older), f"{named}{more}")


def raced_note(raced: Sequence[tuple[str, datetime | None, datetime | None]]) -> str:
    """Entries another delivery of the feed replaced while this one was decided (two
    workers at once), by a version not known to be older: each (key, its date, the date
    of the version kept)."""
    named = "; ".join(
        f"{key[:200]} dated {_at(incoming)}: another delivery stored a version dated "
        f"{_at(stored)} meanwhile, which was kept"
        for key, incoming, stored in raced[:3]
    )
    more = f"; and {len(raced) - 3} more" if len(raced) > 3 else ""
    return stale_note(len(raced), f"{named}{more}")


def forced_note(
    forced: Sequence[tuple[str, datetime | None, datetime | None]], stale: str | None
) -> str:
    """Entries a forced delivery applied over the evidence that they were older: each
    (key, its date, the stored version's date), and the document's own staleness."""
    named = "; ".join(
        f"{key[:200]} dated {_at(incoming)} over the version stored ({_at(stored)})"
        for key, incoming, stored in forced[:3]
    )
    more = f"; and {len(forced) - 3} more" if len(forced) > 3 else ""
    why = f" ({stale})" if stale else ""
    n = len(forced)
    return f"forced: {n} entr{'y' if n == 1 else 'ies'} applied though older{why}: {named}{more}"
