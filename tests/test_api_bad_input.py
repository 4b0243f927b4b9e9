"""The HTTP API answers bad input with a 4xx problem and stores nothing, on a real server on
loopback, on SQLite and PostgreSQL: bodies, ids no column holds, NUL, over-long URLs, a
missing token."""

from __future__ import annotations

import os

import httpx
import pytest

from service.api.app import create_app
from tests.api_helpers import assert_problem, post_feed
from tests.conftest import PYTORCH_FEED, LiveServer, make_settings


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
