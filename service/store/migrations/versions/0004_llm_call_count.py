"""llm call count: how many model calls each llm_calls row stands for

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30 04:45:00

A row records one explain attempt, which is one call or many (re-asks, the parts of a
long post, repairs): ``GET /stats`` counted rows as calls. Rows written before this
revision count as one call each.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("llm_calls", schema=None) as batch_op:
        batch_op.add_column(sa.Column("calls", sa.Integer(), nullable=False, server_default="1"))


def downgrade() -> None:
    with op.batch_alter_table("llm_calls", schema=None) as batch_op:
        batch_op.drop_column("calls")
