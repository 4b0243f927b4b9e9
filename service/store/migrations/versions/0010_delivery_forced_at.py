"""deliveries.forced_at: a delivery a person asked to apply over the evidence of order

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01 09:00:00

A publisher's rollback (an edit undone together with its date) is refused as an older
version, rightly by the evidence; nothing let a person say it must be applied. A delivery
retried with ``force`` (``POST /deliveries/{id}/retry?force=true``, ``plainfeed
deliveries retry ID --force``) applies its version however dated; when that was asked is
kept on the delivery, beside what it applied (its ``problems``).
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.add_column(sa.Column("forced_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # In place, not by batch mode's copy of the table: on SQLite, with foreign keys on
    # (service.store.db), the copy's drop of the old table deleted the rows that refer to
    # it (ON DELETE CASCADE) or unlinked them (SET NULL). SQLite drops a plain column
    # itself since 3.35; an older one can only copy.
    if op.get_bind().dialect.name == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
        with op.batch_alter_table("deliveries", schema=None) as batch_op:
            batch_op.drop_column("forced_at")
        return
    op.drop_column("deliveries", "forced_at")
