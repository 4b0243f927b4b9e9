"""feed_removals: when a feed went with its items

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30 08:45:00

Removing a feed deletes its published items, and with them entries of the feed of all
feeds; nothing stored said when, so that feed's Last-Modified stayed at its newest
remaining entry and a reader asking If-Modified-Since kept the removed entries. A row per
removal dates it (and records what went, for the operator).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "feed_removals",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("feed_id", sa.Integer(), nullable=False),
        sa.Column("url", sa.String(2048), nullable=False),
        sa.Column("items", sa.Integer(), nullable=False),
        sa.Column("published", sa.Integer(), nullable=False),
        sa.Column("removed_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_feed_removals_removed_at", "feed_removals", ["removed_at"])


def downgrade() -> None:
    op.drop_index("ix_feed_removals_removed_at", table_name="feed_removals")
    op.drop_table("feed_removals")
