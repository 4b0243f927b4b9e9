"""POST /webhooks/feed end to end with values the database cannot hold as they are (too
long, escaped twice, past the calendar), truncated feeds and change records out of
order; the real app on loopback with its workers, real SQLite and PostgreSQL."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from sqlalchemy import select

from service.store import tables as t
from tests.live import Service
from tests.webhook_docs import FEED_BYTES, PYTORCH_ITEMS, RSS, edited_feed, pytorch_change_record


def observed_record(rec: dict[str, Any], body: bytes, at: str, timestamp: str) -> dict[str, Any]:
    """``rec`` carrying ``body``, observed by the monitor ``at`` (its recorded headers)."""
    data = {**rec["data"], "content": base64.b64encode(body).decode(), "bytes": len(body)}
    data["headers"] = {**data["headers"], "etag": f'"{at}"', "observed_at": at}
    return {**rec, "timestamp": timestamp, "data": data}


def test_entry_fields_longer_than_their_columns_keep_the_delivery(svc: Service) -> None:
    prose = "The parser reads the feed in one pass. The authors explain why the old one was slow."
    doc = (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Long</title>'
        "<link>https://long.example/</link>"
        f"<item><title>Long fields</title><guid>{'g' * 5000}</guid>"
        f"<link>https://long.example/{'l' * 5000}</link><author>{'a' * 2000}</author>"
        f"<description>{prose}</description></item>"
        "<item><title>Short fields</title><link>https://long.example/short</link>"
        f"<description>{prose}</description></item></channel></rss>"
    ).encode()
    r = svc.post(doc, RSS)
    assert r.status_code == 202, r.text
    # On PostgreSQL the over-long guid failed the whole delivery, the short item with it.
    d = svc.outcome(r.json()["delivery_id"])
    assert d["state"] == "processed", d
    assert d["items_new"] == 2
    again = svc.post(doc.replace(b"<title>Long</title>", b"<title>Long again</title>"), RSS)
    assert svc.outcome(again.json()["delivery_id"])["items_new"] == 0  # same identities


@pytest.mark.parametrize(
    "doc",
    [
        # A self link longer than a URL column: the feed is known by its other address.
        '<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">'
        "<channel><title>Long self</title><link>https://long.example/</link>"
        f'<atom:link rel="self" href="https://long.example/{"a" * 3000}"/>'
        "<item><title>One</title><link>https://long.example/1</link>"
        "<description>The parser reads the feed in one pass.</description></item>"
        "</channel></rss>",
        # No link, a title longer than its column (the feed is known by its title).
        '<?xml version="1.0"?><rss version="2.0"><channel>'
        f"<title>{'t' * 3000}</title>"
        "<item><title>One</title><link>https://long.example/2</link>"
        "<description>The parser reads the feed in one pass.</description></item>"
        "</channel></rss>",
        # A NUL in a JSON Feed's strings (PostgreSQL refuses NUL in text).
        json.dumps(
            {
                "version": "https://jsonfeed.org/version/1.1",
                "title": "j\u0000f",
                "items": [
                    {"id": "n\u00001", "title": "N\u0000ul", "content_text": "A\u0000 b c d."}
                ],
            }
        ),
        # A lone surrogate escape in a JSON Feed (json.loads keeps it; UTF-8 cannot hold
        # it): one bad title failed the delivery and every entry with it.
        '{"version": "https://jsonfeed.org/version/1.1", "title": "S\\ud800",'
        ' "items": [{"id": "s\\udc001", "title": "caf\\ud800e",'
        ' "content_text": "A lone \\udfff half, 3 times."}]}',
        # The same as an XML character reference (not well-formed; the loose parser
        # hands it over).
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>T</title>'
        "<link>https://sur.example/</link><item><guid>a&#xD800;</guid>"
        "<title>x &#xD800; y</title><description>Text with &#55296; 4 numbers.</description>"
        "</item></channel></rss>",
    ],
    ids=["long-self-link", "long-title", "nul", "surrogate-json", "surrogate-xml"],
)
def test_feed_values_the_database_cannot_hold_keep_the_delivery(svc: Service, doc: str) -> None:
    ctype = "application/feed+json" if doc.startswith("{") else "application/rss+xml"
    r = svc.post(doc.encode(), {"Content-Type": ctype})
    assert r.status_code == 202, r.text
    d = svc.outcome(r.json()["delivery_id"])
    assert d["state"] == "processed", d
    assert d["items_new"] == 1


def test_a_feed_title_escaped_twice_is_stored_decoded_and_its_feed_still_found(
    svc: Service,
) -> None:
    """An Atom text title "Q&amp;amp;A" (a JSON Feed's "AT&amp;T") reached the parser
    decoded once, and the feed was stored and shown as "Q&amp;A". Decoded now, as an
    entry's title is; a feed with no URL, known by its title as sent, keeps that
    address (one stored before is still found, not made again) and its title is healed."""
    from service.store.db import transaction

    with transaction(svc.sessions) as s:  # as stored before titles were decoded
        legacy = t.Feed(url="urn:plainfeed:title:AT&amp;T Research", title="AT&amp;T Research")
        s.add(legacy)
        s.flush()
        legacy_id = legacy.id
    untitled = json.dumps(
        {
            "version": "https://jsonfeed.org/version/1.1",
            "title": "AT&amp;T Research",
            "items": [{"id": "1", "content_text": "It ran 3 times faster."}],
        }
    ).encode()
    feeds = svc.count(t.Feed)
    d = svc.outcome(
        svc.post(untitled, {"Content-Type": "application/feed+json"}).json()["delivery_id"]
    )
    assert d["state"] == "processed" and d["feed_id"] == legacy_id, d
    assert svc.count(t.Feed) == feeds
    feed = svc.http.get(f"/feeds/{legacy_id}").json()
    assert (feed["url"], feed["title"]) == (
        "urn:plainfeed:title:AT&amp;T Research",
        "AT&T Research",
    )

    atom = (
        b'<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
        b"<title>Q&amp;amp;A Weekly</title><id>urn:qa</id>"
        b'<link rel="self" href="https://qa.example/feed.atom"/>'
        b"<entry><id>urn:qa:1</id><title>One</title><updated>2026-09-01T10:00:00Z</updated>"
        b"<content>It ran 3 times faster.</content></entry></feed>"
    )
    d = svc.outcome(svc.post(atom, {"Content-Type": "application/atom+xml"}).json()["delivery_id"])
    assert d["state"] == "processed", d
    feed = svc.http.get(f"/feeds/{d['feed_id']}").json()
    assert (feed["url"], feed["title"]) == ("https://qa.example/feed.atom", "Q&A Weekly")


@pytest.mark.parametrize(
    ("etag", "last_modified"),
    [("\u0000", "Tue, 22 Sep 2026 15:45:46 GMT"), ('"ok"', "x" * 200)],
    ids=["nul-etag", "long-last-modified"],
)
def test_recorded_validators_the_feed_row_cannot_hold_are_dropped(
    svc: Service, etag: str, last_modified: str
) -> None:
    fid, rec = pytorch_change_record(svc)
    rec["data"]["headers"].update({"etag": etag, "last-modified": last_modified})
    d = svc.outcome(svc.post(rec).json()["delivery_id"])
    assert d["state"] == "processed", d
    assert d["items_new"] == PYTORCH_ITEMS
    feed = svc.row(t.Feed, fid)
    # The one that fits is kept; the other is dropped, not cut (a cut one never matches).
    assert (feed.etag, feed.last_modified) == tuple(
        v if len(v) <= 128 and "\x00" not in v else None for v in (etag, last_modified)
    )


def test_a_truncated_feed_changes_no_stored_item_and_leaves_its_last_entry_out(
    svc: Service,
) -> None:
    first = svc.outcome(svc.post(FEED_BYTES, RSS).json()["delivery_id"])
    assert first["items_new"] == PYTORCH_ITEMS
    with svc.sessions() as s:
        before = {i.key: (i.content_hash, len(i.text)) for i in s.scalars(select(t.Item))}
    # As a monitor that stored part of the response sends it: the entries before the cut
    # are whole (and unchanged), the last one stops mid-way.
    cut = FEED_BYTES[: len(FEED_BYTES) // 2]
    d = svc.outcome(svc.post(cut, RSS).json()["delivery_id"])
    assert d["state"] == "processed", d
    assert d["items_changed"] == 0 and d["items_new"] == 0
    assert "left out" in d["problems"]
    # Not well-formed, not cut short: a changed entry is not applied either.
    edited = edited_feed()
    assert edited != FEED_BYTES
    broken = edited.replace(b"</channel>", b"<oops></channel>", 1)
    d = svc.outcome(svc.post(broken, RSS).json()["delivery_id"])
    assert d["state"] == "processed", d
    assert d["items_changed"] == 0
    assert "1 changed entry not applied" in d["problems"]
    with svc.sessions() as s:
        after = {i.key: (i.content_hash, len(i.text)) for i in s.scalars(select(t.Item))}
    assert after == before
    # The same edit in a well-formed document is applied.
    d = svc.outcome(svc.post(edited, RSS).json()["delivery_id"])
    assert d["items_changed"] == 1


def test_a_change_record_older_than_one_applied_does_not_undo_its_edits(svc: Service) -> None:
    """A monitor retries a record it could not deliver after it delivered a newer one (or
    two workers take two records of one feed at once and the older one commits last):
    the older artifact's version of an edited post must not replace the newer one."""
    fid, rec = pytorch_change_record(svc)
    edited = edited_feed()

    def record(body: bytes, at: str) -> dict[str, Any]:
        return observed_record(rec, body, at, timestamp=at)

    first = svc.outcome(svc.post(record(FEED_BYTES, "2026-09-23T04:00:00Z")).json()["delivery_id"])
    assert first["items_new"] == PYTORCH_ITEMS
    newer = svc.outcome(svc.post(record(edited, "2026-09-23T06:00:00Z")).json()["delivery_id"])
    assert newer["items_changed"] == 1
    with svc.sessions() as s:
        texts = {i.key: i.text for i in s.scalars(select(t.Item))}
    assert any("A paragraph added later." in x for x in texts.values())
    # The record of 05:00, observed before the edit, arrives last.
    older = svc.outcome(svc.post(record(FEED_BYTES, "2026-09-23T05:00:00Z")).json()["delivery_id"])
    assert older["state"] == "processed", older
    assert older["items_changed"] == 0 and older["item_ids"] == []
    assert "older than" in older["problems"]
    with svc.sessions() as s:
        assert {i.key: i.text for i in s.scalars(select(t.Item))} == texts
    assert svc.row(t.Feed, fid).etag == '"2026-09-23T06:00:00Z"'  # the newer record's
    # A monitor whose clock ran years ahead once does not make every later record stale.
    future = svc.outcome(svc.post(record(FEED_BYTES, "2999-01-01T00:00:00Z")).json()["delivery_id"])
    assert future["items_changed"] == 1  # no order known: applied, as any document
    later = svc.outcome(svc.post(record(edited, "2026-09-23T07:00:00Z")).json()["delivery_id"])
    assert later["items_changed"] == 1


def test_a_timestamp_that_is_no_date_orders_by_the_recorded_observation(svc: Service) -> None:
    """The monitor's change pages show "Timestamp: origin" (the label of its clock, not a
    date): such a record is taken, not refused (the monitor would lose it), and ordered
    by its recorded ``observed_at`` as a record without a timestamp is."""
    _, rec = pytorch_change_record(svc)
    edited = edited_feed()

    def record(body: bytes, at: str) -> dict[str, Any]:
        return observed_record(rec, body, at, timestamp="origin")

    first = svc.post(record(FEED_BYTES, "2026-09-23T04:00:00Z"))
    assert first.status_code == 202, first.text
    assert svc.outcome(first.json()["delivery_id"])["items_new"] == PYTORCH_ITEMS
    newer = svc.outcome(svc.post(record(edited, "2026-09-23T06:00:00Z")).json()["delivery_id"])
    assert newer["items_changed"] == 1
    older = svc.outcome(svc.post(record(FEED_BYTES, "2026-09-23T05:00:00Z")).json()["delivery_id"])
    assert older["state"] == "processed", older
    assert older["items_changed"] == 0 and "older than" in older["problems"]


# A time that parses, but not into UTC: an hour west of the last second of year 9999 is
# past it (datetime.astimezone raised OverflowError).
PAST_THE_CALENDAR = "9999-12-31T23:59:59-01:00"


def small_rss(title: str = "Faster kernels") -> bytes:
    return (
        '<?xml version="1.0"?><rss version="2.0"><channel><title>Small</title>'
        "<link>https://small.example/</link><item><guid>urn:small:1</guid>"
        f"<title>{title}</title><description>&lt;p&gt;The kernels run 1.5x faster on "
        "8 GPUs.&lt;/p&gt;</description></item></channel></rss>"
    ).encode()


def test_a_change_record_observed_past_the_calendar_is_processed(svc: Service) -> None:
    # The record's timestamp is read before the delivery's outcome is decided: its
    # OverflowError escaped the worker, the delivery stayed "processing" until its lease
    # ran out, again on each attempt, and ended "gave up ... lease expired".
    fid = svc.feed("https://small.example/feed.xml", name="small-feed")
    body = small_rss()
    rec = {
        "type": "feed.changed",
        "timestamp": PAST_THE_CALENDAR,
        "data": {
            "source": "small-feed",
            "url": "https://small.example/feed.xml",
            "status": 200,
            "bytes": len(body),
            "headers": {"observed_at": PAST_THE_CALENDAR},
            "content": base64.b64encode(body).decode(),
            "content_encoding": "base64",
            "content_type": "application/rss+xml",
        },
    }
    r = svc.post(rec)
    assert r.status_code == 202, r.text
    d = svc.outcome(r.json()["delivery_id"], timeout=20)
    assert (d["state"], d["feed_id"], d["items_new"]) == ("processed", fid, 1), d


def test_a_json_feed_entry_dated_past_the_calendar_is_undated(svc: Service) -> None:
    # One entry's date failed the whole delivery: "OverflowError: date value out of range".
    doc = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Dated",
        "home_page_url": "https://dated.example/",
        "items": [
            {
                "id": "urn:dated:1",
                "title": "Kernels",
                "content_text": "The kernels run 1.5x faster on 8 GPUs.",
                "date_published": PAST_THE_CALENDAR,
            },
            {
                "id": "urn:dated:2",
                "title": "Dataset",
                "content_text": "The dataset holds 1.2 million images.",
                "date_modified": "0001-01-01T00:00:00+01:00",
            },
        ],
    }
    fid = svc.feed("https://dated.example/feed.json")
    r = svc.post(
        json.dumps(doc).encode(),
        {"Content-Type": "application/feed+json"},
        params={"feed_id": fid},
    )
    assert r.status_code == 202, r.text
    d = svc.outcome(r.json()["delivery_id"])
    assert (d["state"], d["items_new"]) == ("processed", 2), d
    with svc.sessions() as s:
        items = s.scalars(select(t.Item).where(t.Item.feed_id == fid)).all()
    assert {(i.key, i.published) for i in items} == {("urn:dated:1", None), ("urn:dated:2", None)}


