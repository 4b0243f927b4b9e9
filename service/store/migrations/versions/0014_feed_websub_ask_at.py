"""feeds.websub_ask_at, feeds.websub_asks: when to ask the hub again for a request it
has not verified, and how often it was asked

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-03 10:00:00

A renewal the hub took (2xx) but never verified (the hub lost it: restarted, its queue
dropped) was not asked again within the lease: the subscription sat ``pending-renewal``
and expired when the lease ended, while the hub would have renewed it if asked again. A
pending renewal or subscribe is now asked again at ``websub_ask_at``, at growing
intervals (``websub_asks`` asks so far), while its time runs. Existing rows start with
none: a pending renewal or subscribe with no time is asked again at the workers' next
look.
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feeds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("websub_ask_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(
            sa.Column("websub_asks", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    # In place, not by batch mode's copy of the table: on SQLite, with foreign keys on
    # (service.store.db), the copy's drop of the old table deleted the rows that refer to
    # it (ON DELETE CASCADE) or unlinked them (SET NULL). SQLite drops a plain column
    # itself since 3.35; an older one can only copy.
    if op.get_bind().dialect.name == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
        with op.batch_alter_table("feeds", schema=None) as batch_op:
            batch_op.drop_column("websub_asks")
            batch_op.drop_column("websub_ask_at")
        return
    op.drop_column("feeds", "websub_asks")
    op.drop_column("feeds", "websub_ask_at")
