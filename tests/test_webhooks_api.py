"""POST /webhooks/feed end to end: the real app on loopback with its workers, real SQLite
and PostgreSQL, and real HTTP servers for the feeds and article pages it fetches."""

from __future__ import annotations

import base64
import json
import re
import threading
import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from service import signatures
from service.store import tables as t
from tests.conftest import (
    CORPUS,
    DATA,
    PYTORCH_FEED,
    llm_settings,
    make_settings,
    wait_for,
)
from tests.live import Service, running
from tests.origin import Origin, Seen
from tests.stub_llm import StubLLM

HOOKS = DATA / "webhooks"
SECRET = "s3cret-shared-with-the-monitor"
RSS = {"Content-Type": "application/rss+xml; charset=UTF-8"}
FEED_BYTES = PYTORCH_FEED.read_bytes()
PYTORCH_ITEMS = 10


def excerpt_feed(origin: Origin, n: int = 2) -> bytes:
    """The first ``n`` items of the real excerpt-only Ollama feed, their links pointing at
    article pages served by ``origin`` (the real FP8 post page for each)."""
    text = (CORPUS / "feeds" / "ollama-blog-2026-09-02-a2a70b9.xml").read_text()
    head, _, rest = text.partition("<item>")
    items = ["<item>" + part for part in rest.split("<item>")[:n]]
    items[-1] = items[-1].split("</item>")[0] + "</item>"
    doc = head + "".join(items) + "\n  </channel>\n</rss>\n"
    page = (HOOKS / "article-page.html").read_bytes()
    for link in re.findall(r"<link>(https://ollama\.com/blog/[^<]+)</link>", doc):
        path = "/blog/" + link.rsplit("/", 1)[1]
        origin.route(path, body=page, headers={"Content-Type": "text/html; charset=utf-8"})
        doc = doc.replace(link, origin.url + path)
    return doc.encode()


# --- senders -----------


def test_raw_feed_then_replay(svc: Service) -> None:
    r = svc.post(FEED_BYTES, RSS)
    assert r.status_code == 202, r.text
    first = r.json()
    assert first["duplicate"] is False and r.headers["location"] == first["status_url"]
    d = svc.outcome(first["delivery_id"])
    assert d["state"] == "processed" and d["items_new"] == PYTORCH_ITEMS and d["sender"] == "raw"
    again = svc.post(FEED_BYTES, RSS)
    assert again.status_code == 200
    assert again.json() == {**first, "duplicate": True}
    assert svc.count(t.Delivery) == 1 and svc.count(t.Item) == PYTORCH_ITEMS
    listed = svc.http.get("/deliveries").json()
    assert listed["total"] == 1 and listed["items"][0]["external_id"].startswith("sha256:")


def test_a_feed_known_by_its_self_link_is_stored_in_the_normal_form_of_a_url(
    svc: Service,
) -> None:
    """A document's self link registers its feed as `POST /feeds` stores a URL (lower-case
    scheme and host, no default port, no #fragment): stored as written, the same feed
    registered by its URL was a second feed (201, not 409), and a `feed_url` written
    otherwise than the self link found no feed (404)."""
    doc = (
        b'<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>Mixed</title>'
        b'<id>urn:mixed</id><link rel="self" href="HTTPS://Mixed.Example:443/feed#top"/>'
        b"<entry><id>urn:m1</id><title>Faster</title><updated>2026-11-01T00:00:00Z</updated>"
        b'<content type="html">&lt;p&gt;The parser is 5x faster.&lt;/p&gt;</content></entry>'
        b"</feed>"
    )
    r = svc.post(doc, {"Content-Type": "application/atom+xml"})
    assert r.status_code == 202, r.text
    fid = svc.outcome(r.json()["delivery_id"])["feed_id"]
    assert svc.http.get(f"/feeds/{fid}").json()["url"] == "https://mixed.example/feed"
    auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
    again = svc.http.post("/feeds", json={"url": "https://mixed.example/feed"}, headers=auth)
    assert again.status_code == 409, again.text
    for n, written in enumerate(("https://MIXED.example/feed", "https://mixed.example:443/f#x")):
        content = doc.decode().replace("5x", f"{6 + n}x")
        r = svc.post({"feed_url": written.replace("/f#", "/feed#"), "content": content})
        assert r.status_code == 202, (written, r.text)
        assert svc.outcome(r.json()["delivery_id"])["feed_id"] == fid
    assert svc.count(t.Feed) == 1


