"""feeds.url_error: why a feed's stored URL is never fetched

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-05 10:00:00

POST /feeds and `plainfeed feeds add` take an absolute http(s) URL with a host and no
credentials; feeds stored before they checked may hold a "javascript:", "file:" or
"ftp:" URL, or one with no host. Those were never fetched (the fetch refuses them: a
delivery without a document failed on each try) and were shown as a URL, as if
nothing were wrong. Each is marked here with why, shown by GET /feeds and `plainfeed
feeds list`, and a delivery without a document for it is refused at once. A feed's URL
is its identity and does not change: remove the feed, and register its http(s) URL.

An address of the form "urn:plainfeed:title:..." is not marked: a feed that names no
URL is known by its title, by design, and takes documents, never a fetch. The rule is
written out here, not imported: what this revision marks does not change with the code.
"""

from __future__ import annotations

import sqlite3
from urllib.parse import urlsplit

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

_FIX = "it is never fetched: remove the feed and register its http(s) URL"


def url_error(url: str) -> str | None:
    """Why POST /feeds would refuse ``url`` (as of this revision), or None."""
    if url.startswith("urn:plainfeed:title:"):
        return None
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018  # raises for a port out of range or not a number
    except ValueError as exc:
        return f"not a valid URL ({exc}): {_FIX}"
    if parts.scheme.lower() not in ("http", "https"):
        scheme = f"a {parts.scheme}: URL" if parts.scheme else "a URL with no scheme"
        return f"not an http(s) URL but {scheme}, stored before feed URLs were checked: {_FIX}"
    if not parts.hostname:
        return f"a URL with no host, stored before feed URLs were checked: {_FIX}"
    if parts.username or parts.password:
        return f"a URL with credentials, stored before feed URLs were checked: {_FIX}"
    return None


def upgrade() -> None:
    with op.batch_alter_table("feeds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("url_error", sa.Text(), nullable=True))
    feeds = sa.table("feeds", sa.column("id", sa.Integer), sa.column("url", sa.String))
    marked = sa.table("feeds", sa.column("id", sa.Integer), sa.column("url_error", sa.Text))
    conn = op.get_bind()
    for fid, url in conn.execute(sa.select(feeds.c.id, feeds.c.url)).all():
        error = url_error(url)
        if error is not None:
            conn.execute(sa.update(marked).where(marked.c.id == fid).values(url_error=error))


def downgrade() -> None:
    # Dropped in place, not by batch mode's copy of the table: the copy drops the old
    # table, which on SQLite with foreign keys on (service.store.db) deleted every item
    # of every feed (ON DELETE CASCADE) and unlinked every delivery. SQLite drops a plain
    # column itself since 3.35; an older one can only copy.
    if op.get_bind().dialect.name == "sqlite" and sqlite3.sqlite_version_info < (3, 35):
        with op.batch_alter_table("feeds", schema=None) as batch_op:
            batch_op.drop_column("url_error")
        return
    op.drop_column("feeds", "url_error")
