"""A job queue that lives in the database, in the shape of Solid Queue, River and Oban.

Rows of a table are the jobs (deliveries to parse, items to explain, outbound events to
send). A worker claims ready rows by taking a lease: ``lease_owner`` and ``lease_until``.
It renews the lease while it works and releases it when done. A row whose lease expired
(its worker died) is ready again. On PostgreSQL the claim is ``SELECT ... FOR UPDATE SKIP
LOCKED`` so any number of workers on any number of machines never claim the same row; on
SQLite transactions start with ``BEGIN IMMEDIATE`` (see ``store.db``), which makes the
claim a single-writer critical section.

Every write after the claim is fenced by ``lease_owner``: a worker whose lease was taken
over cannot overwrite the new owner's work.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlalchemy.orm import Session

from service.errors import LeaseLost

__all__ = ["LeaseLost"]
from service.store.tables import Delivery, Item, OutboundDelivery, utcnow


@dataclass(frozen=True, slots=True)
class QueueSpec:
    """Which table is the queue and which states mean ready / running."""

    table: type[Any]
    ready: str
    running: str


DELIVERIES = QueueSpec(Delivery, ready="received", running="processing")
ITEMS = QueueSpec(Item, ready="pending", running="processing")
OUTBOUND = QueueSpec(OutboundDelivery, ready="pending", running="sending")


@dataclass(frozen=True, slots=True)
class Claim:
    id: int
    attempts: int
    expired: bool  # the row was taken over from a worker whose lease expired


def backoff_seconds(attempts: int, base: float, cap: float, *, jitter: float = 0.25) -> float:
    """Exponential backoff with jitter: base * 2**(attempts-1), capped, +-jitter share."""
    raw: float = min(cap, base * (2 ** max(0, attempts - 1)))
    return float(raw * (1 + random.uniform(-jitter, jitter)))


def claim(
    session: Session,
    spec: QueueSpec,
    owner: str,
    lease_seconds: float,
    *,
    limit: int = 1,
    now: datetime | None = None,
) -> list[Claim]:
    """Claim up to ``limit`` ready rows for ``owner``. Call inside a transaction."""
    now = now or utcnow()
    t = spec.table
    ready = or_(
        and_(t.state == spec.ready, t.next_attempt_at <= now),
        and_(t.state == spec.running, t.lease_until < now),
    )
    stmt = select(t.id, t.state, t.attempts).where(ready).order_by(t.next_attempt_at, t.id)
    stmt = stmt.limit(limit)
    if session.get_bind().dialect.name == "postgresql":
        stmt = stmt.with_for_update(skip_locked=True)
    rows = session.execute(stmt).all()
    if not rows:
        return []
    until = now + timedelta(seconds=lease_seconds)
    claims = []
    for row in rows:
        session.execute(
            update(t)
            .where(t.id == row.id)
            .values(
                state=spec.running,
                lease_owner=owner,
                lease_until=until,
                attempts=t.attempts + 1,
            )
        )
        claims.append(Claim(row.id, row.attempts + 1, expired=row.state == spec.running))
    return claims


def renew(session: Session, spec: QueueSpec, job_id: int, owner: str, lease_seconds: float) -> None:
    """Extend the lease; raise LeaseLost when another worker owns the row now."""
    t = spec.table
    res = session.execute(
        update(t)
        .where(t.id == job_id, t.lease_owner == owner, t.state == spec.running)
        .values(lease_until=utcnow() + timedelta(seconds=lease_seconds))
    )
    if res.rowcount != 1:  # type: ignore[attr-defined]
        raise LeaseLost(f"lease on {t.__tablename__} {job_id} lost by {owner}")


def finish(session: Session, spec: QueueSpec, job_id: int, owner: str, **values: Any) -> None:
    """Leave the running state (``values`` sets the new state and results), fenced by owner."""
    t = spec.table
    res = session.execute(
        update(t)
        .where(t.id == job_id, t.lease_owner == owner, t.state == spec.running)
        .values(lease_owner=None, lease_until=None, **values)
    )
    if res.rowcount != 1:  # type: ignore[attr-defined]
        raise LeaseLost(f"lease on {t.__tablename__} {job_id} lost by {owner}")


def retry_later(
    session: Session,
    spec: QueueSpec,
    job_id: int,
    owner: str,
    *,
    attempts: int,
    max_attempts: int,
    error: str,
    delay: float,
    failed_state: str = "failed",
    error_column: str = "last_error",
) -> bool:
    """Back off (True) or, out of attempts, fail for good (False)."""
    if attempts >= max_attempts:
        finish(session, spec, job_id, owner, state=failed_state, **{error_column: error})
        return False
    finish(
        session,
        spec,
        job_id,
        owner,
        state=spec.ready,
        next_attempt_at=utcnow() + timedelta(seconds=delay),
        **{error_column: error},
    )
    return True


def release(session: Session, spec: QueueSpec, job_id: int, owner: str) -> None:
    """Give a claimed row back untouched (graceful shutdown): the attempt is not counted."""
    t = spec.table
    session.execute(
        update(t)
        .where(t.id == job_id, t.lease_owner == owner, t.state == spec.running)
        .values(
            state=spec.ready,
            lease_owner=None,
            lease_until=None,
            attempts=t.attempts - 1,
            next_attempt_at=utcnow(),
        )
    )
