"""Outbound webhook subscribers and their deliveries (every endpoint needs the token:
subscriber URLs and delivery payloads are not public)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    HttpUrl,
    StrictBool,
    StrictInt,
)
from pydantic.json_schema import SkipJsonSchema
from sqlalchemy import func, select

from service import fetch, outbound
from service.api.deps import DB, NO_FEED, Ctx, KnownFeed, Writer
from service.api.params import Id, Limit, Offset, Page
from service.api.schemas import not_null_in_schema
from service.api.urls import StoredUrl
from service.errors import Conflict, FetchRefused, InputError, NotFound
from service.models import OutboundState
from service.store import tables as t
from service.store.db import transaction

router = APIRouter(tags=["subscribers"])
_NO_SUB: dict[int | str, dict[str, Any]] = {404: {"description": "No subscriber with that id"}}

EventName = Literal["explainer.published", "explainer.needs_review"]


def _all_events() -> list[EventName]:
    return ["explainer.published", "explainer.needs_review"]


def _a_signing_key(secret: str) -> str:
    """Refuse a secret outbound.secret_key would not sign with (no whsec_, not base64,
    not 24 to 64 bytes): a 422 naming body.secret as any other field's, with its reason."""
    if secret:
        try:
            outbound.secret_key(secret)
        except InputError as exc:
            raise ValueError(exc.detail) from None
    return secret


# A signing secret, or "" for one generated as for none. Its pattern is documented, and
# checked as outbound.secret_key reads it (which also takes excess padding).
Secret = Annotated[
    str,
    AfterValidator(_a_signing_key),
    Field(json_schema_extra={"pattern": f"^$|{outbound.SECRET_PATTERN}"}),
]


class SubscriberIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"url": "https://example.org/hooks/plainfeed", "events": ["explainer.published"]}
            ]
        },
    )

    url: StoredUrl
    secret: Secret | None = Field(
        default=None,
        description="whsec_<base64 of 24-64 bytes>; generated (and answered once) when absent"
        " or empty",
    )
    events: list[EventName] = Field(default_factory=lambda: _all_events(), min_length=1)
    # Strict, as the webhook's feed_id: true, "1" and 1.0 were feed 1, and " 1" too.
    feed_id: StrictInt | None = Field(
        default=None,
        ge=1,
        le=t.MAX_ID,
        description="Only on POST /subscribers: a feed, or none for every feed",
    )


class SubscriberPatch(BaseModel):
    """What ``PATCH /subscribers/{id}`` may change; absent fields stay as they are."""

    model_config = ConfigDict(
        extra="forbid",
        # At least one field, none null: the route refuses an empty body or a null (400).
        json_schema_extra={
            "examples": [{"active": True}, {"url": "https://example.org/new"}],
            "minProperties": 1,
        },
    )

    # Strict: "yes" or 1 read as true would reactivate a subscriber by a typo.
    active: StrictBool | SkipJsonSchema[None] = Field(
        default=None,
        description="true reactivates (its failure count starts again at 0)",
        json_schema_extra=not_null_in_schema,
    )
    url: StoredUrl | SkipJsonSchema[None] = Field(
        default=None, json_schema_extra=not_null_in_schema
    )
    events: Annotated[list[EventName], Field(min_length=1)] | SkipJsonSchema[None] = Field(
        default=None, json_schema_extra=not_null_in_schema
    )


class SubscriberOut(BaseModel):
    id: int
    feed_id: int | None
    url: str
    events: list[str]
    active: bool
    inactive_reason: str | None = Field(
        default=None, description="Why it receives nothing: unsubscribed, 410 Gone, failures"
    )
    failures: int = Field(
        default=0, description="Deliveries ended `failed` since the last delivered one"
    )
    created_at: datetime
    secret: str | None = Field(default=None, description="Only in the answer that creates it")

    @classmethod
    def of(cls, sub: t.Subscriber, *, with_secret: bool = False) -> SubscriberOut:
        return cls(
            id=sub.id,
            feed_id=sub.feed_id,
            url=sub.url,
            events=list(sub.events or []),
            active=sub.active,
            inactive_reason=None if sub.active else sub.inactive_reason,
            failures=sub.failures or 0,
            created_at=sub.created_at,
            secret=sub.secret if with_secret else None,
        )


class OutboundOut(BaseModel):
    id: int
    subscriber_id: int
    event_id: str
    event_type: str
    state: str
    attempts: int
    last_status: int | None
    last_error: str | None
    next_attempt_at: datetime | None
    created_at: datetime
    delivered_at: datetime | None
    payload: dict[str, Any] | None = None

    @classmethod
    def of(cls, d: t.OutboundDelivery, *, full: bool = False) -> OutboundOut:
        return cls(
            id=d.id,
            subscriber_id=d.subscriber_id,
            event_id=d.event_id,
            event_type=d.event_type,
            state=d.state,
            attempts=d.attempts,
            last_status=d.last_status,
            last_error=d.last_error,
            next_attempt_at=d.next_attempt_at if d.state == "pending" else None,
            created_at=d.created_at,
            delivered_at=d.delivered_at,
            payload=d.payload if full else None,
        )


