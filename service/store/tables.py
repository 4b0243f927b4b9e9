"""Database tables (SQLAlchemy 2 declarative). The schema itself is owned by the Alembic
migrations in ``migrations/``; these classes must agree with them (a test compares)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

# Bounds of what a query may be given, checked on input: beyond them the database refuses
# the value (PostgreSQL: "integer out of range"; SQLite: OverflowError) instead of finding
# no row. Ids are Integer columns, 32 bits on PostgreSQL; offsets are 64-bit everywhere.
MAX_ID = 2**31 - 1
MAX_URL = 2048  # the url columns (feeds, subscribers, hub, fetch)
MAX_OFFSET = 2**63 - 1


def utcnow() -> datetime:
    return datetime.now(UTC)


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware datetimes on every backend (SQLite stores naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is not None and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


class Base(DeclarativeBase):
    type_annotation_map: ClassVar[dict[Any, Any]] = {datetime: UTCDateTime(), dict[str, Any]: JSON}


class Feed(Base):
    __tablename__ = "feeds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    url: Mapped[str] = mapped_column(String(2048), unique=True)
    # Why the URL is never fetched: one stored before POST /feeds checked URLs (a
    # "javascript:" one, no host), marked by migration 0017. None: a URL that is fetched
    # (or a feed known by its title, urn:plainfeed:title:, which takes documents only).
    url_error: Mapped[str | None] = mapped_column(Text)
    name: Mapped[str | None] = mapped_column(String(512))
    secret: Mapped[str | None] = mapped_column(String(512))
    audience: Mapped[str | None] = mapped_column(String(512))
    language: Mapped[str | None] = mapped_column(String(64))
    template_dir: Mapped[str | None] = mapped_column(String(1024))
    # conditional GET state of the last fetch
    etag: Mapped[str | None] = mapped_column(String(512))
    last_modified: Mapped[str | None] = mapped_column(String(128))
    # When the newest document applied was observed (a change record's timestamp): an
    # older one delivered later changes no stored item.
    observed_at: Mapped[datetime | None]
    # WebSub
    hub_url: Mapped[str | None] = mapped_column(String(2048))
    websub_state: Mapped[str | None] = mapped_column(String(32))  # pending-subscribe, active, ...
    websub_secret: Mapped[str | None] = mapped_column(String(512))
    websub_lease_until: Mapped[datetime | None]
    # Why the last request to its hub failed (unreachable, refused), named when a removal
    # is refused; cleared by the next request taken, or a verification.
    websub_error: Mapped[str | None] = mapped_column(Text)
    # A pending renewal, subscribe or unsubscribe the hub has not verified is asked again
    # at this time (the hub may have lost it), at growing intervals: ``websub_asks`` asks
    # so far (service.websub.next_ask). None: not asked again (no such request pending).
    websub_ask_at: Mapped[datetime | None]
    websub_asks: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    # The hub's lease while an unsubscribe is pending (its lease column holds when the
    # unsubscribe is given up then): a subscribe that supersedes it renews this lease.
    websub_hub_lease_until: Mapped[datetime | None]
    # The lease the operator asked the hub for (subscribe --lease-seconds), repeated in
    # every renewal and ask again; None: the hub's default.
    websub_lease_seconds: Mapped[int | None]
    title: Mapped[str | None] = mapped_column(String(1024))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # When what the Atom feeds show of the feed itself last changed (its label: name,
    # title or URL; its language), set by store.feeds.note_shown: their Last-Modified
    # moves on with it, as their ETag does. Not moved by fetches or WebSub state.
    updated_at: Mapped[datetime | None]


class Delivery(Base):
    """One webhook call, stored before it is answered (the raw body is the promise)."""

    __tablename__ = "deliveries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    external_id: Mapped[str] = mapped_column(String(256), unique=True)
    feed_id: Mapped[int | None] = mapped_column(ForeignKey("feeds.id", ondelete="SET NULL"))
    sender: Mapped[str] = mapped_column(String(64), default="raw")
    content_type: Mapped[str | None] = mapped_column(String(256))
    headers: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    body: Mapped[bytes | None] = mapped_column(LargeBinary)
    fetch_url: Mapped[str | None] = mapped_column(String(2048))  # when the body must be fetched
    state: Mapped[str] = mapped_column(String(32), default="received", index=True)
    error: Mapped[str | None] = mapped_column(Text)
    problems: Mapped[str | None] = mapped_column(Text)  # parser complaints on a readable feed
    items_new: Mapped[int] = mapped_column(Integer, default=0)
    items_changed: Mapped[int] = mapped_column(Integer, default=0)
    # New entries stored `skipped`, not explained (a feed's first delivery, past
    # PLAINFEED_FIRST_DELIVERY_MAX_ITEMS); not in items_new nor item_ids.
    items_skipped: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    item_ids: Mapped[Any] = mapped_column(JSON, default=list)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_owner: Mapped[str | None] = mapped_column(String(128))
    lease_until: Mapped[datetime | None]
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    processed_at: Mapped[datetime | None]
    # When a person asked for it to be applied over the evidence of order (a retry with
    # force: a publisher's rollback); None: it is judged as any delivery.
    forced_at: Mapped[datetime | None]

    __table_args__ = (Index("ix_deliveries_claim", "state", "next_attempt_at"),)


class Item(Base):
    __tablename__ = "items"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    feed_id: Mapped[int | None] = mapped_column(ForeignKey("feeds.id", ondelete="CASCADE"))
    key: Mapped[str] = mapped_column(String(2048))
    guid: Mapped[str | None] = mapped_column(String(2048))
    link: Mapped[str | None] = mapped_column(String(2048))
    title: Mapped[str] = mapped_column(String(1024), default="")
    author: Mapped[str | None] = mapped_column(String(512))
    published: Mapped[datetime | None]
    # The entry's own date of the version stored (its updated, else published: see
    # service.changes.entry_date); a version dated before it does not replace it. None:
    # unknown (undated, or stored before it was kept), no order.
    entry_date: Mapped[datetime | None]
    content_hash: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text, default="")
    content_source: Mapped[str] = mapped_column(String(16), default="feed")
    state: Mapped[str] = mapped_column(String(32), default="pending", index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_error: Mapped[str | None] = mapped_column(Text)
    lease_owner: Mapped[str | None] = mapped_column(String(128))
    lease_until: Mapped[datetime | None]
    delivery_id: Mapped[int | None] = mapped_column(
        ForeignKey("deliveries.id", ondelete="SET NULL")
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    published_at: Mapped[datetime | None]
    # The content hash whose held explainer a reviewer sent back (a retry): a held
    # explainer of another item of that post is not copied to this one.
    review_declined: Mapped[str | None] = mapped_column(String(64))

    __table_args__ = (
        UniqueConstraint("feed_id", "key", name="uq_items_feed_key"),
        Index("ix_items_claim", "state", "next_attempt_at"),
        Index("ix_items_published", "state", "published_at", "updated_at"),
        Index("ix_items_feed_published", "feed_id", "state", "published_at", "updated_at"),
    )


# Lists of items, newest post first: by the date its feed gives it, else when it was
# stored. Not by id alone: a delivery stores its entries in document order, and a feed
# lists its newest entry first, so the oldest post of a delivery got the highest id.
ITEMS_NEWEST_FIRST = (func.coalesce(Item.published, Item.created_at).desc(), Item.id.desc())

# The longest title search (GET /items?q=, plainfeed items list -q): one bound for both,
# a title search that the API refuses was searched by the command line.
TITLE_QUERY_MAX = 200


class Explainer(Base):
    """An explainer of one version of an item. Unique per (item, content hash, prompt
    version, model): the idempotency key of the expensive effect."""

    __tablename__ = "explainers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int] = mapped_column(ForeignKey("items.id", ondelete="CASCADE"), index=True)
    content_hash: Mapped[str] = mapped_column(String(64))
    prompt_version: Mapped[str] = mapped_column(String(64))
    model: Mapped[str] = mapped_column(String(256))
    engine: Mapped[str] = mapped_column(String(32))
    body: Mapped[dict[str, Any]] = mapped_column(JSON)
    check: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    check_ok: Mapped[bool] = mapped_column(Boolean, default=False)
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    llm_calls: Mapped[int] = mapped_column(Integer, default=0)
    cost_usd: Mapped[float] = mapped_column(Float, default=0.0)
    repairs: Mapped[int] = mapped_column(Integer, default=0)
    approved_by: Mapped[str | None] = mapped_column(String(256))
    approved_at: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # A digest of the other inputs it was written from (title, author, date, url, the
    # feed's audience and language: service.engines.base.inputs_key). An explainer of the
    # same (content hash, prompt version, model, inputs) is reused for another item
    # instead of paying for it again. None on explainers stored before it was kept.
    inputs_key: Mapped[str | None] = mapped_column(String(64))
    # The explainer (of another item) this one is a copy of; its tokens and cost stay
    # counted there, this row's are 0. A plain id: that explainer's item may be deleted.
    reused_from: Mapped[int | None] = mapped_column(Integer)

    __table_args__ = (
        UniqueConstraint(
            "item_id", "content_hash", "prompt_version", "model", name="uq_explainers_effect"
        ),
        # The lookup of a reusable explainer (service.pipeline.items).
        Index("ix_explainers_reuse", "content_hash", "inputs_key"),
    )


class ExplainClaim(Base):
    """A worker explaining a (content hash, inputs, prompt version, model) now: another
    item with the same key waits for its explainer instead of calling the model too. It
    holds while its item is processing under the same lease owner (service.pipeline.claims)."""

    __tablename__ = "explain_claims"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    content_hash: Mapped[str] = mapped_column(String(64))
    item_id: Mapped[int] = mapped_column(Integer, index=True)
    owner: Mapped[str] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class FeedRemoval(Base):
    """A feed removed with its items: the feed of all feeds lost their entries then, and
    its Last-Modified must move on (a reader asking If-Modified-Since was told 304 and
    kept the removed entries)."""

    __tablename__ = "feed_removals"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    feed_id: Mapped[int] = mapped_column(Integer)
    url: Mapped[str] = mapped_column(String(2048))
    items: Mapped[int] = mapped_column(Integer)
    published: Mapped[int] = mapped_column(Integer)  # of them, entries of the Atom feeds
    removed_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class LLMCall(Base):
    """Token usage of every LLM call, for cost accounting (GET /stats)."""

    __tablename__ = "llm_calls"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    item_id: Mapped[int | None] = mapped_column(ForeignKey("items.id", ondelete="SET NULL"))
    feed_id: Mapped[int | None] = mapped_column(ForeignKey("feeds.id", ondelete="SET NULL"))
    model: Mapped[str] = mapped_column(String(256))
    purpose: Mapped[str] = mapped_column(String(32), default="explain")
    # The model calls the row stands for (an attempt's re-asks, parts and repairs).
    calls: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost_usd: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class Subscriber(Base):
    """An outbound webhook endpoint that receives explainer events of a feed (or all)."""

    __tablename__ = "subscribers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    feed_id: Mapped[int | None] = mapped_column(ForeignKey("feeds.id", ondelete="CASCADE"))
    url: Mapped[str] = mapped_column(String(2048))
    secret: Mapped[str] = mapped_column(String(512))
    events: Mapped[Any] = mapped_column(JSON, default=list)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    # Why it stopped receiving (None while active), for the operator who reactivates it.
    inactive_reason: Mapped[str | None] = mapped_column(String(200))
    # Deliveries ended `failed` since the last delivered one (see Sender._send).
    failures: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class OutboundDelivery(Base):
    """One event to one subscriber; retried with backoff, every attempt logged."""

    __tablename__ = "outbound_deliveries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    subscriber_id: Mapped[int] = mapped_column(ForeignKey("subscribers.id", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(String(64), unique=True)
    event_type: Mapped[str] = mapped_column(String(64))
    payload: Mapped[dict[str, Any]] = mapped_column(JSON)
    state: Mapped[str] = mapped_column(String(32), default="pending", index=True)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    last_status: Mapped[int | None] = mapped_column(Integer)
    last_error: Mapped[str | None] = mapped_column(Text)
    lease_owner: Mapped[str | None] = mapped_column(String(128))
    lease_until: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    delivered_at: Mapped[datetime | None]

    __table_args__ = (
        Index("ix_outbound_claim", "state", "next_attempt_at"),
        Index("ix_outbound_subscriber", "subscriber_id", "id"),
    )
