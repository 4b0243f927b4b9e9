"""reader indexes: published items by time, outbound deliveries by subscriber and claim

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 16:00:00

The Atom feeds' validator (count and newest times of published items) and their newest
entries read ``ix_items_published`` (all feeds) or ``ix_items_feed_published`` (one feed)
instead of scanning every item (on SQLite that scan walks each post's full text). ``ix_outbound_claim`` is the claim index of the
outbound queue, as ``ix_items_claim`` is for items; ``ix_outbound_subscriber`` serves
``GET /subscribers/{id}/deliveries``.
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.create_index(
            "ix_items_published", ["state", "published_at", "updated_at"], unique=False
        )
        batch_op.create_index(
            "ix_items_feed_published",
            ["feed_id", "state", "published_at", "updated_at"],
            unique=False,
        )
    with op.batch_alter_table("outbound_deliveries", schema=None) as batch_op:
        batch_op.create_index("ix_outbound_claim", ["state", "next_attempt_at"], unique=False)
        batch_op.create_index("ix_outbound_subscriber", ["subscriber_id", "id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("outbound_deliveries", schema=None) as batch_op:
        batch_op.drop_index("ix_outbound_subscriber")
        batch_op.drop_index("ix_outbound_claim")
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.drop_index("ix_items_feed_published")
        batch_op.drop_index("ix_items_published")
