"""If-Modified-Since later than the server's current time is no condition (RFC 9110
13.1.3): every conditional GET of the service answers 200 with the document, through a
real server on loopback. A date up to now still asks as it did."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from service.api.app import create_app
from service.api.conditional import modified_since
from tests.atom_helpers import seed_blog_a
from tests.conftest import LiveServer, make_settings

FAR = "Fri, 31 Dec 9999 23:59:59 GMT"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """The app on loopback with a feed and a published item (one database: what is
    tested is the HTTP validators, not the store)."""
    db = tmp_path_factory.mktemp("conditional") / "plainfeed.db"
    app = create_app(make_settings(f"sqlite:///{db}"), workers=0)
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as c:
        feed, _ = seed_blog_a(app.state.ctx.sessions)
        c.headers["x-feed"] = str(feed)
        yield c


def _paths(client: httpx.Client) -> list[str]:
    return [
        "/feed.atom",
        f"/feeds/{client.headers['x-feed']}/feed.atom",
        "/static/style.css",  # Starlette's StaticFiles
        "/static-offline-docs/swagger-ui.css",  # the documentation pages' assets
    ]


def test_a_date_later_than_now_is_ignored_on_every_conditional_get(
    client: httpx.Client,
) -> None:
    # The year 9999 was a 304 for good on the Atom feeds and the static files: a reader
    # holding it never saw a later version.
    tomorrow = format_datetime(datetime.now(UTC) + timedelta(days=1), usegmt=True)
    for path in _paths(client):
        first = client.get(path)
        assert first.status_code == 200, path
        modified = first.headers["last-modified"]
        assert client.get(path, headers={"If-Modified-Since": modified}).status_code == 304
        for late in (FAR, tomorrow):
            again = client.get(path, headers={"If-Modified-Since": late})
            assert again.status_code == 200, (path, late)
            assert again.content == first.content, path
            head = client.head(path, headers={"If-Modified-Since": late})
            assert head.status_code == 200, (path, late)


def test_if_none_match_still_wins_over_a_late_date(client: httpx.Client) -> None:
    # RFC 9110 13.2.2: If-None-Match is evaluated, If-Modified-Since then not at all.
    for path in _paths(client):
        etag = client.get(path).headers["etag"]
        headers = {"If-None-Match": etag, "If-Modified-Since": FAR}
        assert client.get(path, headers=headers).status_code == 304, path


def test_modified_since_reads_dates_up_to_now_only() -> None:
    now = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    assert modified_since("Tue, 01 Dec 2026 12:00:00 GMT", now) == now
    assert modified_since("Mon, 30 Nov 2026 12:00:00 GMT", now) == now - timedelta(days=1)
    assert modified_since("Tue, 01 Dec 2026 12:00:01 GMT", now) is None
    assert modified_since(FAR, now) is None
    assert modified_since("garbage", now) is None
    assert modified_since(None, now) is None
    assert modified_since("", now) is None