def test_feed_reference_fetches_with_conditional_get(svc: Service, origin: Origin) -> None:
    url = origin.route(
        "/blog/feed/",
        body=FEED_BYTES,
        headers=RSS,
        etag='"v1"',
        last_modified="Wed, 02 Sep 2026 01:00:00 GMT",
    )
    fid = svc.feed(url, name="pytorch")
    d1 = svc.outcome(svc.post({"feed_id": fid}).json()["delivery_id"])
    assert d1["state"] == "processed" and d1["items_new"] == PYTORCH_ITEMS
    feed = svc.row(t.Feed, fid)
    assert (feed.etag, feed.last_modified) == ('"v1"', "Wed, 02 Sep 2026 01:00:00 GMT")
    # The same ping again: a new delivery (not a replay), answered by a 304.
    r2 = svc.post({"feed_url": url})
    assert r2.status_code == 202
    d2 = svc.outcome(r2.json()["delivery_id"])
    assert d2["state"] == "processed" and d2["items_new"] == 0
    assert "not modified" in d2["problems"]
    fetches = origin.requests_to("/blog/feed/")
    assert len(fetches) == 2 and fetches[1].headers["if-none-match"] == '"v1"'
    assert fetches[1].headers["user-agent"] == svc.settings.user_agent
    assert svc.count(t.Item) == PYTORCH_ITEMS


def test_feed_reference_with_inline_content(svc: Service) -> None:
    fid = svc.feed("https://pytorch.org/blog/feed/")
    r = svc.post({"feed_url": "https://pytorch.org/blog/feed", "content": FEED_BYTES.decode()})
    assert r.status_code == 202
    d = svc.outcome(r.json()["delivery_id"])
    assert d["feed_id"] == fid and d["items_new"] == PYTORCH_ITEMS


def test_change_record_without_content_fetches_the_named_feed(svc: Service, origin: Origin) -> None:
    url = origin.route("/blog/feed/", body=FEED_BYTES, headers=RSS, etag='"fetched"')
    fid = svc.feed(url, name="pytorch-blog-feed")
    rec = json.loads((HOOKS / "change-record-000.json").read_text())
    r = svc.post(rec)
    assert r.status_code == 202, r.text
    d = svc.outcome(r.json()["delivery_id"])
    assert d["sender"] == "change-record" and d["feed_id"] == fid
    assert d["items_new"] == PYTORCH_ITEMS
    assert svc.row(t.Feed, fid).etag == '"fetched"'
    stored = svc.row(t.Delivery, d["id"]).headers
    assert stored["meta"]["commit"] == "43e93bf465187c4033a5b27d58dc07a303f869ba"
    assert svc.post(rec).json()["duplicate"] is True  # the same change record replayed


def pytorch_change_record(svc: Service) -> tuple[int, dict[str, Any]]:
    """The PyTorch blog feed registered, and a seed change record carrying its artifact."""
    fid = svc.feed("https://pytorch.org/blog/feed/", name="pytorch-blog-feed")
    rec = json.loads((HOOKS / "change-record-004.json").read_text())
    rec["data"].update(
        content=base64.b64encode(FEED_BYTES).decode(),
        content_encoding="base64",
        bytes=len(FEED_BYTES),
        content_type="application/rss+xml",
    )
    return fid, rec


def edited_feed() -> bytes:
    """The PyTorch feed with its first post's text edited (a paragraph added)."""
    marker = b"<content:encoded><![CDATA["
    return FEED_BYTES.replace(marker, marker + b"<p>A paragraph added later.</p>", 1)


def observed_record(rec: dict[str, Any], body: bytes, at: str, timestamp: str) -> dict[str, Any]:
    """``rec`` carrying ``body``, observed by the monitor ``at`` (its recorded headers)."""
    data = {**rec["data"], "content": base64.b64encode(body).decode(), "bytes": len(body)}
    data["headers"] = {**data["headers"], "etag": f'"{at}"', "observed_at": at}
    return {**rec, "timestamp": timestamp, "data": data}


def test_change_record_with_its_artifact(svc: Service) -> None:
    fid, rec = pytorch_change_record(svc)
    d = svc.outcome(svc.post(rec).json()["delivery_id"])
    assert d["items_new"] == PYTORCH_ITEMS
    # The monitor's recorded validators are the feed's now: the next fetch is conditional.
    feed = svc.row(t.Feed, fid)
    assert feed.etag == '"a04799070a26254df2b689ff74b71a35"'
    assert feed.last_modified == "Tue, 22 Sep 2026 15:45:46 GMT"


def test_change_record_for_an_unknown_source_is_404(svc: Service) -> None:
    rec = json.loads((HOOKS / "change-record-000.json").read_text())
    r = svc.post(rec)
    assert r.status_code == 404
    assert r.headers["content-type"] == "application/problem+json"
    assert "pytorch-blog-feed" in r.json()["detail"]
    assert svc.count(t.Delivery) == 0


