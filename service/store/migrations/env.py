"""Alembic environment: runs on the connection that ``service.store.db.migrate`` hands in."""

from __future__ import annotations

from alembic import context

from service.store.tables import Base

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - only through service.store.db.migrate
    raise RuntimeError("run migrations through service.store.db.migrate()")

context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
