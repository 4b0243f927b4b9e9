"""Storage: migrations applied at start agree with the table definitions, on both
backends, and re-running them is harmless; a migration that changes what the workers do
with existing rows is tested over such rows."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect, select, text
from sqlalchemy.orm import sessionmaker

from service import websub
from service.errors import StoreError
from service.pipeline import subscriptions
from service.store import tables as t
from service.store.db import MIGRATIONS, make_engine, migrate
from service.store.tables import Base
from tests.conftest import make_settings
from tests.migration_helpers import migrated_over


def test_migrations_match_the_tables(db: Engine) -> None:
    with db.connect() as conn:
        ctx = MigrationContext.configure(conn, opts={"compare_type": False})
        diff = compare_metadata(ctx, Base.metadata)
    assert diff == []


def test_migrate_is_idempotent(db: Engine) -> None:
    migrate(db)
    migrate(db)
    names = set(inspect(db).get_table_names())
    assert {"feeds", "deliveries", "items", "explainers", "llm_calls"} <= names


def test_a_schema_from_a_newer_version_is_refused_not_upgraded(db: Engine) -> None:
    with db.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = 'from_the_future'"))
    with pytest.raises(StoreError, match=r"revision from_the_future.*a newer Plainfeed"):
        migrate(db)
    # Left as it was, and the advisory lock given back: the next try fails the same way.
    with pytest.raises(StoreError, match="a newer Plainfeed"):
        migrate(db)
    with db.connect() as conn:
        assert MigrationContext.configure(conn).get_current_heads() == ("from_the_future",)


def test_migration_0014_gives_a_pending_renewal_its_next_ask(db_url: str) -> None:
    """0014 (feeds.websub_ask_at, feeds.websub_asks) over a database at 0013 holding a
    renewal the hub has not verified: the row keeps its state and lease, with no next ask
    and no ask counted; the workers' next look gives it one (asked again then, not at
    once: it may have been asked just now), and 0014 comes down again."""
    ends = datetime.now(UTC) + timedelta(minutes=30)
    feed = {
        "hub_url": "https://hub.example.com/",
        "websub_state": websub.RENEWING,
        "websub_secret": "s",
        "websub_lease_until": ends,
    }
    with migrated_over(db_url, "0013", feed, {"websub_ask_at", "websub_asks"}) as engine:
        with engine.connect() as conn:
            row = conn.execute(
                text("SELECT websub_state, websub_ask_at, websub_asks FROM feeds")
            ).one()
        assert tuple(row) == (websub.RENEWING, None, 0)
        looked = datetime.now(UTC)
        renewer = subscriptions.Renewer(make_settings(db_url), sessionmaker(engine))
        assert renewer("test") is False  # nothing due: the next ask is ahead
        with sessionmaker(engine)() as s:
            got = s.scalars(select(t.Feed)).one()
        assert (got.websub_state, got.websub_lease_until) == (websub.RENEWING, ends)
        assert got.websub_asks == 1
        assert got.websub_ask_at >= looked + websub.ASK_AGAIN_FIRST


def test_migration_0015_keeps_a_pending_unsubscribe_as_it_was(db_url: str) -> None:
    """0015 (feeds.websub_hub_lease_until) over a database at 0014 holding a pending
    unsubscribe: it keeps its state and give-up time, with no hub lease kept (a
    subscribe superseding it waits for the hub as before), and 0015 comes down again."""
    until = datetime.now(UTC) + timedelta(minutes=30)
    feed = {"websub_state": websub.PENDING_UNSUBSCRIBE, "websub_lease_until": until}
    with migrated_over(db_url, "0014", feed, {"websub_hub_lease_until"}) as engine:
        with sessionmaker(engine)() as s:
            got = s.scalars(select(t.Feed)).one()
        assert (got.websub_state, got.websub_lease_until) == (websub.PENDING_UNSUBSCRIBE, until)
        assert got.websub_hub_lease_until is None


def test_migration_0016_keeps_the_hubs_default_lease_for_existing_subscriptions(
    db_url: str,
) -> None:
    """0016 (feeds.websub_lease_seconds) over a database at 0015 holding an active
    subscription: no lease asked for (the hub's default, as its renewals asked before),
    and 0016 comes down again."""
    until = datetime.now(UTC) + timedelta(days=3)
    feed = {"websub_state": websub.ACTIVE, "websub_lease_until": until}
    with migrated_over(db_url, "0015", feed, {"websub_lease_seconds"}) as engine:
        with sessionmaker(engine)() as s:
            got = s.scalars(select(t.Feed)).one()
        assert (got.websub_state, got.websub_lease_until) == (websub.ACTIVE, until)
        assert got.websub_lease_seconds is None


# The rows each table refers to: a copy of a table (SQLite's batch mode) dropping the old
# one took them with it (ON DELETE CASCADE) or unlinked them (SET NULL).
_LINKS = (
    "SELECT feed_id FROM items",
    "SELECT delivery_id FROM items",
    "SELECT feed_id FROM deliveries",
    "SELECT item_id FROM explainers",
    "SELECT subscriber_id FROM outbound_deliveries",
)


def test_migrations_come_down_keeping_the_rows_that_refer_to_a_table(db_url: str) -> None:
    # Down to 0002, each revision's column dropped from a table that others refer to
    # (feeds, deliveries, items, subscribers). On SQLite (foreign keys on) batch mode
    # copied the table and dropped the old one: every item, explainer and outbound
    # delivery was deleted, and deliveries were unlinked from their feeds.
    engine = make_engine(db_url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    try:
        migrate(engine)
        with sessionmaker(engine).begin() as s:
            feed = t.Feed(url="https://example.com/feed")
            sub = t.Subscriber(url="https://hooks.example/h", secret="whsec_x")
            s.add_all([feed, sub])
            s.flush()
            delivery = t.Delivery(external_id="d-1", feed_id=feed.id)
            s.add(delivery)
            s.flush()
            item = t.Item(feed_id=feed.id, key="k-1", content_hash="h", delivery_id=delivery.id)
            s.add(item)
            s.flush()
            s.add(
                t.Explainer(
                    item_id=item.id,
                    content_hash="h",
                    prompt_version="p",
                    model="m",
                    engine="llm",
                    body={},
                )
            )
            s.add(
                t.OutboundDelivery(
                    subscriber_id=sub.id, event_id="e-1", event_type="item.published", payload={}
                )
            )
        with engine.connect() as conn:
            before = [conn.execute(text(q)).scalars().all() for q in _LINKS]
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "0002")
            conn.commit()
            after = [conn.execute(text(q)).scalars().all() for q in _LINKS]
    finally:
        engine.dispose()
    assert all(len(rows) == 1 and rows[0] is not None for rows in before), before
    assert after == before


def test_a_postgres_connection_probes_its_server_and_bounds_its_writes(pg_url: str) -> None:
    # libpq waits the kernel's 2 hours before its first keepalive probe and ~15 minutes
    # for an unacknowledged write: a worker on a connection to a host gone was held that
    # long. What the server's own socket reports of this connection's options is not the
    # client's, so libpq's own parameters are read; a URL's own value wins.
    def params(url: str) -> dict[str, str]:
        engine = make_engine(url)
        try:
            with engine.connect() as conn:
                info = conn.connection.dbapi_connection.info  # type: ignore[union-attr]
                return dict(info.get_parameters())
        finally:
            engine.dispose()

    given = params(pg_url)
    assert given["keepalives"] == "1"
    assert (given["keepalives_idle"], given["keepalives_interval"]) == ("30", "10")
    assert (given["keepalives_count"], given["tcp_user_timeout"]) == ("3", "60000")
    assert given["connect_timeout"] == "10"
    sep = "&" if "?" in pg_url else "?"
    assert params(f"{pg_url}{sep}keepalives_idle=5")["keepalives_idle"] == "5"
