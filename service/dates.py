"""Dates as the pipeline keeps them: timezone-aware, in UTC."""

from __future__ import annotations

import time
from datetime import UTC, datetime


def utc_from_iso(value: object) -> datetime | None:
    """An ISO 8601 / RFC 3339 date-time string as an aware UTC datetime (naive means UTC);
    None when it is missing or does not parse."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        dt = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def utc_from_struct(parsed: time.struct_time | None) -> datetime | None:
    """A UTC ``struct_time`` (what feedparser's ``*_parsed`` fields hold) as a datetime."""
    if not parsed:
        return None
    try:
        return datetime(*parsed[:6], tzinfo=UTC)
    except (TypeError, ValueError):
        return None
