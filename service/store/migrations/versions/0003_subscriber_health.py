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

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("subscribers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("inactive_reason", sa.String(length=200), nullable=True))
        batch_op.add_column(
            sa.Column("failures", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("subscribers", schema=None) as batch_op:
        batch_op.drop_column("failures")
        batch_op.drop_column("inactive_reason")
