"""The API against its own OpenAPI document where a fuzzer (schemathesis) found them apart,
over real HTTP on loopback: each answer's status and content type is one the document
declares, the document shows what a body must be to be taken, and JSON the decoder
refuses without a JSONDecodeError is bad JSON, not a crash."""

from __future__ import annotations

import base64
import gzip
import os
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from service.api.app import create_app
from service.errors import InputError
from service.outbound import SECRET_PATTERN, secret_key
from service.store.tables import MAX_URL
from tests.conftest import PYTORCH_FEED, LiveServer, make_settings

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


@pytest.mark.parametrize(
    ("path", "query", "status"),
    [
        ("/", "feed=999999", 404),  # no such feed
        ("/", "state=bogus", 422),
        ("/ui/items/{item_id}", "done=a&done=b", 422),  # a parameter given twice
    ],
)
def test_a_page_answers_its_errors_as_the_html_it_declares(
    live: Live, path: str, query: str, status: int
) -> None:
    # Declared as problem JSON (the 422) or not at all (the 404), answered as HTML pages.
    client, spec = live
    concrete = path.replace("{item_id}", "1")
    for method in ("GET", "HEAD"):
        r = client.request(method, f"{concrete}?{query}")
        assert r.status_code == status
        if method == "GET":
            assert _media(r.headers["content-type"]) == "text/html"
        assert_declared(spec, path, r)


def test_websub_content_refused_before_its_feed_is_looked_at_is_declared(live: Live) -> None:
    client, spec = live
    feed_id = _feed(client)
    path = "/websub/{feed_id}"
    empty = client.post(f"/websub/{feed_id}")
    assert empty.status_code == 400 and empty.json()["type"].endswith("/empty-body")
    assert_declared(spec, path, empty)
    csv = client.post(f"/websub/{feed_id}", content=b"a,b", headers={"content-type": "text/csv"})
    assert csv.status_code == 415
    assert_declared(spec, path, csv)


@pytest.mark.parametrize(
    ("path", "ctype"),
    [
        ("/feeds", "text/plain"),
        ("/subscribers", "application/xml"),
        ("/webhooks/feed", "application/rss+xml"),
        ("/ui/items/{item_id}/review", "application/x-www-form-urlencoded"),
    ],
)
def test_a_body_refused_for_its_type_or_encoding_is_a_declared_415(
    live: Live, path: str, ctype: str
) -> None:
    # Every route that reads a body refuses a compressed one (service.api.limits), and a
    # JSON route one labelled as anything else: neither was declared but the webhook's.
    client, spec = live
    concrete = path.replace("{item_id}", "1")
    gz = client.post(
        concrete,
        content=gzip.compress(PYTORCH_FEED.read_bytes()),
        headers={"content-type": ctype, "content-encoding": "gzip"},
    )
    assert gz.status_code == 415
    assert_declared(spec, path, gz)
    if not path.startswith(("/ui/", "/webhooks/")):
        plain = client.post(concrete, content=b"x=1", headers={"content-type": ctype})
        assert plain.status_code == 415
        assert_declared(spec, path, plain)


def test_the_review_form_address_allows_post_alone(live: Live) -> None:
    client, _ = live
    # The page of any other /ui address answers GET there too: Allow named it, and GET
    # said "no page here" (404) while OPTIONS said 405 Allow: GET, HEAD, POST.
    for method in ("GET", "PUT"):
        r = client.request(method, "/ui/items/1/review")
        assert r.status_code == 405, method
        assert r.headers["allow"] == "OPTIONS, POST", method
        assert _media(r.headers["content-type"]) == "text/html"
    options = client.options("/ui/items/1/review")
    assert options.status_code == 204 and options.headers["allow"] == "OPTIONS, POST"
    # Where no other route is, that page is what there is (OPTIONS there is its 404).
    assert client.get("/ui/nothing/here").status_code == 404
    other = client.post("/ui/nothing/here")
    assert other.status_code == 405 and other.headers["allow"] == "GET, HEAD"
    # The API's own 405s are unchanged.
    assert client.put("/feeds").headers["allow"] == "GET, HEAD, OPTIONS, POST"


def test_a_patch_body_is_documented_as_the_route_takes_it(live: Live) -> None:
    client, spec = live
    schemas = spec["components"]["schemas"]
    # The routes refuse an empty body (400): the document said {} was a valid one.
    assert schemas["FeedPatch"]["minProperties"] == 1
    patch = schemas["SubscriberPatch"]
    assert patch["minProperties"] == 1
    # A null is refused (400) for every field: the document offered null for each.
    for name, prop in patch["properties"].items():
        assert "null" not in str(prop) and "default" not in prop, name
    assert patch["properties"]["events"]["minItems"] == 1
    feed_id = _feed(client)
    r = client.patch(f"/feeds/{feed_id}", json={})
    assert r.status_code == 400
    assert_declared(spec, "/feeds/{feed_id}", r)
    sub = client.post("/subscribers", json={"url": "https://example.org/hook"})
    assert sub.status_code == 201, sub.text
    for body in ({}, {"events": None}, {"active": True, "url": None}):
        r = client.patch(f"/subscribers/{sub.json()['id']}", json=body)
        assert r.status_code == 400, body
        assert_declared(spec, "/subscribers/{sub_id}", r)
    ok = client.patch(f"/subscribers/{sub.json()['id']}", json={"active": False})
    assert ok.status_code == 200 and ok.json()["active"] is False


