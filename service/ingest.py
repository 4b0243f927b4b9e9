"""Webhook payloads -> an :class:`Incoming` delivery (pure: no I/O).

Decides what a POST to ``/webhooks/feed`` (or the WebSub callback) carries, gives it an
id for de-duplication and refuses what cannot be a delivery, cheaply, before anything is
stored. The senders it knows:

- ``raw``: the feed document itself (RSS, Atom, RDF, JSON Feed);
- ``json``: ``{"feed_id"|"feed_url", "content"?}`` naming a registered feed;
- ``change-record``: a Standard Webhooks envelope ``{"type": "feed.changed",
  "timestamp", "data": {"source", "commit", "status", "bytes", "headers", "artifact",
  "content"?}}`` from a git-scraping monitor (README, "Change records");
- ``miniflux``: Miniflux's ``new_entries`` event (a feed fetch of ``feed.feed_url``);
- ``changedetection``: changedetection.io's Apprise JSON notification (a feed fetch of
  the watched URL named in its title or message);
- ``websub``: WebSub content distribution (the feed document, to ``/websub/{id}``).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from service import parse
from service.errors import (
    AmbiguousDeliveryId,
    BadJSON,
    EmptyBody,
    NotAFeed,
    PayloadTooLarge,
    Unprocessable,
    UnsupportedMediaType,
    too_long_number,
)
from service.store.tables import MAX_ID

FEED_TYPES = {
    "application/rss+xml",
    "application/atom+xml",
    "application/rdf+xml",
    "application/feed+json",
    "application/xml",
    "text/xml",
    "application/x-rss+xml",
}
JSON_TYPES = {"application/json", "text/json"}
# Monitors that cannot set a content type send these; the sniff decides.
SNIFF_TYPES = {"", "application/octet-stream", "text/plain"}
# Sender-given delivery ids, most specific first.
ID_HEADERS = ("webhook-id", "x-github-delivery")
ID_NAMES = {"webhook-id": "webhook-id", "x-github-delivery": "X-GitHub-Delivery"}  # as written
# Request headers worth keeping with a stored delivery (never credentials).
KEPT_HEADERS = (
    "content-type",
    "user-agent",
    "webhook-id",
    "webhook-timestamp",
    "x-github-delivery",
    "x-github-event",
    "x-miniflux-event-type",
    "link",
)
CHANGE_RECORD_TYPE = "feed.changed"
MAX_CONTENT_TYPE = 256  # the delivery's content_type column
_URL = re.compile(r"https?://[^\s\x00<>\"'()\[\]{}|\\^`]+", re.I)


@dataclass(frozen=True, slots=True)
class Incoming:
    """A delivery ready to be authorised and stored."""

    external_id: str
    sender: str  # raw, json, change-record, websub, miniflux, changedetection
    content_type: str | None
    body: bytes | None  # the feed document, or None when it must be fetched
    feed_id: int | None = None
    feed_urls: tuple[str, ...] = ()  # registered-feed URLs to look for, first match wins
    source: str | None = None  # a monitor's name for the feed (change records)
    meta: dict[str, Any] = field(default_factory=dict)
    # A bodiless notification without a sender id says nothing about *which* change it
    # announces: it joins a fetch of the same feed still waiting instead of being
    # deduplicated by its (always identical) body forever.
    coalesce: bool = False
    raw: bytes = b""  # the request body as received, for signature checks
    headers: dict[str, str] = field(default_factory=dict)  # lower-cased request headers

    @property
    def feed_url(self) -> str | None:
        return self.feed_urls[0] if self.feed_urls else None

    def kept_headers(self) -> dict[str, str]:
        return {h: self.headers[h][:512] for h in KEPT_HEADERS if h in self.headers}


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def sender_id(headers: Mapping[str, str]) -> str | None:
    """The delivery id the sender gave (``webhook-id``, ``X-GitHub-Delivery``), if any."""
    for h in ID_HEADERS:
        v = headers.get(h)
        if v and v.strip():
            return f"{h}:{v.strip()[:200]}"
    return None


def refuse_repeated_ids(names: Iterable[str]) -> None:
    """Refuse (400) a request whose header ``names`` (lower case, one a field line) hold
    one of :data:`ID_HEADERS` more than once. An id is one field (RFC 9110 5.3): of two
    the last was the delivery's, whichever the sender, or a proxy adding its own, meant,
    and a replay under the other was a second delivery. (A Standard Webhooks id is also
    signed: given twice with its signature, it is refused as ambiguous-signature first.)"""
    # Fields are counted, values never compared: two of the same value are refused too,
    # as a signature's are. What a sender meant by sending one twice is no better known,
    # and "d-1" beside "d-1 " (taken the same once trimmed) would be one more rule.
    counts = Counter(n for n in names if n in ID_HEADERS)
    twice = [f"{n} {ID_NAMES[h]}" for h, n in counts.items() if n > 1]
    if twice:
        raise AmbiguousDeliveryId(
            f"the request has {', '.join(twice)} headers: send the delivery's id once"
        )


def delivery_id(body: bytes, headers: Mapping[str, str], feed_id: int | None = None) -> str:
    """The sender's delivery id when it gives one, else a hash of the body (and of the
    feed it is posted for).

    A hash of the body makes a replay of the same document a duplicate, which is what a
    monitor that re-posts an unchanged feed means; the same bytes posted for another feed
    (``?feed_id=``: two feeds that mirror one document) are that feed's delivery, not a
    replay of the first's.
    """
    named = sender_id(headers)
    if named:
        return named
    digest = "sha256:" + hashlib.sha256(body).hexdigest()
    return digest if feed_id is None else f"{digest}@feed:{feed_id}"


def read_webhook(
    body: bytes,
    content_type: str | None,
    headers: Mapping[str, str],
    *,
    max_bytes: int,
    feed_id: int | None = None,
    websub: bool = False,
) -> Incoming:
    """Classify a webhook body (``headers`` with lower-case names). Raises an InputError
    subclass for what cannot be taken."""
    if len(body) > max_bytes:
        raise PayloadTooLarge(f"body of {len(body)} bytes is over the {max_bytes}-byte cap")
    if not body.strip():
        raise EmptyBody("the webhook body is empty; send a feed document or JSON naming a feed")
    hdrs = {k.lower(): v for k, v in headers.items()}
    if content_type is not None:
        _media_type(content_type, "Content-Type")
    mt = media_type(content_type)
    ident = delivery_id(body, hdrs, feed_id)
    common: dict[str, Any] = {"raw": body, "headers": hdrs, "feed_id": feed_id}
    raw_sender = "websub" if websub else "raw"
    if mt in JSON_TYPES or (mt in SNIFF_TYPES | {"application/feed+json"} and _is_json(body)):
        if parse.sniff(body, content_type or "application/feed+json") == "json":
            return Incoming(ident, raw_sender, "application/feed+json", body, **common)
        if websub:
            raise NotAFeed("WebSub content must be the feed document itself")
        try:
            data = _without_surrogates(
                json.loads(
                    body,
                    parse_constant=_no_constant,
                    parse_float=_finite,
                    object_pairs_hook=_names_once,
                )
            )
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BadJSON(f"body is not valid JSON: {exc}") from exc
        except RecursionError as exc:  # thousands of nested [ or {: no payload looks so
            raise BadJSON("body is not usable JSON: nested too deeply") from exc
        except ValueError as exc:
            # A number of more digits than int() converts (Python's 4,300): valid JSON
            # the decoder refuses with a plain ValueError, which was a 500.
            raise BadJSON(f"body is not usable JSON: {too_long_number()}") from exc
        return _from_json(data, ident, sender_id(hdrs) is not None, hdrs, common)
    if mt in FEED_TYPES or mt in SNIFF_TYPES or mt == "text/html":
        kind = parse.sniff(body, content_type)
        if kind is None:
            raise NotAFeed("the body does not look like an RSS, Atom, RDF or JSON Feed document")
        return Incoming(ident, raw_sender, content_type, body, **common)
    raise UnsupportedMediaType(
        f"content type {mt!r} is not taken; send a feed (RSS, Atom, RDF, JSON Feed) or JSON"
    )


def _names_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object of a JSON body naming a feed, refused if it repeats a name: json.loads
    took its last value ({"feed_id": 1, "feed_id": 2} was feed 2), and a signature
    check or a proxy reading the first reads another delivery (RFC 8259 4: names SHOULD
    be unique; I-JSON, RFC 7493 2.3: MUST). A feed document is not read so: a feed's
    repeat is its last value, as feed readers take it."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        name = next(n for n, k in Counter(n for n, _ in pairs).items() if k > 1)
        raise Unprocessable(
            f"body repeats the name {json.dumps(name)} in one object: names are unique in "
            "JSON between systems (RFC 8259 4, RFC 7493 2.3), and which value counts would "
            "be a guess: send it once"
        )
    return obj


def _no_constant(name: str) -> Any:
    """Refuse NaN, Infinity and -Infinity, which json.loads takes and JSON has not (RFC
    8259 6): kept in a change record's metadata, PostgreSQL's json refused the delivery's
    row (a 500)."""
    raise BadJSON(f"body is not valid JSON: {name} is no JSON number")


def _finite(text: str) -> float:
    """A JSON number as a float, refused when no float holds it (1e400 reads as inf,
    which is then written out as Infinity, refused as NaN is)."""
    value = float(text)
    if not math.isfinite(value):
        raise BadJSON(f"body is not usable JSON: the number {text[:40]} is out of range")
    return value


def _without_surrogates(value: Any) -> Any:
    """``value`` (loaded JSON) with each lone surrogate escape ("\\ud800", valid JSON but no
    character) read as U+FFFD: a name, URL or document holding one was a 500 when it was
    looked up or encoded, and the sender retried it for ever."""
    if isinstance(value, str):
        return parse.LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [_without_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {_without_surrogates(k): _without_surrogates(v) for k, v in value.items()}
    return value


def _is_json(body: bytes) -> bool:
    return body.lstrip()[:1] in (b"{", b"[")


def _from_json(
    data: Any, ident: str, has_id: bool, headers: Mapping[str, str], common: dict[str, Any]
) -> Incoming:
    if not isinstance(data, dict):
        raise Unprocessable("JSON body must be an object naming a feed (feed_id or feed_url)")
    if data.get("type") is not None and isinstance(data.get("data"), dict):
        return _change_record(data, ident, common)
    if "event_type" in data or headers.get("x-miniflux-event-type"):
        return _miniflux(data, ident, headers, common)
    if "message" in data and "title" in data and "feed_id" not in data:
        return _apprise(data, ident, common)
    return _feed_reference(data, ident, has_id, common)


def _content(data: Mapping[str, Any], where: str) -> bytes | None:
    """The inline feed document of a JSON payload (text, or base64 bytes), sniffed."""
    content = data.get("content")
    if content is None:
        return None
    if not isinstance(content, str) or not content.strip():
        raise Unprocessable(f"{where}content must be the feed document as a non-empty string")
    encoding = data.get("content_encoding")
    if encoding in (None, "", "utf-8", "text"):
        body = content.encode("utf-8")
    elif encoding == "base64":
        try:
            body = base64.b64decode(content, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise Unprocessable(f"{where}content is not valid base64") from exc
    else:
        raise Unprocessable(f"{where}content_encoding must be base64 or absent")
    ctype = data.get("content_type")
    if ctype is not None and not isinstance(ctype, str):
        raise Unprocessable(f"{where}content_type must be a media type string")
    if ctype is not None:
        _media_type(ctype, f"{where}content_type")
    if parse.sniff(body, ctype) is None:
        raise NotAFeed(f"{where}content does not look like an RSS, Atom, RDF or JSON Feed document")
    return body


def _http_url(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.startswith(("http://", "https://")):
        raise Unprocessable(f"{what} must be an http(s) URL")
    return _text(value, what)


def _media_type(value: str, what: str) -> str:
    """A content type that is stored with the delivery (a 256-character column)."""
    if len(value) > MAX_CONTENT_TYPE:
        raise UnsupportedMediaType(f"{what} is over {MAX_CONTENT_TYPE} characters")
    return _text(value, what)


def _text(value: str, what: str) -> str:
    """``value``, refused when it holds NUL: it is looked up or stored, and PostgreSQL
    text cannot hold one (the database would fail instead of finding nothing)."""
    if "\x00" in value:
        raise Unprocessable(f"{what} must not contain NUL characters")
    return value


def _feed_reference(
    data: dict[str, Any], ident: str, has_id: bool, common: dict[str, Any]
) -> Incoming:
    fid = data.get("feed_id", common["feed_id"])
    url = data.get("feed_url")
    if fid is None and not url:
        raise Unprocessable("JSON body names no feed: give feed_id or feed_url")
    if fid is not None and (
        isinstance(fid, bool) or not isinstance(fid, int) or not 1 <= fid <= MAX_ID
    ):
        raise Unprocessable("feed_id must be the integer id of a registered feed")
    if common["feed_id"] is not None and fid != common["feed_id"]:
        # (The body's was taken, the query's never read.)
        raise Unprocessable(
            f"the body's feed_id {fid} and ?feed_id={common['feed_id']} name different "
            "feeds: give one of them"
        )
    urls = (_http_url(url, "feed_url"),) if url is not None else ()
    body = _content(data, "")
    ctype = data.get("content_type") if body is not None else None
    return Incoming(
        ident,
        "json",
        ctype if isinstance(ctype, str) else None,
        body,
        **{**common, "feed_id": fid},
        feed_urls=urls,
        coalesce=body is None and not has_id,
    )


def _change_record(data: dict[str, Any], ident: str, common: dict[str, Any]) -> Incoming:
    if data["type"] != CHANGE_RECORD_TYPE:
        raise Unprocessable(
            f"event type {data['type']!r} is not handled; a change record is {CHANGE_RECORD_TYPE!r}"
        )
    rec: dict[str, Any] = data["data"]
    source = rec.get("source")
    if not isinstance(source, str) or not source.strip():
        raise Unprocessable("a change record needs data.source, the monitor's name of the feed")
    status = rec.get("status")
    if status is not None and (isinstance(status, bool) or not isinstance(status, int)):
        raise Unprocessable("data.status must be the HTTP status the monitor saw, an integer")
    size = rec.get("bytes")
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 0):
        raise Unprocessable("data.bytes must be a non-negative integer")
    recorded = rec.get("headers") or {}
    if not isinstance(recorded, dict):
        raise Unprocessable("data.headers must be an object of recorded response headers")
    body = _content(rec, "data.")
    exact = rec.get("content_encoding") == "base64"  # text content may be re-encoded
    if body is not None and size is not None and exact and len(body) != size:
        raise Unprocessable(f"data.content is {len(body)} bytes but data.bytes says {size}")
    url = rec.get("url")
    urls = (_http_url(url, "data.url"),) if url is not None else ()
    ctype = rec.get("content_type")
    meta = {
        "timestamp": data.get("timestamp"),
        "commit": rec.get("commit"),
        "status": status,
        "bytes": size,
        "artifact": rec.get("artifact"),
        "recorded_headers": {
            str(k).lower(): str(v)[:512] for k, v in recorded.items() if v is not None
        },
    }
    return Incoming(
        ident,
        "change-record",
        ctype if isinstance(ctype, str) and body is not None else None,
        body,
        **common,
        feed_urls=urls,
        source=_text(source.strip(), "data.source"),
        meta=meta,
    )


def _miniflux(
    data: dict[str, Any], ident: str, headers: Mapping[str, str], common: dict[str, Any]
) -> Incoming:
    event = data.get("event_type") or headers.get("x-miniflux-event-type")
    if event != "new_entries":
        raise Unprocessable(f"Miniflux event {event!r} is not a feed change (new_entries is)")
    feed = data.get("feed")
    if not isinstance(feed, dict):
        raise Unprocessable("a Miniflux new_entries event needs its feed object")
    url = _http_url(feed.get("feed_url"), "feed.feed_url")
    given = data.get("entries")
    entries: list[Any] = given if isinstance(given, list) else []
    meta = {
        "event_type": event,
        "miniflux_feed_id": feed.get("id"),
        "entries": [
            {"id": e.get("id"), "url": e.get("url")} for e in entries[:100] if isinstance(e, dict)
        ],
    }
    return Incoming(ident, "miniflux", None, None, **common, feed_urls=(url,), meta=meta)


def _apprise(data: dict[str, Any], ident: str, common: dict[str, Any]) -> Incoming:
    title = data["title"] if isinstance(data.get("title"), str) else ""
    message = data["message"] if isinstance(data.get("message"), str) else ""
    # changedetection.io's default title is "ChangeDetection.io Notification - {watch_url}"
    # and its body starts with the watched URL: the first URLs are the candidates.
    urls: list[str] = []
    for m in _URL.finditer(f"{title}\n{message}"):
        u = m.group(0).rstrip(".,;:!?")
        if u not in urls:
            urls.append(u)
    if not urls:
        raise Unprocessable("the notification names no URL of a watched feed")
    meta = {"type": data.get("type"), "title": title[:512]}
    return Incoming(
        ident, "changedetection", None, None, **common, feed_urls=tuple(urls[:20]), meta=meta
    )
