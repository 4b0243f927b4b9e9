"""Feeds stored before POST /feeds checked URLs ("javascript:...", no host): migration
0017 marks each with why it is never fetched (feeds.url_error). They were shown as any
feed, and a delivery without a document for one failed on every try. Now GET /feeds and
`plainfeed feeds list` say why, such a delivery is refused at once (422), and the feed
is not subscribed to (its URL went to the hub as the topic). On SQLite and PostgreSQL."""

from __future__ import annotations

import threading

from sqlalchemy import select, text
from sqlalchemy.orm import sessionmaker

from service import queue
from service.engines import get_engine
from service.pipeline import Pipeline
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker
from service.worker import Worker
from tests.conftest import make_settings
from tests.live import running
from tests.migration_helpers import migrated_over
from tests.websub_hub import cli

GOOD = "https://example.com/feed"
RSS = (
    '<?xml version="1.0"?><rss version="2.0"><channel><title>Scripts</title>'
    "<item><title>A post</title><guid>urn:post:1</guid>"
    "<description>Version 2.1 is out.</description></item></channel></rss>"
)
JS = "javascript:alert(document.cookie)"
# A stored URL -> what its url_error says (None: fetched, or known by its title).
STORED = {
    JS: "not an http(s) URL but a javascript: URL",
    "file:///etc/passwd": "not an http(s) URL but a file: URL",
    "/blog/feed.xml": "a URL with no scheme",
    "http:///feed.xml": "a URL with no host",
    "https://user:pw@example.org/feed": "a URL with credentials",
    "http://[::1/feed": "not a valid URL",
    GOOD: None,
    "HTTPS://Example.org/Feed": None,  # stored as written, before URLs were normalised
    "urn:plainfeed:title:Status": None,  # a feed that names no URL: documents only
}


def test_migration_0017_marks_the_feeds_whose_url_is_never_fetched(db_url: str) -> None:
    more = [{"url": url} for url in STORED if url != GOOD]
    with migrated_over(db_url, "0016", {}, {"url_error"}, more=more) as engine:
        with sessionmaker(engine)() as s:
            got = {f.url: (f.id, f.url_error) for f in s.scalars(select(t.Feed))}
        for url, says in STORED.items():
            error = got[url][1]
            if says is None:
                assert error is None, (url, error)
            else:
                assert error is not None and says in error, (url, error)
                assert error.endswith("remove the feed and register its http(s) URL"), error

        with running(make_settings(db_url), workers=0) as svc:
            bad, good = got[JS][0], got[GOOD][0]
            shown = svc.http.get(f"/feeds/{bad}").json()
            assert (shown["url"], shown["url_error"]) == (JS, got[JS][1])
            assert svc.http.get(f"/feeds/{good}").json()["url_error"] is None
            # The reader's index page says it beside the URL too (escaped as any text).
            page = svc.http.get("/").text
            assert "never fetched: remove the feed and register its http(s) URL" in page
            listed = svc.http.get("/feeds", params={"limit": 50}).json()
            assert {f["id"] for f in listed["items"] if f["url_error"]} == {
                fid for fid, error in got.values() if error
            }

            # A delivery that names the feed and carries no document: refused at once,
            # saying why, nothing stored (it failed on every try, its fetch refused).
            refused = svc.post({"feed_id": bad})
            assert refused.status_code == 422, refused.text
            detail = refused.json()["detail"]
            assert f"a delivery for feed {bad} must carry its document" in detail
            assert detail.endswith(got[JS][1])
            title_only = got["urn:plainfeed:title:Status"][0]
            refused = svc.post({"feed_id": title_only})
            assert refused.status_code == 422 and "no http(s) URL to fetch" in refused.text
            assert svc.count(t.Delivery) == 0

            # The command line lists it as before (what scripts read), and says why on
            # stderr; it is not subscribed to (with --hub its URL was the topic).
            done = cli(svc, "feeds", "list")
            assert done.returncode == 0, done.stderr
            assert f"{bad}\t{JS}\t" in done.stdout
            assert f"feed {bad}: {got[JS][1]}" in done.stderr
            assert f"feed {good}:" not in done.stderr
            hub = "https://hub.example.com/"
            refused_cli = cli(svc, "feeds", "subscribe", str(bad), "--hub", hub)
            assert refused_cli.returncode != 0
            assert f"feed {bad} cannot be subscribed to" in refused_cli.stderr
            assert "Traceback" not in refused_cli.stderr
            refused_cli = cli(svc, "feeds", "subscribe", str(title_only), "--hub", hub)
            assert refused_cli.returncode != 0
            assert "no http(s) URL to fetch" in refused_cli.stderr
            assert svc.row(t.Feed, bad).websub_state is None


