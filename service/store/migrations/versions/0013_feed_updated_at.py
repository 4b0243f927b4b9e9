"""feeds.updated_at: when what the Atom feeds show of a feed itself last changed

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02 10:00:00

A rename or a new language changes a feed's Atom document (its title, its entries'
xml:lang and authors in the feed of all feeds), and its ETag did change, but its
Last-Modified is its items' newest publication or change: a reader asking only
If-Modified-Since was told 304 and kept the old document. The time of such a change is
kept here and Last-Modified moves on with it. Existing feeds start with none (nothing
stored says when they were last renamed; their Last-Modified is as it was).
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feeds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("updated_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    # In place, not by batch mode's copy of the table: on SQLite, with foreign keys on
    # (service.store.db), the copy's drop of the old table deleted the rows that refer to
    # it (ON DELETE CASCADE) or unlinked them (SET NULL). SQLite drops a plain column
    # itself since 3.35; an older one can only copy.
    if op.get_bind().dialect.name == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
        with op.batch_alter_table("feeds", schema=None) as batch_op:
            batch_op.drop_column("updated_at")
        return
    op.drop_column("feeds", "updated_at")
