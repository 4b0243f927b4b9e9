"""explain_claims, items.review_declined: one model call per post at a time, held
explainers reused

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 10:00:00

Two workers explaining items of the same post at once (the same post in two feeds) both
called the model: the reuse of an explainer only finds one already stored. A worker now
claims the explanation of a (content hash, inputs, prompt version, model) before it calls
the model; another worker of an item with the same key waits for that explainer. The
claim lives as long as its holder's lease on its item (a dead worker's claim is taken
over when that lease runs out).

A post whose explainer was held for review was paid for again under each other feed;
its held explainer is now copied too, except to an item whose reviewer sent that post's
held explainer back (``review_declined``: the content hash it was of).
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "explain_claims",
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("item_id", sa.Integer(), nullable=False),
        sa.Column("owner", sa.String(128), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_explain_claims_item_id", "explain_claims", ["item_id"])
    with op.batch_alter_table("items", schema=None) as batch_op:
        batch_op.add_column(sa.Column("review_declined", sa.String(64), nullable=True))


def downgrade() -> None:
    # In place, not by batch mode's copy of the table: on SQLite, with foreign keys on
    # (service.store.db), the copy's drop of the old table deleted the rows that refer to
    # it (ON DELETE CASCADE) or unlinked them (SET NULL). SQLite drops a plain column
    # itself since 3.35; an older one can only copy.
    if op.get_bind().dialect.name == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
        with op.batch_alter_table("items", schema=None) as batch_op:
            batch_op.drop_column("review_declined")
    else:
        op.drop_column("items", "review_declined")
    op.drop_index("ix_explain_claims_item_id", table_name="explain_claims")
    op.drop_table("explain_claims")
