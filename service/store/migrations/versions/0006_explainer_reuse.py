"""explainers.inputs_key and reused_from: one explainer per post, whatever feeds carry it

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30 07:00:00

The same post under two feeds (or re-added under a new feed) was explained twice: the
stored-explainer lookup looked at the item's own explainers only. ``inputs_key`` is a
digest of what besides the text and the templates an explainer is written from (title,
author, date, url, the feed's audience and language); ``ix_explainers_reuse`` finds an
explainer of any item by (content hash, inputs key), and ``reused_from`` names the one
an explainer was copied from. Explainers stored before have no key and are not reused.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("explainers", schema=None) as batch_op:
        batch_op.add_column(sa.Column("inputs_key", sa.String(length=64), nullable=True))
        batch_op.add_column(sa.Column("reused_from", sa.Integer(), nullable=True))
        batch_op.create_index("ix_explainers_reuse", ["content_hash", "inputs_key"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("explainers", schema=None) as batch_op:
        batch_op.drop_index("ix_explainers_reuse")
        batch_op.drop_column("reused_from")
        batch_op.drop_column("inputs_key")
