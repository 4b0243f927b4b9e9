"""The HTTP API end to end on a real server on loopback, on SQLite and PostgreSQL:
webhook -> delivery -> items -> in-process worker -> explainer stored -> served."""

from __future__ import annotations

import re

import httpx

from service.api.app import create_app
from service.config import Settings
from tests.api_helpers import assert_problem, post_feed, wait_delivery, wait_items_settled
from tests.conftest import PYTORCH_FEED, LiveServer, api_client, explain_pending


def test_pytorch_feed_goes_all_the_way_to_served_explainers(server: httpx.Client) -> None:
    feed = PYTORCH_FEED.read_bytes()
    r = post_feed(server, feed)
    assert r.status_code == 202, r.text
    accepted = r.json()
    assert accepted["duplicate"] is False
    assert r.headers["location"] == f"/deliveries/{accepted['delivery_id']}"

    d = wait_delivery(server, accepted["delivery_id"])
    assert d["state"] == "processed", d
    assert d["items_new"] == 10 and len(d["item_ids"]) == 10  # type: ignore[arg-type]

    items = wait_items_settled(server)
    assert len(items) == 10
    assert {i["state"] for i in items} <= {"published", "needs_review"}
    published = [i for i in items if i["state"] == "published"]
    assert published, "the extractive engine's numbers are the source's own"

    one = server.get(f"/items/{published[0]['id']}").json()
    assert one["explainer"]["title"] and len(one["explainer"]["sections"]) >= 3
    assert one["check"]["numbers"] is not None
    assert one["explainer_meta"]["engine"] == "extractive"
    assert one["text"] and one["content_hash"]

    md = server.get(f"/items/{published[0]['id']}/explainer", headers={"Accept": "text/markdown"})
    assert md.status_code == 200 and md.headers["content-type"].startswith("text/markdown")
    assert re.search(r"^## 1\. ", md.text, re.M)
    js = server.get(f"/items/{published[0]['id']}/explainer?format=json").json()
    assert js["engine"] == "extractive" and js["source"]["url"].startswith("https://pytorch.org/")
    html = server.get(f"/items/{published[0]['id']}/explainer?format=html")
    assert html.headers["content-type"].startswith("text/html")
    check = server.get(f"/items/{published[0]['id']}/check").json()
    assert all(n["status"] == "supported" for n in check["numbers"] if n["status"] != "derived")

    stats = server.get("/stats")
    assert stats.status_code == 200, stats.text
    by_state = stats.json()["items_by_state"]
    assert sum(by_state.values()) == 10 and by_state["published"] == len(published)


def test_replay_is_a_duplicate_and_does_no_work(server: httpx.Client) -> None:
    feed = PYTORCH_FEED.read_bytes()
    first = post_feed(server, feed).json()
    wait_delivery(server, first["delivery_id"])
    again = post_feed(server, feed)
    assert again.status_code == 200
    assert again.json() == {**first, "duplicate": True}
    assert server.get("/deliveries").json()["total"] == 1
    assert server.get("/items").json()["total"] == 10


def test_cosmetic_edit_changes_nothing_and_a_text_edit_requeues(server: httpx.Client) -> None:
    feed = PYTORCH_FEED.read_bytes()
    wait_delivery(server, post_feed(server, feed).json()["delivery_id"])
    wait_items_settled(server)
    # Seed 004: an <img> attribute changed inside an existing item.
    cosmetic = feed.replace(b'decoding="async"', b'decoding="sync"', 1)
    assert cosmetic != feed
    d = wait_delivery(server, post_feed(server, cosmetic).json()["delivery_id"])
    assert (d["state"], d["items_new"], d["items_changed"]) == ("processed", 0, 0)
    # A changed figure in the text re-queues that item only.
    edited = feed.replace(b"1.10x", b"1.11x", 1)
    if edited == feed:
        edited = feed.replace(b"<p>", b"<p>Updated: figures revised. ", 1)
    d = wait_delivery(server, post_feed(server, edited).json()["delivery_id"])
    assert (d["items_new"], d["items_changed"]) == (0, 1)
    assert server.get("/items").json()["total"] == 10


def test_items_filter_and_paginate(server: httpx.Client) -> None:
    wait_delivery(server, post_feed(server, PYTORCH_FEED.read_bytes()).json()["delivery_id"])
    wait_items_settled(server)
    page = server.get("/items", params={"limit": 4}).json()
    assert page["total"] == 10 and len(page["items"]) == 4 and page["next"]
    nxt = httpx.get(page["next"]).json()
    everything = server.get("/items", params={"limit": 10}).json()["items"]
    assert [i["id"] for i in page["items"] + nxt["items"]] == [i["id"] for i in everything[:8]]
    # Newest post first (the feed lists its newest entry first: the ids run the other way).
    dates = [i["published"] for i in everything]
    assert dates == sorted(dates, reverse=True) and len(set(dates)) == 10
    assert everything[0]["id"] < everything[-1]["id"]
    found = server.get("/items", params={"q": "FP8"}).json()["items"]
    assert found and all("fp8" in i["title"].lower() for i in found)
    assert server.get("/items", params={"state": "failed"}).json()["total"] == 0
    assert_problem(server.get("/items", params={"state": "bogus"}), 422)
    assert_problem(server.get("/items/424242"), 404)
    assert_problem(server.get("/items/424242/explainer"), 404)


