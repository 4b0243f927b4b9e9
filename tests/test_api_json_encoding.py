"""A JSON body in UTF-16 or UTF-32 is a 400 ``bad-json`` problem naming its encoding
(RFC 8259 8.1: JSON between systems is UTF-8), on every route that reads JSON, through a
real server on loopback; a UTF-8 body with a byte order mark is taken as before."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from service.api.app import create_app
from service.api.utf8 import wide_encoding
from tests.api_helpers import assert_problem
from tests.conftest import LiveServer, make_settings

JSON = "application/json"
CHECK = {"markdown": "It is 1.5x faster.", "explainer": "It is 1.5x faster."}
FEED = {"url": "https://a.example/feed", "name": "Blog A"}
# (route, method, body): every route whose body is JSON (FastAPI's models, the webhook's
# JSON naming a feed, a JSON Feed pushed by a WebSub hub).
ROUTES = [
    ("POST", "/check", CHECK),
    ("POST", "/explain", {"markdown": "It is 1.5x faster."}),
    ("POST", "/feeds", {"url": "https://b.example/feed"}),
    ("PATCH", "/feeds/1", {"name": "Renamed"}),
    ("POST", "/subscribers", {"url": "https://hooks.example/in"}),
    ("POST", "/feeds/1/subscribers", {"url": "https://hooks.example/in"}),
    ("PATCH", "/subscribers/1", {"active": False}),
    ("POST", "/webhooks/feed", {"feed_url": "https://a.example/feed"}),
    ("POST", "/websub/1", {"version": "https://jsonfeed.org/version/1.1", "items": []}),
]
# Python's codec (a BOM or none) and the name the problem gives.
WIDE = [
    ("utf-16", "UTF-16LE"),  # with its byte order mark
    ("utf-16-be", "UTF-16BE"),
    ("utf-32", "UTF-32LE"),
    ("utf-32-be", "UTF-32BE"),
]


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[httpx.Client]:
    """The app on loopback, one feed registered (id 1), no workers: what is tested is how
    bodies are read, not the store (one database)."""
    db = tmp_path_factory.mktemp("utf8") / "plainfeed.db"
    app = create_app(make_settings(f"sqlite:///{db}"), workers=0)
    with LiveServer(app) as live, httpx.Client(base_url=live.url, timeout=60) as c:
        assert c.post("/feeds", json=FEED).status_code == 201
        yield c


def _send(client: httpx.Client, method: str, path: str, body: bytes, ctype: str | None):  # type: ignore[no-untyped-def]
    headers = {"Content-Type": ctype} if ctype else {}
    return client.request(method, path, content=body, headers=headers)


@pytest.mark.parametrize(("codec", "name"), WIDE)
@pytest.mark.parametrize(("method", "path", "doc"), ROUTES, ids=[f"{m} {p}" for m, p, _ in ROUTES])
def test_a_utf16_or_utf32_json_body_is_a_400_naming_it(
    client: httpx.Client, method: str, path: str, doc: object, codec: str, name: str
) -> None:
    ctype = "application/feed+json" if path.startswith("/websub") else "application/json"
    r = _send(client, method, path, json.dumps(doc).encode(codec), ctype)
    problem = assert_problem(r, 400)
    assert str(problem["type"]).endswith("/bad-json")
    assert name in str(problem["detail"]) and "UTF-8" in str(problem["detail"])


@pytest.mark.parametrize("ctype", [None, "text/plain", "application/octet-stream"])
def test_an_unlabelled_utf16_json_body_is_refused_too(
    client: httpx.Client, ctype: str | None
) -> None:
    # The webhook sniffs bodies of these types, and read one that begins with { as JSON;
    # FastAPI's models, which read only a body labelled JSON, said "not a valid
    # dictionary" (422), not what is wrong with it.
    for method, path, doc in (ROUTES[0], ROUTES[7]):
        body = ("  " + json.dumps(doc)).encode("utf-16-le")  # no mark: its zero bytes tell
        problem = assert_problem(_send(client, method, path, body, ctype), 400)
        assert "UTF-16LE" in str(problem["detail"]), (path, ctype)


def test_a_utf16_feed_that_is_no_json_is_not_refused_as_json(client: httpx.Client) -> None:
    # An XML feed may be UTF-16: the check is of JSON only.
    xml = '<?xml version="1.0" encoding="UTF-16"?><rss version="2.0"><channel></channel></rss>'
    r = _send(client, "POST", "/webhooks/feed", xml.encode("utf-16"), None)
    assert r.status_code != 400 or "UTF-16" not in r.text, r.text


@pytest.mark.parametrize(
    ("method", "path", "doc"),
    [ROUTES[0], ("POST", "/feeds", FEED), ROUTES[7]],
    ids=["check", "feeds", "webhook"],
)
def test_a_utf8_byte_order_mark_is_read_over_as_before(
    client: httpx.Client, method: str, path: str, doc: object
) -> None:
    # json.loads skips it; so do FastAPI's models and the webhook, as they did.
    plain = _send(client, method, path, json.dumps(doc).encode(), JSON)
    marked = _send(client, method, path, b"\xef\xbb\xbf" + json.dumps(doc).encode(), JSON)
    # (The same class of answer: the webhook's second is a duplicate, 200 for 202.)
    assert marked.status_code // 100 == plain.status_code // 100, marked.text
    assert "UTF" not in marked.text
    if path == "/check":
        assert marked.status_code == 200 and marked.json() == plain.json()


def test_wide_encoding_names_what_json_loads_would_read() -> None:
    for codec, name in WIDE:
        assert wide_encoding(json.dumps({"a": 1}).encode(codec)) == name
    assert wide_encoding(b'{"a": 1}') is None
    assert wide_encoding(b'\xef\xbb\xbf{"a": 1}') is None
    assert wide_encoding(b"") is None
    assert wide_encoding(b"1") is None
