"""A query parameter whose name or value is not UTF-8 once percent-decoded (``?q=%FF``)
is a 400 problem naming it, on a real server on loopback: Starlette read each byte that
is not UTF-8 as U+FFFD, and the request was answered for a value no one sent."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from service.api.app import create_app
from tests.conftest import LiveServer, make_settings


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("query_utf8") / "plainfeed.db"
    with LiveServer(create_app(make_settings(f"sqlite:///{db}"), workers=0)) as server:
        yield server.url


@pytest.mark.parametrize(
    ("query", "loc", "says"),
    [
        ("q=%FF", "q", "is not UTF-8 (%FF at byte 0)"),
        ("q=caf%E9", "q", "is not UTF-8 (%E9 at byte 3)"),  # Latin-1's é
        ("q=%ED%A0%80", "q", "is not UTF-8 (%ED at byte 0)"),  # a surrogate, as UTF-8
        ("q=ok&state=pub%C3", "state", "is not UTF-8 (%C3 at byte 3)"),  # cut short
        ("%FF=1", "%FF", "the name is not UTF-8 (%FF at byte 0)"),
        ("q+x=%FF", "q x", "is not UTF-8"),  # the name as it is read
    ],
)
def test_a_query_that_is_not_utf8_is_a_400_naming_the_parameter(
    base: str, query: str, loc: str, says: str
) -> None:
    r = httpx.get(f"{base}/items?{query}")
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    problem = r.json()
    assert problem["type"].endswith("/bad-query"), problem
    assert problem["detail"].startswith(f"query.{loc}: {says}"), problem
    assert problem["errors"][0]["loc"] == ["query", loc]
    assert problem["errors"][0]["type"] == "query_not_utf8"


def test_a_utf8_query_is_read_as_before(base: str) -> None:
    ok = httpx.get(f"{base}/items?q=caf%C3%A9+%F0%9F%98%80&limit=5")
    assert ok.status_code == 200, ok.text
    assert ok.json()["limit"] == 5


def test_a_query_the_route_reads_itself_is_checked(base: str) -> None:
    # The WebSub verification reads its hub.* parameters from the query, undeclared: a
    # challenge of U+FFFD would have been echoed for the hub's "%FF".
    r = httpx.get(f"{base}/websub/1?hub.mode=subscribe&hub.challenge=%FF&token=t")
    assert r.status_code == 400, r.text
    assert r.json()["errors"][0]["loc"] == ["query", "hub.challenge"]


def test_a_page_answers_an_html_page(base: str) -> None:
    # A person's browser: an HTML page, as the page's other query errors are.
    r = httpx.get(f"{base}/?q=%FF")
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("text/html")
    assert "q: is not UTF-8 (%FF at byte 0)" in r.text
