"""POST /webhooks/feed end to end from each kind of sender (a raw feed, a feed reference,
a change record, Miniflux and changedetection.io): the real app on loopback with its
workers, real SQLite and PostgreSQL, and real HTTP servers for the feeds and article
pages it fetches."""

from __future__ import annotations

import json
import re

from service.store import tables as t
from tests.conftest import CORPUS
from tests.live import Service
from tests.origin import Origin
from tests.webhook_docs import FEED_BYTES, HOOKS, PYTORCH_ITEMS, RSS, pytorch_change_record


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


def test_a_feed_reference_naming_two_feeds_is_422_and_stores_nothing(svc: Service) -> None:
    # The feed_id was taken and the feed_url never read (the body's feed_id over the
    # query's likewise): the document went to a feed the sender may not have meant.
    pytorch = svc.feed("https://pytorch.org/blog/feed/")
    other = svc.feed("https://other.example/feed.xml")
    content = FEED_BYTES.decode()
    for body, params in [
        ({"feed_id": pytorch, "feed_url": "https://other.example/feed.xml"}, {}),
        ({"feed_id": other, "feed_url": "https://pytorch.org/blog/feed/", "content": content}, {}),
        ({"feed_id": pytorch, "content": content}, {"feed_id": other}),
    ]:
        r = svc.post(body, params=params)
        assert r.status_code == 422, r.text
        assert r.headers["content-type"] == "application/problem+json"
        assert "name different feeds" in r.json()["detail"], r.json()
    assert svc.count(t.Delivery) == 0
    # One feed named both ways is its delivery (its URL as written otherwise).
    r = svc.post(
        {"feed_id": pytorch, "feed_url": "https://PyTorch.org/blog/feed", "content": content}
    )
    assert r.status_code == 202, r.text
    r = svc.post({"feed_id": pytorch, "content": content}, params={"feed_id": pytorch})
    assert r.status_code == 202, r.text


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