# Accept -> the media type served (None: 406), for GET /items/{id}/explainer.
NEGOTIATED = [
    ("application/json;q=0.1, text/markdown", "text/markdown"),
    ("text/html;q=0, text/plain", "text/plain"),
    ("image/png", None),
    ("*/*", "application/json"),
    ("*/*;q=0", None),
    ("text/*", "text/markdown"),  # the server's order among equals
    ("text/*, text/markdown;q=0", "text/html"),  # the exact type overrides its range
    ("text/x-markdown;q=0.5, text/plain;q=0.4", "text/markdown"),
    ("text/html, application/json", "application/json"),  # equal q: the server's order
    ("TEXT/HTML;Q=0.9, image/*", "text/html"),
    ("image/png, */*;q=0.1, application/json;q=0", "text/markdown"),
    ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", "text/html"),
    ("", "application/json"),
    # A malformed q is read as q=1, as Django's MediaType.quality reads it: the client
    # named the type; "text/markdown;q=abc" was left out and answered with JSON.
    ("text/markdown;q=abc", "text/markdown"),
    ("text/markdown;q=, application/json;q=0.5", "text/markdown"),
    ("text/plain;q=1.5, text/html;q=0.9", "text/plain"),
]


def test_explainer_negotiates_accept_by_weight_and_refuses_with_406(settings: Settings) -> None:
    app = create_app(settings, workers=1)
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as client:
        text = "The kernel ran 1.10x faster on MI355X. It took 34.1 ms per call on 8 GPUs."
        iid, _ = explain_pending(app.state.ctx, "Kernels", text)
        url = f"/items/{iid}/explainer"
        for accept, served in NEGOTIATED:
            r = client.get(url, headers={"Accept": accept})
            if served is None:
                body = assert_problem(r, 406)
                assert body["type"] == "https://plainfeed.dev/problems/not-acceptable"
                assert accept in str(body["detail"])
            else:
                assert r.status_code == 200, (accept, r.text)
                assert r.headers["content-type"].split(";")[0] == served, accept
                assert r.headers["vary"] == "Accept"
        # No Accept at all accepts anything: JSON, as before.
        bare = client.build_request("GET", url)
        del bare.headers["accept"]
        r = client.send(bare)
        assert r.status_code == 200 and r.json()["item_id"] == iid
        # ?format= is asked for by name: it wins over an Accept that refuses it.
        r = client.get(url, params={"format": "html"}, headers={"Accept": "text/html;q=0"})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        r = client.get(url, params={"format": "json"}, headers={"Accept": "image/png"})
        assert r.status_code == 200 and r.json()["item_id"] == iid


def test_feed_the_parser_rejects_leaves_a_failed_delivery_with_the_reason(
    server: httpx.Client,
) -> None:
    # Sniffs as RSS, but no parser can read a feed out of it.
    broken = b"<?xml version='1.0'?><rss version='2.0'><channel><title>x</ti"
    r = post_feed(server, broken)
    assert r.status_code == 202
    d = wait_delivery(server, r.json()["delivery_id"])
    assert d["state"] == "failed" and d["error"]


def test_a_delivery_still_queued_or_being_processed_is_not_retried(settings: Settings) -> None:
    """A retry (forced or not) is for a finished delivery: one still in the queue, or in
    a worker's hands, is a 409 problem and is left as it is (a reset under the worker
    would have it processed twice)."""
    from service import queue
    from service.store.db import make_engine, make_sessionmaker, transaction

    with api_client(settings, workers=0) as api:  # no worker: the delivery stays queued
        r = post_feed(api, PYTORCH_FEED.read_bytes())
        assert r.status_code == 202, r.text
        did = r.json()["delivery_id"]
        for query in ("", "?force=true"):
            body = assert_problem(api.post(f"/deliveries/{did}/retry{query}"), 409)
            assert f"delivery {did} is received" in str(body["detail"])
        db = make_engine(settings.database_url)
        try:
            with transaction(make_sessionmaker(db)) as s:  # a worker takes it
                (claim,) = queue.claim(s, queue.DELIVERIES, "w1", 60)
            assert claim.id == did
            for query in ("", "?force=true"):
                body = assert_problem(api.post(f"/deliveries/{did}/retry{query}"), 409)
                assert f"delivery {did} is processing" in str(body["detail"])
        finally:
            db.dispose()
        d = api.get(f"/deliveries/{did}").json()
        assert (d["state"], d["forced_at"], d["attempts"]) == ("processing", None, 1)


def test_malformed_xml_that_still_yields_entries_is_accepted_with_the_problem(
    server: httpx.Client,
) -> None:
    feed = PYTORCH_FEED.read_bytes()
    # An unescaped ampersand: not well-formed XML, yet feedparser reads the entries.
    bad = feed.replace(b"<title>Blog &#8211; PyTorch</title>", b"<title>Blog & PyTorch</title>", 1)
    assert bad != feed
    d = wait_delivery(server, post_feed(server, bad).json()["delivery_id"])
    assert d["state"] == "processed" and d["items_new"] == 10
    assert d["problems"]


def test_health_readiness_and_openapi(server: httpx.Client) -> None:
    assert server.get("/healthz").json() == {"status": "ok"}
    ready = server.get("/readyz")
    assert ready.status_code == 200 and ready.json()["checks"]["database"] == "ok"
    spec = server.get("/openapi.json").json()
    paths = spec["paths"]
    for path in (
        "/webhooks/feed",
        "/feeds",
        "/items",
        "/items/{item_id}",
        "/items/{item_id}/explainer",
        "/deliveries/{delivery_id}",
        "/check",
        "/readyz",
    ):
        assert path in paths, path
    body = paths["/webhooks/feed"]["post"]["requestBody"]["content"]
    assert "application/rss+xml" in body and "example" in body["application/json"]
