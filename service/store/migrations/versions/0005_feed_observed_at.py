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
    with op.batch_alter_table("feeds", schema=None) as batch_op:
        batch_op.drop_column("observed_at")
