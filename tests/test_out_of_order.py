"""Deliveries applied out of order: an older version of a feed, processed after a newer
one (a WebSub hub retrying an old distribution, a monitor replaying an old record, a
stale replica behind the feed's URL), must not put an edited entry back to its older text
and queue it to be explained again. End to end on real SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import select, text

from service.clean import article_from_entry
from service.engines import get_engine
from service.parse import parse_feed
from service.pipeline import Pipeline
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker, migrate, transaction
from tests.conftest import make_settings, wait_for
from tests.live import Service
from tests.origin import Origin
from tests.test_websub import Hub, cli

ATOM = {"Content-Type": "application/atom+xml"}


def atom(
    updated: str | None, gpus: int, *, other: str = "2026-09-01T08:00:00Z", self_url: str = ""
) -> bytes:
    """A two-entry Atom feed: ``urn:lab:1`` (its ``updated`` date and its GPU count are
    the versions' difference; None: no ``updated``) and ``urn:lab:2``, the same in every
    version. No entry links: no page is read."""
    stamp = f"<updated>{updated}</updated>" if updated else ""
    link = f'<link rel="self" href="{self_url}"/>' if self_url else ""
    return (
        '<?xml version="1.0" encoding="utf-8"?>'
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>Lab notes</title>'
        f"<id>urn:lab</id>{link}<updated>2026-09-10T00:00:00Z</updated>"
        "<entry><id>urn:lab:1</id><title>Training run</title>"
        f"<published>2026-09-01T10:00:00Z</published>{stamp}"
        f'<content type="html">&lt;p&gt;The run used {gpus} GPUs for 3 days and reached '
        "71.5% accuracy.&lt;/p&gt;</content></entry>"
        "<entry><id>urn:lab:2</id><title>Dataset</title>"
        f"<published>{other}</published><updated>{other}</updated>"
        '<content type="html">&lt;p&gt;The dataset holds 1.2 million images.&lt;/p&gt;'
        "</content></entry></feed>"
    ).encode()


def lab_item(svc: Service) -> t.Item:
    with svc.sessions() as s:
        item = s.scalars(select(t.Item).where(t.Item.key == "urn:lab:1")).one()
        s.expunge(item)
        return item


def post(svc: Service, body: bytes, fid: int) -> dict[str, Any]:
    r = svc.post(body, ATOM, params={"feed_id": fid})
    assert r.status_code == 202, r.text
    d = svc.outcome(r.json()["delivery_id"])
    assert d["state"] == "processed", d
    return d


def test_an_entry_older_than_the_stored_one_does_not_replace_it(svc: Service) -> None:
    fid = svc.feed("https://lab.example/feed.atom")
    assert post(svc, atom("2026-09-01T10:00:00Z", 8), fid)["items_new"] == 2
    newest = post(svc, atom("2026-09-03T10:00:00Z", 32), fid)
    assert newest["items_changed"] == 1
    stored = lab_item(svc)
    assert "32 GPUs" in stored.text
    # The version of 2 September (edited before the one applied) is delivered last.
    older = post(svc, atom("2026-09-02T10:00:00Z", 16), fid)
    assert older["items_changed"] == 0 and older["item_ids"] == [], older
    assert "urn:lab:1" in older["problems"] and "older than" in older["problems"]
    after = lab_item(svc)
    assert (after.text, after.content_hash, after.updated_at) == (
        stored.text,
        stored.content_hash,
        stored.updated_at,
    )
    # A genuinely newer edit is applied and queued again.
    newer = post(svc, atom("2026-09-05T10:00:00Z", 64), fid)
    assert newer["items_changed"] == 1 and newer["item_ids"] == [after.id]
    assert not newer["problems"]
    assert "64 GPUs" in lab_item(svc).text
    # The same content again (a document re-sent with other markup) changes nothing.
    again = post(svc, atom("2026-09-05T10:00:00Z", 64).replace(b"<title>", b"<title> "), fid)
    assert again["items_changed"] == 0 and again["items_new"] == 0 and not again["problems"]


def test_an_edit_that_keeps_the_entry_date_is_applied(svc: Service) -> None:
    # RSS feeds rarely move a post's date when they edit it: equal dates are no order.
    fid = svc.feed("https://lab.example/feed.atom")
    post(svc, atom("2026-09-01T10:00:00Z", 8), fid)
    same_date = post(svc, atom("2026-09-01T10:00:00Z", 12), fid)
    assert same_date["items_changed"] == 1
    # Dates gone from the feed: nothing known of order, the edit is applied (as before).
    undated = post(svc, atom(None, 24), fid)
    assert undated["items_changed"] == 1
    assert "24 GPUs" in lab_item(svc).text


def test_an_entry_dated_far_ahead_gives_no_order(svc: Service) -> None:
    # A typo'd year must not make every later edit of the entry look older.
    fid = svc.feed("https://lab.example/feed.atom")
    post(svc, atom("2099-09-01T10:00:00Z", 8), fid)
    fixed = post(svc, atom("2026-09-02T10:00:00Z", 12), fid)
    assert fixed["items_changed"] == 1
    assert "12 GPUs" in lab_item(svc).text


def test_a_websub_retry_of_an_older_distribution_is_not_applied(
    svc: Service, origin: Origin
) -> None:
    hub = Hub(origin)
    fid = svc.feed(origin.route("/feed", body=atom("2026-09-01T10:00:00Z", 8)))
    assert cli(svc, "feeds", "subscribe", str(fid), "--hub", hub.url).returncode == 0
    wait_for(lambda: hub.verified)
    callback, secret = f"{svc.url}/websub/{fid}", hub.requests[0]["hub.secret"]

    def push(body: bytes) -> dict[str, Any]:
        r = hub.distribute(callback, body, secret)
        assert r.status_code == 202, r.text
        return svc.outcome(r.json()["delivery_id"])

    assert push(atom("2026-09-01T10:00:00Z", 8))["items_new"] == 2
    assert push(atom("2026-09-03T10:00:00Z", 32))["items_changed"] == 1
    retried = push(atom("2026-09-02T10:00:00Z", 16))
    assert retried["items_changed"] == 0 and "older than" in retried["problems"]
    assert "32 GPUs" in lab_item(svc).text


def test_a_fetched_document_older_than_the_one_applied_changes_nothing(
    svc: Service, origin: Origin
) -> None:
    """No entry dates here: the document's own HTTP Last-Modified (the publisher's clock,
    as the one stored from the last applied fetch) tells a stale replica's answer."""
    url = origin.route(
        "/feed", body=atom(None, 8), headers=ATOM, last_modified="Tue, 01 Sep 2026 10:00:00 GMT"
    )
    fid = svc.feed(url)

    def fetch() -> dict[str, Any]:
        # A body-less ping: the worker fetches the feed (conditionally).
        r = svc.post({"feed_id": fid})
        assert r.status_code == 202, r.text
        d = svc.outcome(r.json()["delivery_id"])
        assert d["state"] == "processed", d
        return d

    assert fetch()["items_new"] == 2
    origin.route(
        "/feed", body=atom(None, 32), headers=ATOM, last_modified="Thu, 03 Sep 2026 10:00:00 GMT"
    )
    assert fetch()["items_changed"] == 1
    # A replica that has not seen the last edit answers (200: its date is not the one
    # asked about).
    origin.route(
        "/feed", body=atom(None, 16), headers=ATOM, last_modified="Wed, 02 Sep 2026 10:00:00 GMT"
    )
    stale = fetch()
    assert stale["items_changed"] == 0 and "older than" in stale["problems"], stale
    assert "32 GPUs" in lab_item(svc).text
    assert svc.row(t.Feed, fid).last_modified == "Thu, 03 Sep 2026 10:00:00 GMT"
    origin.route(
        "/feed", body=atom(None, 64), headers=ATOM, last_modified="Sat, 05 Sep 2026 10:00:00 GMT"
    )
    assert fetch()["items_changed"] == 1
    assert "64 GPUs" in lab_item(svc).text