def _check_url(url: str, allow_private: bool) -> None:
    """Refuse endpoints on this machine or the private network unless allowed (a
    subscriber URL must not turn the server into a proxy for internal services), and
    any the sender's guard (fetch.pinned) refuses on every send: stored, each event to
    it failed until failures in a row deactivated it."""
    try:
        fetch.static_checks(url)
    except FetchRefused as exc:
        raise InputError(f"subscriber URL refused, it is never sent to: {exc.detail}") from exc
    host = (HttpUrl(url).host or "").strip("[]").lower().rstrip(".")
    if allow_private:
        return
    if fetch.private_name(host):
        raise InputError(f"subscriber host {host!r} is private (PLAINFEED_ALLOW_PRIVATE_URLS)")
    try:
        # As the sender reads it: multicast and a loopback address inside a 6to4 or
        # NAT64 one are global to ipaddress, and were stored, never sent to.
        blocked = fetch.is_blocked(host)
    except ValueError:
        return
    if blocked:
        raise InputError(f"subscriber address {host} is private (PLAINFEED_ALLOW_PRIVATE_URLS)")


def _create(ctx: Ctx, body: SubscriberIn, feed_id: int | None) -> JSONResponse:
    _check_url(str(body.url), ctx.settings.allow_private_urls)
    secret = body.secret or outbound.new_secret()  # a given one checked by its schema
    with transaction(ctx.sessions) as s:
        if feed_id is not None and s.get(t.Feed, feed_id) is None:
            raise NotFound(f"no feed with id {feed_id}")
        sub = t.Subscriber(
            feed_id=feed_id,
            url=str(body.url),
            secret=secret,
            events=sorted(set(body.events)),
            active=True,
        )
        s.add(sub)
        s.flush()
        out = SubscriberOut.of(sub, with_secret=True)
    return JSONResponse(
        out.model_dump(mode="json"), status_code=201, headers={"Location": f"/subscribers/{out.id}"}
    )


@router.post(
    "/feeds/{feed_id}/subscribers",
    status_code=201,
    response_model=SubscriberOut,
    responses={
        400: {"description": "A private or unsendable url, or another feed_id"},
        404: {"description": "No feed with that id"},
    },
)
def subscribe_feed(feed_id: Id, body: SubscriberIn, ctx: Ctx, _who: Writer) -> JSONResponse:
    """Send this feed's explainer events to `url`, signed as Standard Webhooks. The
    answer carries the signing secret; later reads do not."""
    if body.feed_id is not None and body.feed_id != feed_id:
        raise InputError("feed_id in the body differs from the path")
    return _create(ctx, body, feed_id)


@router.post(
    "/subscribers",
    status_code=201,
    response_model=SubscriberOut,
    responses={
        400: {"description": "A private or unsendable url"},
        404: {"description": "No feed with that feed_id"},
    },
)
def subscribe(body: SubscriberIn, ctx: Ctx, _who: Writer) -> JSONResponse:
    """Subscribe to one feed (`feed_id`) or, without it, to every feed."""
    return _create(ctx, body, body.feed_id)


@router.get("/subscribers", response_model=Page, responses=NO_FEED)
def list_subscribers(
    request: Request,
    s: DB,
    _who: Writer,
    feed_id: KnownFeed,
    limit: Limit = 50,
    offset: Offset = 0,
) -> Page:
    sel = select(t.Subscriber)
    cnt = select(func.count(t.Subscriber.id))
    if feed_id is not None:
        sel, cnt = (
            sel.where(t.Subscriber.feed_id == feed_id),
            cnt.where(t.Subscriber.feed_id == feed_id),
        )
    total = s.scalar(cnt) or 0
    rows = s.scalars(sel.order_by(t.Subscriber.id).limit(limit).offset(offset))
    return Page.of(request, total, limit, offset, [SubscriberOut.of(r) for r in rows])


def _subscriber(s: DB, sub_id: int) -> t.Subscriber:
    sub = s.get(t.Subscriber, sub_id)
    if sub is None:
        raise NotFound(f"no subscriber with id {sub_id}")
    return sub


@router.get("/subscribers/{sub_id}", response_model=SubscriberOut, responses=_NO_SUB)
def get_subscriber(sub_id: Id, s: DB, _who: Writer) -> SubscriberOut:
    return SubscriberOut.of(_subscriber(s, sub_id))


