"""feeds.websub_lease_seconds: the lease the operator asked the hub for

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-04 12:00:00

`plainfeed feeds subscribe --lease-seconds N` asked the hub for N seconds once; the
workers' renewals and the requests they ask again (the hub may lose one) asked for none,
so the hub's default lease replaced the one chosen. The lease asked for is kept here
once the hub takes the request, and every later ask repeats it. Existing rows start with
none (the hub's default, as their renewals asked before).
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feeds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("websub_lease_seconds", sa.Integer(), nullable=True))


def downgrade() -> None:
    # In place, not by batch mode's copy of the table: on SQLite, with foreign keys on
    # (service.store.db), the copy's drop of the old table deleted the rows that refer to
    # it (ON DELETE CASCADE) or unlinked them (SET NULL). SQLite drops a plain column
    # itself since 3.35; an older one can only copy.
    if op.get_bind().dialect.name == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
        with op.batch_alter_table("feeds", schema=None) as batch_op:
            batch_op.drop_column("websub_lease_seconds")
        return
    op.drop_column("feeds", "websub_lease_seconds")
