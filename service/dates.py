"""Dates as the pipeline keeps them: timezone-aware, in UTC."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


def utc_from_iso(value: object) -> datetime | None:
    """An ISO 8601 / RFC 3339 date-time string as an aware UTC datetime (naive means UTC);
    None when it is missing or does not parse."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        dt = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return _in_utc(dt)


def utc_from_struct(parsed: time.struct_time | None) -> datetime | None:
    """A UTC ``struct_time`` (what feedparser's ``*_parsed`` fields hold) as a datetime."""
    if not parsed:
        return None
    try:
        return datetime(*parsed[:6], tzinfo=UTC)
    except (TypeError, ValueError):
        return None


def utc_from_http(value: object) -> datetime | None:
    """An HTTP date (``Last-Modified``: ``Tue, 22 Sep 2026 15:45:46 GMT``, or the obsolete
    forms email.utils reads) as an aware UTC datetime; None when missing or unreadable."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        dt = parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return _in_utc(dt)


def _in_utc(dt: datetime) -> datetime | None:
    """``dt`` in UTC (naive means UTC); None when UTC has no such time: "9999-12-31T23:59:59
    -01:00" is past the calendar's end there, and the OverflowError of the conversion
    failed a whole delivery for one entry's date (JSON Feed), or escaped the worker (a
    change record's timestamp) and left the delivery to its lease."""
    if dt.tzinfo is None:
        return dt.replace(tzinfo=UTC)
    try:
        return dt.astimezone(UTC)
    except OverflowError:
        return None
