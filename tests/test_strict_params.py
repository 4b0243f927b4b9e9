"""Every id, number and filter of a path or query is read strictly (digits 0-9 alone, a
filter that is no id an error, never ignored), and a listing's next link carries only
the parameters its route reads; a real server on loopback."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from service.models import ItemState
from service.store.db import make_engine, make_sessionmaker
from tests.conftest import api_client, make_settings
from tests.seed_db import add_feed, add_item


@pytest.fixture(scope="module")
def seeded(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[httpx.Client, dict[str, int]]]:
    """A server over a database with two feeds, an item in each (one needs review), and
    an item of neither: what a filter ignored would show. One for the module: the tests
    that take it only read."""
    url = f"sqlite:///{tmp_path_factory.mktemp('seeded') / 'seeded.db'}"
    with api_client(make_settings(url), workers=0, timeout=60) as client:
        engine = make_engine(url)
        sm = make_sessionmaker(engine)
        a = add_feed(sm, "https://a.example/feed", name="Feed A")
        b = add_feed(sm, "https://b.example/feed", name="Feed B")
        ids = {
            "a": a,
            "b": b,
            "item_a": add_item(sm, a, title="Only in A", text="It is 1.5x faster."),
            "item_b": add_item(
                sm, b, title="Only in B", text="It is 2x faster.", state=ItemState.NEEDS_REVIEW
            ),
            "item_none": add_item(sm, None, title="Of no feed", text="It is 3x faster."),
        }
        try:
            yield client, ids
        finally:
            engine.dispose()


def _listed(html: str) -> set[str]:
    return {t for t in ("Only in A", "Only in B", "Of no feed") if t in html}


@pytest.mark.parametrize(
    "feed", ["-1", "0", "abc", "\u00b2", "99999999999", "9" * 20, "99999999999999999999999"]
)
def test_an_index_feed_filter_that_is_no_id_is_an_error_page_not_every_item(
    seeded: tuple[httpx.Client, dict[str, int]], feed: str
) -> None:
    # The index ignored a feed filter that was no id (and one past the id column) and
    # listed every item, under an address that seemed to filter; /?feed=999 was a 404.
    client, _ = seeded
    r = client.get("/", params={"feed": feed})
    assert r.status_code == 422, (feed, r.status_code)
    assert r.headers["content-type"].startswith("text/html")
    assert "<h1>Bad request</h1>" in r.text and "feed:" in r.text
    assert not _listed(r.text)


def test_an_index_state_filter_that_is_no_state_is_an_error_page(
    seeded: tuple[httpx.Client, dict[str, int]],
) -> None:
    client, ids = seeded
    for state in ("bogus", "PUBLISHED", " published", "published\x00"):
        r = client.get("/", params={"state": state})
        assert r.status_code == 422, state
        assert r.headers["content-type"].startswith("text/html")
        assert "<h1>Bad request</h1>" in r.text and "state:" in r.text
        assert not _listed(r.text)
    # The form's "any" is sent empty: no filter, as before.
    assert _listed(client.get("/", params={"state": "", "feed": "", "q": ""}).text) == {
        "Only in A",
        "Only in B",
        "Of no feed",
    }
    r = client.get("/", params={"state": "needs_review"})
    assert r.status_code == 200 and _listed(r.text) == {"Only in B"}
    r = client.get("/", params={"feed": str(ids["a"])})
    assert r.status_code == 200 and _listed(r.text) == {"Only in A"}
    r = client.get("/", params={"feed": "999"})
    assert r.status_code == 404 and not _listed(r.text)


# Each a way pydantic read as a number: whitespace, a sign, a point, an underscore.
NOT_DIGITS = ["%20{n}", "{n}%20", "%09{n}", "+{n}", "{n}.0", "1_{n}"]


@pytest.mark.parametrize("form", NOT_DIGITS)
@pytest.mark.parametrize(
    "path",
    [
        "/items/{id}",
        "/items/{id}/explainer",
        "/items/{id}/check",
        "/feeds/{id}",
        "/feeds/{id}/feed.atom",
        "/deliveries/{id}",
    ],
)
def test_an_api_id_not_written_in_digits_alone_is_a_422(
    seeded: tuple[httpx.Client, dict[str, int]], path: str, form: str
) -> None:
    # "/items/%2012" was item 12: a resource under many addresses, and a typo taken for
    # an id. As an id that is no number ("/items/abc"), a 422 naming the parameter.
    client, ids = seeded
    good = path.format(id=ids["item_a"] if path.startswith("/items") else ids["a"])
    # Read as an id (no explainer or delivery yet: a 404 that names it).
    assert client.get(good).status_code in (200, 404), good
    r = client.get(path.format(id=form.format(n=ids["a"])))
    assert r.status_code == 422, (path, form, r.text)
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "digits 0-9 alone" in r.json()["detail"]


@pytest.mark.parametrize("form", NOT_DIGITS)
def test_a_page_id_not_written_in_digits_alone_is_a_404_page(
    seeded: tuple[httpx.Client, dict[str, int]], form: str
) -> None:
    # The pages answer an address that is no item a 404 page, as "/ui/items/abc".
    client, ids = seeded
    assert client.get(f"/ui/items/{ids['item_a']}").status_code == 200
    r = client.get("/ui/items/" + form.format(n=ids["item_a"]))
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("text/html") and "<h1>Not found</h1>" in r.text


def test_a_page_id_with_leading_zeros_is_the_item_the_api_reads(
    seeded: tuple[httpx.Client, dict[str, int]],
) -> None:
    # The API reads "000000000012" as item 12; the page refused ids past 10 characters.
    client, ids = seeded
    zeros = "0" * 12 + str(ids["item_a"])
    assert client.get(f"/items/{zeros}").json()["id"] == ids["item_a"]
    page = client.get(f"/ui/items/{zeros}")
    assert page.status_code == 200 and "Only in A" in page.text
    assert client.get("/ui/items/" + "0" * 12).status_code == 404


@pytest.mark.parametrize("form", NOT_DIGITS)
@pytest.mark.parametrize(
    ("path", "name"),
    [
        ("/items", "limit"),
        ("/items", "offset"),
        ("/items", "feed_id"),
        ("/feeds", "limit"),
        ("/deliveries", "feed_id"),
        ("/subscribers", "feed_id"),
        ("/feed.atom", "limit"),
        ("/stats", "days"),
        ("/", "feed"),
        ("/", "offset"),
    ],
)
def test_a_query_number_not_written_in_digits_alone_is_refused(
    seeded: tuple[httpx.Client, dict[str, int]], path: str, name: str, form: str
) -> None:
    # "?limit=%205" was a limit of 5 and "?feed_id=%201" feed 1.
    client, ids = seeded
    query = f"{name}={form.format(n=ids['a'])}"
    assert client.get(f"{path}?{name}={ids['a']}").status_code == 200
    r = client.get(f"{path}?{query}")
    assert r.status_code == 422, (path, query, r.text[:300])
    if path == "/":
        assert r.headers["content-type"].startswith("text/html")
        assert "<h1>Bad request</h1>" in r.text and "digits 0-9 alone" in r.text
    else:
        assert r.headers["content-type"].startswith("application/problem+json")
        assert "digits 0-9 alone" in r.json()["detail"]


@pytest.mark.parametrize(
    ("path", "known"),
    [
        ("/items", {"q": "Only", "state": "", "feed_id": ""}),
        ("/feeds", {}),
    ],
)
def test_a_next_link_keeps_only_the_parameters_the_route_reads(
    seeded: tuple[httpx.Client, dict[str, int]], path: str, known: dict[str, str]
) -> None:
    # Every parameter of the request was copied into the next page's link: thousands of
    # unknown ones made a link of hundreds of KB, and every page after carried them on.
    client, _ = seeded
    params = {k: v for k, v in known.items() if v}
    junk = "&".join(f"junk{i}=x" for i in range(2000))
    query = "&".join([*(f"{k}={v}" for k, v in params.items()), "limit=1", junk])
    r = client.get(f"{path}?{query}")
    assert r.status_code == 200, r.text[:300]
    page = r.json()
    assert page["total"] >= 2 and page["next"] is not None
    nxt = httpx.URL(page["next"])
    assert dict(nxt.params) == {**params, "offset": "1", "limit": "1"}
    follow = client.get(nxt.raw_path.decode())
    assert follow.status_code == 200 and follow.json()["offset"] == 1