def test_a_feed_name_is_one_feed_s(svc: Service) -> None:
    """A change record names its feed by name: a second feed with a name already taken
    is refused (409), when registered and when renamed; it used to be stored, and the
    record went to whichever of the two the database listed first."""
    auth = {"Authorization": f"Bearer {svc.settings.api_token}"}
    first = svc.feed("https://other.example/feed", name="pytorch-blog-feed")
    r = svc.http.post(
        "/feeds",
        json={"url": "https://pytorch.org/blog/feed/", "name": "pytorch-blog-feed"},
        headers=auth,
    )
    assert r.status_code == 409, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert f"feed {first} is already named 'pytorch-blog-feed'" in r.json()["detail"]
    second = svc.feed("https://pytorch.org/blog/feed/", name="pytorch")
    r = svc.http.patch(f"/feeds/{second}", json={"name": "pytorch-blog-feed"}, headers=auth)
    assert r.status_code == 409, r.text
    assert svc.row(t.Feed, second).name == "pytorch"
    # A feed keeps its own name; a name given up is free again.
    r = svc.http.patch(f"/feeds/{first}", json={"name": "pytorch-blog-feed"}, headers=auth)
    assert r.status_code == 200, r.text
    r = svc.http.patch(f"/feeds/{first}", json={"name": None}, headers=auth)
    assert r.status_code == 200, r.text
    r = svc.http.patch(f"/feeds/{second}", json={"name": "pytorch-blog-feed"}, headers=auth)
    assert r.status_code == 200, r.text


def test_a_change_record_goes_to_the_feed_of_its_url_among_feeds_of_one_name(
    svc: Service,
) -> None:
    """A database from before names were kept unique has two feeds named as the
    monitor's source: the record goes to the one at its ``data.url`` (not the older
    one), and without a URL that tells them apart it is a 409, nothing stored."""
    older = svc.feed("https://other.example/feed")
    fid, rec = pytorch_change_record(svc)
    with svc.sessions() as s, s.begin():
        s.get(t.Feed, older).name = "pytorch-blog-feed"  # the names collide
    r = svc.post(rec)
    assert r.status_code == 202, r.text
    d = svc.outcome(r.json()["delivery_id"])
    assert d["feed_id"] == fid and d["items_new"] == PYTORCH_ITEMS
    rec["data"]["url"] = "https://elsewhere.example/feed"
    rec["data"]["commit"] = "another"
    r = svc.post(rec)
    assert r.status_code == 409, r.text
    assert "are all named 'pytorch-blog-feed'" in r.json()["detail"]
    assert svc.count(t.Delivery) == 1


def test_miniflux_and_changedetection_map_to_a_feed_fetch(svc: Service, origin: Origin) -> None:
    url = origin.route("/blog/feed/", body=FEED_BYTES, headers=RSS, etag='"e1"')
    fid = svc.feed(url)
    mini = json.loads((HOOKS / "miniflux-new-entries.json").read_text())
    mini["feed"]["feed_url"] = url
    r = svc.post(mini, {"X-Miniflux-Event-Type": "new_entries"})
    assert r.status_code == 202, r.text
    d = svc.outcome(r.json()["delivery_id"])
    assert (d["sender"], d["feed_id"], d["items_new"]) == ("miniflux", fid, PYTORCH_ITEMS)
    cd = json.loads((HOOKS / "changedetection-apprise.json").read_text())
    cd["title"] = cd["title"].replace("https://pytorch.org/blog/feed/", url)
    cd["message"] = cd["message"].replace("https://pytorch.org/blog/feed/", url)
    r2 = svc.post(cd)
    assert r2.status_code == 202, r2.text
    d2 = svc.outcome(r2.json()["delivery_id"])
    assert (d2["sender"], d2["feed_id"], d2["items_new"]) == ("changedetection", fid, 0)
    assert "not modified" in d2["problems"]


def test_excerpt_only_items_are_read_from_their_pages(svc: Service, origin: Origin) -> None:
    doc = excerpt_feed(origin, 2)
    d = svc.outcome(svc.post(doc, RSS).json()["delivery_id"])
    assert d["items_new"] == 2, d
    items = svc.http.get("/items").json()["items"]
    assert {i["content_source"] for i in items} == {"page"}
    full = svc.http.get(f"/items/{items[0]['id']}").json()
    assert "| Llama3-8B (dense) | Rowwise FP8 vs BF16 | +13.4% throughput | #2736 |" in full["text"]
    assert (
        full["title"] == items[0]["title"] != "FP8 Training on AMD GPUs with TorchTitan and TorchAO"
    )
    pages = [s for s in origin.seen if s.path.startswith("/blog/")]
    assert len(pages) == 2
    # The same feed again (a new delivery id): the pages are not fetched again and the
    # excerpts do not count as changes of the page text.
    d2 = svc.outcome(svc.post(doc, {**RSS, "webhook-id": "again"}).json()["delivery_id"])
    assert (d2["items_new"], d2["items_changed"]) == (0, 0)
    assert len([s for s in origin.seen if s.path.startswith("/blog/")]) == 2


def test_a_page_that_cannot_be_read_keeps_the_excerpt(svc: Service, origin: Origin) -> None:
    doc = excerpt_feed(origin, 1)
    origin.routes.clear()  # the page is gone: 404
    d = svc.outcome(svc.post(doc, RSS).json()["delivery_id"])
    assert d["state"] == "processed" and d["items_new"] == 1
    assert "HTTP 404" in d["problems"] and "kept the feed's excerpt" in d["problems"]
    item = svc.http.get("/items").json()["items"][0]
    assert item["content_source"] == "feed"


