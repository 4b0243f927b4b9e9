"""dates: aware UTC datetimes from the forms feeds write."""

from __future__ import annotations

import time
from datetime import UTC, datetime

import pytest

from service.dates import utc_from_http, utc_from_iso, utc_from_struct


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-08-20T10:00:00+02:00", datetime(2026, 8, 20, 8, tzinfo=UTC)),
        ("2026-09-14T03:57:19.771Z", datetime(2026, 9, 14, 3, 57, 19, 771000, tzinfo=UTC)),
        ("2026-08-25T00:00:00", datetime(2026, 8, 25, tzinfo=UTC)),  # naive: UTC
        (" 2026-08-28 ", datetime(2026, 8, 28, tzinfo=UTC)),
        ("not a date", None),
        ("", None),
        (None, None),
        (20260828, None),
        # Times UTC has not: past the calendar's end, before its start.
        ("9999-12-31T23:59:59-01:00", None),
        ("0001-01-01T00:00:00+01:00", None),
    ],
)
def test_utc_from_iso(value: object, expected: datetime | None) -> None:
    assert utc_from_iso(value) == expected
    if expected is not None:
        assert utc_from_iso(value).tzinfo is UTC  # type: ignore[union-attr]


def test_utc_from_struct() -> None:
    assert utc_from_struct(time.gmtime(0)) == datetime(1970, 1, 1, tzinfo=UTC)
    assert utc_from_struct(None) is None


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Tue, 22 Sep 2026 15:45:46 GMT", datetime(2026, 9, 22, 15, 45, 46, tzinfo=UTC)),
        ("Tue, 22 Sep 2026 17:45:46 +0200", datetime(2026, 9, 22, 15, 45, 46, tzinfo=UTC)),
        ("Tuesday, 22-Sep-26 15:45:46 GMT", datetime(2026, 9, 22, 15, 45, 46, tzinfo=UTC)),
        ("Tue, 99 Sep 2026 15:45:46 GMT", None),
        ('W/"etag"', None),
        ("Fri, 31 Dec 9999 23:59:59 -0100", None),
        ("", None),
        (None, None),
    ],
)
def test_utc_from_http(value: object, expected: datetime | None) -> None:
    assert utc_from_http(value) == expected
