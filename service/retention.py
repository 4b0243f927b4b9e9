"""Retention: what the database keeps of finished work, and for how long.

A feed monitor that posts the whole feed every ten minutes stores some 40 MB of raw
bodies a day (the PyTorch feed is 280 KB), and every event sent to a subscriber keeps
its payload: kept for ever, they outgrow everything else in the database. Past
``PLAINFEED_RETENTION_DAYS``:

- a finished delivery (``processed`` or ``failed``) keeps its row (outcome, counts, the
  items it created, its recorded headers, its id, which still deduplicates a replay)
  but not its raw body (``body_bytes`` reads 0);
- a finished outbound delivery (``delivered``, ``failed``, ``cancelled``) is deleted;
- an explain claim (service.pipeline.claims) whose worker is gone (its item no longer
  processing under the claim's owner: the worker died and nobody waited on the post) is
  deleted; a dead claim is harmless, taken over by the next item of its post, but nothing
  else would ever remove it.

Items, explainers, check reports and LLM call records are the product and its costs:
never pruned. Work still to do is never touched. Rows go in batches, each its own short
transaction, so a large backlog never holds a lock for long.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import Select, and_, delete, exists, func, select, update
from sqlalchemy.orm import Session, sessionmaker

from service.config import Settings
from service.models import ItemState
from service.store import tables as t
from service.store.db import transaction

log = logging.getLogger(__name__)

DELIVERY_DONE = ("processed", "failed")
OUTBOUND_DONE = ("delivered", "failed", "cancelled")
BATCH = 500
# How often a process prunes on its own (the first time a minute after it starts: not
# in the way of a start-up backlog).
EVERY_SECONDS = 3600.0
FIRST_AFTER_SECONDS = 60.0
TURN_SECONDS = 5.0
BACKLOG_AFTER_SECONDS = 60.0


@dataclass(frozen=True, slots=True)
class Pruned:
    """What one pruning did (or, dry, would do)."""

    delivery_bodies: int = 0
    outbound_deliveries: int = 0
    explain_claims: int = 0

    def __add__(self, other: Pruned) -> Pruned:
        return Pruned(
            self.delivery_bodies + other.delivery_bodies,
            self.outbound_deliveries + other.outbound_deliveries,
            self.explain_claims + other.explain_claims,
        )

    def full(self, batch: int) -> bool:
        """Whether a batch pruned as much as it may of some kind (more may be left)."""
        return max(self.delivery_bodies, self.outbound_deliveries, self.explain_claims) >= batch

    def __bool__(self) -> bool:
        return bool(self.delivery_bodies or self.outbound_deliveries or self.explain_claims)


def cutoff(now: datetime, days: float) -> datetime:
    """The time before which finished work is pruned."""
    return now - timedelta(days=days)


def _old_bodies(before: datetime) -> Select[int]:
    return select(t.Delivery.id).where(
        t.Delivery.state.in_(DELIVERY_DONE),
        t.Delivery.received_at < before,
        t.Delivery.body.is_not(None),
    )


def _old_outbound(before: datetime) -> Select[int]:
    return select(t.OutboundDelivery.id).where(
        t.OutboundDelivery.state.in_(OUTBOUND_DONE),
        t.OutboundDelivery.created_at < before,
    )


# A claim is alive while its item is processing under the claim's owner (the worker's
# lease); past the period, one that is not was left by a worker that died.
_CLAIM_ALIVE = exists().where(
    and_(
        t.Item.id == t.ExplainClaim.item_id,
        t.Item.state == ItemState.PROCESSING.value,
        t.Item.lease_owner == t.ExplainClaim.owner,
    )
)


def _dead_claims(before: datetime) -> Select[str]:
    return select(t.ExplainClaim.key).where(t.ExplainClaim.created_at < before, ~_CLAIM_ALIVE)


def count(s: Session, before: datetime) -> Pruned:
    """What :func:`prune_batch` calls would prune (a dry run), counted by the database."""

    def rows(query: Select[int] | Select[str]) -> int:
        return s.scalar(select(func.count()).select_from(query.subquery())) or 0

    return Pruned(
        rows(_old_bodies(before)), rows(_old_outbound(before)), rows(_dead_claims(before))
    )


def prune_batch(s: Session, before: datetime, batch: int = BATCH) -> Pruned:
    """Prune at most ``batch`` rows of each kind finished before ``before``."""
    bodies = list(s.scalars(_old_bodies(before).order_by(t.Delivery.id).limit(batch)))
    if bodies:
        s.execute(
            update(t.Delivery)
            .where(t.Delivery.id.in_(bodies), t.Delivery.body.is_not(None))
            .values(body=None)
        )
    sent = list(s.scalars(_old_outbound(before).order_by(t.OutboundDelivery.id).limit(batch)))
    if sent:
        s.execute(
            delete(t.OutboundDelivery).where(
                t.OutboundDelivery.id.in_(sent),
                t.OutboundDelivery.state.in_(OUTBOUND_DONE),
            )
        )
    dead = list(s.scalars(_dead_claims(before).order_by(t.ExplainClaim.key).limit(batch)))
    if dead:
        # The claim's death is asked again as it goes: a worker that took the key over
        # since holds a claim of its own now (its owner, its item).
        s.execute(delete(t.ExplainClaim).where(t.ExplainClaim.key.in_(dead), ~_CLAIM_ALIVE))
    return Pruned(len(bodies), len(sent), len(dead))


def prune(
    sessions: sessionmaker[Session],
    days: float,
    *,
    now: datetime | None = None,
    seconds: float | None = None,
) -> tuple[Pruned, bool]:
    """Prune what finished more than ``days`` ago, batch after batch, for at most
    ``seconds`` (None: all of it); and whether all of it went."""
    before = cutoff(now or datetime.now(UTC), days)
    ends = None if seconds is None else time.monotonic() + seconds
    total = Pruned()
    while True:
        with transaction(sessions) as s:
            done = prune_batch(s, before)
        total += done
        if not done.full(BATCH):
            return total, True
        if ends is not None and time.monotonic() >= ends:
            return total, False


class Pruner:
    """The worker's extra job that prunes once an hour (``Worker(extra_jobs=[...])``).

    It never reports work done: a prune is housekeeping, and the worker's idle wait
    must not be skipped for it."""

    def __init__(
        self,
        settings: Settings,
        sessions: sessionmaker[Session],
        *,
        first_after: float = FIRST_AFTER_SECONDS,
    ) -> None:
        self.days = settings.retention_days
        self.sessions = sessions
        self._due = time.monotonic() + first_after
        self._lock = threading.Lock()

    def __call__(self, owner: str) -> bool:
        if not self.days or time.monotonic() < self._due:
            return False
        with self._lock:  # one pruning per process, whichever thread comes first
            if time.monotonic() < self._due:
                return False
            self._due = time.monotonic() + EVERY_SECONDS
        try:
            # A turn of a few seconds: the thread also sends the outbound events. A backlog
            # (the first prune after an upgrade) goes on a minute later, turn by turn.
            done, finished = prune(self.sessions, self.days, seconds=TURN_SECONDS)
        except Exception:  # a database blip: the next hour tries again
            log.warning("pruning finished work failed", exc_info=True)
            return False
        if not finished:
            with self._lock:
                self._due = time.monotonic() + BACKLOG_AFTER_SECONDS
        if done:
            log.info(
                "pruned %d delivery bodies, %d outbound deliveries and %d dead explain"
                " claims older than %g days",
                done.delivery_bodies,
                done.outbound_deliveries,
                done.explain_claims,
                self.days,
            )
        return False
