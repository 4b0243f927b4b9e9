"""GET /openapi.json against what the server really answers, on a real server on loopback:
every route is documented, and every status and content type it answers is declared."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fastapi.routing import APIRoute

from service import ingest
from service.api.app import create_app
from service.api.problems import PROBLEM_BASE
from tests.conftest import LiveServer, make_settings

TOKEN = "openapi-test-token"
# The page for any other /ui address: a catch-all, not an address of its own; the pages
# that show this document (served by the app itself, fastapi-offline's routes).
UNDOCUMENTED = {"/ui/{rest:path}", "/docs", "/docs/oauth2-redirect", "/redoc"}


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    db = tmp_path_factory.mktemp("openapi") / "plainfeed.db"
    app = create_app(make_settings(f"sqlite:///{db}", api_token=TOKEN), workers=0)
    with LiveServer(app) as server:
        yield server.url, app


def _spec(url: str) -> dict[str, Any]:
    return httpx.get(f"{url}/openapi.json").json()  # type: ignore[no-any-return]


def _routes(routes: list[Any]) -> Iterator[Any]:
    """The routes of the app and of the routers it includes (all without a prefix)."""
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from _routes(included.routes)
        else:
            yield route


def test_every_route_is_documented(live: tuple[str, Any]) -> None:
    url, app = live
    paths = _spec(url)["paths"]
    for route in _routes(app.routes):
        if not isinstance(route, APIRoute) or route.path in UNDOCUMENTED:
            continue
        for method in route.methods:
            assert method.lower() in paths.get(route.path, {}), f"{method} {route.path}"


def test_every_get_is_documented_with_head(live: tuple[str, Any]) -> None:
    url, _ = live
    for path, ops in _spec(url)["paths"].items():
        if "get" in ops:
            assert "head" in ops, path
            assert set(ops["head"]["responses"]) == set(ops["get"]["responses"]), path


def test_the_feed_bodies_taken_are_documented(live: tuple[str, Any]) -> None:
    paths = _spec(live[0])["paths"]
    webhook = paths["/webhooks/feed"]["post"]["requestBody"]["content"]
    assert ingest.FEED_TYPES | {"application/json"} <= set(webhook)
    websub = paths["/websub/{feed_id}"]["post"]["requestBody"]["content"]
    assert set(websub) >= ingest.FEED_TYPES


def _media(content_type: str) -> str:
    return content_type.split(";")[0].strip()


def _declared(response: dict[str, Any]) -> set[str]:
    return {_media(c) for c in response.get("content", {})}


@pytest.mark.parametrize("with_token", [False, True])
def test_every_answer_is_declared(live: tuple[str, Any], with_token: bool) -> None:
    """Each operation, called with unknown ids and an empty body, with and without the
    token: its status is one the document lists, with the content type it lists."""
    url, _ = live
    spec = _spec(url)
    headers = {"Authorization": f"Bearer {TOKEN}"} if with_token else {}
    undeclared = []
    with httpx.Client(base_url=url, headers=headers, timeout=30) as c:
        for path, ops in spec["paths"].items():
            concrete = re.sub(r"\{[^}]+\}", "999999", path)
            for method, op in ops.items():
                kw: dict[str, Any] = {}
                if method in ("post", "patch", "put"):
                    kw["json"] = {}
                r = c.request(method.upper(), concrete, **kw)
                declared = op["responses"].get(str(r.status_code))
                if declared is None:
                    undeclared.append(f"{method.upper()} {path}: {r.status_code} not declared")
                    continue
                media = _declared(declared)
                got = _media(r.headers.get("content-type", ""))
                if r.content and got not in media:
                    undeclared.append(
                        f"{method.upper()} {path}: {r.status_code} is {got}, declared {media}"
                    )
    assert not undeclared, "\n".join(undeclared)


@pytest.mark.parametrize("with_token", [False, True])
def test_a_query_not_utf8_is_a_declared_400_everywhere(
    live: tuple[str, Any], with_token: bool
) -> None:
    """A query parameter not UTF-8 once percent-decoded is a 400 bad-query on every route
    (service.api.deps.utf8_query): each operation declares it, and answers it so, a
    problem or, for a page, an HTML page (the review form's POST answered a problem)."""
    url, _ = live
    spec = _spec(url)
    headers = {"Authorization": f"Bearer {TOKEN}"} if with_token else {}
    bad_query, wrong = f"{PROBLEM_BASE}bad-query", []
    with httpx.Client(base_url=url, headers=headers, timeout=30) as c:
        for path, ops in spec["paths"].items():
            page = path == "/" or path.startswith("/ui/")
            concrete = re.sub(r"\{[^}]+\}", "999999", path)
            for method, op in ops.items():
                declared = op["responses"].get("400", {})
                if "not UTF-8 once percent-decoded (bad-query)" not in declared.get(
                    "description", ""
                ):
                    wrong.append(f"{method.upper()} {path}: 400 {declared} says no bad-query")
                kw: dict[str, Any] = {"json": {}} if method in ("post", "patch", "put") else {}
                r = c.request(method.upper(), f"{concrete}?q=%FF", **kw)
                got = _media(r.headers.get("content-type", ""))
                want = "text/html" if page else "application/problem+json"
                if r.status_code != 400 or got != want:
                    wrong.append(f"{method.upper()} {path}: {r.status_code} {got}, not 400 {want}")
                elif method != "head" and _declared(declared) != {want}:
                    wrong.append(f"{method.upper()} {path}: 400 declared {_declared(declared)}")
                elif method != "head" and not page and r.json()["type"] != bad_query:
                    wrong.append(f"{method.upper()} {path}: 400 {r.json()['type']}")
    assert not wrong, "\n".join(wrong)


def test_problems_are_declared_as_problem_json(live: tuple[str, Any]) -> None:
    spec = _spec(live[0])
    wrong = []
    for path, ops in spec["paths"].items():
        if path == "/" or path.startswith("/ui/"):
            continue  # the pages answer their errors as HTML pages
        for method, op in ops.items():
            if method == "head":
                continue  # no body at all
            for status, response in op["responses"].items():
                if (path, status) == ("/readyz", "503"):
                    continue
                if int(status) >= 400 and _declared(response) != {"application/problem+json"}:
                    wrong.append(f"{method.upper()} {path} {status}: {_declared(response)}")
    assert not wrong, "\n".join(wrong)
    # Not a problem: the readiness report, with its checks.
    assert _declared(spec["paths"]["/readyz"]["get"]["responses"]["503"]) == {"application/json"}
    problem = spec["components"]["schemas"]["Problem"]
    assert {"type", "title", "status", "detail"} <= set(problem["required"])


def test_the_item_states_and_delivery_counts_are_documented(live: tuple[str, Any]) -> None:
    url, _ = live
    spec = _spec(url)
    schemas = spec["components"]["schemas"]
    assert "skipped" in schemas["ItemState"]["enum"]
    assert "items_skipped" in schemas["DeliveryOut"]["required"]
    assert "reused_from" in schemas["ExplainerMeta"]["properties"]