def test_a_json_feed_entry_keyed_by_a_title_with_half_an_emoji_is_stored(svc: Service) -> None:
    # "\ud83d" is valid JSON (half a surrogate pair: a title cut in the middle of an
    # emoji). An entry with no id and no url is keyed by a hash of its title, taken before
    # the document was made storable: UnicodeEncodeError failed the whole delivery.
    doc = (
        '{"version": "https://jsonfeed.org/version/1.1", "title": "Cut",'
        ' "home_page_url": "https://cut.example/", "items": ['
        '{"title": "Launch \\ud83d", "content_text": "The kernels run 1.5x faster."},'
        '{"id": "urn:cut:2", "title": "Dataset", "content_text": "It holds 1.2 million images."}'
        "]}"
    )
    fid = svc.feed("https://cut.example/feed.json")
    r = svc.post(doc.encode(), {"Content-Type": "application/feed+json"}, params={"feed_id": fid})
    assert r.status_code == 202, r.text
    d = svc.outcome(r.json()["delivery_id"])
    assert (d["state"], d["items_new"]) == ("processed", 2), d
    with svc.sessions() as s:
        titles = set(s.scalars(select(t.Item.title).where(t.Item.feed_id == fid)))
    assert titles == {"Launch \ufffd", "Dataset"}
