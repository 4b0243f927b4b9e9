"""Deliveries: every webhook call and its outcome, and a retry of one."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from sqlalchemy import func, select

from service.api.deps import DB, NO_FEED, Ctx, KnownFeed, Writer
from service.api.params import Id, Limit, Offset, Page
from service.api.schemas import DeliveryOut
from service.errors import NotFound
from service.models import DeliveryState
from service.store import tables as t

router = APIRouter()


@router.get("/deliveries", response_model=Page, tags=["deliveries"], responses=NO_FEED)
def list_deliveries(
    request: Request,
    s: DB,
    feed_id: KnownFeed,
    state: Annotated[DeliveryState | None, Query(description="Filter by state")] = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> Page:
    """Every webhook delivery, newest first, with its outcome."""
    q = select(t.Delivery)
    c = select(func.count(t.Delivery.id))
    if feed_id is not None:
        q, c = q.where(t.Delivery.feed_id == feed_id), c.where(t.Delivery.feed_id == feed_id)
    if state is not None:
        cond = t.Delivery.state == state.value
        q, c = q.where(cond), c.where(cond)
    total = s.scalar(c) or 0
    rows = s.scalars(q.order_by(t.Delivery.id.desc()).limit(limit).offset(offset))
    return Page.of(request, total, limit, offset, [DeliveryOut.of(d) for d in rows])


@router.get(
    "/deliveries/{delivery_id}",
    response_model=DeliveryOut,
    tags=["deliveries"],
    responses={404: {"description": "No delivery with that id"}},
)
def get_delivery(delivery_id: Id, s: DB) -> DeliveryOut:
    d = s.get(t.Delivery, delivery_id)
    if d is None:
        raise NotFound(f"no delivery with id {delivery_id}")
    return DeliveryOut.of(d)


@router.post(
    "/deliveries/{delivery_id}/retry",
    status_code=202,
    response_model=DeliveryOut,
    tags=["deliveries"],
    responses={
        404: {"description": "No delivery with that id"},
        409: {"description": "The delivery is queued or being processed"},
    },
)
def retry_delivery(
    delivery_id: Id,
    ctx: Ctx,
    _who: Writer,
    force: Annotated[
        bool,
        Query(
            description="Apply its version however dated (a publisher's rollback refused "
            "as older); what it applied over newer versions is said in its problems"
        ),
    ] = False,
) -> DeliveryOut:
    """Process a finished delivery again: its document, or a fetch of its feed when it
    carried none (or its body was pruned)."""
    ctx.pipeline.retry_delivery(delivery_id, force=force)
    ctx.notify()
    with ctx.sessions() as s:
        d = s.get(t.Delivery, delivery_id)
        if d is None:  # removed with its feed meanwhile
            raise NotFound(f"no delivery with id {delivery_id}")
        return DeliveryOut.of(d)
