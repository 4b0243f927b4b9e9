"""Hostile input to the API, over real HTTP on loopback: a clear problem within seconds,
never a hang or a generic error that does not say what is wrong."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest

from service import websub
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker
from tests.conftest import api_client, make_settings
from tests.seed_db import add_feed


@pytest.fixture
def server(tmp_path: Path) -> Iterator[httpx.Client]:
    # SQLite alone: what is tested here is read before any row is written.
    settings = make_settings(f"sqlite:///{tmp_path / 'hostile.db'}")
    with api_client(settings, workers=0, timeout=60) as client:
        yield client


@pytest.mark.parametrize(
    "text",
    [
        ">" * 100_000,  # a Markdown quote nested past reason
        "a/" * 50_000,  # a path with no digit in it
        "[" * 100_000,  # brackets that never close
    ],
)
def test_a_long_run_without_spaces_or_digits_is_explained_at_once(
    server: httpx.Client, text: str
) -> None:
    # The extractive engine looked for its figures with a pattern that tried every start
    # of such a run (minutes of CPU for 100 KB, a worker or request thread held that long).
    started = time.monotonic()
    r = server.post("/explain", json={"markdown": text + " It is 1.5x faster than before."})
    assert r.status_code == 200, r.text
    assert time.monotonic() - started < 30  # minutes before; seconds on a loaded machine
    assert {n["status"] for n in r.json()["check"]["numbers"]} == {"supported"}


@pytest.mark.parametrize("path", ["/feeds", "/check", "/explain", "/subscribers"])
@pytest.mark.parametrize(
    ("body", "ctype", "says"),
    [
        (b'{"url": "http://a.example/\xff\xfe"}', "application/json", "UTF-8"),
        (b'{"text": "caf\xe9"}', "application/json; charset=latin-1", "UTF-8"),
        (b'{"a":' * 5000 + b"1" + b"}" * 5000, "application/json", "nested too deeply"),
        (b"[" * 100_000 + b"]" * 100_000, "application/json", "nested too deeply"),
    ],
)
def test_a_json_body_that_cannot_be_read_says_why(
    server: httpx.Client, path: str, body: bytes, ctype: str, says: str
) -> None:
    # FastAPI answered these "400 There was an error parsing the body", where the
    # webhook's own reading says what is wrong with the body.
    r = server.post(path, content=body, headers={"content-type": ctype})
    assert r.status_code == 400, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    problem = r.json()
    assert problem["type"].endswith("/bad-json")
    assert says in problem["detail"]


def test_malformed_json_says_where_and_what(server: httpx.Client) -> None:
    r = server.post("/feeds", content=b'{"url": ', headers={"content-type": "application/json"})
    assert r.status_code == 400
    problem = r.json()
    assert problem["type"].endswith("/bad-json")
    # The decoder's reason, not only "JSON decode error".
    assert "Expecting value" in problem["detail"], problem


# Each within PLAINFEED_CHECK_MAX_EXPLAINER_CHARS (100,000), the most an explainer is read.
@pytest.mark.parametrize("run", ["=" * 99_900, "a.." * 30_000, "+=a" * 30_000])
def test_a_long_run_of_joined_words_is_checked_at_once(server: httpx.Client, run: str) -> None:
    # The check's name scan read from each "=" (or each word after "..") to the end of
    # the run: minutes of CPU for 100 KB.
    started = time.monotonic()
    r = server.post(
        "/check",
        json={"markdown": run + " It is 1.5x faster.", "explainer": run + " It is 1.5x faster."},
    )
    assert r.status_code == 200, r.text
    assert time.monotonic() - started < 30  # minutes before; seconds on a loaded machine
    assert r.json()["ok"] is True


def test_a_tag_with_a_great_many_attributes_is_read_at_once(server: httpx.Client) -> None:
    # libxml2 compares each attribute of a tag with those before it: 200,000 of them on
    # one <p> held the request's thread for minutes.
    attrs = " ".join(f"a{i}=x" for i in range(200_000))
    started = time.monotonic()
    r = server.post("/explain", json={"html": f"<p {attrs}>It is 1.5x faster than before.</p>"})
    assert r.status_code == 200, r.text
    assert time.monotonic() - started < 30  # minutes before; seconds on a loaded machine
    assert "1.5x faster" in r.json()["markdown"]


@pytest.mark.parametrize(
    ("lease", "granted"),
    [
        ("9" * 30, websub.MAX_LEASE_SECONDS),
        ("99999999999", websub.MAX_LEASE_SECONDS),
        ("9" * 5000, websub.MAX_LEASE_SECONDS),
        # Leading zeros past int()'s 4300 digits: a small number all the same.
        ("0" * 5000 + "3600", 3600),
        ("\u00b2", websub.DEFAULT_LEASE_SECONDS),
        ("-5", websub.DEFAULT_LEASE_SECONDS),
        ("3600", 3600),
    ],
)
def test_a_hub_lease_no_date_holds_is_taken_at_most_a_year_not_a_500(
    tmp_path: Path, lease: str, granted: int
) -> None:
    # A hub's verification with "hub.lease_seconds" of 30 digits overflowed the date, and
    # "²" (a digit to str.isdigit) failed int(): a 500 to the hub, the subscription left
    # pending until given up.
    url = f"sqlite:///{tmp_path / 'lease.db'}"
    topic = "https://a.example/feed"
    secret = websub.new_secret()
    with api_client(make_settings(url), workers=0, timeout=60) as client:
        engine = make_engine(url)
        try:
            fid = add_feed(
                make_sessionmaker(engine),
                topic,
                websub_state=websub.PENDING_SUBSCRIBE,
                websub_secret=secret,
                hub_url="https://hub.example/",
                websub_lease_until=datetime.now(UTC) + timedelta(hours=1),
            )
        finally:
            engine.dispose()
        callback = httpx.URL(websub.callback_url(str(client.base_url), fid, secret))
        before = datetime.now(UTC)
        r = client.get(
            callback.copy_merge_params(
                {
                    "hub.mode": "subscribe",
                    "hub.topic": topic,
                    "hub.challenge": "c-1",
                    "hub.lease_seconds": lease,
                }
            ).raw_path.decode()
        )
        assert r.status_code == 200, r.text
        assert r.text == "c-1"
        feed = client.get(f"/feeds/{fid}").json()
    assert feed["websub_state"] == websub.ACTIVE
    engine = make_engine(url)
    try:
        with make_sessionmaker(engine)() as s:
            until = s.get(t.Feed, fid).websub_lease_until  # type: ignore[union-attr]
    finally:
        engine.dispose()
    assert until is not None
    until = until.replace(tzinfo=UTC) if until.tzinfo is None else until
    expected = before + timedelta(seconds=granted)
    assert expected - timedelta(minutes=5) < until < expected + timedelta(minutes=5)


@pytest.mark.parametrize("feed_id", [True, "1", " 1", 1.0, "1.0"])
def test_a_subscriber_feed_id_that_is_no_json_integer_is_a_422(
    server: httpx.Client, feed_id: object
) -> None:
    # POST /subscribers took true, "1", " 1" and 1.0 for feed 1 (the webhook's feed_id
    # refuses them): a subscriber of one feed made from a typo.
    assert server.post("/feeds", json={"url": "https://a.example/feed"}).status_code == 201
    r = server.post("/subscribers", json={"url": "https://h.example/", "feed_id": feed_id})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "feed_id" in r.json()["detail"]
    assert server.get("/subscribers").json()["total"] == 0
    ok = server.post("/subscribers", json={"url": "https://h.example/", "feed_id": 1})
    assert ok.status_code == 201 and ok.json()["feed_id"] == 1


@pytest.mark.parametrize("path", ["/explain", "/check"])
def test_a_title_with_a_lone_surrogate_is_a_422(server: httpx.Client, path: str) -> None:
    # "\ud800" is a legal JSON escape and no character: in the text it was refused (422),
    # in the title it reached the engine, whose Explainer refused it (POST /explain: 500).
    body = b'{"text": "It is 2x faster.", "title": "Fast \\ud800 kernels"'
    body += b', "explainer": "It is 2x faster."}' if path == "/check" else b"}"
    r = server.post(path, content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert "body.title" in r.json()["detail"] and "surrogate" in r.json()["detail"]
    # A character beyond the BMP is written as a surrogate pair: a whole character.
    pair = body.replace(b"\\ud800", b"\\ud83d\\ude00")
    ok = server.post(path, content=pair, headers={"Content-Type": "application/json"})
    assert ok.status_code == 200, ok.text


@pytest.mark.parametrize(
    ("where", "explainer"),
    [
        (
            "sections.0.paragraphs.0",
            '{"title": "t", "sections": [{"heading": "h", "paragraphs": ["It is 2\\ud800x."]}]}',
        ),
        (
            "takeaway",
            '{"title": "t", "sections": [{"heading": "h", "paragraphs": ["It is 2x."]}],'
            ' "takeaway": "On 3\\udfff GPUs."}',
        ),
        (
            "sections.0.code",
            '{"title": "t", "sections": [{"heading": "h", "paragraphs": ["It is 2x."],'
            ' "code": "x = 2\\ud800"}]}',
        ),
    ],
)
def test_an_explainer_with_a_lone_surrogate_is_a_422(
    server: httpx.Client, where: str, explainer: str
) -> None:
    # Its paragraphs, code and takeaway have no bound pydantic checks: the check read the
    # figure, and its answer, which quotes it, could not be written as JSON (a 500).
    body = '{"text": "It is 2x faster on 3 GPUs.", "explainer": ' + explainer + "}"
    r = server.post("/check", content=body.encode(), headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    detail = r.json()["detail"]
    assert "body.explainer" in detail and where in detail and "surrogate" in detail, detail
    pair = body.replace("\\ud800", "\\ud83d\\ude00").replace("\\udfff", "\\ud83d\\ude00")
    ok = server.post("/check", content=pair.encode(), headers={"Content-Type": "application/json"})
    assert ok.status_code == 200, ok.text


@pytest.mark.parametrize(
    ("method", "path", "body", "where", "at"),
    [
        # Each was a 422 that did not say what is wrong or where in the string ("unable to
        # parse raw data as a unicode string"), a 400 that said something else, or (a key)
        # a 422 naming the body as a whole.
        ("POST", "/feeds", '{"url": "https://s.example/f", "name": "Na\\ud800me"}', "name", 2),
        ("POST", "/feeds", '{"url": "https://s.example/f", "audience": "\\udfffA"}', "audience", 0),
        ("PATCH", "/feeds/1", '{"language": "Engl\\ud800ish"}', "language", 4),
        (
            "POST",
            "/subscribers",
            '{"url": "https://h.example/", "secret": "whsec_\\ud800"}',
            "secret",
            6,
        ),
        (
            "POST",
            "/subscribers",
            '{"url": "https://h.example/", "events": ["x\\udc00"]}',
            "events.0",
            1,
        ),
        ("PATCH", "/subscribers/1", '{"url": "https://h.example/\\ud800"}', "url", 18),
        (
            "POST",
            "/explain",
            '{"text": "It is 2x.", "feed_title": "Blog \\ud800"}',
            "feed_title",
            5,
        ),
        ("POST", "/feeds", '{"url": "https://s.example/f", "n\\ud800": 1}', "n\\ud800", 1),
    ],
)
def test_a_lone_surrogate_anywhere_in_a_json_body_is_a_422_naming_where(
    server: httpx.Client, method: str, path: str, body: str, where: str, at: int
) -> None:
    # One check of every string and key of every JSON body the API reads, whatever the
    # field's type (service.api.utf8.whole_characters).
    feed = server.post("/feeds", json={"url": "https://one.example/feed"})
    sub = server.post("/subscribers", json={"url": "https://one.example/hook"})
    assert (feed.status_code, sub.status_code) == (201, 201)
    headers = {"Content-Type": "application/json"}
    r = server.request(method, path, content=body.encode(), headers=headers)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    problem = r.json()
    assert problem["type"].endswith("/validation-error")
    escape = body[body.index("\\u") :][:6]  # the first lone surrogate, as the body writes it
    said = f"holds a lone surrogate ({escape} at character {at})"
    assert problem["detail"].startswith(f"body.{where}: "), problem
    assert said in problem["detail"] and "surrogate pair" in problem["detail"], problem
    loc = [int(p) if p.isdigit() else p for p in where.split(".")]
    assert problem["errors"][0]["loc"] == ["body", *loc]
    # Nothing was stored or changed.
    assert server.get("/feeds").json()["items"] == [feed.json()]
    assert server.get("/subscribers").json()["total"] == 1


def test_a_json_body_names_its_lone_surrogates_where_they_stand(server: httpx.Client) -> None:
    # A whole document as the explainer: the place in the body, not in the explainer
    # taken out of it; each string refused is listed, not only the first.
    explainer = {"title": "t", "sections": [{"heading": "h", "paragraphs": ["2\ud800x", "ok"]}]}
    body = {"text": "It is 2x.", "title": "T\udfff", "explainer": {"explainer": explainer}}
    raw = json.dumps(body)  # ASCII, so the surrogates are escapes
    r = server.post("/check", content=raw.encode(), headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    locs = [e["loc"] for e in r.json()["errors"]]
    assert locs == [
        ["body", "title"],
        ["body", "explainer", "explainer", "sections", 0, "paragraphs", 0],
    ]
    # Nested nearly as deep as json.loads reads: no recursion.
    deep = b"[" * 900 + b'"\\ud800"' + b"]" * 900
    r = server.post("/feeds", content=deep, headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and len(r.json()["errors"][0]["loc"]) == 901


_EXPLAINER = '{"title": "t", "sections": [{"heading": "h", "paragraphs": ["It is 2x."]}]}'


@pytest.mark.parametrize(
    ("path", "body", "where", "times"),
    [
        # Each was read as its last value: feed b registered, a check of "It is 2x." that
        # passed, subscriber b; a repeat in a field a body has not was "extra_forbidden".
        ("/feeds", '{"url": "https://a.example/f", "url": "https://b.example/f"}', "url", 2),
        ("/feeds", '{"url": "https://a.example/f", "x": {"a": 1, "b": 2, "a": 3}}', "x.a", 2),
        (
            "/check",
            '{"text": "It is 2x.", "explainer": "It is 3x.", "explainer": "It is 2x."}',
            "explainer",
            2,
        ),
        (
            "/check",
            '{"text": "It is 2x.", "explainer": {"title": "t", "sections": [{"heading": "h",'
            ' "paragraphs": ["It is 3x."], "paragraphs": ["It is 2x."]}]}}',
            "explainer.sections.0.paragraphs",
            2,
        ),
        (
            "/subscribers",
            '{"url": "https://a.example/h", "url": "https://b.example/h", "url": "x"}',
            "url",
            3,
        ),
        (
            "/subscribers",
            '{"url": "https://a.example/h", "events": [{"e": 1, "e": 2}]}',
            "events.0.e",
            2,
        ),
        ("/explain", '{"text": "It is 2x.", "text": "It is 3x."}', "text", 2),
    ],
)
def test_a_json_body_that_repeats_a_name_is_a_422_naming_where(
    server: httpx.Client, path: str, body: str, where: str, times: int
) -> None:
    # RFC 8259 4: names SHOULD be unique; I-JSON (RFC 7493 2.3): MUST. json.loads took
    # the last value, a proxy or a signature check reading the first read another body.
    headers = {"Content-Type": "application/json"}
    r = server.post(path, content=body.encode(), headers=headers)
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    problem = r.json()
    assert problem["type"].endswith("/validation-error")
    name = where.rsplit(".", 1)[-1]
    said = f'body.{where}: key "{name}" stands {times} times in one object'
    assert problem["detail"].startswith(said), problem
    loc = [int(p) if p.isdigit() else p for p in where.split(".")]
    assert problem["errors"][0] == {
        "loc": ["body", *loc],
        "msg": problem["detail"].removeprefix(f"body.{where}: "),
        "type": "duplicate_key",
    }
    assert server.get("/feeds").json()["items"] == []
    assert server.get("/subscribers").json()["total"] == 0


def test_a_json_body_names_its_repeats_and_surrogates_in_document_order(
    server: httpx.Client,
) -> None:
    # Repeats at any depth, each where it first stands, among the lone surrogates; the
    # same names in two objects are no repeat, nor is the same value twice in an array.
    explainer = _EXPLAINER.replace('"title": "t"', '"title": "t", "takeaway": "x\\ud800"')
    explainer = explainer.replace('"heading": "h"', '"heading": "h", "heading": "h"')
    body = (
        '{"title": "T", "text": "It is 2x.", "explainer": ' + explainer + ', "title": "U",'
        ' "feed_title": "F", "title": "V"}'
    )
    r = server.post("/check", content=body.encode(), headers={"Content-Type": "application/json"})
    assert r.status_code == 422, r.text
    assert [(e["loc"], e["type"]) for e in r.json()["errors"]] == [
        (["body", "title"], "duplicate_key"),
        (["body", "explainer", "takeaway"], "lone_surrogate"),
        (["body", "explainer", "sections", 0, "heading"], "duplicate_key"),
    ]
    assert 'key "title" stands 3 times' in r.json()["errors"][0]["msg"]
    once = '{"text": "It is 2x.", "explainer": {"title": "t", "sections": [{"heading": "h",'
    once += ' "paragraphs": ["It is 2x.", "It is 2x."]}, {"heading": "h", "paragraphs": ["2x"]}]}}'
    ok = server.post("/check", content=once.encode(), headers={"Content-Type": "application/json"})
    assert ok.status_code == 200, ok.text
    # Nested nearly as deep as json.loads reads, a repeat at the bottom: no recursion.
    deep = b'{"url": "https://a.example/f", "x": ' + b'{"a": ' * 900 + b'{"b": 1, "b": 2}'
    deep += b"}" * 901
    r = server.post("/feeds", content=deep, headers={"Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["type"] == "duplicate_key", r.text
    assert len(r.json()["errors"][0]["loc"]) == 903