# --- failed fetches: the sender did its part (202), the delivery records why -----------


@pytest.mark.parametrize(
    ("route", "reason"),
    [
        ({"status": 404, "body": b"no"}, "HTTP 404"),
        (
            {"body": b"<html><body>a page</body></html>", "headers": {"Content-Type": "text/html"}},
            "not an RSS",
        ),
        ({"body": b"<rss>" + b" " * 300_000}, "cap"),
        ({"body": FEED_BYTES, "delay": 2.0}, "timed out"),
    ],
)
def test_failed_fetch_is_a_failed_delivery(
    tmp_path: Any, origin: Origin, route: dict[str, Any], reason: str
) -> None:
    settings = make_settings(
        f"sqlite:///{tmp_path / 'f.db'}", fetch_max_bytes=200_000, fetch_timeout=0.5
    )
    with running(settings) as svc:
        fid = svc.feed(origin.route("/feed", **route))
        r = svc.post({"feed_id": fid})
        assert r.status_code == 202
        d = svc.outcome(r.json()["delivery_id"])
        assert d["state"] == "failed" and reason in d["error"], d
        assert svc.count(t.Item) == 0
        failed = svc.http.get("/deliveries", params={"state": "failed"}).json()
        assert failed["total"] == 1


def test_a_feed_whose_origin_is_down_for_a_moment_is_fetched_again(
    tmp_path: Any, origin: Origin
) -> None:
    # A monitor's ping says the feed changed; its origin answers 503 twice (a deploy). The
    # ping was answered 202 and will not come again: one failed fetch lost the change.
    answers = iter([503, 503])

    def flaky(seen: Seen) -> tuple[int, dict[str, str], bytes]:
        status = next(answers, 200)
        return status, RSS, FEED_BYTES if status == 200 else b"down for a deploy"

    with running(make_settings(f"sqlite:///{tmp_path / 'r.db'}")) as svc:
        fid = svc.feed(origin.route("/feed", handler=flaky))
        d = svc.outcome(svc.post({"feed_id": fid}).json()["delivery_id"])
        assert d["state"] == "processed", d
        assert d["items_new"] == PYTORCH_ITEMS and d["attempts"] == 3
        assert d["error"] is None  # the 503s were a moment's, not the outcome
        assert len(origin.requests_to("/feed")) == 3


def test_a_feed_whose_origin_stays_down_fails_after_the_configured_attempts(
    tmp_path: Any, origin: Origin
) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'd.db'}", max_attempts=2)
    with running(settings) as svc:
        fid = svc.feed(origin.route("/feed", status=503, body=b"down"))
        d = svc.outcome(svc.post({"feed_id": fid}).json()["delivery_id"])
        assert d["state"] == "failed" and "HTTP 503" in d["error"], d
        assert d["attempts"] == 2 and len(origin.requests_to("/feed")) == 2


def test_removing_a_feed_fails_its_waiting_deliveries_instead_of_registering_it_again(
    tmp_path: Any, origin: Origin
) -> None:
    """A fetch that failed for a moment waits to be tried again; the feed is removed
    meanwhile. The waiting delivery fails, naming the removal: taken up later, with its
    feed_id cleared, it fetched the feed and registered it again (unnamed, no secret)."""
    # The retry waits a minute (make_settings caps backoff at 1 s): retried within the
    # test, the delivery was seen at attempts 2, or in hand when the feed was removed.
    settings = make_settings(f"sqlite:///{tmp_path / 'r.db'}", backoff_base=60.0, backoff_max=60.0)
    url = origin.route("/blog/feed/", status=503, body=b"busy")
    with running(settings) as svc:
        fid = svc.feed(url, name="pytorch")
        did = svc.post({"feed_id": fid}).json()["delivery_id"]

        def waiting() -> bool:
            d = svc.http.get(f"/deliveries/{did}").json()
            return d["state"] == "received" and d["attempts"] == 1 and bool(d["error"])

        wait_for(waiting)
        assert svc.http.delete(f"/feeds/{fid}").status_code == 204
        d = svc.http.get(f"/deliveries/{did}").json()
        assert d["state"] == "failed", d
        assert d["error"] == f"feed {fid} was removed before this delivery was processed"
        assert d["feed_id"] is None
        assert svc.http.get("/feeds").json()["total"] == 0


def test_refused_fetch_is_a_failed_delivery(tmp_path: Any, origin: Origin) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 'r.db'}", allow_private_urls=False)
    with running(settings) as svc:
        fid = svc.feed(origin.route("/feed", body=FEED_BYTES))
        d = svc.outcome(svc.post({"feed_id": fid}).json()["delivery_id"])
        assert d["state"] == "failed" and "refused" in d["error"]
        assert origin.seen == []


# --- bad input -----------


