"""Hostile input to the API, over real HTTP on loopback: a clear problem within seconds,
never a hang or a generic error that does not say what is wrong."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from service import websub
from service.models import ItemState
from service.parse.xmlfeed import parse_xml
from service.pipeline.entries import feed_address
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker
from tests.conftest import api_client, make_settings, wait_for
from tests.seed_db import add_feed, add_item


@pytest.fixture
def server(tmp_path: Path) -> Iterator[httpx.Client]:
    # SQLite alone: what is tested here is read before any row is written.
    settings = make_settings(f"sqlite:///{tmp_path / 'hostile.db'}")
    with api_client(settings, workers=0, timeout=60) as client:
        yield client


@pytest.mark.parametrize(
    "text",
    [
        ">" * 100_000,  # a Markdown quote nested past reason
        "a/" * 50_000,  # a path with no digit in it
        "[" * 100_000,  # brackets that never close
    ],
)
def test_a_long_run_without_spaces_or_digits_is_explained_at_once(
    server: httpx.Client, text: str
) -> None:
    # The extractive engine looked for its figures with a pattern that tried every start
    # of such a run (minutes of CPU for 100 KB, a worker or request thread held that long).
    started = time.monotonic()
    r = server.post("/explain", json={"markdown": text + " It is 1.5x faster than before."})
    assert r.status_code == 200, r.text
    assert time.monotonic() - started < 30  # minutes before; seconds on a loaded machine
    assert {n["status"] for n in r.json()["check"]["numbers"]} == {"supported"}


@pytest.mark.parametrize("path", ["/feeds", "/check", "/explain", "/subscribers"])
@pytest.mark.parametrize(
    ("body", "ctype", "says"),
    [
        (b'{"url": "http://a.example/\xff\xfe"}', "application/json", "UTF-8"),
        (b'{"text": "caf\xe9"}', "application/json; charset=latin-1", "UTF-8"),
        (b'{"a":' * 5000 + b"1" + b"}" * 5000, "application/json", "nested too deeply"),
        (b"[" * 100_000 + b"]" * 100_000, "application/json", "nested too deeply"),
    ],
)
def test_a_json_body_that_cannot_be_read_says_why(
    server: httpx.Client, path: str, body: bytes, ctype: str, says: str
) -> None:
    # FastAPI answered these "400 There was an error parsing the body", where the
    # webhook's own reading says what is wrong with the body.
    r = server.post(path, content=body, headers={"content-type": ctype})
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    problem = r.json()
    assert problem["type"].endswith("/bad-json")
    assert says in problem["detail"]


def test_malformed_json_says_where_and_what(server: httpx.Client) -> None:
    r = server.post("/feeds", content=b'{"url": ', headers={"content-type": "application/json"})
    assert r.status_code == 400
    problem = r.json()
    assert problem["type"].endswith("/bad-json")
    # The decoder's reason, not only "JSON decode error".
    assert "Expecting value" in problem["detail"], problem


@pytest.mark.parametrize("run", ["=" * 100_000, "a.." * 30_000, "+=a" * 30_000])
def test_a_long_run_of_joined_words_is_checked_at_once(server: httpx.Client, run: str) -> None:
    # The check's name scan read from each "=" (or each word after "..") to the end of
    # the run: minutes of CPU for 100 KB.
    started = time.monotonic()
    r = server.post(
        "/check",
        json={"markdown": run + " It is 1.5x faster.", "explainer": run + " It is 1.5x faster."},
    )
    assert r.status_code == 200, r.text
    assert time.monotonic() - started < 30  # minutes before; seconds on a loaded machine
    assert r.json()["ok"] is True


def test_a_tag_with_a_great_many_attributes_is_read_at_once(server: httpx.Client) -> None:
    # libxml2 compares each attribute of a tag with those before it: 200,000 of them on
    # one <p> held the request's thread for minutes.
    attrs = " ".join(f"a{i}=x" for i in range(200_000))
    started = time.monotonic()
    r = server.post("/explain", json={"html": f"<p {attrs}>It is 1.5x faster than before.</p>"})
    assert r.status_code == 200, r.text
    assert time.monotonic() - started < 30  # minutes before; seconds on a loaded machine
    assert "1.5x faster" in r.json()["markdown"]


@pytest.fixture(scope="module")
def seeded(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[httpx.Client, dict[str, int]]]:
    """A server over a database with two feeds, an item in each (one needs review), and
    an item of neither: what a filter ignored would show. One for the module: the tests
    that take it only read."""
    url = f"sqlite:///{tmp_path_factory.mktemp('seeded') / 'seeded.db'}"
    with api_client(make_settings(url), workers=0, timeout=60) as client:
        engine = make_engine(url)
        sm = make_sessionmaker(engine)
        a = add_feed(sm, "https://a.example/feed", name="Feed A")
        b = add_feed(sm, "https://b.example/feed", name="Feed B")
        ids = {
            "a": a,
            "b": b,
            "item_a": add_item(sm, a, title="Only in A", text="It is 1.5x faster."),
            "item_b": add_item(
                sm, b, title="Only in B", text="It is 2x faster.", state=ItemState.NEEDS_REVIEW
            ),
            "item_none": add_item(sm, None, title="Of no feed", text="It is 3x faster."),
        }
        try:
            yield client, ids
        finally:
            engine.dispose()


def _listed(html: str) -> set[str]:
    return {t for t in ("Only in A", "Only in B", "Of no feed") if t in html}


@pytest.mark.parametrize(
    "feed", ["-1", "0", "abc", "\u00b2", "99999999999", "9" * 20, "99999999999999999999999"]
)
def test_an_index_feed_filter_that_is_no_id_is_an_error_page_not_every_item(
    seeded: tuple[httpx.Client, dict[str, int]], feed: str
) -> None:
    # The index ignored a feed filter that was no id (and one past the id column) and
    # listed every item, under an address that seemed to filter; /?feed=999 was a 404.
    client, _ = seeded
    r = client.get("/", params={"feed": feed})
    assert r.status_code == 422, (feed, r.status_code)
    assert r.headers["content-type"].startswith("text/html")
    assert "<h1>Bad request</h1>" in r.text and "feed:" in r.text
    assert not _listed(r.text)


def test_an_index_state_filter_that_is_no_state_is_an_error_page(
    seeded: tuple[httpx.Client, dict[str, int]],
) -> None:
    client, ids = seeded
    for state in ("bogus", "PUBLISHED", " published", "published\x00"):
        r = client.get("/", params={"state": state})
        assert r.status_code == 422, state
        assert r.headers["content-type"].startswith("text/html")
        assert "<h1>Bad request</h1>" in r.text and "state:" in r.text
        assert not _listed(r.text)
    # The form's "any" is sent empty: no filter, as before.
    assert _listed(client.get("/", params={"state": "", "feed": "", "q": ""}).text) == {
        "Only in A",
        "Only in B",
        "Of no feed",
    }
    r = client.get("/", params={"state": "needs_review"})
    assert r.status_code == 200 and _listed(r.text) == {"Only in B"}
    r = client.get("/", params={"feed": str(ids["a"])})
    assert r.status_code == 200 and _listed(r.text) == {"Only in A"}
    r = client.get("/", params={"feed": "999"})
    assert r.status_code == 404 and not _listed(r.text)


# Each a way pydantic read as a number: whitespace, a sign, a point, an underscore.
NOT_DIGITS = ["%20{n}", "{n}%20", "%09{n}", "+{n}", "{n}.0", "1_{n}"]


@pytest.mark.parametrize("form", NOT_DIGITS)
@pytest.mark.parametrize(
    "path",
    [
        "/items/{id}",
        "/items/{id}/explainer",
        "/items/{id}/check",
        "/feeds/{id}",
        "/feeds/{id}/feed.atom",
        "/deliveries/{id}",
    ],
)
def test_an_api_id_not_written_in_digits_alone_is_a_422(
    seeded: tuple[httpx.Client, dict[str, int]], path: str, form: str
) -> None:
    # "/items/%2012" was item 12: a resource under many addresses, and a typo taken for
    # an id. As an id that is no number ("/items/abc"), a 422 naming the parameter.
    client, ids = seeded
    good = path.format(id=ids["item_a"] if path.startswith("/items") else ids["a"])
    # Read as an id (no explainer or delivery yet: a 404 that names it).
    assert client.get(good).status_code in (200, 404), good
    r = client.get(path.format(id=form.format(n=ids["a"])))
    assert r.status_code == 422, (path, form, r.text)
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "digits 0-9 alone" in r.json()["detail"]


@pytest.mark.parametrize("form", NOT_DIGITS)
def test_a_page_id_not_written_in_digits_alone_is_a_404_page(
    seeded: tuple[httpx.Client, dict[str, int]], form: str
) -> None:
    # The pages answer an address that is no item a 404 page, as "/ui/items/abc".
    client, ids = seeded
    assert client.get(f"/ui/items/{ids['item_a']}").status_code == 200
    r = client.get("/ui/items/" + form.format(n=ids["item_a"]))
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html") and "<h1>Not found</h1>" in r.text


@pytest.mark.parametrize("form", NOT_DIGITS)
@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/items", "limit"),
        ("/items", "offset"),
        ("/items", "feed_id"),
        ("/feeds", "limit"),
        ("/deliveries", "feed_id"),
        ("/subscribers", "feed_id"),
        ("/feed.atom", "limit"),
        ("/stats", "days"),
        ("/", "feed"),
        ("/", "offset"),
    ],
)
def test_a_query_number_not_written_in_digits_alone_is_refused(
    seeded: tuple[httpx.Client, dict[str, int]], path: str, name: str, form: str
) -> None:
    # "?limit=%205" was a limit of 5 and "?feed_id=%201" feed 1.
    client, ids = seeded
    query = f"{name}={form.format(n=ids['a'])}"
    assert client.get(f"{path}?{name}={ids['a']}").status_code == 200
    r = client.get(f"{path}?{query}")
    assert r.status_code == 422, (path, query, r.text[:300])
    if path == "/":
        assert r.headers["content-type"].startswith("text/html")
        assert "<h1>Bad request</h1>" in r.text and "digits 0-9 alone" in r.text
    else:
        assert r.headers["content-type"].startswith("application/problem+json")
        assert "digits 0-9 alone" in r.json()["detail"]


@pytest.mark.parametrize(
    ("path", "known"),
    [
        ("/items", {"q": "Only", "state": "", "feed_id": ""}),
        ("/feeds", {}),
    ],
)
def test_a_next_link_keeps_only_the_parameters_the_route_reads(
    seeded: tuple[httpx.Client, dict[str, int]], path: str, known: dict[str, str]
) -> None:
    # Every parameter of the request was copied into the next page's link: thousands of
    # unknown ones made a link of hundreds of KB, and every page after carried them on.
    client, _ = seeded
    params = {k: v for k, v in known.items() if v}
    junk = "&".join(f"junk{i}=x" for i in range(2000))
    query = "&".join([*(f"{k}={v}" for k, v in params.items()), "limit=1", junk])
    r = client.get(f"{path}?{query}")
    assert r.status_code == 200, r.text[:300]
    page = r.json()
    assert page["total"] >= 2 and page["next"] is not None
    nxt = httpx.URL(page["next"])
    assert dict(nxt.params) == {**params, "offset": "1", "limit": "1"}
    follow = client.get(nxt.raw_path.decode())
    assert follow.status_code == 200 and follow.json()["offset"] == 1


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
    r = worked.post(
        "/webhooks/feed", content=make(title, self_link, link), headers={"content-type": ctype}
    )
    assert r.status_code == 202, r.text
    delivery = r.json()["delivery_id"]

    def done() -> dict[str, Any] | None:
        d = worked.get(f"/deliveries/{delivery}").json()
        return d if d["state"] in ("processed", "failed") else None

    d = wait_for(done, timeout=60)
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
        r = client.post(
            "/webhooks/feed", content=body, headers={"content-type": "application/atom+xml"}
        )
        assert r.status_code == 202, r.text
        delivery = r.json()["delivery_id"]

        def done() -> dict[str, Any] | None:
            d = client.get(f"/deliveries/{delivery}").json()
            return d if d["state"] in ("processed", "failed") else None

        d = wait_for(done, timeout=60)
        assert (d["state"], d["feed_id"]) == ("processed", fid), d
        assert client.get("/feeds").json()["total"] == 1


def test_a_self_link_urlsplit_refuses_is_as_none(worked: httpx.Client) -> None:
    # "http://[x/feed" (a bracket opened, no IPv6 address) makes urlsplit raise
    # ValueError: the test of a self link for an http(s) URL failed the delivery with
    # an internal error, where the feed is known by its link as for any other self link
    # that is no http(s) URL.
    body = _atom("Bracket", "http://[x/feed", "https://bracket.example/")
    r = worked.post(
        "/webhooks/feed", content=body, headers={"content-type": "application/atom+xml"}
    )
    assert r.status_code == 202, r.text
    delivery = r.json()["delivery_id"]

    def done() -> dict[str, Any] | None:
        d = worked.get(f"/deliveries/{delivery}").json()
        return d if d["state"] in ("processed", "failed") else None

    d = wait_for(done, timeout=60)
    assert d["state"] == "processed", d
    assert worked.get(f"/feeds/{d['feed_id']}").json()["url"] == "https://bracket.example/"


@pytest.mark.parametrize(
    ("lease", "granted"),
    [
        ("9" * 30, websub.MAX_LEASE_SECONDS),
        ("99999999999", websub.MAX_LEASE_SECONDS),
        ("9" * 5000, websub.MAX_LEASE_SECONDS),
        # Leading zeros past int()'s 4300 digits: a small number all the same.
        ("0" * 5000 + "3600", 3600),
        ("\u00b2", websub.DEFAULT_LEASE_SECONDS),
        ("-5", websub.DEFAULT_LEASE_SECONDS),
        ("3600", 3600),
    ],
)
def test_a_hub_lease_no_date_holds_is_taken_at_most_a_year_not_a_500(
    tmp_path: Path, lease: str, granted: int
) -> None:
    # A hub's verification with "hub.lease_seconds" of 30 digits overflowed the date, and
    # "²" (a digit to str.isdigit) failed int(): a 500 to the hub, the subscription left
    # pending until given up.
    url = f"sqlite:///{tmp_path / 'lease.db'}"
    topic = "https://a.example/feed"
    secret = websub.new_secret()
    with api_client(make_settings(url), workers=0, timeout=60) as client:
        engine = make_engine(url)
        try:
            fid = add_feed(
                make_sessionmaker(engine),
                topic,
                websub_state=websub.PENDING_SUBSCRIBE,
                websub_secret=secret,
                hub_url="https://hub.example/",
                websub_lease_until=datetime.now(UTC) + timedelta(hours=1),
            )
        finally:
            engine.dispose()
        callback = httpx.URL(websub.callback_url(str(client.base_url), fid, secret))
        before = datetime.now(UTC)
        r = client.get(
            callback.copy_merge_params(
                {
                    "hub.mode": "subscribe",
                    "hub.topic": topic,
                    "hub.challenge": "c-1",
                    "hub.lease_seconds": lease,
                }
            ).raw_path.decode()
        )
        assert r.status_code == 200, r.text
        assert r.text == "c-1"
        feed = client.get(f"/feeds/{fid}").json()
    assert feed["websub_state"] == websub.ACTIVE
    engine = make_engine(url)
    try:
        with make_sessionmaker(engine)() as s:
            until = s.get(t.Feed, fid).websub_lease_until  # type: ignore[union-attr]
    finally:
        engine.dispose()
    assert until is not None
    until = until.replace(tzinfo=UTC) if until.tzinfo is None else until
    expected = before + timedelta(seconds=granted)
    assert expected - timedelta(minutes=5) < until < expected + timedelta(minutes=5)


@pytest.mark.parametrize("feed_id", [True, "1", " 1", 1.0, "1.0"])
def test_a_subscriber_feed_id_that_is_no_json_integer_is_a_422(
    server: httpx.Client, feed_id: object
) -> None:
    # POST /subscribers took true, "1", " 1" and 1.0 for feed 1 (the webhook's feed_id
    # refuses them): a subscriber of one feed made from a typo.
    assert server.post("/feeds", json={"url": "https://a.example/feed"}).status_code == 201
    r = server.post("/subscribers", json={"url": "https://h.example/", "feed_id": feed_id})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "feed_id" in r.json()["detail"]
    assert server.get("/subscribers").json()["total"] == 0
    ok = server.post("/subscribers", json={"url": "https://h.example/", "feed_id": 1})
    assert ok.status_code == 201 and ok.json()["feed_id"] == 1
