"""Range on the static files read as RFC 9110 14.2 says (service.api.ranges), through a
real server on loopback: a unit other than bytes, and ranges that do not parse, are
ignored (200, the whole file); a range the file cannot satisfy is 416 with a problem
body. Starlette answered the first two 400 in plain text, the third with an empty one."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from service.api.app import create_app
from tests.conftest import LiveServer, make_settings

PATHS = ["/static/style.css", "/static-offline-docs/swagger-ui.css"]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    db = tmp_path_factory.mktemp("ranges") / "plainfeed.db"
    app = create_app(make_settings(f"sqlite:///{db}"), workers=0)
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=30) as c:
        yield c


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize(
    "value",
    [
        "items=0-5",  # a unit the server does not know: MUST be ignored
        "bytes=5-1",  # last before first: an invalid range set
        "bytes=abc",
        "bytes=",
        "bytes",
        "\u00ff",
    ],
)
def test_a_range_of_another_unit_or_that_does_not_parse_is_ignored(
    client: httpx.Client, path: str, value: str
) -> None:
    whole = client.get(path)
    response = client.get(path, headers={"Range": value.encode("latin-1")})  # type: ignore[dict-item]
    assert response.status_code == 200, response.text
    assert response.content == whole.content
    assert "content-range" not in response.headers


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("method", ["GET", "HEAD"])
def test_a_range_the_file_cannot_satisfy_is_a_416_problem(
    client: httpx.Client, path: str, method: str
) -> None:
    response = client.request(method, path, headers={"Range": "bytes=99999999-"})
    assert response.status_code == 416
    assert response.headers["content-type"] == "application/problem+json"
    assert response.headers["content-range"].startswith("bytes */")
    if method == "GET":
        problem = json.loads(response.content)
        assert problem["type"].endswith("/range-not-satisfiable") and problem["status"] == 416
        assert int(response.headers["content-length"]) == len(response.content)
    else:
        assert response.content == b""


@pytest.mark.parametrize("value", ["bytes=0-9", "bytes=-10", "bytes=0-0,5-9"])
def test_a_satisfiable_range_is_206(client: httpx.Client, value: str) -> None:
    whole = client.get("/static/style.css").content
    response = client.get("/static/style.css", headers={"Range": value})
    assert response.status_code == 206
    if "," not in value:
        start, _, end = value.removeprefix("bytes=").partition("-")
        expected = whole[int(start) : int(end) + 1] if start else whole[-int(end) :]
        assert response.content == expected
