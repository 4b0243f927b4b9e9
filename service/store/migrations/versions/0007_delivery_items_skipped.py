"""deliveries.items_skipped: new entries of a feed's first delivery stored, not explained

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30 07:30:00

Subscribing to a feed of hundreds of entries explained every one of them. A feed's first
delivery now explains its newest PLAINFEED_FIRST_DELIVERY_MAX_ITEMS entries and stores
the others as ``skipped`` items (seen, so a later delivery does not take them for new);
the delivery counts them here.
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("items_skipped", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    # In place, not by batch mode's copy of the table: on SQLite, with foreign keys on
    # (service.store.db), the copy's drop of the old table deleted the rows that refer to
    # it (ON DELETE CASCADE) or unlinked them (SET NULL). SQLite drops a plain column
    # itself since 3.35; an older one can only copy.
    if op.get_bind().dialect.name == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
        with op.batch_alter_table("deliveries", schema=None) as batch_op:
            batch_op.drop_column("items_skipped")
        return
    op.drop_column("deliveries", "items_skipped")