@pytest.mark.parametrize(
    ("body", "ctype", "status"),
    [
        (b'{"feed_id": ', "application/json", 400),
        (b"", "application/rss+xml", 400),
        (b'{"hello": 1}', "application/json", 422),
        (b'{"feed_id": 999}', "application/json", 404),
        (b'{"feed_url": "https://nowhere.example/feed"}', "application/json", 404),
        (b'{"feed_id": 1, "content": "<html>not a feed</html>"}', "application/json", 422),
        (b"<html><body>hello</body></html>", "text/html", 422),
        (b"GIF89a", "image/gif", 415),
        # Longer than the delivery's content_type column (was a 500 on PostgreSQL).
        (FEED_BYTES, "application/rss+xml; x=" + "a" * 300, 415),
        # Nested past the JSON decoder's recursion limit (was a 500).
        (b"[" * 100_000, "application/json", 400),
        (b'{"a":' * 100_000, "application/json", 400),
        # A feed id no database column holds (was a 500 from the driver).
        (b'{"feed_id": 9223372036854775808}', "application/json", 422),
        # A content_type that is not a string, beside JSON content (was a 500 in the sniff).
        (
            b'{"feed_id": 1, "content": "{\\"items\\": []}", "content_type": 5}',
            "application/json",
            422,
        ),
        (
            b'{"type": "feed.changed", "data": {"source": "pytorch", "content": "e30=", '
            b'"content_encoding": "base64", "content_type": ["application/feed+json"]}}',
            "application/json",
            422,
        ),
    ],
)
def test_bad_input(svc: Service, body: bytes, ctype: str, status: int) -> None:
    svc.feed("https://pytorch.org/blog/feed/")
    r = svc.post(body, {"Content-Type": ctype})
    assert r.status_code == status, r.text
    assert r.headers["content-type"] == "application/problem+json"
    assert svc.count(t.Delivery) == 0


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


def test_a_document_that_names_no_feed_is_refused_not_pooled(svc: Service) -> None:
    # No feed_url, home_page_url or title: every such document, from any sender, went
    # into one feed "urn:plainfeed:title:".
    anonymous = (
        b'{"version": "https://jsonfeed.org/version/1.1", "items": [{"id": "1",'
        b' "content_text": "It ran 3 times faster."}]}'
    )
    feeds_before = svc.count(t.Feed)
    d = svc.outcome(
        svc.post(anonymous, {"Content-Type": "application/feed+json"}).json()["delivery_id"]
    )
    assert d["state"] == "failed"
    assert "names no feed" in d["error"] and "feed_id" in d["error"]
    assert svc.count(t.Feed) == feeds_before and svc.count(t.Item) == 0
    # Named by a title, it is a feed of its own.
    titled = anonymous.replace(b'"items"', b'"title": "Status", "items"')
    d = svc.outcome(
        svc.post(titled, {"Content-Type": "application/feed+json"}).json()["delivery_id"]
    )
    assert d["state"] == "processed" and d["items_new"] == 1


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


@pytest.mark.parametrize(
    "body",
    [
        b'{"type": "feed.changed", "data": {"source": "x\\ud800"}}',
        b'{"feed_url": "https://e.example/\\ud800"}',
        b'{"title": "x", "message": "https://e.example/\\udc00 changed"}',
    ],
    ids=["change-record-source", "feed-url", "apprise-url"],
)
def test_a_lone_surrogate_in_a_name_is_no_server_error(svc: Service, body: bytes) -> None:
    # Valid JSON, but no character: looking it up was a 500, which senders retry for ever.
    r = svc.post(body, {"Content-Type": "application/json"})
    assert r.status_code == 404, r.text


def test_a_change_record_whose_text_content_holds_a_lone_surrogate(svc: Service) -> None:
    svc.feed("https://sur.example/feed", name="sur")
    doc = (
        '<rss version="2.0"><channel><title>S\\ud800</title><item><guid>1</guid>'
        "<title>One \\udfff</title><description>Text with 3 numbers.</description>"
        "</item></channel></rss>"
    )
    body = (
        '{"type": "feed.changed", "data": {"source": "sur", "content": "'
        + doc.replace('"', '\\"')
        + '", "content_type": "application/rss+xml"}}'
    ).encode()
    r = svc.post(body, {"Content-Type": "application/json"})
    assert r.status_code == 202, r.text
    d = svc.outcome(r.json()["delivery_id"])
    assert d["state"] == "processed" and d["items_new"] == 1, d


def test_body_over_the_cap_is_413(tmp_path: Any) -> None:
    with running(make_settings(f"sqlite:///{tmp_path / 'c.db'}", max_body_bytes=1000)) as svc:
        assert svc.post(FEED_BYTES, RSS).status_code == 413


# --- signatures -----------


def test_feed_with_secret_rejects_unsigned_and_wrongly_signed(svc: Service) -> None:
    fid = svc.feed("https://pytorch.org/blog/feed/", secret=SECRET)
    for headers in (
        {},
        {"X-Hub-Signature-256": signatures.sign_hub("not-the-secret", FEED_BYTES)},
        {"X-Hub-Signature-256": signatures.sign_hub(SECRET, FEED_BYTES + b"\n")},
        signatures.standard_headers(SECRET, "m1", FEED_BYTES, timestamp=1_000_000_000),
    ):
        r = svc.post(FEED_BYTES, {**RSS, **headers}, params={"feed_id": fid})
        assert r.status_code == 401, (headers, r.text)
        assert r.json()["type"].endswith("/bad-signature")
    assert svc.count(t.Delivery) == 0  # nothing stored


