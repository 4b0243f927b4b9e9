"""Receiving: a webhook's delivery authorised and stored durably (the request path).

webhook -> accept()   verify, de-duplicate, store the delivery, answer 202
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from service import ingest, metrics, signatures, websub
from service.errors import (
    Gone,
    NotFound,
    SignatureError,
    Unprocessable,
)
from service.ingest import Incoming
from service.pipeline.base import PipelineBase
from service.store import tables as t
from service.store.db import transaction
from service.store.feeds import bodiless_refused, feeds_named, url_forms


@dataclass(frozen=True, slots=True)
class Accepted:
    delivery_id: int
    duplicate: bool


def _url_variants(url: str) -> list[str]:
    """A feed URL as given and with/without its trailing slash (monitors differ)."""
    return [url, url[:-1]] if url.endswith("/") else [url, url + "/"]


def _wanted(urls: tuple[str, ...] | list[str]) -> list[str]:
    """Where feeds named by ``urls`` may be stored: each in its normal form (as `POST
    /feeds` stores it: "https://MIXED.example/feed#x" is https://mixed.example/feed) and as
    written, with and without a trailing slash."""
    return list(dict.fromkeys(v for u in urls for f in url_forms(u) for v in _url_variants(f)))


# Signatures over the body alone: the id header beside them (webhook-id,
# X-GitHub-Delivery) is not signed, so anyone holding one captured delivery could send
# its document again under a new id, and an old version of the feed would be applied.
# Bytes hashed per request while looking for the secret of a document that names no
# feed (a 300 KB feed against some 200 secrets), and where its self link is looked for.
HMAC_BUDGET = 64 * 1024 * 1024
_HEAD_BYTES = 64 * 1024

_BODY_ONLY_SCHEMES = frozenset({"x-hub-signature-256", "x-hub-signature", "x-miniflux-signature"})


def _external_id(incoming: Incoming, scheme: str | None) -> str:
    """The delivery's id for de-duplication: the body's hash for a document signed over
    its body alone (the same signed document is one delivery, whatever id it comes with),
    else what ingest gave (the sender's id, else the body's hash). A bodiless ping keeps
    its id: fetching the feed once more is harmless."""
    if scheme in _BODY_ONLY_SCHEMES and incoming.body is not None:
        return ingest.delivery_id(incoming.raw, {}, incoming.feed_id)
    return incoming.external_id


def _refuse_unfetchable(feed: t.Feed | None, incoming: Incoming) -> None:
    """Raise Unprocessable for a delivery without a document for a feed whose URL is
    never fetched (service.store.feeds.never_fetched): stored, it failed on every try.

    Asked before the delivery is looked for among those stored: a bodiless delivery
    waiting for such a feed, stored before migration 0017 refused them, took the new one
    in as its duplicate (200), and the sender never learnt that its pings cannot work."""
    why = bodiless_refused(feed) if incoming.body is None and feed is not None else None
    if why:
        raise Unprocessable(why)


class Receive(PipelineBase):
    # --- the request path -----------

    def accept(self, incoming: Incoming, *, token_ok: bool = True) -> Accepted:
        """Authorise and store a delivery durably (committed before the caller answers 202).

        Raises before anything is stored: NotFound (no such registered feed), Gone (WebSub
        content for a feed that is not subscribed), AuthError / SignatureError (a feed with
        a secret and no valid signature; no API token and no signature).
        """
        if not incoming.coalesce:
            # Replays are the common case (monitors re-post): answer them from a read-only
            # session, which on SQLite does not wait behind writers.
            with self.read_sessions() as s:
                feed, scheme = self._authorize(s, self._feed_of(s, incoming), incoming, token_ok)
                _refuse_unfetchable(feed, incoming)
                existing = s.scalars(
                    select(t.Delivery.id).where(
                        t.Delivery.external_id == _external_id(incoming, scheme)
                    )
                ).first()
            if existing is not None:
                metrics.DELIVERIES.labels("duplicate").inc()
                return Accepted(existing, duplicate=True)
        try:
            with transaction(self.sessions) as s:
                feed, scheme = self._authorize(s, self._feed_of(s, incoming), incoming, token_ok)
                _refuse_unfetchable(feed, incoming)
                external_id = _external_id(incoming, scheme)
                if incoming.coalesce and feed is not None:
                    waiting = s.scalars(
                        select(t.Delivery.id)
                        .where(
                            t.Delivery.feed_id == feed.id,
                            t.Delivery.body.is_(None),
                            t.Delivery.state == "received",
                        )
                        .limit(1)
                    ).first()
                    if waiting is not None:
                        metrics.DELIVERIES.labels("duplicate").inc()
                        return Accepted(waiting, duplicate=True)
                    external_id = f"{external_id}@{time.time_ns()}"
                existing = s.scalars(
                    select(t.Delivery.id).where(t.Delivery.external_id == external_id)
                ).first()
                if existing is not None:
                    metrics.DELIVERIES.labels("duplicate").inc()
                    return Accepted(existing, duplicate=True)
                record: dict[str, Any] = {"request": incoming.kept_headers(), "signature": scheme}
                if incoming.meta:
                    record["meta"] = incoming.meta
                d = t.Delivery(
                    external_id=external_id,
                    feed_id=feed.id if feed is not None else None,
                    sender=incoming.sender,
                    content_type=incoming.content_type,
                    headers=record,
                    body=incoming.body,
                    fetch_url=feed.url if incoming.body is None and feed is not None else None,
                    state="received",
                )
                s.add(d)
                s.flush()
                metrics.DELIVERIES.labels("accepted").inc()
                return Accepted(d.id, duplicate=False)
        except IntegrityError:
            # Two identical deliveries raced; the other one stored it.
            with self.sessions() as s:
                existing = s.scalars(
                    select(t.Delivery.id).where(t.Delivery.external_id == external_id)
                ).one()
            metrics.DELIVERIES.labels("duplicate").inc()
            return Accepted(existing, duplicate=True)

    def _feed_of(self, s: Session, incoming: Incoming) -> t.Feed | None:
        """The registered feed a delivery names (by id, monitor name or URL), or None when
        it names none (a raw feed document: the worker finds its feed from the document)."""
        if incoming.feed_id is not None:
            feed = s.get(t.Feed, incoming.feed_id)
            if feed is None:
                if incoming.sender == "websub":
                    raise Gone(f"no feed with id {incoming.feed_id}")
                raise NotFound(f"no feed with id {incoming.feed_id}")
            # {"feed_id": 1, "feed_url": "<another feed's>"} was feed 1's delivery, its
            # feed_url never read: the document, or a fetch of feed 1, went to a feed the
            # sender may not have meant.
            urls = incoming.feed_urls if incoming.sender == "json" else ()
            if urls and feed.url not in _wanted(urls):
                raise Unprocessable(
                    f"feed_id {feed.id} and feed_url {urls[0]} name different feeds: "
                    "give one of them"
                )
            return feed
        if incoming.source:
            feed = feeds_named(s, incoming.source, _wanted(incoming.feed_urls))
            if feed is not None:
                return feed
        if incoming.feed_urls:
            wanted = _wanted(incoming.feed_urls)
            found = {f.url: f for f in s.scalars(select(t.Feed).where(t.Feed.url.in_(wanted)))}
            for url in wanted:
                if url in found:
                    return found[url]
        if incoming.source:
            raise NotFound(
                f"no registered feed named {incoming.source!r}: register it with "
                'POST /feeds {"url", "name"} (the name is the change record\'s source)'
            )
        if incoming.feed_urls:
            raise NotFound(
                f"no registered feed with url {incoming.feed_urls[0]}; register it with POST /feeds"
            )
        return None

    def _authorize(
        self, s: Session, feed: t.Feed | None, incoming: Incoming, token_ok: bool
    ) -> tuple[t.Feed | None, str | None]:
        """(the delivery's feed, the signature scheme that verified it, if any); raises
        Gone, AuthError or SignatureError."""
        if incoming.sender == "websub" and feed is not None:
            # A pending unsubscribe whose time is up is done (service.websub.settled).
            state = websub.settled(feed.websub_state, feed.websub_lease_until, datetime.now(UTC))
            if state not in websub.RECEIVING:
                raise Gone(f"feed {feed.id} has no active WebSub subscription")
            secret = feed.websub_secret or feed.secret
        else:
            secret = feed.secret if feed is not None else None
        if feed is None and signatures.is_signed(incoming.headers):
            return self._feed_by_signature(s, incoming)
        return feed, signatures.authorize(secret, incoming.raw, incoming.headers, token_ok=token_ok)

    def _feed_by_signature(self, s: Session, incoming: Incoming) -> tuple[t.Feed, str]:
        """A signed document that names no feed: the feed whose secret verifies it.

        Each secret tried hashes the whole body, and anyone may send one: the feeds whose
        URL the document's head names (its self link) are tried first, the others only
        while the bytes hashed stay under HMAC_BUDGET (a 10 MiB body against 1,000
        secrets was 10 GB of hashing for one unauthenticated request)."""
        feeds = list(
            s.scalars(
                select(t.Feed).where(t.Feed.secret.is_not(None)).order_by(t.Feed.id).limit(1000)
            )
        )
        head = incoming.raw[:_HEAD_BYTES]
        named = [f for f in feeds if f.url.encode("utf-8", "replace") in head]
        others = [f for f in feeds if f not in named]
        budget = max(0, HMAC_BUDGET // max(1, len(incoming.raw)) - len(named))
        for feed in named + others[:budget]:
            try:
                assert feed.secret is not None
                return feed, signatures.verify(feed.secret, incoming.raw, incoming.headers)
            except SignatureError:
                continue
        raise SignatureError(
            "the delivery is signed but names no feed and no registered feed's secret "
            "verifies it (add ?feed_id=)"
        )

    # --- deliveries -----------