def _versions(*docs: bytes) -> list[list[tuple[Any, Any]]]:
    return [[(e, article_from_entry(e)) for e in parse_feed(d).entries] for d in docs]


@pytest.mark.parametrize("first_to_commit", ["older", "newer"])
def test_two_workers_writing_two_versions_of_an_entry_keep_the_newer(
    pg_url: str, first_to_commit: str
) -> None:
    """Two deliveries of a feed in two transactions at once (two workers): the one that
    commits second was decided on what was stored before the first. Whichever commits
    first, the newer version stays. Before, the second to commit never applied its edit
    (its UPDATE was conditional on the text it had read), even when it was the newer."""
    db = make_engine(pg_url)
    try:
        migrate(db)
        settings = make_settings(pg_url)
        sessions = make_sessionmaker(db)
        pipeline = Pipeline(settings, sessions, get_engine(settings))
        v1, older, newer = _versions(
            atom("2026-09-01T10:00:00Z", 8),
            atom("2026-09-02T10:00:00Z", 16),
            atom("2026-09-03T10:00:00Z", 32),
        )
        with transaction(sessions) as s:
            feed = t.Feed(url="https://lab.example/feed.atom")
            s.add(feed)
            s.flush()
            fid = feed.id
            ids = []
            for n in range(3):
                d = t.Delivery(external_id=f"d{n}", feed_id=fid)
                s.add(d)
                s.flush()
                ids.append(d.id)
            pipeline._store_items(s, fid, ids[0], v1, set())
        first, second = (older, newer) if first_to_commit == "older" else (newer, older)
        holder = sessions()
        holder.begin()
        pipeline._store_items(holder, fid, ids[1], first, set())  # row locked, uncommitted
        errors: list[BaseException] = []

        def other_worker() -> None:
            try:
                with transaction(sessions) as s:
                    pipeline._store_items(s, fid, ids[2], second, set())
            except BaseException as exc:  # the test thread reports it
                errors.append(exc)

        worker = threading.Thread(target=other_worker)
        worker.start()

        def waiting_on_the_row() -> bool:
            with db.connect() as c:
                return bool(
                    c.scalar(
                        text(
                            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                            "'Lock' AND datname = current_database()"
                        )
                    )
                )

        wait_for(waiting_on_the_row)  # the other worker read, decided and waits to write
        holder.commit()
        holder.close()
        worker.join(timeout=60)
        assert not worker.is_alive() and errors == []
        with sessions() as s:
            item = s.scalars(select(t.Item).where(t.Item.key == "urn:lab:1")).one()
        assert "32 GPUs" in item.text
        assert item.entry_date == datetime(2026, 9, 3, 10, tzinfo=UTC)
    finally:
        db.dispose()
