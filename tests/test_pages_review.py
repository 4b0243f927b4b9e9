"""The HTML pages that answer a request they cannot serve (404, a bad filter) and the
review form: the token, approving, retrying, explaining a skipped item."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from service.api.app import create_app
from service.models import ItemState
from service.store import tables as t
from tests.conftest import LiveServer, make_settings
from tests.pages_helpers import TOKEN, page_client, seed_ids, sessions, soup
from tests.seed_db import add_feed, add_item


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    yield from page_client(db_url)


@pytest.fixture
def seeded(client: TestClient) -> dict[str, int]:
    return seed_ids(client)


def test_unknown_item_is_a_404_page(client: TestClient) -> None:
    for path in (
        "/ui/items/987654",
        "/ui/items/not-a-number",
        "/ui/items/99999999999999999999999",
        "/ui/items/\u00b2",  # a digit to str.isdigit, not to int() (was a 500)
        "/ui/feeds/whatever/else",
    ):
        r = client.get(path)
        assert r.status_code == 404
        assert r.headers["content-type"].startswith("text/html")
        assert "<h1>Not found</h1>" in r.text
        assert "Traceback" not in r.text
    review = client.post("/ui/items/\u00b2/review", data={"action": "retry", "token": TOKEN})
    assert review.status_code == 404 and "<h1>Not found</h1>" in review.text


def test_index_of_a_feed_that_does_not_exist_is_a_404_page(client: TestClient) -> None:
    """It was an empty 200 page, which says of a mistyped or removed feed what it says of
    a feed with nothing in it; the JSON routes answer such a feed_id 404."""
    fid = add_feed(sessions(client), name="Kernel blog")
    assert client.get("/", params={"feed": str(fid)}).status_code == 200
    for feed in (str(fid + 1), "999", str(t.MAX_ID)):
        r = client.get("/", params={"feed": feed})
        assert r.status_code == 404, feed
        assert r.headers["content-type"].startswith("text/html")
        assert r.headers["content-security-policy"]
        assert "<h1>Not found</h1>" in r.text and f"There is no feed {feed}." in r.text
    assert client.get("/items", params={"feed_id": "999"}).status_code == 404


def test_index_refuses_a_filter_that_is_no_id_or_state(client: TestClient) -> None:
    # They were ignored: the page listed every item under an address that seemed to
    # filter (tests/test_hostile_input.py has them against a real server).
    for params in ({"feed": "\u00b2"}, {"feed": "9" * 20}, {"feed": "abc"}, {"state": "x"}):
        r = client.get("/", params=params)
        assert r.status_code == 422, (params, r.text[:200])
        assert r.headers["content-type"].startswith("text/html")
        assert "<h1>Bad request</h1>" in r.text
    # Was a 500 from the driver, and from PostgreSQL (text cannot hold NUL); a page says
    # so (it was a JSON problem, in a browser a page of JSON).
    for params, says in [
        ({"offset": 2**63}, "offset: Input should be less than or equal to"),
        ({"offset": -1}, "offset: Value error, must be written in the digits 0-9 alone"),
        ({"q": "a\x00"}, "q: String should match pattern"),
        ({"q": "x" * 201}, "q: String should have at most 200 characters"),
    ]:
        r = client.get("/", params=params)
        assert r.status_code == 422, params
        assert r.headers["content-type"].startswith("text/html"), params
        assert says in r.text and "<h1>Bad request</h1>" in r.text, r.text


def test_review_requires_the_token_then_approves(
    client: TestClient, seeded: dict[str, int]
) -> None:
    iid = seeded["item"]
    page = soup(client.get(f"/ui/items/{iid}").text)
    form = page.select_one("section.review form")
    assert form["action"] == f"/ui/items/{iid}/review" and form["method"] == "post"
    assert page.select_one('label[for="token"]') is not None
    assert {b["value"] for b in form.select("button")} == {"approve", "retry"}

    no_token = client.post(f"/ui/items/{iid}/review", data={"action": "approve"})
    assert no_token.status_code == 401
    assert "Wrong or missing API token." in no_token.text
    wrong = client.post(f"/ui/items/{iid}/review", data={"action": "approve", "token": "nope"})
    assert wrong.status_code == 401

    ok = client.post(
        f"/ui/items/{iid}/review",
        data={"action": "approve", "token": TOKEN, "reviewer": "Ada  Lovelace"},
        follow_redirects=False,
    )
    assert ok.status_code == 303
    assert ok.headers["location"] == f"/ui/items/{iid}?done=approved"
    with sessions(client)() as s:
        item = s.get(t.Item, iid)
        ex = s.scalars(select(t.Explainer).where(t.Explainer.item_id == iid)).one()
        assert item.state == "published"
        assert ex.approved_by == "Ada Lovelace"
    after = soup(client.get(ok.headers["location"]).text)
    assert after.select_one('[role="status"]').get_text() == "Approved and published."
    assert after.select_one("section.review") is None

    # approving twice is a conflict, answered on the page
    again = client.post(f"/ui/items/{iid}/review", data={"action": "approve", "token": TOKEN})
    assert again.status_code == 409
    assert "not needs_review" in soup(again.text).select_one('[role="alert"]').get_text()


def test_review_retry_requeues_a_failed_item(client: TestClient, seeded: dict[str, int]) -> None:
    iid = seeded["failed"]
    bad = client.post(f"/ui/items/{iid}/review", data={"action": "delete", "token": TOKEN})
    assert bad.status_code == 400
    r = client.post(
        f"/ui/items/{iid}/review", data={"action": "retry", "token": TOKEN}, follow_redirects=False
    )
    assert r.status_code == 303
    with sessions(client)() as s:
        assert s.get(t.Item, iid).state == "pending"
    assert (
        client.post("/ui/items/5555/review", data={"action": "retry", "token": TOKEN}).status_code
        == 404
    )


def test_a_skipped_item_can_be_explained_from_its_page(client: TestClient) -> None:
    sm = sessions(client)
    iid = add_item(sm, add_feed(sm), title="An old post", text="Old text.", state=ItemState.SKIPPED)
    page = soup(client.get(f"/ui/items/{iid}").text)
    assert "No explainer yet: this item is skipped." in page.get_text()
    button = page.select_one("section.review button")
    assert (button["value"], button.get_text()) == ("retry", "Explain")
    assert "first delivery" in page.select_one("section.review p").get_text()
    index = soup(client.get("/", params={"state": "skipped"}).text)
    rows = index.select("table.items tbody tr")
    assert [row.select_one("a").get_text() for row in rows] == ["An old post"]
    assert rows[0].select_one(".state")["data-state"] == "skipped"
    assert index.select_one('#state option[value="skipped"]') is not None
    r = client.post(
        f"/ui/items/{iid}/review", data={"action": "retry", "token": TOKEN}, follow_redirects=False
    )
    assert r.status_code == 303
    with sessions(client)() as s:
        assert s.get(t.Item, iid).state == "pending"


def test_a_reviewer_with_a_control_character_is_recorded_without_it(db_url: str) -> None:
    # The form is read as text, and a NUL (reviewer=Ada%00Lovelace) stayed in the name:
    # PostgreSQL refused the explainer's approved_by, a 500 on a real server (the
    # X-Reviewer header of POST /items/{id}/approve cannot carry one).
    app = create_app(make_settings(db_url, api_token=TOKEN), workers=0)
    with LiveServer(app) as server, httpx.Client(base_url=server.url) as http:
        iid = seed_ids(SimpleNamespace(app=app))["item"]  # type: ignore[arg-type]
        r = http.post(
            f"/ui/items/{iid}/review",
            content=f"action=approve&token={TOKEN}&reviewer=Ada%00Love%07lace%7F".encode(),
            headers={"Content-Type": "application/x-www-form-urlencoded"},
        )
        assert r.status_code == 303, r.text
        with sessions(SimpleNamespace(app=app))() as s:
            ex = s.scalars(select(t.Explainer).where(t.Explainer.item_id == iid)).one()
            assert ex.approved_by == "Ada Love lace"
            assert s.get(t.Item, iid).state == "published"  # type: ignore[union-attr]
