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
    with op.batch_alter_table("deliveries", schema=None) as batch_op:
        batch_op.drop_column("forced_at")
