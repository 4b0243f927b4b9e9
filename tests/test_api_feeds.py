"""The HTTP API's feeds on a real server on loopback, on SQLite and PostgreSQL: registered,
listed, changed and removed; their URLs, names and filters."""

from __future__ import annotations

import json
import threading

import httpx
import pytest

from service.config import Settings
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker
from service.store.feeds import check_name_free
from tests.api_helpers import assert_problem, post_feed, wait_delivery, wait_items_settled
from tests.conftest import PYTORCH_FEED, api_client, make_settings, wait_for, waiting_on_a_lock


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
