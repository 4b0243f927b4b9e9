"""Storage: migrations applied at start agree with the table definitions, on both
backends, and re-running them is harmless."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect, text

from service.errors import StoreError
from service.store.db import migrate
from service.store.tables import Base


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
