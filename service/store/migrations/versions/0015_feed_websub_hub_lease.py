"""feeds.websub_hub_lease_until: the hub's lease, kept while an unsubscribe is pending

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03 12:00:00

While an unsubscribe is pending, the lease column holds when it is given up, and the
lease the hub granted was lost: a subscribe asked then (the operator changed their mind)
supersedes the unsubscribe and renews the subscription the hub still holds, but knew no
lease to renew, so a renewal the hub never verified expired after the pending timeout
while the hub held days of lease. The lease is kept here when an unsubscribe is asked.
Existing rows start with none (a pending unsubscribe asked before: as before).
"""

from __future__ import annotations

import sqlite3

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("feeds", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("websub_hub_lease_until", sa.DateTime(timezone=True), nullable=True)
        )


def downgrade() -> None:
    # In place, not by batch mode's copy of the table: on SQLite, with foreign keys on
    # (service.store.db), the copy's drop of the old table deleted the rows that refer to
    # it (ON DELETE CASCADE) or unlinked them (SET NULL). SQLite drops a plain column
    # itself since 3.35; an older one can only copy.
    if op.get_bind().dialect.name == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
        with op.batch_alter_table("feeds", schema=None) as batch_op:
            batch_op.drop_column("websub_hub_lease_until")
        return
    op.drop_column("feeds", "websub_hub_lease_until")
