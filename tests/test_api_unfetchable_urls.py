"""A URL the guard of fetching and sending (fetch.pinned) refuses on every request is
refused when it is registered, on a real server on loopback: a subscriber's (400, or when
it is changed) was stored (201) and each event to it failed, until failures in a row
deactivated it; a feed's (422) was stored and each delivery without a document failed."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.api_helpers import assert_problem
from tests.conftest import api_client, make_settings

# Refused by the guard whatever PLAINFEED_ALLOW_PRIVATE_URLS says.
ALWAYS = [
    ("https://user:pw@hooks.example.org/x", "credentials"),
    ("https://user@hooks.example.org/x", "credentials"),
    ("https://hooks..example.org/x", "not a valid host name"),
    ("https://hooks.example.org:0/x", "port 0"),
]
# Refused unless private URLs are allowed: no global unicast address (multicast, a
# loopback address inside a 6to4 or NAT64 one), as the guard reads it.
INSIDE = ["http://224.0.0.1/x", "http://[ff02::1]/x", "http://[2002:7f00:1::]/x"]


@pytest.fixture
def strict(tmp_path: Any) -> Any:
    db = tmp_path / "plainfeed.db"
    with api_client(make_settings(f"sqlite:///{db}", allow_private_urls=False), workers=0) as c:
        yield c


def _refused(client: httpx.Client, url: str, why: str) -> None:
    for r in (
        client.post("/subscribers", json={"url": url}),
        client.patch("/subscribers/1", json={"url": url}),
    ):
        assert why in assert_problem(r, 400)["detail"], url


@pytest.mark.parametrize(("url", "why"), ALWAYS)
def test_a_url_never_sent_to_is_refused(strict: httpx.Client, url: str, why: str) -> None:
    strict.post("/subscribers", json={"url": "https://hooks.example.org/ok"})
    _refused(strict, url, why)
    listed = strict.get("/subscribers").json()["items"]
    assert [s["url"] for s in listed] == ["https://hooks.example.org/ok"]


@pytest.mark.parametrize("url", INSIDE)
def test_an_address_the_guard_refuses_is_private(strict: httpx.Client, url: str) -> None:
    strict.post("/subscribers", json={"url": "https://hooks.example.org/ok"})
    _refused(strict, url, "private")
    assert strict.get("/subscribers").json()["total"] == 1


def test_with_private_urls_allowed_only_the_never_sent_are_refused(tmp_path: Any) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'p.db'}", allow_private_urls=True)
    with api_client(settings, workers=0) as c:
        assert c.post("/subscribers", json={"url": "http://127.0.0.1:9/x"}).status_code == 201
        for url, why in ALWAYS:
            _refused(c, url, why)
        for url in INSIDE:
            assert c.post("/subscribers", json={"url": url}).status_code == 201, url


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("https://feeds..example.org/rss", "not a valid host name"),
        ("https://" + "a" * 64 + ".example.org/rss", "not a valid host name"),
        ("https://feeds.example.org:0/rss", "port 0"),
    ],
)
def test_a_feed_url_never_fetched_is_refused(strict: httpx.Client, url: str, why: str) -> None:
    detail = assert_problem(strict.post("/feeds", json={"url": url}), 422)["detail"]
    assert "body.url" in detail and why in detail, detail
    assert strict.get("/feeds").json()["total"] == 0
    assert strict.post("/feeds", json={"url": "https://feeds.example.org/rss"}).status_code == 201


# Literal addresses the guard refuses unless PLAINFEED_ALLOW_PRIVATE_URLS is set: as
# HttpUrl writes them ("http://2130706433/" is http://127.0.0.1/).
PRIVATE_FEEDS = [
    ("http://10.0.0.1/feed", "10.0.0.1"),
    ("http://127.0.0.1:8080/rss", "127.0.0.1"),
    ("http://[::1]/", "::1"),
    ("http://169.254.169.254/", "169.254.169.254"),
    ("http://2130706433/rss", "127.0.0.1"),
]


@pytest.mark.parametrize(("url", "host"), PRIVATE_FEEDS)
def test_a_feed_on_a_private_address_is_refused_when_the_fetch_refuses_it(
    strict: httpx.Client, url: str, host: str
) -> None:
    # Was registered (201); each delivery without a document was refused on the fetch.
    body = assert_problem(strict.post("/feeds", json={"url": url}), 422)
    assert body["type"].endswith("validation-error")
    detail = body["detail"]
    assert detail.startswith("body.url: ") and f"{host} is a loopback, private" in detail
    assert "PLAINFEED_ALLOW_PRIVATE_URLS" in detail, detail
    assert strict.get("/feeds").json()["total"] == 0
    # A name is not resolved at registration: what it resolves to is the fetch's to read.
    assert strict.post("/feeds", json={"url": "http://localhost.example/rss"}).status_code == 201


def test_a_feed_on_a_private_address_is_taken_when_private_urls_are_allowed(
    tmp_path: Any,
) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'p.db'}", allow_private_urls=True)
    with api_client(settings, workers=0) as c:
        for url, _ in PRIVATE_FEEDS:
            assert c.post("/feeds", json={"url": url}).status_code == 201, url
        assert c.get("/feeds").json()["total"] == len(PRIVATE_FEEDS)


# Names that always mean this machine or its private network, refused as a subscriber's
# are (fetch.private_name): registered, each delivery without a document was refused on
# the fetch (localhost), or failed to resolve (.local, .internal).
PRIVATE_NAMES = [
    ("http://localhost/rss", "localhost"),
    ("http://LOCALHOST.:8080/rss", "localhost."),
    ("http://feeds.localhost/rss", "feeds.localhost"),
    ("http://printer.local/rss", "printer.local"),
    ("http://wiki.corp.internal/rss", "wiki.corp.internal"),
]


@pytest.mark.parametrize(("url", "host"), PRIVATE_NAMES)
def test_a_feed_on_a_private_name_is_refused_as_a_subscriber_on_it_is(
    strict: httpx.Client, url: str, host: str
) -> None:
    body = assert_problem(strict.post("/feeds", json={"url": url}), 422)
    assert body["type"].endswith("validation-error")
    detail = body["detail"]
    assert detail.startswith("body.url: ") and f"{host} is a name of this machine" in detail
    assert "PLAINFEED_ALLOW_PRIVATE_URLS" in detail, detail
    assert strict.get("/feeds").json()["total"] == 0
    # The same rule as a subscriber's URL on that name.
    refused = assert_problem(strict.post("/subscribers", json={"url": url}), 400)
    assert "is private" in str(refused["detail"]), refused


def test_a_feed_on_a_private_name_is_taken_when_private_urls_are_allowed(tmp_path: Any) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'p.db'}", allow_private_urls=True)
    with api_client(settings, workers=0) as c:
        for url, _ in PRIVATE_NAMES:
            assert c.post("/feeds", json={"url": url}).status_code == 201, url
        assert c.get("/feeds").json()["total"] == len(PRIVATE_NAMES)
