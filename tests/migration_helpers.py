"""A database migrated over rows stored at an older revision, for the tests of a migration
that changes what the workers do with existing rows."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, inspect, text

from service.store.db import MIGRATIONS, make_engine, migrate


@contextmanager
def migrated_over(
    db_url: str,
    before: str,
    feed: dict[str, object],
    gone: set[str],
    more: Sequence[dict[str, object]] = (),
) -> Iterator[Engine]:
    """A database at revision ``before`` holding one feed row (``feed``: its websub
    columns; ``more``: further rows, each with its own url), migrated to the head; after
    the block it comes down to ``before`` again, and the columns ``gone`` with it."""
    engine = make_engine(db_url)
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    first = {"url": "https://example.com/feed", **feed}
    rows = [{"created_at": datetime.now(UTC), **r} for r in (first, *more)]
    try:
        with engine.connect() as conn:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, before)
            for row in rows:
                conn.execute(
                    text(f"INSERT INTO feeds ({', '.join(row)}) VALUES (:{', :'.join(row)})"),
                    row,
                )
            conn.commit()
        migrate(engine)
        yield engine
        with engine.connect() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, before)
            conn.commit()
            columns = {c["name"] for c in inspect(conn).get_columns("feeds")}
        assert not gone & columns
    finally:
        engine.dispose()
