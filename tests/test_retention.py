"""Retention: finished work past PLAINFEED_RETENTION_DAYS loses its raw body (deliveries)
or goes (outbound deliveries); work still to do and the product itself stay. On SQLite
and PostgreSQL, through the store, the worker's hourly job and ``plainfeed prune``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session, sessionmaker

from service import retention
from service.store import tables as t
from service.store.db import make_sessionmaker, transaction
from tests.cli_helpers import assert_bad_input, plainfeed
from tests.conftest import make_settings
from tests.seed_db import add_feed, add_item

NOW = datetime.now(UTC)
OLD = NOW - timedelta(days=31)
NEW = NOW - timedelta(days=29)

# (external id, state, received) of each delivery; its body is the id's bytes.
DELIVERIES = [
    ("old-processed", "processed", OLD),
    ("old-failed", "failed", OLD),
    ("old-received", "received", OLD),  # never processed: still work to do
    ("new-processed", "processed", NEW),
]
# (state, created) of each outbound delivery.
OUTBOUND = [
    ("delivered", OLD),
    ("failed", OLD),
    ("cancelled", OLD),
    ("pending", OLD),  # still to be sent
    ("sending", OLD),
    ("delivered", NEW),
]


# (key, the claim's item processing under its owner, created) of each explain claim.
CLAIMS = [
    ("old-dead", False, OLD),  # its worker died: nobody will ever remove it
    ("old-alive", True, OLD),  # its worker still holds it (a long explanation)
    ("new-dead", False, NEW),
]


def _seed(sessions: sessionmaker[Session]) -> None:
    fid = add_feed(sessions)
    kept = add_item(sessions, fid, title="Kept", text="It runs 1.5x faster.")
    with transaction(sessions) as s:
        item = s.get_one(t.Item, kept)
        item.state, item.lease_owner = "processing", "worker-1"
        item.lease_until = NOW + timedelta(minutes=5)
        for key, alive, created in CLAIMS:
            owner = "worker-1" if alive else "worker-gone"
            s.add(
                t.ExplainClaim(
                    key=key, content_hash="h", item_id=kept, owner=owner, created_at=created
                )
            )
        for external_id, state, received in DELIVERIES:
            s.add(
                t.Delivery(
                    external_id=external_id,
                    feed_id=fid,
                    headers={"webhook-id": external_id},
                    body=external_id.encode(),
                    state=state,
                    received_at=received,
                    next_attempt_at=received,
                )
            )
        sub = t.Subscriber(feed_id=fid, url="https://example.org/h", secret="s", events=[])
        s.add(sub)
        s.flush()
        for n, (state, created) in enumerate(OUTBOUND):
            s.add(
                t.OutboundDelivery(
                    subscriber_id=sub.id,
                    event_id=f"msg_{n}",
                    event_type="explainer.published",
                    payload={"n": n},
                    state=state,
                    created_at=created,
                    next_attempt_at=created,
                )
            )


def _left(sessions: sessionmaker[Session]) -> tuple[dict[str, bytes | None], list[str]]:
    with sessions() as s:
        bodies = {d.external_id: d.body for d in s.scalars(select(t.Delivery))}
        limit = NOW - timedelta(days=30)
        outbound = [
            f"{o.state}:{'old' if o.created_at.replace(tzinfo=UTC) < limit else 'new'}"
            for o in s.scalars(select(t.OutboundDelivery).order_by(t.OutboundDelivery.id))
        ]
        assert s.scalar(select(t.Item.title)) == "Kept"
    return bodies, outbound


def test_finished_work_past_the_period_is_pruned_and_nothing_else(db: Engine) -> None:
    sessions = make_sessionmaker(db)
    _seed(sessions)
    with sessions() as s:
        dry = retention.count(s, retention.cutoff(NOW, 30))
    assert dry == retention.Pruned(delivery_bodies=2, outbound_deliveries=3, explain_claims=1)
    assert _left(sessions)[1][0] == "delivered:old"  # a dry run changes nothing

    assert retention.prune(sessions, 30, now=NOW) == (dry, True)
    bodies, outbound = _left(sessions)
    assert bodies == {
        "old-processed": None,
        "old-failed": None,
        "old-received": b"old-received",
        "new-processed": b"new-processed",
    }
    assert outbound == ["pending:old", "sending:old", "delivered:new"]
    with sessions() as s:
        assert sorted(s.scalars(select(t.ExplainClaim.key))) == ["new-dead", "old-alive"]
    with sessions() as s:  # the row stays, its recorded headers with it
        kept = s.scalars(select(t.Delivery).where(t.Delivery.external_id == "old-processed"))
        assert kept.one().headers == {"webhook-id": "old-processed"}
    assert retention.prune(sessions, 30, now=NOW) == (retention.Pruned(), True)  # idempotent


def test_pruning_goes_in_batches(db: Engine) -> None:
    sessions = make_sessionmaker(db)
    _seed(sessions)
    before = retention.cutoff(NOW, 30)
    with transaction(sessions) as s:
        assert retention.prune_batch(s, before, batch=2) == retention.Pruned(2, 2, 1)
    with transaction(sessions) as s:
        assert retention.prune_batch(s, before, batch=2) == retention.Pruned(0, 1, 0)


def test_the_worker_job_prunes_once_an_hour(db: Engine, tmp_path: Path) -> None:
    sessions = make_sessionmaker(db)
    _seed(sessions)
    settings = make_settings(str(db.url), retention_days=30)
    # Not due yet: a process does not prune in its first minute.
    assert retention.Pruner(settings, sessions)("w") is False
    assert _left(sessions)[0]["old-processed"] == b"old-processed"
    job = retention.Pruner(settings, sessions, first_after=0)
    assert job("w") is False  # housekeeping is no work that skips the idle wait
    assert _left(sessions)[0]["old-processed"] is None
    with transaction(sessions) as s:
        old = s.scalars(select(t.Delivery).where(t.Delivery.external_id == "old-processed"))
        again = old.one()
        again.body = b"again"
    job("w")  # due again in an hour, not now
    assert _left(sessions)[0]["old-processed"] == b"again"
    never = make_settings(str(db.url), retention_days=0)
    assert retention.Pruner(never, sessions, first_after=0)("w") is False
    assert _left(sessions)[0]["old-processed"] == b"again"


def test_plainfeed_prune(tmp_path: Path) -> None:
    from service.store.db import make_engine, migrate

    db = make_engine(f"sqlite:///{tmp_path / 'cli.db'}")
    migrate(db)
    sessions = make_sessionmaker(db)
    _seed(sessions)
    dry = plainfeed(tmp_path, "prune", "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout.startswith(
        "would prune 2 delivery bodies, 3 outbound deliveries and 1 dead explain claims"
    )
    done = plainfeed(tmp_path, "prune", "--older-than", "30")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "pruned 2 delivery bodies, 3 outbound deliveries and 1 dead explain claims"
    )
    assert _left(sessions)[0]["old-processed"] is None
    off = plainfeed(tmp_path, "prune", env={"PLAINFEED_RETENTION_DAYS": "0"})
    assert_bad_input(off, "PLAINFEED_RETENTION_DAYS is 0 (keep for ever): give --older-than")
    bad = plainfeed(tmp_path, "prune", "--older-than", "-1")
    assert bad.returncode == 2 and "greater than or equal to 0" in bad.stderr


def test_a_backlog_is_pruned_turn_by_turn(db: Engine) -> None:
    """The worker prunes for a few seconds a turn (its thread sends the outbound events
    too): a backlog past one batch is left for the next turn, not done in one sitting."""
    sessions = make_sessionmaker(db)
    _seed(sessions)
    with transaction(sessions) as s:
        sub = s.scalars(select(t.Subscriber)).one()
        s.add_all(
            t.OutboundDelivery(
                subscriber_id=sub.id,
                event_id=f"msg_backlog_{n}",
                event_type="explainer.published",
                payload={},
                state="delivered",
                created_at=OLD,
                next_attempt_at=OLD,
            )
            for n in range(retention.BATCH)
        )
    first, finished = retention.prune(sessions, 30, now=NOW, seconds=0)
    assert not finished and first.outbound_deliveries == retention.BATCH
    rest, finished = retention.prune(sessions, 30, now=NOW, seconds=0)
    assert finished and rest.outbound_deliveries == 3  # the three of the seed
