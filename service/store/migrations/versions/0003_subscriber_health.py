"""subscriber health: why a subscriber is inactive, and its failures in a row

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30 04:10:00

``inactive_reason`` says why a subscriber stopped receiving (unsubscribed, 410 Gone, too
many failed deliveries in a row); ``failures`` counts its deliveries that ended
``failed`` since the last one delivered, and deactivates it at
``PLAINFEED_OUTBOUND_DISABLE_AFTER``.
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("subscribers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("inactive_reason", sa.String(length=200), nullable=True))
        batch_op.add_column(sa.Column("failures", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    # In place, not by batch mode's copy of the table: on SQLite, with foreign keys on
    # (service.store.db), the copy's drop of the old table deleted the rows that refer to
    # it (ON DELETE CASCADE) or unlinked them (SET NULL). SQLite drops a plain column
    # itself since 3.35; an older one can only copy.
    if op.get_bind().dialect.name == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
        with op.batch_alter_table("subscribers", schema=None) as batch_op:
            batch_op.drop_column("failures")
            batch_op.drop_column("inactive_reason")
        return
    op.drop_column("subscribers", "failures")
    op.drop_column("subscribers", "inactive_reason")
