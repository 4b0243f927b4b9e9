"""items.entry_date: the date the feed gives the stored version of an entry

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30 08:00:00

An older version of a feed delivered after a newer one (a WebSub hub retrying an old
distribution, a monitor replaying an old record, two workers committing two documents of
one feed) put every entry edited in between back to its older text and queued it to be
explained again. Each item now keeps the entry's own date of the version stored (its
``updated``, else ``published``): a version dated before it does not replace it. Rows
stored before have none (unknown: any version with other text replaces them, as before).
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.add_column(sa.Column("entry_date", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # In place, not by batch mode's copy of the table: on SQLite, with foreign keys on
    # (service.store.db), the copy's drop of the old table deleted the rows that refer to
    # it (ON DELETE CASCADE) or unlinked them (SET NULL). SQLite drops a plain column
    # itself since 3.35; an older one can only copy.
    if op.get_bind().dialect.name == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
        with op.batch_alter_table("items", schema=None) as batch_op:
            batch_op.drop_column("entry_date")
        return
    op.drop_column("items", "entry_date")