def test_each_signature_scheme_is_accepted(svc: Service) -> None:
    fid = svc.feed("https://pytorch.org/blog/feed/", secret=SECRET)
    sig = signatures.sign_hub(SECRET, FEED_BYTES)
    hub = svc.post(FEED_BYTES, {**RSS, "X-Hub-Signature-256": sig}, params={"feed_id": fid})
    assert hub.status_code == 202
    std = signatures.standard_headers(SECRET, "msg_2mN", FEED_BYTES)
    r = svc.post(FEED_BYTES, {**RSS, **std}, params={"feed_id": fid})
    assert r.status_code == 202
    assert svc.row(t.Delivery, r.json()["delivery_id"]).external_id == "webhook-id:msg_2mN"
    again = svc.post(FEED_BYTES, {**RSS, **std}, params={"feed_id": fid})
    assert again.status_code == 200 and again.json()["duplicate"] is True
    body = json.dumps({"feed_id": fid, "content": FEED_BYTES.decode()}).encode()
    sig512 = signatures.sign_hub(SECRET, body, "sha512")
    ws = svc.post(body, {"Content-Type": "application/json", "X-Hub-Signature": sig512})
    assert ws.status_code == 202
    stored = svc.row(t.Delivery, ws.json()["delivery_id"]).headers
    assert stored["signature"] == "x-hub-signature"


def test_a_captured_signed_document_sent_again_under_a_new_id_is_a_replay(
    svc: Service,
) -> None:
    # X-Hub-Signature-256 signs the body alone; X-GitHub-Delivery beside it does not.
    fid = svc.feed("https://pytorch.org/blog/feed/", secret=SECRET)
    edited = edited_feed()

    def signed(body: bytes, delivery: str) -> httpx.Response:
        headers = {**RSS, "X-Hub-Signature-256": signatures.sign_hub(SECRET, body)}
        return svc.post(body, {**headers, "X-GitHub-Delivery": delivery}, params={"feed_id": fid})

    first = signed(FEED_BYTES, "d-1")
    assert svc.outcome(first.json()["delivery_id"])["items_new"] == PYTORCH_ITEMS
    assert svc.outcome(signed(edited, "d-2").json()["delivery_id"])["items_changed"] == 1
    # Someone who saw the first delivery sends it again with an id of their own.
    replay = signed(FEED_BYTES, "d-forged")
    assert replay.status_code == 200 and replay.json()["duplicate"] is True
    assert replay.json()["delivery_id"] == first.json()["delivery_id"]
    with svc.sessions() as s:
        texts = [i.text for i in s.scalars(select(t.Item))]
    assert any("A paragraph added later." in x for x in texts)
    # Standard Webhooks signs its id: a new id is a new delivery (and a forged one fails).
    std = signatures.standard_headers(SECRET, "msg-3", FEED_BYTES)
    r = svc.post(FEED_BYTES, {**RSS, **std}, params={"feed_id": fid})
    assert r.status_code == 202


def test_signed_document_without_feed_id_finds_its_feed(svc: Service) -> None:
    svc.feed("https://example.org/other.xml", secret="another-secret-entirely")
    fid = svc.feed("https://pytorch.org/blog/feed/", secret=SECRET)
    r = svc.post(
        FEED_BYTES, {**RSS, "X-Hub-Signature-256": signatures.sign_hub(SECRET, FEED_BYTES)}
    )
    assert r.status_code == 202
    assert svc.outcome(r.json()["delivery_id"])["feed_id"] == fid
    bad = svc.post(
        b"<rss version='2.0'><channel/></rss>",
        {**RSS, "X-Hub-Signature-256": signatures.sign_hub("guess", b"x")},
    )
    assert bad.status_code == 401


