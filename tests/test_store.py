"""Storage: migrations applied at start agree with the table definitions, on both
backends, and re-running them is harmless."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect

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
