"""feeds.observed_at: when the newest document applied to a feed was observed

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30 04:15:00

A change record says when its monitor observed the feed (``timestamp``). The newest such
time applied is kept per feed, so that a record observed earlier and delivered later (a
monitor's retry, or two workers taking two records at once) does not put an edited post
back to its older text.
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feeds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("observed_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # In place, not by batch mode's copy of the table: on SQLite, with foreign keys on
    # (service.store.db), the copy's drop of the old table deleted the rows that refer to
    # it (ON DELETE CASCADE) or unlinked them (SET NULL). SQLite drops a plain column
    # itself since 3.35; an older one can only copy.
    if op.get_bind().dialect.name == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
        with op.batch_alter_table("feeds", schema=None) as batch_op:
            batch_op.drop_column("observed_at")
        return
    op.drop_column("feeds", "observed_at")
