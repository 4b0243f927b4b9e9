"""feeds.websub_error: why the last request to a feed's WebSub hub failed

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 11:00:00

An unsubscribe whose hub could not be reached (or refused it) puts the feed back to
``active``, rightly: the hub may still push. But a feed with an active subscription
cannot be removed, and nothing said why the unsubscribe had not taken: a feed whose hub
is gone could never be removed. The hub's failure is kept here and named when a removal
is refused; ``DELETE /feeds/{id}?force=true`` (``plainfeed feeds remove ID --yes
--force``) removes the feed anyway (the hub's next push is answered 410 Gone).
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feeds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("websub_error", sa.Text(), nullable=True))


def downgrade() -> None:
    # In place, not by batch mode's copy of the table: on SQLite, with foreign keys on
    # (service.store.db), the copy's drop of the old table deleted the rows that refer to
    # it (ON DELETE CASCADE) or unlinked them (SET NULL). SQLite drops a plain column
    # itself since 3.35; an older one can only copy.
    if op.get_bind().dialect.name == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
        with op.batch_alter_table("feeds", schema=None) as batch_op:
            batch_op.drop_column("websub_error")
        return
    op.drop_column("feeds", "websub_error")
