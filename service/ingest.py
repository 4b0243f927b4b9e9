"""Webhook payloads -> an :class:`Incoming` delivery (pure: no I/O).

Decides what a POST to ``/webhooks/feed`` carries, gives it an id for de-duplication and
refuses what cannot be a delivery, cheaply, before anything is stored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from service import parse
from service.errors import (
    BadJSON,
    EmptyBody,
    NotAFeed,
    PayloadTooLarge,
    Unprocessable,
    UnsupportedMediaType,
)

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


@dataclass(frozen=True, slots=True)
class Incoming:
    """A delivery ready to be stored."""

    external_id: str
    sender: str  # raw, json, change-record, websub, miniflux, changedetection
    content_type: str | None
    body: bytes | None  # the feed document, or None when it must be fetched
    feed_id: int | None = None
    feed_url: str | None = None
    source: str | None = None  # a monitor's name for the feed (change records)
    meta: dict[str, Any] = field(default_factory=dict)


def media_type(content_type: str | None) -> str:
    return (content_type or "").split(";", 1)[0].strip().lower()


def delivery_id(body: bytes, headers: Mapping[str, str]) -> str:
    """The sender's delivery id when it gives one, else a hash of the body.

    A hash of the body makes a replay of the same feed document a duplicate, which is
    what a monitor that re-posts an unchanged feed means.
    """
    for h in ("webhook-id", "x-github-delivery", "x-request-id-delivery"):
        v = headers.get(h)
        if v:
            return f"{h}:{v.strip()[:200]}"
    return "sha256:" + hashlib.sha256(body).hexdigest()


def read_webhook(
    body: bytes,
    content_type: str | None,
    headers: Mapping[str, str],
    *,
    max_bytes: int,
    feed_id: int | None = None,
) -> Incoming:
    """Classify a webhook body. Raises an InputError subclass for what cannot be taken."""
    if len(body) > max_bytes:
        raise PayloadTooLarge(f"body of {len(body)} bytes is over the {max_bytes}-byte cap")
    if not body.strip():
        raise EmptyBody("the webhook body is empty; send a feed document or JSON naming a feed")
    mt = media_type(content_type)
    ident = delivery_id(body, headers)
    if mt in JSON_TYPES or (mt in SNIFF_TYPES and body.lstrip()[:1] == b"{"):
        try:
            data = json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise BadJSON(f"body is not valid JSON: {exc}") from exc
        if isinstance(data, dict) and parse.sniff(body, "application/feed+json") == "json":
            return Incoming(ident, "raw", "application/feed+json", body, feed_id=feed_id)
        return _from_json(data, ident, feed_id)
    if mt in FEED_TYPES or mt in SNIFF_TYPES or mt == "text/html":
        kind = parse.sniff(body, content_type)
        if kind is None:
            raise NotAFeed("the body does not look like an RSS, Atom, RDF or JSON Feed document")
        return Incoming(ident, "raw", content_type, body, feed_id=feed_id)
    raise UnsupportedMediaType(
        f"content type {mt!r} is not taken; send a feed (RSS, Atom, RDF, JSON Feed) or JSON"
    )


def _from_json(data: Any, ident: str, feed_id: int | None) -> Incoming:
    if not isinstance(data, dict):
        raise Unprocessable("JSON body must be an object naming a feed (feed_id or feed_url)")
    fid = data.get("feed_id", feed_id)
    url = data.get("feed_url")
    if fid is None and not url:
        raise Unprocessable("JSON body names no feed: give feed_id or feed_url")
    if fid is not None and (isinstance(fid, bool) or not isinstance(fid, int)):
        raise Unprocessable("feed_id must be an integer")
    if url is not None and (
        not isinstance(url, str) or not url.startswith(("http://", "https://"))
    ):
        raise Unprocessable("feed_url must be an http(s) URL")
    content = data.get("content")
    body: bytes | None = None
    if content is not None:
        if not isinstance(content, str) or not content.strip():
            raise Unprocessable("content must be the feed document as a non-empty string")
        body = content.encode("utf-8")
        if parse.sniff(body, None) is None:
            raise NotAFeed("content does not look like an RSS, Atom, RDF or JSON Feed document")
    return Incoming(
        ident,
        "json",
        data.get("content_type") if body is not None else None,
        body,
        feed_id=fid,
        feed_url=url,
    )
