"""The Atom feeds of published explainers, read back with feedparser."""

from __future__ import annotations

import time
from collections.abc import Iterator
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import feedparser
import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from lxml import etree
from sqlalchemy import select

from service import queue
from service.api.app import create_app
from service.models import CheckReport, CheckStatus, Explainer, ItemState, NumberVerdict, Section
from service.parse import parse_feed
from service.store import tables as t
from service.store.db import transaction
from service.store.feeds import remove_feed
from tests.conftest import make_settings
from tests.seed_db import add_feed, add_item

PUBLIC = "https://plainfeed.example"
ATOM = "{http://www.w3.org/2005/Atom}"


def explainer(title: str, para: str = "It is 1.5x faster.") -> Explainer:
    return Explainer(
        title=title,
        sections=[Section(heading="What changed", paragraphs=[para])],
        takeaway="A plain takeaway.",
    )


REPORT = CheckReport(
    numbers=[
        NumberVerdict(
            text="1.5x",
            kind="quantity",
            status=CheckStatus.SUPPORTED,
            sentence="It is 1.5x faster.",
            source="It runs 1.5x faster.",
            source_block=0,
        )
    ]
)


FLAGGED = CheckReport(
    numbers=[
        NumberVerdict(
            text="9.9x",
            kind="quantity",
            status=CheckStatus.UNSUPPORTED,
            sentence="It is 9.9x faster.",
        )
    ]
)


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    app = create_app(make_settings(db_url, public_url=PUBLIC + "/"), workers=0)
    with TestClient(app) as c:
        yield c


def sessions(client: TestClient):  # type: ignore[no-untyped-def]
    return client.app.state.ctx.sessions  # type: ignore[attr-defined]


@pytest.fixture
def ids(client: TestClient) -> dict[str, int]:
    sm = sessions(client)
    a = add_feed(sm, url="https://a.example/feed", name="Blog A")
    b = add_feed(sm, url="https://b.example/feed", name="Blog B")
    return {
        "a": a,
        "b": b,
        "a1": add_item(
            sm,
            a,
            title="Post A1",
            text="It runs 1.5x faster.",
            explainer=explainer("A1: faster kernels"),
            report=REPORT,
            link="https://a.example/a1",
            key="a1-guid",
            author="Alice",
            published=datetime(2026, 9, 1, 10, 0, tzinfo=UTC),
        ),
        "b1": add_item(
            sm,
            b,
            title="Post B1",
            text="It runs 1.5x faster.",
            explainer=explainer("B1: a new compiler"),
            report=REPORT,
            link="https://b.example/b1",
        ),
        "review": add_item(
            sm,
            a,
            title="Post A2",
            text="It runs 1.5x faster.",
            explainer=explainer("A2: waits for review", para="It is 9.9x faster."),
            report=FLAGGED,
            state=ItemState.NEEDS_REVIEW,
        ),
    }


def test_feed_of_all_published_explainers_parses_back(
    client: TestClient, ids: dict[str, int]
) -> None:
    r = client.get("/feed.atom")
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/atom+xml; charset=utf-8"
    parsed = feedparser.parse(r.content)
    assert not parsed.bozo, parsed.get("bozo_exception")
    assert parsed.version == "atom10"
    assert {e.title for e in parsed.entries} == {"A1: faster kernels", "B1: a new compiler"}
    self_link = next(link for link in parsed.feed.links if link.rel == "self")
    assert self_link.href == PUBLIC + "/feed.atom"

    a1 = next(e for e in parsed.entries if e.title.startswith("A1"))
    links = {link.rel: link.href for link in a1.links}
    assert links["alternate"] == f"{PUBLIC}/ui/items/{ids['a1']}"
    assert links["via"] == "https://a.example/a1"
    assert a1.author == "Alice"
    assert a1.published_parsed[:3] == (2026, 9, 1)
    assert a1.updated_parsed is not None
    assert a1.id.startswith("urn:uuid:")
    assert a1.summary == "A plain takeaway."
    html = a1.content[0].value
    assert a1.content[0].type == "text/html"
    assert "What changed" in html and "It is 1.5x faster." in html
    assert 'href="https://a.example/a1"' in html
    assert "Number check: every number is supported by the post." in html
    # an entry without a source author falls back to the feed's name
    b1 = next(e for e in parsed.entries if e.title.startswith("B1"))
    assert b1.author == "Blog B"


