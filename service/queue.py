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

import functools
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, select, union_all, update
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


@dataclass(frozen=True, slots=True)
class _ClaimStatements:
    expired: Any  # SQLite: pick rows whose lease expired
    ready: Any  # SQLite: pick ready rows
    take: Any  # SQLite: lease the picked ids; PostgreSQL: pick and lease in one statement


def _unchanged(columns: Any) -> dict[str, Any]:
    """A lease write (claim, renewal, release) changes no content: a table's
    ``updated_at`` (items: the Atom feeds' ETag and Last-Modified) is kept, not bumped by
    its onupdate. ``columns``: a table or its ``.c``."""
    c = getattr(columns, "c", columns)
    return {"updated_at": c.updated_at} if "updated_at" in c else {}


@functools.cache
def _claim_statements(spec: QueueSpec, postgres: bool, limit: int) -> _ClaimStatements:
    """The claim's statements, built once: claims run in a tight loop, and building a
    SQLAlchemy statement costs more CPU than running it."""
    table = spec.table.__table__
    c = table.c
    now: Any = bindparam("now")
    expired = (
        select(c.id, c.state, c.attempts)
        .where(c.state == spec.running, c.lease_until < now)
        .order_by(c.lease_until)
        .limit(limit)
    )
    ready = (
        select(c.id, c.state, c.attempts)
        .where(c.state == spec.ready, c.next_attempt_at <= now)
        .order_by(c.next_attempt_at)
        .limit(limit)
    )
    lease = {
        "state": spec.running,
        "lease_owner": bindparam("owner"),
        "lease_until": bindparam("until"),
        "attempts": c.attempts + 1,
        **_unchanged(table),
    }
    if not postgres:
        # SQLite: transactions begin IMMEDIATE, so nobody writes between pick and take.
        take = update(table).where(c.id.in_(bindparam("ids", expanding=True))).values(**lease)
        return _ClaimStatements(expired, ready, take)
    # One round trip: pick (skipping rows other workers hold) and lease in one statement.
    # (FOR UPDATE is refused inside a UNION, hence a locking CTE for each pick.)
    e = expired.with_for_update(skip_locked=True).cte("expired")
    r = ready.with_for_update(skip_locked=True).cte("ready")
    picked = union_all(select(e.c.id, e.c.state), select(r.c.id, r.c.state)).subquery()
    chosen = select(picked.c.id, picked.c.state).limit(limit).subquery("chosen")
    take = (
        update(table)
        .where(c.id == chosen.c.id)
        .values(**lease)
        .returning(c.id, c.attempts, chosen.c.state)
    )
    return _ClaimStatements(expired, ready, take)


def claim(
    session: Session,
    spec: QueueSpec,
    owner: str,
    lease_seconds: float,
    *,
    limit: int = 1,
    now: datetime | None = None,
) -> list[Claim]:
    """Claim up to ``limit`` ready rows for ``owner``. Call inside a transaction.

    Rows whose lease expired come first, so that a dead worker's jobs are not starved by
    a steady flow of new ones. Each of the two picks walks an index and stops after
    ``limit`` rows; one ``WHERE ... OR ...`` would scan and sort every row of the table on
    every claim, slower with every item ever stored.
    """
    now = now or utcnow()
    params = {"now": now, "owner": owner, "until": now + timedelta(seconds=lease_seconds)}
    postgres = session.get_bind().dialect.name == "postgresql"
    st = _claim_statements(spec, postgres, limit)
    if postgres:
        rows = session.execute(st.take, params).all()
        return [Claim(r.id, r.attempts, expired=r.state == spec.running) for r in rows]
    picks = list(session.execute(st.expired, params).all())
    if len(picks) < limit:
        picks += session.execute(st.ready, params).all()
    picks = picks[:limit]
    if not picks:
        return []
    session.execute(st.take, {**params, "ids": [r.id for r in picks]})
    return [Claim(r.id, r.attempts + 1, expired=r.state == spec.running) for r in picks]


