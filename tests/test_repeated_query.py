"""A query parameter that takes one value, given twice (``/items?feed_id=1&feed_id=2``),
is refused naming the parameter, on every route: it silently took the last value."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

import httpx
import pytest
from fastapi import Depends, FastAPI, Query

from service.api import problems
from service.api.app import create_app
from service.api.deps import one_value_each
from tests.conftest import LiveServer, make_settings


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db = tmp_path_factory.mktemp("repeated") / "plainfeed.db"
    with LiveServer(create_app(make_settings(f"sqlite:///{db}"), workers=0)) as server:
        yield server.url


def _value(schema: dict[str, Any]) -> str:
    """A value ``schema`` takes (the second of a repeated parameter is the same)."""
    for option in schema.get("anyOf", [schema]):
        if "enum" in option:
            return str(option["enum"][0])
        if option.get("type") == "integer":
            return str(option.get("minimum", 1))
        if option.get("type") == "string" or "$ref" in option:
            return "new" if "$ref" in option else "a"
    return "1"


def _single_valued_queries(base: str) -> list[tuple[str, str, str, str]]:
    """(method, path with its path parameters filled, query parameter, a value) of every operation
    of the OpenAPI document with a query parameter that takes one value."""
    spec = httpx.get(base + "/openapi.json").json()
    found = []
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            filled = path
            for p in op.get("parameters", []):
                if p["in"] == "path":
                    filled = filled.replace("{" + p["name"] + "}", "1")
            for p in op.get("parameters", []):
                if p["in"] == "query" and "array" not in str(p["schema"]):
                    found.append((method.upper(), filled, p["name"], _value(p["schema"])))
    return found


def test_repeated_feed_id_of_items_is_a_problem_naming_it(base: str) -> None:
    r = httpx.get(base + "/items", params=[("feed_id", "1"), ("feed_id", "2")])
    assert r.status_code == 422
    assert r.headers["content-type"] == "application/problem+json"
    body = r.json()
    assert body["type"].endswith("/validation-error")
    assert "feed_id" in body["detail"]
    assert body["errors"] == [
        {"loc": ["query", "feed_id"], "msg": body["errors"][0]["msg"], "type": "repeated"}
    ]
    # Once, it is a filter as before: here of a feed this empty database does not have.
    once = httpx.get(base + "/items", params={"feed_id": "1"})
    assert once.status_code == 404 and once.json()["detail"] == "no feed with id 1"


def test_every_single_valued_query_parameter_refuses_a_repeat(base: str) -> None:
    cases = _single_valued_queries(base)
    # The list endpoints' filters are among them.
    names = {(m, p, q) for m, p, q, _ in cases}
    for path in ("/items", "/deliveries", "/subscribers"):
        assert ("GET", path, "feed_id") in names
    assert ("GET", "/items", "state") in names
    for method, path, name, value in cases:
        r = httpx.request(method, base + path, params=[(name, value), (name, value)])
        assert r.status_code == 422, (method, path, name, r.text)
        if method == "HEAD":
            continue
        if path == "/" or path.startswith("/ui/"):
            # A page asked for by a browser answers with a page that says what is wrong.
            assert name in r.text, (path, name)
        else:
            assert r.json()["errors"][0]["loc"] == ["query", name], (method, path)


def test_repeated_webhook_feed_id_is_refused_before_the_body_is_taken(base: str) -> None:
    r = httpx.post(
        base + "/webhooks/feed",
        params=[("feed_id", "1"), ("feed_id", "2")],
        json={"feed_url": "http://127.0.0.1:9/feed.xml"},
    )
    assert r.status_code == 422
    assert r.json()["errors"][0]["loc"] == ["query", "feed_id"]


def test_parameter_declared_as_a_list_still_takes_many_values() -> None:
    """The check goes by what the route declares: a list parameter is not refused."""
    app = FastAPI(dependencies=[Depends(one_value_each)])
    problems.install(app)

    @app.get("/tags")
    def tags(
        tag: Annotated[list[str], Query()], one: Annotated[str | None, Query()] = None
    ) -> dict[str, Any]:
        return {"tag": tag, "one": one}

    with LiveServer(app) as server:
        ok = httpx.get(server.url + "/tags", params=[("tag", "a"), ("tag", "b"), ("one", "x")])
        assert ok.status_code == 200
        assert ok.json() == {"tag": ["a", "b"], "one": "x"}
        bad = httpx.get(server.url + "/tags", params=[("tag", "a"), ("one", "x"), ("one", "y")])
        assert bad.status_code == 422
        assert bad.json()["errors"][0]["loc"] == ["query", "one"]