def test_a_url_is_documented_within_its_column(live: Live) -> None:
    # HttpUrl's own bound (2,083) was the document's, and a URL of 2,049 to 2,083
    # characters was always refused (422).
    client, spec = live
    schemas = spec["components"]["schemas"]
    for model in ("FeedIn", "SubscriberIn", "SubscriberPatch"):
        assert schemas[model]["properties"]["url"]["maxLength"] == MAX_URL, model
    base = "https://example.org/"
    longest = base + "a" * (MAX_URL - len(base))
    assert client.post("/feeds", json={"url": longest}).status_code == 201
    over = client.post("/feeds", json={"url": longest + "a"})
    assert over.status_code == 422
    assert_declared(spec, "/feeds", over)


def test_the_documented_secret_pattern_is_what_the_service_takes(live: Live) -> None:
    client, spec = live
    documented = spec["components"]["schemas"]["SubscriberIn"]["properties"]["secret"]
    pattern = next(b["pattern"] for b in documented["anyOf"] if "pattern" in b)
    for size in range(80):
        for _ in range(5):
            secret = "whsec_" + base64.b64encode(os.urandom(size)).decode()
            try:
                secret_key(secret)
                taken = True
            except InputError:
                taken = False
            assert bool(re.fullmatch(pattern, secret)) is taken, secret
            assert bool(re.fullmatch(SECRET_PATTERN, secret)) is taken, secret
    assert not re.fullmatch(pattern, "whsec_" + base64.b64encode(os.urandom(32)).decode()[:-1])
    # "" is taken as no secret: one is made, as the document now says.
    assert re.fullmatch(pattern, "")
    r = client.post("/subscribers", json={"url": "https://example.org/hook2", "secret": ""})
    assert r.status_code == 201, r.text
    assert re.fullmatch(SECRET_PATTERN, r.json()["secret"])
    bad = client.post("/subscribers", json={"url": "https://example.org/hook3", "secret": "x"})
    assert bad.status_code == 422
    assert_declared(spec, "/subscribers", bad)


@pytest.mark.parametrize(
    ("secret", "why"),
    [
        ("whsec_!!!not-base64!!!", "the webhook secret after whsec_ is not valid base64"),
        ("whsec_" + base64.b64encode(bytes(range(32))).decode()[:-1], "is not valid base64"),
        ("hunter2-hunter2-hunter2-hunter2", "a webhook secret looks like whsec_<base64"),
        ("whsec_" + base64.b64encode(bytes(range(16))).decode(), "must hold 24 to 64 bytes"),
    ],
)
def test_a_malformed_subscriber_secret_is_a_422_naming_it(
    live: Live, secret: str, why: str
) -> None:
    # It was a 400 bad-request of its reason alone ("the webhook secret after whsec_ is
    # not valid base64"), where any other field the body cannot take, the subscriber's
    # url or events included, is a 422 validation-error naming it (body.url: ...).
    client, spec = live
    fid = _feed(client)
    for path in ("/subscribers", "/feeds/{feed_id}/subscribers"):
        body = {"url": "https://example.org/hook4", "secret": secret}
        r = client.post(path.format(feed_id=fid), json=body)
        assert r.status_code == 422, r.text
        assert_declared(spec, path, r)
        problem = r.json()
        assert problem["type"].endswith("/validation-error"), problem
        assert problem["detail"].startswith("body.secret: Value error, "), problem
        assert why in problem["detail"], problem
        assert [e["loc"] for e in problem["errors"]] == [["body", "secret"]], problem
        assert secret not in r.text  # a secret, even a wrong one, is not echoed
    taken = client.post(
        "/subscribers",
        json={
            "url": "https://example.org/hook4",
            "secret": "whsec_" + base64.b64encode(os.urandom(32)).decode(),
        },
    )
    assert taken.status_code == 201, taken.text


def test_the_index_documents_the_blank_its_form_sends(live: Live) -> None:
    # The form's "any" state and feed are sent empty and taken as none: the document
    # offered a state or null only, so "" looked like a value it should refuse.
    client, spec = live
    params = {p["name"]: p["schema"] for p in spec["paths"]["/"]["get"]["parameters"]}
    for name in ("state", "feed"):
        assert {"type": "string", "maxLength": 0} in params[name]["anyOf"], name
    r = client.get("/?state=&feed=")
    assert r.status_code == 200
    assert_declared(spec, "/", r)