@router.delete("/subscribers/{sub_id}", status_code=204, responses=_NO_SUB)
def unsubscribe(sub_id: Id, ctx: Ctx, _who: Writer) -> Response:
    """Stop sending: the subscriber is deactivated (its delivery log stays)."""
    with transaction(ctx.sessions) as s:
        sub = _subscriber(s, sub_id)
        if sub.active:
            sub.active = False
            sub.inactive_reason = "unsubscribed"
    return Response(status_code=204)


@router.patch(
    "/subscribers/{sub_id}",
    response_model=SubscriberOut,
    responses={
        400: {"description": "No field to change, a null one, or a private or unsendable url"},
        404: {"description": "No subscriber with that id"},
    },
)
def update_subscriber(sub_id: Id, body: SubscriberPatch, ctx: Ctx, _who: Writer) -> SubscriberOut:
    """Reactivate a subscriber (after a 410, failures or an unsubscribe), or change its
    URL or events. Deliveries cancelled while it was inactive stay so: retry them with
    `POST /outbound/{id}/retry`."""
    fields = body.model_fields_set
    if not fields or any(getattr(body, f) is None for f in fields):
        raise InputError("give at least one of active, url, events (none may be null)")
    if body.url is not None:
        _check_url(str(body.url), ctx.settings.allow_private_urls)
    with transaction(ctx.sessions) as s:
        sub = _subscriber(s, sub_id)
        if body.url is not None:
            sub.url = str(body.url)
        if body.events is not None:
            sub.events = sorted(set(body.events))
        if body.active is True and not sub.active:
            sub.active, sub.inactive_reason, sub.failures = True, None, 0
        elif body.active is False and sub.active:
            sub.active, sub.inactive_reason = False, "deactivated by a PATCH"
        s.flush()
        return SubscriberOut.of(sub)


@router.get("/subscribers/{sub_id}/deliveries", response_model=Page, responses=_NO_SUB)
def list_outbound(
    sub_id: Id,
    request: Request,
    s: DB,
    _who: Writer,
    # An enum, as the other lists' state filters: as any text, "?state=faild" listed
    # nothing, as if nothing had failed.
    state: OutboundState | None = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> Page:
    """Every event sent (or to be sent) to the subscriber, newest first: state, attempts,
    last HTTP status and error."""
    _subscriber(s, sub_id)
    cond = [t.OutboundDelivery.subscriber_id == sub_id]
    if state:
        cond.append(t.OutboundDelivery.state == state)
    total = s.scalar(select(func.count(t.OutboundDelivery.id)).where(*cond)) or 0
    rows = s.scalars(
        select(t.OutboundDelivery)
        .where(*cond)
        .order_by(t.OutboundDelivery.id.desc())
        .limit(limit)
        .offset(offset)
    )
    return Page.of(request, total, limit, offset, [OutboundOut.of(r) for r in rows])


@router.get(
    "/outbound/{delivery_id}",
    response_model=OutboundOut,
    responses={404: {"description": "No outbound delivery with that id"}},
)
def get_outbound(delivery_id: Id, s: DB, _who: Writer) -> OutboundOut:
    """One outbound delivery with its payload."""
    d = s.get(t.OutboundDelivery, delivery_id)
    if d is None:
        raise NotFound(f"no outbound delivery with id {delivery_id}")
    return OutboundOut.of(d, full=True)


@router.post(
    "/outbound/{delivery_id}/retry",
    status_code=202,
    response_model=OutboundOut,
    responses={
        404: {"description": "No outbound delivery with that id"},
        409: {
            "description": "The delivery is neither failed nor cancelled, or its "
            "subscriber is inactive"
        },
    },
)
def retry_outbound(delivery_id: Id, ctx: Ctx, _who: Writer) -> OutboundOut:
    """Send a failed or cancelled delivery again now, with fresh attempts."""
    with transaction(ctx.sessions) as s:
        d = s.get(t.OutboundDelivery, delivery_id)
        if d is None:
            raise NotFound(f"no outbound delivery with id {delivery_id}")
        if d.state not in ("failed", "cancelled"):
            raise Conflict(f"outbound delivery {delivery_id} is {d.state}")
        sub = s.get(t.Subscriber, d.subscriber_id)
        if sub is not None and not sub.active:
            # The sender cancels a delivery of an inactive subscriber as soon as it takes
            # it: accepted here, the retry was a 202 that sent nothing.
            raise Conflict(
                f"subscriber {sub.id} is inactive ({sub.inactive_reason}): reactivate it "
                f'first (PATCH /subscribers/{sub.id} {{"active": true}})'
            )
        d.state = "pending"
        d.attempts = 0
        d.next_attempt_at = datetime.now(d.created_at.tzinfo)
        out = OutboundOut.of(d)
    ctx.notify()
    return out