def test_entry_ids_are_stable(client: TestClient, ids: dict[str, int]) -> None:
    first = {e.title: e.id for e in feedparser.parse(client.get("/feed.atom").content).entries}
    sm = sessions(client)
    add_item(sm, ids["b"], title="New", text="x", explainer=explainer("B2: newer"), report=REPORT)
    second = {e.title: e.id for e in feedparser.parse(client.get("/feed.atom").content).entries}
    assert second["A1: faster kernels"] == first["A1: faster kernels"]
    assert second["B1: a new compiler"] == first["B1: a new compiler"]
    assert len(set(second.values())) == 3


def test_a_post_of_two_feeds_is_one_entry_of_the_feed_of_all(
    client: TestClient, ids: dict[str, int]
) -> None:
    """The same post under feed B, its explainer a copy of A1's: its own feed lists it,
    the feed of all feeds once."""
    sm = sessions(client)
    copy = add_item(
        sm,
        ids["b"],
        title="Post A1",
        text="It runs 1.5x faster.",
        explainer=explainer("A1: faster kernels"),
        report=REPORT,
        link="https://a.example/a1",
        key="a1-guid",
    )
    with sm.begin() as s:
        original = s.scalars(select(t.Explainer).where(t.Explainer.item_id == ids["a1"])).one()
        mine = s.scalars(select(t.Explainer).where(t.Explainer.item_id == copy)).one()
        mine.reused_from = original.id
    titles = [e.title for e in feedparser.parse(client.get("/feed.atom").content).entries]
    assert sorted(titles) == ["A1: faster kernels", "B1: a new compiler"]
    own = feedparser.parse(client.get(f"/feeds/{ids['b']}/feed.atom").content).entries
    assert sorted(e.title for e in own) == ["A1: faster kernels", "B1: a new compiler"]


def test_feed_of_one_feed(client: TestClient, ids: dict[str, int]) -> None:
    r = client.get(f"/feeds/{ids['a']}/feed.atom")
    parsed = feedparser.parse(r.content)
    assert not parsed.bozo
    assert [e.title for e in parsed.entries] == ["A1: faster kernels"]
    assert parsed.feed.title == "Plainfeed: Blog A"
    missing = client.get("/feeds/9999/feed.atom")
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/problem+json"


def test_a_feed_in_another_language_says_so(client: TestClient, ids: dict[str, int]) -> None:
    """xml:lang was "en" whatever the feed's language; a setting with no sure tag (a
    name the table does not know, a made-up tag) keeps "en"."""
    lang = "{http://www.w3.org/XML/1998/namespace}lang"

    def langs(path: str) -> tuple[str, list[str | None]]:
        root = etree.fromstring(client.get(path).content)
        return root.get(lang), [e.get(lang) for e in root.iter(f"{ATOM}entry")]

    assert langs(f"/feeds/{ids['a']}/feed.atom") == ("en", [None])
    for setting, tag in [("French", "fr"), ("Deutsch", "de"), ("pt-br", "pt-BR")]:
        r = client.patch(f"/feeds/{ids['a']}", json={"language": setting})
        assert r.status_code == 200, r.text
        assert langs(f"/feeds/{ids['a']}/feed.atom") == (tag, [None])
    # The feed of all feeds: in English, each entry of another language says its own.
    assert langs("/feed.atom") == ("en", [None, "pt-BR"])
    for setting in ("Klingon", "xx", "English"):
        client.patch(f"/feeds/{ids['a']}", json={"language": setting})
        assert langs(f"/feeds/{ids['a']}/feed.atom") == ("en", [None])


def test_a_source_feeds_language_or_name_changes_the_feed_of_all_feeds(
    client: TestClient, ids: dict[str, int]
) -> None:
    """Its entries say their feed's language (xml:lang) and, where the item names no
    author, the feed's name: either set anew changes the document, so its ETag. The ETag
    stayed, a reader holding it got 304, and a reader without it the document built
    before (kept by that ETag)."""
    lang = "{http://www.w3.org/XML/1998/namespace}lang"
    before = client.get("/feed.atom")
    etag = before.headers["etag"]
    assert client.patch(f"/feeds/{ids['a']}", json={"language": "French"}).status_code == 200
    r = client.get("/feed.atom", headers={"If-None-Match": etag})
    assert r.status_code == 200 and r.headers["etag"] != etag
    entries = {
        e.findtext(f"{ATOM}title"): e.get(lang)
        for e in etree.fromstring(r.content).iter(f"{ATOM}entry")
    }
    assert entries == {"A1: faster kernels": "fr", "B1: a new compiler": None}
    etag = r.headers["etag"]
    assert client.patch(f"/feeds/{ids['b']}", json={"name": "Blog Bee"}).status_code == 200
    r = client.get("/feed.atom", headers={"If-None-Match": etag})
    assert r.status_code == 200 and r.headers["etag"] != etag
    authors = [e.author for e in feedparser.parse(r.content).entries]
    assert sorted(authors) == ["Alice", "Blog Bee"]
    # Unchanged, it is still a 304.
    again = client.get("/feed.atom", headers={"If-None-Match": r.headers["etag"]})
    assert again.status_code == 304


