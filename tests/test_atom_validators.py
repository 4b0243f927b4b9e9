"""The Atom feeds' validators: conditional GETs, and what moves ETag and Last-Modified on
(and what does not)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from email.utils import parsedate_to_datetime

import feedparser
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from service import queue
from service.store import tables as t
from service.store.db import transaction
from service.store.feeds import remove_feed
from tests.atom_helpers import REPORT, atom_client, explainer, seed_ids, sessions
from tests.seed_db import add_item


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    yield from atom_client(db_url)


@pytest.fixture
def ids(client: TestClient) -> dict[str, int]:
    return seed_ids(client)


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
