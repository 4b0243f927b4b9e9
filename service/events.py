"""Outbound events: which subscribers get an explainer's event, and its payload, stored
as one ``OutboundDelivery`` row per subscriber in the transaction that publishes the
explainer (:func:`enqueue_event`). Sending them is :mod:`service.outbound`'s."""

from __future__ import annotations

import logging
import uuid
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, or_, select
from sqlalchemy.orm import Session

from service.config import Settings
from service.models import CheckReport, CheckStatus
from service.store import tables as t

if TYPE_CHECKING:  # the pipeline's type only: importing the pipeline would load its engines
    from service.pipeline.base import ItemLoader

log = logging.getLogger(__name__)


def event_payload(
    event_type: str, item: t.Item, ex: t.Explainer, *, public_url: str, now: datetime
) -> dict[str, Any]:
    """The Standard Webhooks body: ``{type, timestamp, data}``."""
    report = CheckReport.model_validate(ex.check) if ex.check else CheckReport()
    base = public_url.rstrip("/")
    return {
        "type": event_type,
        "timestamp": now.isoformat(),
        "data": {
            "item_id": item.id,
            "feed_id": item.feed_id,
            "state": item.state,
            "title": item.title,
            "link": item.link,
            "author": item.author,
            "published": item.published.isoformat() if item.published else None,
            "page_url": f"{base}/ui/items/{item.id}",
            "api_url": f"{base}/items/{item.id}",
            "explainer": ex.body,
            "engine": ex.engine,
            "model": ex.model,
            "prompt_version": ex.prompt_version,
            "check": {
                "ok": report.ok,
                "numbers": len(report.numbers),
                **{st.value: report.count(st) for st in CheckStatus},
            },
            "approved_by": ex.approved_by,
        },
    }


def deactivate(s: Session, sub_id: int, reason: str) -> None:
    """Stop sending to a subscriber, saying why (its pending deliveries are cancelled
    as they come up; reactivating it does not bring those back: retry them one by one)."""
    sub = s.get(t.Subscriber, sub_id)
    if sub is not None and sub.active:
        sub.active = False
        sub.inactive_reason = reason[:200]
        log.warning("subscriber %s (%s) deactivated: %s", sub_id, sub.url, reason)


def subscribers_for(s: Session, feed_id: int | None, event_type: str) -> list[t.Subscriber]:
    """Active subscribers of the feed (or of every feed) that want ``event_type``."""
    scope: ColumnElement[bool] = t.Subscriber.feed_id.is_(None)
    if feed_id is not None:
        scope = or_(scope, t.Subscriber.feed_id == feed_id)
    rows = s.scalars(select(t.Subscriber).where(t.Subscriber.active.is_(True), scope))
    return [r for r in rows if not r.events or event_type in r.events]


def enqueue_event(
    settings: Settings,
    s: Session,
    event_type: str,
    feed_id: int | None,
    load: ItemLoader,
) -> int:
    """Store one delivery per interested subscriber, inside the caller's transaction.

    ``load`` gives the item and its explainer; it is called only when someone subscribed,
    because loading them (the explainer's body and check report) costs more than the
    subscriber look-up, and most deployments have few subscribers or none. Returns how
    many deliveries were stored.
    """
    subs = subscribers_for(s, feed_id, event_type)
    if not subs:
        return 0
    item, ex = load()
    now = datetime.now(UTC)
    payload = event_payload(event_type, item, ex, public_url=settings.public_url, now=now)
    for sub in subs:
        s.add(
            t.OutboundDelivery(
                subscriber_id=sub.id,
                event_id="msg_" + uuid.uuid4().hex,
                event_type=event_type,
                payload=payload,
                state="pending",
                attempts=0,
                next_attempt_at=now,
                created_at=now,
            )
        )
    s.flush()
    log.info("item %s: %s queued for %d subscriber(s)", item.id, event_type, len(subs))
    return len(subs)


class EventHook:
    """``Pipeline(on_event=EventHook(settings))``: the pipeline's ``on_event``, with the
    settings bound (see :func:`enqueue_event`)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def __call__(self, s: Session, event_type: str, feed_id: int | None, load: ItemLoader) -> None:
        enqueue_event(self.settings, s, event_type, feed_id, load)