def test_conditional_get(client: TestClient, ids: dict[str, int]) -> None:
    r = client.get("/feed.atom")
    etag, modified = r.headers["etag"], r.headers["last-modified"]
    assert etag.startswith('"') and modified.endswith("GMT")

    for headers in (
        {"If-None-Match": etag},
        {"If-None-Match": f'"other", W/{etag}'},
        {"If-None-Match": "*"},
        {"If-Modified-Since": modified},
    ):
        again = client.get("/feed.atom", headers=headers)
        assert again.status_code == 304, headers
        assert again.content == b""
        assert again.headers["etag"] == etag

    assert client.get("/feed.atom", headers={"If-None-Match": '"stale"'}).status_code == 200
    old = "Mon, 01 Jan 2001 00:00:00 GMT"
    assert client.get("/feed.atom", headers={"If-Modified-Since": old}).status_code == 200
    assert client.get("/feed.atom", headers={"If-Modified-Since": "garbage"}).status_code == 200
    # another feed's feed has its own validator
    assert (
        client.get(f"/feeds/{ids['a']}/feed.atom", headers={"If-None-Match": etag}).status_code
        == 200
    )

    time.sleep(0.01)  # a later publication time, not a timing assertion
    add_item(
        sessions(client),
        ids["a"],
        title="N",
        text="y",
        explainer=explainer("A3: new"),
        report=REPORT,
    )
    changed = client.get("/feed.atom", headers={"If-None-Match": etag})
    assert changed.status_code == 200
    assert changed.headers["etag"] != etag
    assert "A3: new" in changed.text


def test_approving_an_item_changes_the_feed(client: TestClient, ids: dict[str, int]) -> None:
    etag = client.get("/feed.atom").headers["etag"]
    client.app.state.ctx.pipeline.approve(ids["review"], "tester")  # type: ignore[attr-defined]
    r = client.get("/feed.atom", headers={"If-None-Match": etag})
    assert r.status_code == 200
    entries = {e.title: e for e in feedparser.parse(r.content).entries}
    assert "published after review by tester" in entries["A2: waits for review"].content[0].value


def test_an_entry_leaving_the_feed_moves_last_modified_on(
    client: TestClient, ids: dict[str, int]
) -> None:
    """The newest entry leaves (a retry re-queues it): Last-Modified must not fall back to
    the newest entry still there, or a client holding the old date gets a 304 and keeps
    the entry that left."""
    pipeline = client.app.state.ctx.pipeline  # type: ignore[attr-defined]
    time.sleep(0.01)  # a later publication time, not a timing assertion
    pipeline.approve(ids["review"], "tester")
    before = client.get("/feed.atom")
    seen = before.headers["last-modified"]
    time.sleep(1.01)  # HTTP dates have whole seconds
    pipeline.retry(ids["review"])
    after = client.get("/feed.atom")
    assert parsedate_to_datetime(after.headers["last-modified"]) > parsedate_to_datetime(seen)
    assert "A2: waits for review" not in after.text
    again = client.get("/feed.atom", headers={"If-Modified-Since": seen})
    assert again.status_code == 200


def test_a_removed_feed_moves_last_modified_on(client: TestClient, ids: dict[str, int]) -> None:
    """Removing feed B takes its entry out of the feed of all feeds: a client holding the
    old Last-Modified (and no ETag) must not get a 304 and keep B1."""
    before = client.get("/feed.atom")
    seen = before.headers["last-modified"]
    assert "B1: a new compiler" in before.text
    time.sleep(1.01)  # HTTP dates have whole seconds
    with sessions(client).begin() as s:
        remove_feed(s, ids["b"])
    again = client.get("/feed.atom", headers={"If-Modified-Since": seen})
    assert again.status_code == 200
    assert "B1: a new compiler" not in again.text
    assert parsedate_to_datetime(again.headers["last-modified"]) > parsedate_to_datetime(seen)
    with sessions(client)() as s:
        (removal,) = s.scalars(select(t.FeedRemoval)).all()
        assert (removal.feed_id, removal.items, removal.published) == (ids["b"], 1, 1)


