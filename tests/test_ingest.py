"""Webhook payload classification: each sender's real-shaped payload becomes the right
Incoming, and what cannot be a delivery is refused with the right error."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from service import ingest
from service.errors import (
    BadJSON,
    EmptyBody,
    NotAFeed,
    PayloadTooLarge,
    Unprocessable,
    UnsupportedMediaType,
)
from tests.conftest import CORPUS, DATA, PYTORCH_FEED

HOOKS = DATA / "webhooks"
CAP = 10 * 1024 * 1024


def read(body: bytes, ctype: str | None, headers: dict[str, str] | None = None, **kw: object):  # type: ignore[no-untyped-def]
    return ingest.read_webhook(body, ctype, headers or {}, max_bytes=CAP, **kw)  # type: ignore[arg-type]


def load(name: str) -> dict:  # type: ignore[type-arg]
    return json.loads((HOOKS / name).read_text())


def test_raw_rss_feed() -> None:
    body = PYTORCH_FEED.read_bytes()
    got = read(body, "application/rss+xml; charset=UTF-8")
    assert got.sender == "raw"
    assert got.body == body
    assert got.external_id.startswith("sha256:")
    assert not got.coalesce


@pytest.mark.parametrize("ctype", [None, "application/octet-stream", "text/xml", "text/plain"])
def test_raw_feed_with_vague_content_types_is_sniffed(ctype: str | None) -> None:
    got = read(PYTORCH_FEED.read_bytes(), ctype)
    assert got.sender == "raw"


def test_raw_atom_and_json_feed() -> None:
    atom = (CORPUS / "feeds" / "claude-status-history-atom-2026-10-08-012672d.xml").read_bytes()
    assert read(atom, "application/atom+xml").sender == "raw"
    jf = json.dumps(
        {"version": "https://jsonfeed.org/version/1.1", "title": "t", "items": []}
    ).encode()
    got = read(jf, "application/json")
    assert got.sender == "raw" and got.content_type == "application/feed+json"


def test_the_same_body_is_the_same_delivery_and_a_sender_id_wins() -> None:
    body = PYTORCH_FEED.read_bytes()
    assert read(body, "application/rss+xml").external_id == read(body, None).external_id
    with_id = read(body, "application/rss+xml", {"webhook-id": "msg_2kX"})
    assert with_id.external_id == "webhook-id:msg_2kX"
    gh = read(body, "application/rss+xml", {"x-github-delivery": "72d3162e-cc78"})
    assert gh.external_id == "x-github-delivery:72d3162e-cc78"


def test_json_feed_reference_without_content_is_a_fetch_that_coalesces() -> None:
    got = read(b'{"feed_id": 3}', "application/json")
    assert got.sender == "json" and got.feed_id == 3 and got.body is None
    assert got.coalesce  # no sender id: identical pings must not be duplicates forever
    signed = read(b'{"feed_id": 3}', "application/json", {"webhook-id": "m1"})
    assert not signed.coalesce


def test_json_feed_url_with_inline_content() -> None:
    doc = PYTORCH_FEED.read_text()
    got = read(
        json.dumps({"feed_url": "https://pytorch.org/blog/feed/", "content": doc}).encode(),
        "application/json",
    )
    assert got.feed_url == "https://pytorch.org/blog/feed/"
    assert got.body == doc.encode()
    assert not got.coalesce


def test_change_record_from_seed_000() -> None:
    got = read((HOOKS / "change-record-000.json").read_bytes(), "application/json")
    assert got.sender == "change-record"
    assert got.source == "pytorch-blog-feed"
    assert got.body is None  # no content: Plainfeed fetches the feed
    assert got.meta["commit"] == "43e93bf465187c4033a5b27d58dc07a303f869ba"
    assert got.meta["status"] == 200 and got.meta["bytes"] == 332025
    assert got.meta["recorded_headers"]["etag"] == '"d5d35b0fd9e1c3fbd8aa04423d819019"'
    assert got.meta["artifact"] == "raw/pytorch-blog-feed/response.xml"
    # Each change record is its own event: it is deduplicated by its body, not coalesced.
    assert not got.coalesce
    other = read((HOOKS / "change-record-004.json").read_bytes(), "application/json")
    assert other.external_id != got.external_id


def test_change_record_with_the_artifact_inline_as_base64() -> None:
    rec = load("change-record-004.json")
    feed = PYTORCH_FEED.read_bytes()
    rec["data"]["content"] = base64.b64encode(feed).decode()
    rec["data"]["content_encoding"] = "base64"
    rec["data"]["bytes"] = len(feed)
    got = read(json.dumps(rec).encode(), "application/json")
    assert got.body == feed
    rec["data"]["bytes"] = len(feed) - 1  # a truncated artifact is refused, not half-read
    with pytest.raises(Unprocessable, match="bytes"):
        read(json.dumps(rec).encode(), "application/json")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"type": "feed.deleted", "data": {"source": "x"}}, "not handled"),
        ({"data": {"commit": "abc"}}, "data.source"),
        ({"data": {"source": "x", "status": "200"}}, "data.status"),
        ({"data": {"source": "x", "bytes": -1}}, "data.bytes"),
        ({"data": {"source": "x", "headers": ["etag"]}}, "data.headers"),
        ({"data": {"source": "x", "content": "<html>hello</html>"}}, "content"),
    ],
)
def test_bad_change_records(change: dict, message: str) -> None:  # type: ignore[type-arg]
    rec = {"type": "feed.changed", "timestamp": "2026-10-22T04:45:34Z", **change}
    with pytest.raises((Unprocessable, NotAFeed), match=message):
        read(json.dumps(rec).encode(), "application/json")


def test_miniflux_new_entries_is_a_fetch_of_its_feed() -> None:
    got = read(
        (HOOKS / "miniflux-new-entries.json").read_bytes(),
        "application/json",
        {"x-miniflux-event-type": "new_entries"},
    )
    assert got.sender == "miniflux"
    assert got.feed_urls == ("https://pytorch.org/blog/feed/",)
    assert got.body is None
    assert got.meta["entries"][0]["id"] == 31337


def test_miniflux_save_entry_is_not_a_feed_change() -> None:
    payload = {"event_type": "save_entry", "entry": {"id": 1}}
    with pytest.raises(Unprocessable, match="save_entry"):
        read(json.dumps(payload).encode(), "application/json")


def test_changedetection_apprise_json_names_the_watched_url() -> None:
    got = read((HOOKS / "changedetection-apprise.json").read_bytes(), "application/json")
    assert got.sender == "changedetection"
    assert got.feed_urls[0] == "https://pytorch.org/blog/feed/"
    assert got.body is None


def test_apprise_without_a_url_is_unprocessable() -> None:
    payload = {"version": "1.0", "title": "hello", "message": "nothing here", "type": "info"}
    with pytest.raises(Unprocessable, match="URL"):
        read(json.dumps(payload).encode(), "application/json")


def test_websub_body_is_the_feed() -> None:
    spec = load("websub-distribution.json")
    body = (HOOKS / spec["body"]).resolve().read_bytes()
    got = read(
        body,
        spec["headers"]["Content-Type"],
        {"link": spec["headers"]["Link"]},
        feed_id=4,
        websub=True,
    )
    assert got.sender == "websub" and got.feed_id == 4
    assert got.kept_headers()["link"].startswith("<https://pubsubhubbub.appspot.com/>")
    with pytest.raises(NotAFeed):
        read(b'{"feed_id": 4}', "application/json", feed_id=4, websub=True)


def test_kept_headers_never_hold_credentials() -> None:
    got = read(
        PYTORCH_FEED.read_bytes(),
        "application/rss+xml",
        {"authorization": "Bearer x", "user-agent": "monitor/1", "cookie": "a=b"},
    )
    assert got.kept_headers() == {"user-agent": "monitor/1"}


@pytest.mark.parametrize(
    ("body", "ctype", "error"),
    [
        (b"", "application/rss+xml", EmptyBody),
        (b"  \n ", None, EmptyBody),
        (b"{not json", "application/json", BadJSON),
        (b"[1, 2]", "application/json", Unprocessable),
        (b'{"hello": "world"}', "application/json", Unprocessable),
        (b'{"feed_id": "7"}', "application/json", Unprocessable),
        (b'{"feed_id": true}', "application/json", Unprocessable),
        (b'{"feed_url": "ftp://x/feed"}', "application/json", Unprocessable),
        (b'{"feed_id": 1, "content": ""}', "application/json", Unprocessable),
        (b'{"feed_id": 1, "content": "<html><body>hi</body></html>"}', None, NotAFeed),
        (b"<html><body>a page</body></html>", "text/html", NotAFeed),
        (b"plain words", "text/plain", NotAFeed),
        (b"\x89PNG\r\n", "image/png", UnsupportedMediaType),
    ],
)
def test_bad_input(body: bytes, ctype: str | None, error: type[Exception]) -> None:
    with pytest.raises(error):
        read(body, ctype)


def test_bad_json_is_400_and_no_feed_reference_is_422() -> None:
    with pytest.raises(BadJSON) as bad:
        read(b'{"feed_id": ', "application/json")
    assert bad.value.status == 400
    with pytest.raises(Unprocessable) as missing:
        read(b'{"url": "https://x/feed"}', "application/json")
    assert missing.value.status == 422


def test_over_the_cap() -> None:
    with pytest.raises(PayloadTooLarge):
        ingest.read_webhook(b"<rss>" + b" " * 100, None, {}, max_bytes=50)


def test_data_files_exist() -> None:
    names = {p.name for p in Path(HOOKS).iterdir()}
    assert {
        "change-record-000.json",
        "change-record-004.json",
        "miniflux-new-entries.json",
        "changedetection-apprise.json",
        "websub-distribution.json",
    } <= names