def test_migration_0017_comes_down_keeping_every_feeds_items(db_url: str) -> None:
    # Down, on SQLite, batch mode copied the feeds table and dropped the old one: with
    # foreign keys on (service.store.db), dropping it deleted every item of every feed
    # (ON DELETE CASCADE) and unlinked every delivery (SET NULL).
    with (
        migrated_over(db_url, "0016", {}, {"url_error"}) as engine,
        sessionmaker(engine).begin() as s,
    ):
        fid = s.scalars(select(t.Feed.id)).one()
        delivery = t.Delivery(external_id="d-1", feed_id=fid)
        s.add(delivery)
        s.flush()
        s.add(t.Item(feed_id=fid, key="k-1", content_hash="h", delivery_id=delivery.id))
    engine = make_engine(db_url)  # the schema at 0016 now: read as it is, not migrated
    try:
        with engine.connect() as conn:
            items = conn.execute(text("SELECT feed_id FROM items")).scalars().all()
            deliveries = conn.execute(text("SELECT feed_id FROM deliveries")).scalars().all()
    finally:
        engine.dispose()
    assert (items, deliveries) == ([fid], [fid])


def test_a_bodiless_delivery_is_refused_beside_one_stored_before_0017(db_url: str) -> None:
    # Before 0017 a delivery without a document for such a feed was stored, and waits
    # (it fails when a worker takes it). A new one was looked for among the stored before
    # the feed's URL was: it was taken in as that waiting one's duplicate (200), and the
    # sender never learnt that its pings cannot work.
    with migrated_over(db_url, "0016", {}, {"url_error"}, more=[{"url": JS}]) as engine:
        with sessionmaker(engine).begin() as s:
            bad = s.scalars(select(t.Feed.id).where(t.Feed.url == JS)).one()
            s.add_all(
                t.Delivery(
                    external_id=ident,
                    feed_id=bad,
                    sender="json",
                    headers={},
                    body=None,
                    fetch_url=JS,
                    state="received",
                )
                for ident in ("sha256:0@1", "webhook-id:sender-7")
            )
        with running(make_settings(db_url), workers=0) as svc:
            merged = svc.post({"feed_id": bad})  # coalesced with a waiting one before
            assert merged.status_code == 422, merged.text
            assert f"a delivery for feed {bad} must carry its document" in merged.text
            # One with the sender's id is a replay of the stored one with that id: it is
            # refused all the same (its fetch is refused as the stored one's is).
            replayed = svc.post({"feed_id": bad}, headers={"webhook-id": "sender-7"})
            assert replayed.status_code == 422, replayed.text
            assert svc.count(t.Delivery) == 2
            # With its document it is taken as before.
            doc = {"feed_id": bad, "content": RSS, "content_type": "application/rss+xml"}
            assert svc.post(doc).status_code == 202
            assert svc.count(t.Delivery) == 3


def test_a_bodiless_delivery_stored_before_0017_fails_at_once_saying_why(db_url: str) -> None:
    # Its fetch was tried and refused ("only http(s) URLs are fetched, not javascript"):
    # a reason that did not say the feed only takes documents, nor what to do. It is
    # failed as the API refuses one now (422), its URL not fetched.
    title_only = "urn:plainfeed:title:Status"
    more = [{"url": JS}, {"url": title_only}]
    with migrated_over(db_url, "0016", {}, {"url_error"}, more=more) as engine:
        sessions = make_sessionmaker(engine)
        with sessions.begin() as s:
            feeds = {f.url: f.id for f in s.scalars(select(t.Feed))}
            s.add_all(
                t.Delivery(
                    external_id=f"ping:{url}",
                    feed_id=feeds[url],
                    sender="json",
                    headers={},
                    body=None,
                    fetch_url=url,
                    state="received",
                )
                for url in (JS, title_only)
            )
        settings = make_settings(db_url, poll_interval=0)
        pipeline = Pipeline(settings, sessions, get_engine(settings))
        with Worker(pipeline, stop=threading.Event()) as worker:
            assert worker._one(queue.DELIVERIES) and worker._one(queue.DELIVERIES)
            assert not worker._one(queue.DELIVERIES)
        with sessions() as s:
            done = {d.fetch_url: d for d in s.scalars(select(t.Delivery))}
            url_error = s.scalars(select(t.Feed.url_error).where(t.Feed.url == JS)).one()
        for url, why in ((JS, url_error), (title_only, f"it is known by {title_only}")):
            d = done[url]
            assert (d.state, d.attempts, d.lease_owner) == ("failed", 1, None)
            assert d.error == (
                f"a delivery for feed {feeds[url]} must carry its document in the request "
                f"body: {why}" + (", no http(s) URL to fetch" if url == title_only else "")
            )