def test_a_rename_or_language_moves_last_modified_on(
    client: TestClient, ids: dict[str, int]
) -> None:
    """A rename or a new language changes the document (its title, entries' xml:lang and
    authors) and its ETag; a reader asking only If-Modified-Since was told 304 and kept
    the old one, as no publication moved Last-Modified. An unchanged feed stays a 304."""
    for path, lang in ((f"/feeds/{ids['a']}/feed.atom", "French"), ("/feed.atom", "Italian")):
        for change in ({"language": lang}, {"name": f"Blog A at {path}"}):
            seen = client.get(path).headers["last-modified"]
            time.sleep(1.01)  # HTTP dates have whole seconds
            assert client.patch(f"/feeds/{ids['a']}", json=change).status_code == 200
            r = client.get(path, headers={"If-Modified-Since": seen})
            assert r.status_code == 200, (path, change)
            moved = r.headers["last-modified"]
            assert parsedate_to_datetime(moved) > parsedate_to_datetime(seen)
            again = client.get(path, headers={"If-Modified-Since": moved})
            assert again.status_code == 304, (path, change)
            # Set again to what it is, or changed where the document shows nothing of
            # it (the audience, feed B's language for A's feed), it is the same document.
            assert client.patch(f"/feeds/{ids['a']}", json=change).status_code == 200
            assert client.patch(f"/feeds/{ids['a']}", json={"audience": path}).status_code == 200
            same = client.get(path, headers={"If-Modified-Since": moved})
            assert same.status_code == 304, (path, change)
        lang = "German" if path == "/feed.atom" else "Spanish"
        # Feed B's language is in the feed of all feeds (its entry's xml:lang), not in A's.
        seen = client.get(path).headers["last-modified"]
        time.sleep(1.01)
        assert client.patch(f"/feeds/{ids['b']}", json={"language": lang}).status_code == 200
        r = client.get(path, headers={"If-Modified-Since": seen})
        assert r.status_code == (200 if path == "/feed.atom" else 304), path


def test_empty_feed_is_valid(client: TestClient) -> None:
    r = client.get("/feed.atom")
    parsed = feedparser.parse(r.content)
    assert not parsed.bozo and parsed.entries == []
    root = etree.fromstring(r.content)
    assert root.find(f"{ATOM}updated") is not None


def test_hostile_entries_are_escaped_and_sanitised(client: TestClient) -> None:
    sm = sessions(client)
    fid = add_feed(sm, url="https://hostile.example/feed", name="Hostile \x0b<blog>")
    add_item(
        sm,
        fid,
        title="Bad \x1b title",
        text="t",
        explainer=explainer(
            "<script>alert(1)</script> Title \x07 with control chars",
            para='<img src=x onerror="alert(1)"> <a href="javascript:alert(1)">x</a>',
        ),
        report=CheckReport(),
        link="javascript:alert(1)",
        author="<b onmouseover=alert(1)>Mallory</b>",
    )
    r = client.get("/feed.atom")
    root = etree.fromstring(r.content)  # well-formed despite control characters
    entry = root.find(f"{ATOM}entry")
    assert entry is not None
    assert entry.findtext(f"{ATOM}title") == "<script>alert(1)</script> Title  with control chars"
    content = BeautifulSoup(entry.findtext(f"{ATOM}content") or "", "html.parser")
    assert not content.find_all(["script", "img", "style"])
    for tag in content.find_all(True):
        assert not any(attr.startswith("on") for attr in tag.attrs), tag
        assert not tag.get("href", "").startswith("javascript:"), tag
    # the explainer's text is still there to read, as text
    assert '<img src=x onerror="alert(1)">' in content.get_text()
    rels = {link.get("rel") for link in entry.findall(f"{ATOM}link")}
    assert rels == {"alternate"}  # no "via" link to a javascript: URL
    parsed = feedparser.parse(client.get(f"/feeds/{fid}/feed.atom").content)
    assert not parsed.bozo


def test_an_author_with_markup_characters_is_escaped_once_on_the_page_and_in_atom(
    client: TestClient,
) -> None:
    """A feed that is not well-formed ("A & B") got its author from feedparser's loose
    parser HTML-escaped, stored so, and escaped again: the item page and the Atom feed
    showed a literal "&lt;b&gt;"."""
    loose = (
        b'<rss version="2.0"><channel><title>T</title><item><title>A & B</title>'
        b"<link>https://x.example/1</link><author>Ann &lt;b&gt; &amp; Bo</author>"
        b"<description>It runs 1.5x faster.</description></item></channel></rss>"
    )
    (entry,) = parse_feed(loose).entries
    sm = sessions(client)
    iid = add_item(
        sm,
        add_feed(sm, url="https://x.example/feed", name="X"),
        title=entry.title,
        text="It runs 1.5x faster.",
        explainer=explainer("X: faster kernels"),
        report=REPORT,
        author=entry.author,
    )
    page = client.get(f"/ui/items/{iid}").text
    assert "by Ann &lt;b&gt; &amp; Bo" in page and "&amp;lt;" not in page
    atom = client.get("/feed.atom").text
    assert "<name>Ann &lt;b&gt; &amp; Bo</name>" in atom and "&amp;lt;" not in atom
    assert feedparser.parse(atom).entries[0].author == "Ann <b> & Bo"


