"""The Atom feeds of published explainers, read back with feedparser: their entries, names
and languages, escaping, and limits. Conditional GETs: ``test_atom_validators.py``."""

from __future__ import annotations

from collections.abc import Iterator

import feedparser
import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient
from lxml import etree
from sqlalchemy import select

from service.models import CheckReport
from service.parse import parse_feed
from service.store import tables as t
from tests.atom_helpers import (
    ATOM,
    PUBLIC,
    REPORT,
    add_post_a1,
    atom_client,
    explainer,
    seed_ids,
    sessions,
)
from tests.seed_db import add_feed, add_item


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    yield from atom_client(db_url)


@pytest.fixture
def ids(client: TestClient) -> dict[str, int]:
    return seed_ids(client)


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
    copy = add_post_a1(sm, ids["b"])
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
