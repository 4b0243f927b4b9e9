"""If-Modified-Since read as RFC 9110 13.1.3 says: a date later than the server's current
time is invalid, and the condition is ignored (the document is sent, 200).

A reader that sent "Fri, 31 Dec 9999 23:59:59 GMT" (a clock set wrong, a cache that
pins a date) was told 304 for every later version of the Atom feeds and of the static
files, and so never saw one. The Atom routes compare with :func:`modified_since`; the
static mounts (Starlette's StaticFiles, the docs' assets) see the header only through
:class:`IgnoreFutureDates`, which drops it.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from starlette.types import ASGIApp, Receive, Scope, Send


def modified_since(value: str | None, now: datetime) -> datetime | None:
    """The time an If-Modified-Since ``value`` asks about, or None when the condition is
    to be ignored: absent, not an HTTP-date, or later than ``now`` (an aware time)."""
    if not value:
        return None
    try:
        since = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    return None if since > now else since


class IgnoreFutureDates:
    """Drops an If-Modified-Since header the server is to ignore (:func:`modified_since`)
    before any route or mount reads it."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = scope.get("headers", [])
            ims = [v for k, v in headers if k == b"if-modified-since"]
            now = datetime.now(UTC)
            if ims and any(modified_since(v.decode("latin-1"), now) is None for v in ims):
                scope = dict(scope)
                scope["headers"] = [(k, v) for k, v in headers if k != b"if-modified-since"]
        await self.app(scope, receive, send)