def test_a_document_naming_no_feed_is_hashed_against_a_bounded_number_of_secrets(
    svc: Service,
) -> None:
    """Each secret tried hashes the whole body, for anyone who sends one: past a budget
    of bytes only the feeds the document's head names (its self link) are tried."""
    from service.pipeline.receive import HMAC_BUDGET

    body = FEED_BYTES + b"<!--" + b"x" * (9 * 2**20) + b"-->"
    for n in range(HMAC_BUDGET // len(body)):
        svc.feed(f"https://example.org/{n}.xml", secret=f"secret-number-{n:04d}")
    last = "https://example.org/last.xml"
    fid = svc.feed(last, secret="the-last-secret")
    signed = {**RSS, "X-Hub-Signature-256": signatures.sign_hub("the-last-secret", body)}
    assert svc.post(body, signed).status_code == 401  # its secret is past the budget
    link = f'<channel><atom:link href="{last}" rel="self"/>'.encode()
    named = body.replace(b"<channel>", link, 1)
    signed = {**RSS, "X-Hub-Signature-256": signatures.sign_hub("the-last-secret", named)}
    r = svc.post(named, signed)
    assert r.status_code == 202, r.text
    assert svc.outcome(r.json()["delivery_id"])["feed_id"] == fid


def test_the_same_document_posted_for_two_feeds_is_two_deliveries(svc: Service) -> None:
    """Two feeds that mirror one document: the second is its feed's delivery, not a
    replay of the first's; posted again for the same feed, it is a replay."""
    first = svc.feed("https://pytorch.org/blog/feed/")
    second = svc.feed("https://mirror.example.org/pytorch.xml")
    a = svc.post(FEED_BYTES, RSS, params={"feed_id": first})
    b = svc.post(FEED_BYTES, RSS, params={"feed_id": second})
    assert (a.status_code, b.status_code) == (202, 202), (a.text, b.text)
    assert a.json()["delivery_id"] != b.json()["delivery_id"]
    again = svc.post(FEED_BYTES, RSS, params={"feed_id": second})
    assert again.status_code == 200 and again.json()["duplicate"] is True
    assert again.json()["delivery_id"] == b.json()["delivery_id"]


def test_unsigned_document_of_a_feed_with_a_secret_creates_nothing(svc: Service) -> None:
    # The document names no feed, so it is stored; the worker finds it belongs to a
    # feed with a secret (its self link) and takes nothing from it.
    svc.feed("https://pytorch.org/blog/feed/", secret=SECRET)
    d = svc.outcome(svc.post(FEED_BYTES, RSS).json()["delivery_id"])
    assert d["state"] == "failed" and "has a secret" in d["error"]
    assert svc.count(t.Item) == 0


def test_signature_stands_in_for_the_api_token(tmp_path: Any, origin: Origin) -> None:
    settings = make_settings(f"sqlite:///{tmp_path / 't.db'}", api_token="tok-123")
    with running(settings) as svc:
        fid = svc.feed("https://pytorch.org/blog/feed/", secret=SECRET)
        open_fid = svc.feed(origin.route("/f", body=FEED_BYTES, headers=RSS))
        assert svc.post(FEED_BYTES, RSS, params={"feed_id": fid}).status_code == 401
        assert svc.post({"feed_id": open_fid}).status_code == 401
        signed = {**RSS, "X-Hub-Signature-256": signatures.sign_hub(SECRET, FEED_BYTES)}
        assert svc.post(FEED_BYTES, signed, params={"feed_id": fid}).status_code == 202
        bearer = {"Authorization": "Bearer tok-123"}
        assert svc.post({"feed_id": open_fid}, bearer).status_code == 202
        # The token does not replace the signature of a feed that has a secret.
        body = FEED_BYTES.replace(b"<channel>", b"<channel> ", 1)
        assert svc.post(body, {**RSS, **bearer}, params={"feed_id": fid}).status_code == 401


# --- concurrency and replay storms -----------


def _burst(url: str, n: int, body: bytes, headers: list[dict[str, str]]) -> list[httpx.Response]:
    """``n`` requests released at the same instant from ``n`` threads."""
    start = threading.Barrier(n)
    out: list[httpx.Response | None] = [None] * n

    def one(i: int) -> None:
        with httpx.Client(timeout=60) as c:
            start.wait()
            out[i] = c.post(url + "/webhooks/feed", content=body, headers=headers[i])

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert all(r is not None for r in out)
    return [r for r in out if r is not None]


@pytest.mark.postgres
def test_ten_identical_deliveries_at_once_create_each_item_once(pg_url: str) -> None:
    with running(make_settings(pg_url), workers=4) as svc:
        rs = _burst(svc.url, 10, FEED_BYTES, [RSS] * 10)
        assert sorted(r.status_code for r in rs) == [200] * 9 + [202]
        assert len({r.json()["delivery_id"] for r in rs}) == 1
        svc.outcome(rs[0].json()["delivery_id"])
        assert svc.count(t.Delivery) == 1 and svc.count(t.Item) == PYTORCH_ITEMS
        # Ten deliveries of the same document under distinct ids, processed by four
        # workers at once: still each item exactly once.
        ids = [{**RSS, "webhook-id": f"burst-{i}"} for i in range(10)]
        rs2 = _burst(svc.url, 10, FEED_BYTES, ids)
        assert [r.status_code for r in rs2] == [202] * 10
        outcomes = [svc.outcome(r.json()["delivery_id"]) for r in rs2]
        assert all(o["state"] == "processed" and o["items_new"] == 0 for o in outcomes)
        with svc.sessions() as s:
            keys = list(s.scalars(select(t.Item.key)))
        assert len(keys) == len(set(keys)) == PYTORCH_ITEMS


@pytest.mark.postgres
def test_documents_of_a_new_feed_processed_by_four_workers(pg_url: str) -> None:
    # Distinct documents of the same (unregistered) feed racing to create the feed row.
    with running(make_settings(pg_url), workers=4) as svc:
        bodies = [FEED_BYTES + f"<!-- {i} -->".encode() for i in range(10)]
        rs: list[httpx.Response] = []
        for chunk in (bodies[:5], bodies[5:]):
            for b in chunk:
                rs.append(svc.post(b, RSS))
        outcomes = [svc.outcome(r.json()["delivery_id"]) for r in rs]
        assert {o["state"] for o in outcomes} == {"processed"}
        assert sum(o["items_new"] for o in outcomes) == PYTORCH_ITEMS
        assert svc.count(t.Feed) == 1 and svc.count(t.Item) == PYTORCH_ITEMS


def test_a_feed_of_seventy_thousand_entries_on_postgres(pg_url: str) -> None:
    # 4.8 MB, well under the caps: one query parameter per entry key was over the 65,535
    # PostgreSQL's protocol takes, and the delivery failed.
    n = 70_000
    entries = "".join(f"<item><guid>g{i}</guid><title>t{i}</title></item>" for i in range(n))
    doc = f'<rss version="2.0"><channel><title>Big</title>{entries}</channel></rss>'.encode()
    with running(make_settings(pg_url), workers=1) as svc:
        # 70,000 rows take a worker seconds to write, many more on a loaded machine.
        d = svc.outcome(svc.post(doc, RSS).json()["delivery_id"], timeout=180)
        assert d["state"] == "processed", d["error"]
        # A first delivery: the newest 20 (undated: the first in the document) are
        # explained, the rest stored as skipped.
        assert (d["items_new"], d["items_skipped"]) == (20, n - 20)
        # The whole feed again (a monitor that sends it each time): nothing new, no change.
        again = svc.outcome(svc.post(doc + b"\n", RSS).json()["delivery_id"], timeout=180)
        assert again["state"] == "processed", again["error"]
        assert again["items_new"] == 0 and again["items_changed"] == 0
        assert svc.count(t.Item) == n


def test_replay_storm_changes_nothing(db_url: str) -> None:
    # The LLM engine against the stub server: its call log counts every real call.
    with StubLLM() as stub:
        settings = llm_settings(
            db_url,
            stub.url,
            llm_backoff_initial=0.01,
            llm_backoff_max=0.05,
        )
        with running(settings) as svc:
            first = svc.post(FEED_BYTES, RSS).json()
            assert svc.outcome(first["delivery_id"])["items_new"] == PYTORCH_ITEMS
            wait_for(lambda: svc.count(t.Explainer) == PYTORCH_ITEMS, timeout=120)
            before = (svc.count(t.Item), svc.count(t.LLMCall), len(stub.calls))
            assert before[1] == PYTORCH_ITEMS and before[2] >= PYTORCH_ITEMS
            statuses: list[int] = []
            lock = threading.Lock()

            def storm(n: int) -> None:
                with httpx.Client(base_url=svc.url, timeout=30) as c:
                    for _ in range(n):
                        r = c.post("/webhooks/feed", content=FEED_BYTES, headers=RSS)
                        with lock:
                            statuses.append(r.status_code)

            threads = [threading.Thread(target=storm, args=(100,)) for _ in range(5)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            assert statuses == [200] * 500
            assert svc.count(t.Delivery) == 1
            # The same document re-sent as new deliveries is parsed, and still nothing
            # is new: no item, no LLM call.
            for i in range(5):
                r = svc.post(FEED_BYTES, {**RSS, "webhook-id": f"resend-{i}"})
                assert svc.outcome(r.json()["delivery_id"])["items_new"] == 0
            wait_for(lambda: svc.count(t.Delivery) == 6)
            assert (svc.count(t.Item), svc.count(t.LLMCall), len(stub.calls)) == before
            assert svc.count(t.Explainer) == PYTORCH_ITEMS


def test_bodiless_pings_coalesce_while_one_waits(tmp_path: Any, origin: Origin) -> None:
    # No workers: the first ping's fetch is still waiting when the others arrive.
    with running(make_settings(f"sqlite:///{tmp_path / 'p.db'}"), workers=0) as svc:
        fid = svc.feed(origin.route("/f", body=FEED_BYTES, headers=RSS))
        rs = [svc.post({"feed_id": fid}) for _ in range(5)]
        assert [r.status_code for r in rs] == [202, 200, 200, 200, 200]
        assert len({r.json()["delivery_id"] for r in rs}) == 1
        assert svc.count(t.Delivery) == 1


def test_unique_ids_are_kept_per_delivery(svc: Service) -> None:
    fid = svc.feed("https://pytorch.org/blog/feed/")
    ids = [str(uuid.uuid4()) for _ in range(3)]
    for i in ids:
        r = svc.post(FEED_BYTES, {**RSS, "X-GitHub-Delivery": i}, params={"feed_id": fid})
        assert r.status_code == 202
    listed = svc.http.get("/deliveries").json()["items"]
    assert {d["external_id"] for d in listed} == {f"x-github-delivery:{i}" for i in ids}


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
