"""A feed document posted with no feed named is registered at its self link only where that
link is an http(s) URL (relative ones read against the feed's link); a real worker on
loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.parse.xmlfeed import parse_xml
from service.pipeline.entries import feed_address
from service.store.db import make_engine, make_sessionmaker
from tests.conftest import api_client, make_settings, wait_for
from tests.seed_db import add_feed


@pytest.fixture
def worked(tmp_path: Path) -> Iterator[httpx.Client]:
    """A server with a worker, that processes what it is sent (one a test: a worker
    outliving its test is refused, conftest.no_heartbeat_left)."""
    url = f"sqlite:///{tmp_path / 'worked.db'}"
    with api_client(make_settings(url), workers=1, timeout=60) as client:
        yield client


def _atom(title: str, self_link: str, link: str) -> bytes:
    return f"""<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>{title}</title><id>urn:x:{title}</id>
<link rel="self" href="{self_link}"/><link rel="alternate" href="{link}"/>
<updated>2026-01-01T00:00:00Z</updated>
<entry><title>A post of {title}</title><id>urn:e:{title}</id><link href="https://a.example/1"/>
<updated>2026-01-01T00:00:00Z</updated><content>It is 1.5x faster than before.</content></entry>
</feed>""".encode()


def _json_feed(title: str, self_link: str, link: str) -> bytes:
    doc = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": title,
        "feed_url": self_link,
        "home_page_url": link,
        "items": [{"id": f"e-{title}", "url": "https://a.example/2", "content_text": "It is 2x."}],
    }
    return json.dumps(doc).encode()


def _delivered(client: httpx.Client, body: bytes, ctype: str) -> dict[str, Any]:
    """Post ``body`` to the webhook, naming no feed; the delivery once a worker settled it."""
    r = client.post("/webhooks/feed", content=body, headers={"content-type": ctype})
    assert r.status_code == 202, r.text
    delivery = r.json()["delivery_id"]

    def done() -> dict[str, Any] | None:
        d = client.get(f"/deliveries/{delivery}").json()
        return d if d["state"] in ("processed", "failed") else None

    return wait_for(done, timeout=60)


@pytest.mark.parametrize(
    ("make", "ctype", "title", "self_link", "link", "registered"),
    [
        (_atom, "application/atom+xml", "JS", "javascript:alert(1)", "data:text/html,hi", None),
        (_atom, "application/atom+xml", "Case", " JavaScript:alert(1)", "vbscript:x", None),
        (_atom, "application/atom+xml", "Rel", "/feed.xml", "//b.example/", None),
        (_atom, "application/atom+xml", "Theirs", "urn:plainfeed:title:Victim", "", None),
        (_atom, "application/atom+xml", "Link", "javascript:x", "https://blog.example/", 1),
        (_atom, "application/atom+xml", "Ok", "https://blog.example/feed", "javascript:x", 0),
        (_json_feed, "application/feed+json", "JSON", "javascript:alert(1)", "file:///etc/", None),
    ],
)
def test_a_bare_feed_is_never_registered_at_a_self_link_that_is_no_http_url(
    worked: httpx.Client,
    make: Any,
    ctype: str,
    title: str,
    self_link: str,
    link: str,
    registered: int | None,
) -> None:
    # A document posted with no feed named registered its feed at its self link
    # whatever it was: "javascript:alert(1)" became a feed's URL (POST /feeds refuses
    # it), fetched when the feed was asked to be read, and shown as its address. Such a
    # link is as none: the feed is known by its http(s) link, else by its title.
    d = _delivered(worked, make(title, self_link, link), ctype)
    assert d["state"] == "processed", d
    feed = worked.get(f"/feeds/{d['feed_id']}").json()
    expected = {None: f"urn:plainfeed:title:{title}", 0: self_link, 1: link}[registered]
    assert feed["url"] == expected
    urls = [f["url"] for f in worked.get("/feeds", params={"limit": 200}).json()["items"]]
    assert not any(
        u.lower().lstrip().startswith(("javascript:", "data:", "vbscript:", "file:", "/"))
        for u in urls
    )
    assert "javascript:" not in worked.get("/").text.lower()


def test_a_relative_self_link_is_read_against_the_feeds_http_link() -> None:
    # A self link written relative ("/feed.xml", as some site generators write it) was
    # taken as none: the feed was known by its link, the site's home page, so a site's
    # two feeds (posts and comments) sent with no feed named became one feed (and a
    # feed registered at its own address was not found). Read against the http(s) link,
    # it is the feed's own address; with no such link to read it against, as none.
    posts = parse_xml(_atom("Posts", "/feed.xml", "https://blog.example/"), None, None, None)
    comments = parse_xml(
        _atom("Comments", "comments/feed.xml", "https://blog.example/"), None, None, None
    )
    assert feed_address(posts, None) == "https://blog.example/feed.xml"
    assert feed_address(comments, None) == "https://blog.example/comments/feed.xml"
    bare = parse_xml(_atom("Bare", "/feed.xml", "//b.example/"), None, None, None)
    assert feed_address(bare, None) == "urn:plainfeed:title:Bare"
    hostile = parse_xml(_atom("JS", "javascript:x", "https://blog.example/"), None, None, None)
    assert feed_address(hostile, None) == "https://blog.example/"


def test_a_feed_registered_at_its_relative_self_link_before_is_still_its_feed(
    tmp_path: Path,
) -> None:
    # Before self links were tested for http(s), a document with a relative self link
    # registered its feed at it as written ("/feed.xml"). Known now by another address
    # (the self link read against the link), its next delivery made a second feed: every
    # entry a new item again, explained and sent to subscribers twice.
    url = f"sqlite:///{tmp_path / 'former.db'}"
    with api_client(make_settings(url), workers=1, timeout=60) as client:
        engine = make_engine(url)
        try:
            fid = add_feed(make_sessionmaker(engine), "/feed.xml", title="Posts")
        finally:
            engine.dispose()
        body = _atom("Posts", "/feed.xml", "https://former.example/")
        d = _delivered(client, body, "application/atom+xml")
        assert (d["state"], d["feed_id"]) == ("processed", fid), d
        assert client.get("/feeds").json()["total"] == 1


def test_a_self_link_urlsplit_refuses_is_as_none(worked: httpx.Client) -> None:
    # "http://[x/feed" (a bracket opened, no IPv6 address) makes urlsplit raise
    # ValueError: the test of a self link for an http(s) URL failed the delivery with
    # an internal error, where the feed is known by its link as for any other self link
    # that is no http(s) URL.
    body = _atom("Bracket", "http://[x/feed", "https://bracket.example/")
    d = _delivered(worked, body, "application/atom+xml")
    assert d["state"] == "processed", d
    assert worked.get(f"/feeds/{d['feed_id']}").json()["url"] == "https://bracket.example/"
