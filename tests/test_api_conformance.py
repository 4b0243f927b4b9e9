"""The API against its own OpenAPI document where a fuzzer (schemathesis) found them apart,
over real HTTP on loopback: each answer's status and content type is one the document
declares, the document shows what a body must be to be taken, and JSON the decoder
refuses without a JSONDecodeError is bad JSON, not a crash."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from service.api.app import create_app
from tests.conftest import LiveServer, make_settings

TOKEN = "conformance-token"
Live = tuple[httpx.Client, dict[str, Any]]


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    db = tmp_path_factory.mktemp("conformance") / "plainfeed.db"
    app = create_app(make_settings(f"sqlite:///{db}", api_token=TOKEN), workers=0)
    with (
        LiveServer(app) as server,
        httpx.Client(
            base_url=server.url, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30
        ) as client,
    ):
        yield client, client.get("/openapi.json").json()


def _media(content_type: str) -> str:
    return content_type.split(";")[0].strip()


def assert_declared(spec: dict[str, Any], path: str, r: httpx.Response) -> None:
    """``r`` (an answer at the documented ``path``) has a status and a content type the
    document declares for its operation."""
    op = spec["paths"][path][r.request.method.lower()]
    declared = op["responses"].get(str(r.status_code))
    assert declared is not None, f"{r.request.method} {path}: {r.status_code} not declared"
    if r.content:
        media = {_media(c) for c in declared.get("content", {})}
        assert _media(r.headers["content-type"]) in media, (r.status_code, media)


def _feed(client: httpx.Client) -> int:
    r = client.post("/feeds", json={"url": "https://pytorch.org/blog/feed/"})
    if r.status_code == 409:  # registered by an earlier test of the module
        return int(client.get("/feeds").json()["items"][0]["id"])
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


@pytest.mark.parametrize("path", ["/webhooks/feed", "/feeds", "/subscribers", "/check"])
def test_a_number_of_more_digits_than_int_takes_is_bad_json(live: Live, path: str) -> None:
    # Valid JSON that json.loads refuses with a plain ValueError (Python converts at most
    # 4,300 digits to an int): the webhook answered a 500, the other routes FastAPI's
    # "There was an error parsing the body", which says nothing of why.
    client, spec = live
    body = b'{"feed_id": ' + b"9" * 5000 + b"}"
    r = client.post(path, content=body, headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text
    problem = r.json()
    assert problem["type"].endswith("/bad-json")
    assert "a number has more than 4300 digits" in problem["detail"]
    assert_declared(spec, path, r)
    assert client.get("/healthz").status_code == 200