def renew(
    session: Session,
    spec: QueueSpec,
    job_id: int,
    owner: str,
    lease_seconds: float,
    attempts: int | None = None,
) -> bool:
    """Extend the lease. False when the job is no longer running under any worker (it was
    finished, or deleted): nothing to renew. Raise LeaseLost when another worker owns it,
    or, given the claim's ``attempts``, when another worker claimed it since (its count
    is higher) and finished it already."""
    t = spec.table.__table__.c
    res = session.execute(
        update(spec.table.__table__)
        .where(t.id == job_id, t.lease_owner == owner, t.state == spec.running)
        .values(lease_until=utcnow() + timedelta(seconds=lease_seconds), **_unchanged(t))
    )
    if res.rowcount == 1:  # type: ignore[attr-defined]
        return True
    # A heartbeat that fires between the job's finish and the end of its block finds the
    # row finished: that is no loss, and reporting it as one sent operators hunting.
    row = session.execute(
        select(t.lease_owner, t.state, t.attempts).where(t.id == job_id)
    ).one_or_none()
    if row is None:
        return False
    if row.state == spec.running:
        raise LeaseLost(
            f"lease on {spec.table.__tablename__} {job_id} lost by {owner} to {row.lease_owner}"
        )
    if attempts is not None and row.attempts > attempts:
        # Not this worker's finish: one that took the job over (this worker's lease ran
        # out while its heartbeat could not reach the database) finished it meanwhile.
        # Taken for finished, the job went on paying for calls (a repair) whose result
        # the store refuses.
        raise LeaseLost(
            f"lease on {spec.table.__tablename__} {job_id} lost by {owner}: "
            "another worker took it over and finished it"
        )
    return False


@functools.cache
def _finish_statement(spec: QueueSpec, names: tuple[str, ...]) -> Any:
    """``finish`` for one set of column names, built once (it runs for every job)."""
    c = spec.table.__table__.c
    return (
        update(spec.table.__table__)
        .where(c.id == bindparam("job_id"), c.lease_owner == bindparam("owner"))
        .where(c.state == spec.running)
        .values(lease_owner=None, lease_until=None, **{n: bindparam(f"v_{n}") for n in names})
    )


# An error text kept with a job: a failing statement's text or a parser's complaint can
# run to megabytes (a 70,000-entry feed's SQL was stored and served whole).
ERROR_TEXT_CHARS = 4000
_ERROR_COLUMNS = ("error", "last_error")


def error_text(text: str, limit: int = ERROR_TEXT_CHARS) -> str:
    """``text`` as stored with a job: its start and its end when it is longer than
    ``limit`` (the cause of a chained error is at the end)."""
    if len(text) <= limit:
        return text
    half = (limit - 60) // 2  # 60: room for the mark
    return f"{text[:half]} [... {len(text) - 2 * half:,} characters cut ...] {text[-half:]}"


def finish(session: Session, spec: QueueSpec, job_id: int, owner: str, **values: Any) -> None:
    """Leave the running state (``values`` sets the new state and results), fenced by owner."""
    for column in _ERROR_COLUMNS:
        if isinstance(values.get(column), str):
            values[column] = error_text(values[column])
    names = tuple(sorted(values))
    params = {f"v_{n}": values[n] for n in names}
    res = session.execute(
        _finish_statement(spec, names), {"job_id": job_id, "owner": owner, **params}
    )
    if res.rowcount != 1:  # type: ignore[attr-defined]
        raise LeaseLost(f"lease on {spec.table.__tablename__} {job_id} lost by {owner}")


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
    refund: bool = False,
) -> bool:
    """Back off (True) or, out of attempts, fail for good (False). ``refund``: the attempt
    was no fault of the job's (it probed an endpoint known to be down), so it is given
    back and never the last."""
    if attempts >= max_attempts and not refund:
        finish(session, spec, job_id, owner, state=failed_state, **{error_column: error})
        return False
    extra = {"attempts": attempts - 1} if refund else {}
    finish(
        session,
        spec,
        job_id,
        owner,
        state=spec.ready,
        next_attempt_at=utcnow() + timedelta(seconds=delay),
        **{error_column: error},
        **extra,
    )
    return True


def release(session: Session, spec: QueueSpec, job_id: int, owner: str) -> None:
    """Give a claimed row back untouched (graceful shutdown): the attempt is not counted."""
    t = spec.table.__table__.c
    session.execute(
        update(spec.table.__table__)
        .where(t.id == job_id, t.lease_owner == owner, t.state == spec.running)
        .values(
            state=spec.ready,
            lease_owner=None,
            lease_until=None,
            attempts=t.attempts - 1,
            next_attempt_at=utcnow(),
            **_unchanged(t),
        )
    )
