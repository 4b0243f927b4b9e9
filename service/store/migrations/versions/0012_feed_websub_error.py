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
    with op.batch_alter_table("feeds", schema=None) as batch_op:
        batch_op.drop_column("websub_error")