@pytest.mark.parametrize("path", ["/feeds/{a}/feed.atom", "/feed.atom"])
def test_a_language_written_in_another_case_is_the_same_document(
    client: TestClient, ids: dict[str, int], path: str
) -> None:
    """ "en-US" and "en-us" (or "French" and "french") are one language, and the document
    says it one way (xml:lang "en-US"): the ETag held the setting as written, so setting
    it in another case changed the ETag and moved Last-Modified of the same document, and
    every reader downloaded it again."""
    path = path.format(a=ids["a"])
    # No language set and an unknown one are "en" in the document, as "en" is.
    pairs = (("en-US", "en-us"), ("French", "french"), ("pt_br", "PT-BR"), ("en", None))
    for first, other in (*pairs, (None, "Klingon")):
        assert client.patch(f"/feeds/{ids['a']}", json={"language": first}).status_code == 200
        r = client.get(path)
        etag, modified = r.headers["etag"], r.headers["last-modified"]
        time.sleep(1.01)  # HTTP dates have whole seconds
        assert client.patch(f"/feeds/{ids['a']}", json={"language": other}).status_code == 200
        again = client.get(path)
        assert again.content == r.content, (first, other)
        assert (again.headers["etag"], again.headers["last-modified"]) == (etag, modified)
        assert client.get(path, headers={"If-None-Match": etag}).status_code == 304
        assert client.get(path, headers={"If-Modified-Since": modified}).status_code == 304


def test_a_lease_on_an_item_that_left_the_feed_does_not_change_the_feed(
    client: TestClient, ids: dict[str, int]
) -> None:
    """A published item re-queued is claimed and its lease renewed every third of the
    lease while it is explained again: each write bumped items.updated_at, so the ETag
    and Last-Modified changed (and readers fetched the whole feed again) each time."""
    pipeline = client.app.state.ctx.pipeline  # type: ignore[attr-defined]
    pipeline.approve(ids["review"], "tester")
    pipeline.retry(ids["review"])  # it leaves the feed: that is a change
    before = client.get("/feed.atom")
    validators = (before.headers["etag"], before.headers["last-modified"])
    steps = {
        "claim": lambda s: [c.id for c in queue.claim(s, queue.ITEMS, "worker-1", 60)],
        "renewal": lambda s: queue.renew(s, queue.ITEMS, ids["review"], "worker-1", 60),
        "release": lambda s: queue.release(s, queue.ITEMS, ids["review"], "worker-1"),
    }
    done = {"claim": [ids["review"]], "renewal": True, "release": None}
    for name, step in steps.items():
        with transaction(sessions(client)) as s:
            assert step(s) == done[name]
        after = client.get("/feed.atom")
        assert (after.headers["etag"], after.headers["last-modified"]) == validators, name


def test_the_feed_of_all_feeds_holds_limit_entries_when_copies_are_left_out(
    client: TestClient,
) -> None:
    """Copies were left out after the LIMIT: the newest two rows were a post and its copy
    under another feed, and ?limit=2 showed one entry while an older one was there."""
    sm = sessions(client)
    a = add_feed(sm, url="https://a.example/feed", name="Blog A")
    b = add_feed(sm, url="https://b.example/feed", name="Blog B")
    common: dict = {"text": "It runs 1.5x faster.", "report": REPORT}
    add_item(sm, b, title="Older", explainer=explainer("Older post"), link="https://b/1", **common)
    original = add_item(
        sm, a, title="Post", explainer=explainer("The post"), link="https://a/p", **common
    )
    copy = add_item(
        sm, b, title="Post", explainer=explainer("The post"), link="https://a/p", **common
    )
    with sm.begin() as s:
        ex = s.scalars(select(t.Explainer).where(t.Explainer.item_id == original)).one()
        mine = s.scalars(select(t.Explainer).where(t.Explainer.item_id == copy)).one()
        mine.reused_from = ex.id
    r = client.get("/feed.atom", params={"limit": 2})
    titles = [e.title for e in feedparser.parse(r.content).entries]
    assert titles == ["The post", "Older post"]
    r = client.get("/feed.atom", params={"limit": 1})
    assert [e.title for e in feedparser.parse(r.content).entries] == ["The post"]
