"""The HTTP API end to end on a real server on loopback, on SQLite and PostgreSQL:
webhook -> delivery -> items -> in-process worker -> explainer stored -> served."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from service import render
from service.api.app import create_app
from service.cli import app as cli_app
from service.config import Settings
from service.models import Explainer, Section
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker
from service.store.feeds import check_name_free
from tests.conftest import (
    CORPUS,
    DATA,
    PYTORCH_FEED,
    SEEDS,
    LiveServer,
    api_client,
    explain_pending,
    make_settings,
    wait_for,
    waiting_on_a_lock,
)
from tests.origin import Origin

RSS = "application/rss+xml"


@pytest.fixture
def server(settings: Settings) -> Iterator[httpx.Client]:
    with api_client(settings) as client:
        yield client


def post_feed(client: httpx.Client, body: bytes, **kw: object) -> httpx.Response:
    headers = {"Content-Type": RSS, **kw.pop("headers", {})}  # type: ignore[dict-item]
    return client.post("/webhooks/feed", content=body, headers=headers, **kw)  # type: ignore[arg-type]


def wait_delivery(client: httpx.Client, delivery_id: int) -> dict[str, object]:
    def done() -> dict[str, object] | None:
        d = client.get(f"/deliveries/{delivery_id}").json()
        return d if d["state"] in ("processed", "failed") else None

    return wait_for(done, timeout=60)  # type: ignore[no-any-return]


def wait_items_settled(client: httpx.Client) -> list[dict[str, object]]:
    def settled() -> list[dict[str, object]] | None:
        items = client.get("/items", params={"limit": 200}).json()["items"]
        busy = [i for i in items if i["state"] in ("pending", "processing")]
        return items if items and not busy else None

    return wait_for(settled, timeout=120)  # type: ignore[no-any-return]


def assert_problem(r: httpx.Response, status: int) -> dict[str, object]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body = r.json()
    assert body["status"] == status and body["title"] and body["detail"]
    return body  # type: ignore[no-any-return]


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


def test_feeds_register_list_and_get(server: httpx.Client) -> None:
    r = server.post("/feeds", json={"url": "https://pytorch.org/blog/feed/", "name": "PyTorch"})
    assert r.status_code == 201
    feed = r.json()
    assert feed["id"] and feed["has_secret"] is False
    assert server.get(f"/feeds/{feed['id']}").json()["name"] == "PyTorch"
    assert server.get("/feeds").json()["total"] == 1
    assert_problem(server.post("/feeds", json={"url": "https://pytorch.org/blog/feed/"}), 409)
    assert_problem(server.post("/feeds", json={"url": "not a url"}), 422)
    assert_problem(server.get("/feeds/999"), 404)


def test_a_feed_url_is_registered_without_its_fragment(server: httpx.Client) -> None:
    """The fragment is no part of the resource (RFC 3986 3.5): "feed/#top" was a second
    registration of the one feed."""
    r = server.post("/feeds", json={"url": "https://pytorch.org/blog/feed/#top"})
    assert r.status_code == 201 and r.json()["url"] == "https://pytorch.org/blog/feed/"
    for again in ("https://pytorch.org/blog/feed/", "https://pytorch.org/blog/feed/#"):
        assert_problem(server.post("/feeds", json={"url": again}), 409)
    assert server.get("/feeds").json()["total"] == 1


def test_a_feed_url_with_credentials_is_refused(server: httpx.Client) -> None:
    """Feeds are never fetched with credentials, and GET /feeds shows a feed's URL to
    every reader: a password in it was stored and published."""
    for url in ("https://user:pw@a.example/feed", "https://user@a.example/feed"):
        problem = assert_problem(server.post("/feeds", json={"url": url}), 422)
        assert "user name or password" in json.dumps(problem)
    assert server.get("/feeds").json()["total"] == 0


def test_a_blank_feed_name_is_refused_and_a_name_kept_without_its_padding(
    server: httpx.Client,
) -> None:
    # "" and "   " were names: the second feed named "" was a 409 "already named ''",
    # and a change record's source "blog" never matched a feed named "blog ".
    for blank in ("", "   "):
        assert_problem(
            server.post("/feeds", json={"url": "https://a.example/f", "name": blank}), 422
        )
    r = server.post("/feeds", json={"url": "https://a.example/f", "name": "  blog "})
    assert r.status_code == 201 and r.json()["name"] == "blog"
    fid = r.json()["id"]
    assert_problem(server.patch(f"/feeds/{fid}", json={"name": " "}), 422)
    assert server.patch(f"/feeds/{fid}", json={"name": None}).json()["name"] is None


def test_a_blank_audience_or_language_is_refused_as_a_blank_name_is(
    server: httpx.Client,
) -> None:
    # audience "" was stored and shown as the feed's audience while its explainers were
    # written for the default one.
    for field in ("audience", "language"):
        for blank in ("", "  "):
            body = {"url": "https://a.example/f", field: blank}
            assert_problem(server.post("/feeds", json=body), 422)
    r = server.post("/feeds", json={"url": "https://a.example/f", "audience": " kids "})
    assert r.status_code == 201 and r.json()["audience"] == "kids"
    fid = r.json()["id"]
    assert_problem(server.patch(f"/feeds/{fid}", json={"audience": ""}), 422)
    assert_problem(server.patch(f"/feeds/{fid}", json={"language": " "}), 422)
    assert server.patch(f"/feeds/{fid}", json={"audience": None}).json()["audience"] is None


def test_a_feed_is_changed_and_removed(server: httpx.Client, settings: Settings) -> None:
    """PATCH renames a feed and rotates or removes its secret; DELETE removes it with
    its items (the delivery log stays, without the feed), not while a hub pushes to it."""
    feed = server.post("/feeds", json={"url": "https://pytorch.org/blog/feed/"}).json()
    path = f"/feeds/{feed['id']}"
    r = server.patch(path, json={"name": "PyTorch", "secret": "a-new-secret"})
    assert r.status_code == 200, r.text
    assert (r.json()["name"], r.json()["has_secret"]) == ("PyTorch", True)
    r = server.patch(path, json={"secret": None})
    assert (r.json()["name"], r.json()["has_secret"]) == ("PyTorch", False)
    assert_problem(server.patch(path, json={}), 400)
    assert_problem(server.patch(path, json={"url": "https://example.org/x"}), 422)
    assert_problem(server.patch(path, json={"secret": "short"}), 422)
    assert_problem(server.patch("/feeds/999", json={"name": "x"}), 404)

    body = PYTORCH_FEED.read_bytes()
    delivery = post_feed(server, body, params={"feed_id": feed["id"]}).json()["delivery_id"]
    wait_delivery(server, delivery)
    wait_items_settled(server)
    assert server.get("/items", params={"feed_id": feed["id"]}).json()["total"] == 10

    from sqlalchemy import update

    from service.store import tables as t
    from service.store.db import make_engine, make_sessionmaker, transaction

    db = make_engine(settings.database_url)
    try:
        with transaction(make_sessionmaker(db)) as s:
            s.execute(update(t.Feed).values(websub_state="active"))
        assert "unsubscribe first" in assert_problem(server.delete(path), 409)["detail"]  # type: ignore[operator]
        with transaction(make_sessionmaker(db)) as s:
            s.execute(update(t.Feed).values(websub_state="unsubscribed"))
    finally:
        db.dispose()
    assert server.delete(path).status_code == 204
    assert_problem(server.get(path), 404)
    assert server.get("/items").json()["total"] == 0
    assert server.get(f"/deliveries/{delivery}").json()["feed_id"] is None
    assert_problem(server.delete(path), 404)


def test_next_links_are_on_the_public_url_when_it_is_set(db_url: str) -> None:
    # They were built from the request's Host: behind a proxy, its upstream address.
    for public in ("https://news.example.org/pf/", None):
        kw = {"public_url": public} if public else {}
        with api_client(make_settings(db_url, **kw), workers=0) as client:
            for n in (1, 2):
                client.post("/feeds", json={"url": f"https://a.example/{n}"})
            nxt = httpx.URL(client.get("/feeds", params={"limit": 1}).json()["next"])
            base = "https://news.example.org/pf/" if public else str(client.base_url)
            assert str(nxt.copy_with(query=None)) == base.rstrip("/") + "/feeds"
            assert dict(nxt.params) == {"limit": "1", "offset": "1"}


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


def test_bad_input_gets_problems_and_stores_nothing(server: httpx.Client) -> None:
    assert_problem(post_feed(server, b""), 400)
    assert_problem(
        post_feed(
            server,
            b"<!doctype html><html><body>hi</body></html>",
            headers={"Content-Type": "text/html"},
        ),
        422,
    )
    assert_problem(post_feed(server, os.urandom(2048)), 422)
    assert_problem(post_feed(server, b"x" * (10 * 1024 * 1024 + 1)), 413)
    assert_problem(
        post_feed(server, PYTORCH_FEED.read_bytes(), headers={"Content-Type": "image/png"}), 415
    )
    r = server.post(
        "/webhooks/feed", content=b"{not json", headers={"Content-Type": "application/json"}
    )
    assert_problem(r, 400)
    assert_problem(server.post("/webhooks/feed", json={"hello": 1}), 422)
    assert_problem(server.post("/webhooks/feed", json={"feed_id": 999}), 404)
    assert server.get("/deliveries").json()["total"] == 0


def test_a_feed_filter_that_names_no_feed_is_404(server: httpx.Client) -> None:
    """``?feed_id=`` of a feed that does not exist is a 404 problem naming it, as the
    CLI's ``--feed`` says; it was a 200 with an empty page, what a feed with nothing in
    it answers (and still does)."""
    fid = server.post("/feeds", json={"url": "https://empty.example/feed"}).json()["id"]
    spec = server.get("/openapi.json").json()
    for path in ("/items", "/deliveries", "/subscribers"):
        body = assert_problem(server.get(path, params={"feed_id": 999}), 404)
        assert body["detail"] == "no feed with id 999"
        page = server.get(path, params={"feed_id": fid})
        assert page.status_code == 200 and page.json()["total"] == 0, page.text
        assert spec["paths"][path]["get"]["responses"]["404"]["content"] == {
            "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
        }


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


# One past PostgreSQL's INTEGER (the id columns), past any 64-bit integer (SQLite's), its
# negative, and far beyond.
HUGE = (2**31, 2**63, -(2**63) - 1, 10**30)


@pytest.mark.parametrize("n", HUGE)
def test_ids_and_offsets_no_column_holds_are_422_problems(server: httpx.Client, n: int) -> None:
    server.post("/feeds", json={"url": "https://pytorch.org/blog/feed/"})
    requests = [
        ("GET", f"/feeds/{n}", {}),
        ("GET", f"/feeds/{n}/feed.atom", {}),
        ("GET", f"/deliveries/{n}", {}),
        ("GET", f"/items/{n}", {}),
        ("GET", f"/items/{n}/explainer", {}),
        ("GET", f"/items/{n}/check", {}),
        ("POST", f"/items/{n}/retry", {}),
        ("POST", f"/items/{n}/approve", {}),
        ("GET", f"/websub/{n}", {}),
        ("POST", f"/websub/{n}", {"content": PYTORCH_FEED.read_bytes()}),
        ("GET", f"/subscribers/{n}", {}),
        ("DELETE", f"/subscribers/{n}", {}),
        ("GET", f"/subscribers/{n}/deliveries", {}),
        ("GET", f"/outbound/{n}", {}),
        ("POST", f"/outbound/{n}/retry", {}),
        ("POST", f"/feeds/{n}/subscribers", {"json": {"url": "https://hooks.example/"}}),
        ("POST", "/subscribers", {"json": {"url": "https://hooks.example/", "feed_id": n}}),
        ("GET", f"/items?feed_id={n}", {}),
        ("GET", f"/deliveries?feed_id={n}", {}),
        ("GET", f"/subscribers?feed_id={n}", {}),
        *(
            ("GET", f"/{what}?offset={n}", {})
            for what in ("feeds", "items", "deliveries", "subscribers")
            if n != 2**31  # offsets are 64-bit
        ),
        ("POST", f"/webhooks/feed?feed_id={n}", {"content": PYTORCH_FEED.read_bytes()}),
        ("POST", "/webhooks/feed", {"json": {"feed_id": n}}),
    ]
    for method, path, kw in requests:
        r = server.request(method, path, **kw)  # type: ignore[arg-type]
        assert r.status_code == 422, (method, path, r.status_code, r.text)
        assert_problem(r, 422)
    assert server.get("/deliveries").json()["total"] == 0


def test_text_with_nul_is_refused_before_the_database(server: httpx.Client) -> None:
    # PostgreSQL text cannot hold NUL: each of these was a 500 there.
    for r in (
        server.get("/items", params={"q": "a\x00b"}),
        server.get("/deliveries", params={"state": "processed\x00"}),
        server.get("/subscribers/1/deliveries", params={"state": "\x00"}),
        server.post("/feeds", json={"url": "https://a.example/feed", "name": "a\x00b"}),
        server.post("/webhooks/feed", json={"feed_url": "https://a.example/feed\x00"}),
        server.post(
            "/webhooks/feed", json={"type": "feed.changed", "data": {"source": "blog\x00"}}
        ),
    ):
        assert_problem(r, 422)
    assert server.get("/deliveries", params={"state": "bogus"}).status_code == 422
    assert server.get("/feeds").json()["total"] == 0
    assert server.get("/deliveries").json()["total"] == 0


def test_explain_answers_bad_input_with_4xx(server: httpx.Client) -> None:
    prose = (
        "The new parser reads a feed in one pass. It keeps every heading and table of the post, "
        "and the authors explain why the old one was slow."
    )
    ok = server.post("/explain", json={"text": prose, "title": "A faster parser"})
    assert ok.status_code == 200, ok.text
    assert ok.json()["engine"] == "extractive"
    # No prose sentences: the caller's input, not an engine failure (was a 502).
    body = assert_problem(server.post("/explain", json={"text": "x"}), 422)
    assert body["type"].endswith("/nothing-to-explain")
    # No endpoint is configured: refused at once, not retried against a default host.
    body = assert_problem(server.post("/explain", json={"text": prose, "engine": "llm"}), 422)
    assert "not configured" in str(body["detail"])


def test_explain_refuses_a_post_longer_than_the_extractive_engine_takes(db_url: str) -> None:
    # The offline engine had no bound: some 10 s of CPU a MB, up to the 16 MiB body cap.
    prose = (
        "The new parser reads a feed in one pass. It keeps every heading and table of the "
        "post, and the authors explain why the old one was slow.\n\n"
    )
    with api_client(make_settings(db_url, extractive_max_chars=2_000), workers=0) as server:
        assert server.post("/explain", json={"text": prose, "title": "P"}).status_code == 200
        long = prose * 20
        body = assert_problem(server.post("/explain", json={"text": long, "title": "P"}), 413)
        assert str(body["type"]).endswith("/post-too-long")
        assert "PLAINFEED_EXTRACTIVE_MAX_CHARS=2,000" in str(body["detail"])


def test_check_refuses_a_text_longer_than_it_reads(db_url: str) -> None:
    # POST /check had no bound: its time grows with the text (108 KB of figures: 2.4 s),
    # up to the 16 MiB body cap.
    source = "The new kernel is 1.10x faster on MI355X than the old one.\n\n"
    with api_client(make_settings(db_url, check_max_chars=2_000), workers=0) as server:
        ok = server.post("/check", json={"explainer": "It is 1.10x faster.", "text": source})
        assert ok.status_code == 200 and ok.json()["ok"], ok.text
        for explainer, text, what in (
            ("It is 1.10x faster.", source * 40, "source"),
            ("It is 1.10x faster. " * 200, source, "explainer"),
            ({"title": "Faster", "sections": [{"heading": "What is new",
              "paragraphs": ["It is 1.10x faster. " * 200]}]}, source, "explainer"),
        ):  # fmt: skip
            r = server.post("/check", json={"explainer": explainer, "text": text})
            body = assert_problem(r, 413)
            assert str(body["type"]).endswith("/too-long-to-check")
            assert f"the {what} (" in str(body["detail"])
            assert "PLAINFEED_CHECK_MAX_CHARS=2,000" in str(body["detail"])


def test_explain_of_a_feed_url_says_it_is_a_feed(server: httpx.Client) -> None:
    """A feed's URL given to /explain (an easy slip: the feed is what one registers) is
    named as a feed; read as a page, its markup was "no prose sentences to explain"."""
    with Origin() as origin:
        url = origin.route(
            "/blog/feed/", body=PYTORCH_FEED.read_bytes(), headers={"Content-Type": RSS}
        )
        body = assert_problem(server.post("/explain", json={"url": url}), 422)
        assert "is a feed (rss), not an article" in str(body["detail"])
        assert "/webhooks/feed" in str(body["detail"])
        page = origin.route(
            "/post", body=(DATA / "webhooks" / "article-page.html").read_bytes(),
            headers={"Content-Type": "text/html; charset=utf-8"},
        )  # fmt: skip
        r = server.post("/explain", json={"url": page})
        assert r.status_code == 200, r.text
        assert r.json()["source"]["url"] == page and r.json()["source"]["title"]


EXECUTORCH = "pytorch-blog-fast-ondevice-agentic-ai-with-executorch"


def test_check_answers_as_the_cli_does(server: httpx.Client) -> None:
    source = (CORPUS / "posts" / f"{EXECUTORCH}.html").read_text(encoding="utf-8")
    explainer_path = DATA / "explainers" / f"{EXECUTORCH}.txt"
    explainer = explainer_path.read_text(encoding="utf-8")
    r = server.post("/check", json={"explainer": explainer, "html": source})
    assert r.status_code == 200, r.text
    got = r.json()
    # The same report `plainfeed check --json` prints for the same two files.
    cli = subprocess.run(
        [sys.executable, "-m", "service", "check", "--json", "--explainer", str(explainer_path),
         "--source", str(CORPUS / "posts" / f"{EXECUTORCH}.html")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert cli.returncode == 0, cli.stderr
    assert got == json.loads(cli.stdout)
    assert got["ok"] and got["counts"]["supported"] == len(got["numbers"]) > 10

    # One figure changed: that number, and only it, is unsupported; still a 200.
    figure = next(n["text"] for n in got["numbers"] if n["kind"] == "quantity" and "." in n["text"])
    wrong = figure.replace(".", ".9", 1)
    r = server.post("/check", json={"explainer": explainer.replace(figure, wrong), "html": source})
    assert r.status_code == 200
    flagged = [n["text"] for n in r.json()["numbers"] if n["status"] == "unsupported"]
    assert not r.json()["ok"] and wrong in flagged

    # An explainer as HTML (format=html) is read as its text, not its tags.
    paragraph = next(p for p in explainer.split("\n\n") if re.search(r"\d\.\d", p))
    html = render.to_html(Explainer(title="ExecuTorch: on-device agents", sections=[
        Section(heading="What is new", paragraphs=[paragraph])]))  # fmt: skip
    r = server.post("/check", json={"explainer": html, "html": source})
    assert r.status_code == 200 and r.json()["ok"] and r.json()["numbers"], r.text
    assert not any(n["text"] in ("h1", "h2") for n in r.json()["numbers"])

    # The explainer's JSON shape, as POST /explain answers it, is read as well.
    shape = {"title": "ExecuTorch: on-device agents", "sections": [
        {"heading": "What is new", "paragraphs": [paragraph]}]}  # fmt: skip
    r = server.post("/check", json={"explainer": shape, "html": source})
    assert r.status_code == 200 and r.json()["ok"] and r.json()["numbers"], r.text


def test_check_of_a_markdown_post_finds_exactly_what_it_lacks(server: httpx.Client) -> None:
    # The FlyDSL post in the corpus lacks the attention section that 003 summarises.
    post = CORPUS / "posts" / "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"
    explainer = (SEEDS / "003_9f84147b1b26c099.txt").read_text(encoding="utf-8")
    body = {"explainer": explainer, "markdown": post.read_text(encoding="utf-8")}
    r = server.post("/check", json=body)
    assert r.status_code == 200, r.text
    unsupported = {n["text"] for n in r.json()["numbers"] if n["status"] == "unsupported"}
    assert unsupported == {"0.92–2.34 times", "0.93–2.47 times", "0.14.2b", "0.13b"}
    assert r.json()["counts"]["misattached"] == 0


def test_check_answers_bad_input_with_4xx(server: httpx.Client) -> None:
    text = "The new parser is 2x faster than the old one on 40 feeds."
    assert_problem(server.post("/check", json={"explainer": "  ", "text": text}), 422)
    assert_problem(server.post("/check", json={"explainer": "2x faster"}), 422)
    both = {"explainer": "2x faster", "text": text, "html": f"<p>{text}</p>"}
    assert_problem(server.post("/check", json=both), 422)
    shape = assert_problem(
        server.post("/check", json={"explainer": {"title": 5}, "text": text}), 422
    )
    # The error names what was sent (an explainer's JSON), not every union member tried.
    assert str(shape["detail"]).startswith("body.explainer.json."), shape
    assert "constrained-str" not in str(shape)
    assert_problem(server.post("/check", json={"explainer": "2x", "text": text, "x": 1}), 422)
    huge = {"explainer": "1" * (1024 * 1024 + 1), "text": text}
    assert_problem(server.post("/check", json=huge), 422)
    ok = server.post("/check", json={"explainer": "It is 2x faster on 40 feeds.", "text": text})
    assert ok.status_code == 200 and ok.json()["ok"], ok.text


def test_the_explainer_json_the_api_serves_is_checked_by_post_check_and_the_cli(
    server: httpx.Client, tmp_path: Path
) -> None:
    """`GET /items/{id}/explainer?format=json` is the explainer with its metadata (source,
    engine, check, item_id): `POST /check` and `plainfeed check --explainer` take it back.
    POST /check refused every key beside the explainer's own (422 "source: Extra inputs"),
    the CLI the item_id ("not an explainer in JSON: item_id")."""
    source = CORPUS / "posts" / f"{EXECUTORCH}.html"
    html = source.read_text(encoding="utf-8")
    feed = (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>ET</title>'
        "<link>https://et.example/</link><item><title>Muse Glimmer on ExecuTorch</title>"
        "<link>https://et.example/p</link><guid>https://et.example/p</guid>"
        f"<description><![CDATA[{html}]]></description></item></channel></rss>"
    ).encode()
    assert post_feed(server, feed).status_code == 202
    (item,) = wait_items_settled(server)
    assert item["state"] == "published", item
    document = server.get(f"/items/{item['id']}/explainer?format=json").json()
    assert {"item_id", "source", "check"} <= document.keys()

    r = server.post("/check", json={"explainer": document, "html": html})
    assert r.status_code == 200, r.text
    assert r.json()["ok"] and r.json()["numbers"]

    path = tmp_path / "explainer.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    result = CliRunner().invoke(
        cli_app, ["check", "--explainer", str(path), "--source", str(source)]
    )
    assert result.exit_code == 0, result.output
    assert "Check passed." in result.stdout


def test_a_url_longer_than_its_column_once_encoded_is_refused(server: httpx.Client) -> None:
    """A URL of 1,018 characters passes the 2,083-character bound as sent, but its normal
    form (percent-encoded, as stored) is 6,018: PostgreSQL's 2,048-character column
    refused the insert (a 500). A 422 names the field, on every database."""
    url = "https://e.example/" + "ü" * 1000
    for path in ("/feeds", "/subscribers"):
        body = assert_problem(server.post(path, json={"url": url}), 422)
        assert "2048" in str(body["detail"]) and "url" in str(body["detail"]), body
    sub = server.post("/subscribers", json={"url": "https://e.example/hook"}).json()
    assert_problem(server.patch(f"/subscribers/{sub['id']}", json={"url": url}), 422)
    assert server.get("/feeds").json()["total"] == 0
    fits = "https://e.example/" + "ü" * 300
    assert server.post("/feeds", json={"url": fits}).status_code == 201


def test_write_endpoints_need_the_token_when_set(db_url: str) -> None:
    settings = make_settings(db_url, api_token="s3cret-token")
    with LiveServer(create_app(settings, workers=0)) as live, httpx.Client(base_url=live.url) as c:
        feed = PYTORCH_FEED.read_bytes()
        assert_problem(post_feed(c, feed), 401)
        assert_problem(post_feed(c, feed, headers={"Authorization": "Bearer nope"}), 401)
        assert_problem(c.post("/feeds", json={"url": "https://a.example/feed"}), 401)
        assert_problem(c.post("/check", json={"explainer": "2x", "text": "It is 2x."}), 401)
        ok = post_feed(c, feed, headers={"Authorization": "Bearer s3cret-token"})
        assert ok.status_code == 202
        assert c.get("/items").status_code == 200  # reads stay open


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


@pytest.mark.postgres
def test_one_name_registered_twice_at_once_is_one_feed_on_postgres(pg_url: str) -> None:
    """A feed's name is one feed's (a change record names its feed by it). Two
    registrations of one name at once on PostgreSQL both found it free and both stored
    it (201, 201): the second now waits for the first to commit, then is a 409."""
    engine = make_engine(pg_url)
    with api_client(make_settings(pg_url), workers=0) as client:
        holder = make_sessionmaker(engine)()
        check_name_free(holder, "lab")  # as POST /feeds does, its transaction open
        holder.add(t.Feed(url="https://a.example/feed", name="lab"))
        holder.flush()
        answers: list[httpx.Response] = []
        second = threading.Thread(
            target=lambda: answers.append(
                client.post("/feeds", json={"url": "https://b.example/feed", "name": "lab"})
            )
        )
        second.start()
        wait_for(lambda: answers or waiting_on_a_lock(engine))
        holder.commit()
        holder.close()
        second.join(timeout=30)
        assert answers and answers[0].status_code == 409, answers[0].text
        assert client.get("/feeds").json()["total"] == 1
    engine.dispose()


def test_the_llm_engines_client_is_closed_with_the_app(db_url: str) -> None:
    """Its connections to the endpoint were left to the garbage collector at shutdown
    (and an app without workers built an outbound sender, with its own client, for
    nothing)."""
    from fastapi.testclient import TestClient

    from tests.stub_llm import StubLLM, settings_for

    with StubLLM() as stub:
        app = create_app(settings_for(stub, database_url=db_url), workers=0)
        with TestClient(app) as c:
            engine = c.app.state.ctx.pipeline.engine  # type: ignore[attr-defined]
            r = c.post("/explain", json={"text": "The parser is now simpler to read."})
            assert r.status_code == 200, r.text
            assert not engine.client.is_closed()
        assert engine.client.is_closed()
