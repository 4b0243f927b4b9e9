"""Feeds, deliveries and items."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from service import render
from service.api.deps import DB, NO_FEED, Ctx, KnownFeed, Writer
from service.api.schemas import (
    NO_NUL,
    DeliveryOut,
    FeedIn,
    FeedOut,
    FeedPatch,
    ForceRemove,
    Id,
    ItemOut,
    Limit,
    Offset,
    Page,
)
from service.errors import Conflict, InputError, NotAcceptable, NotFound
from service.models import CheckReport, DeliveryState, Explainer, ItemState
from service.pipeline import latest_explainer
from service.store import tables as t
from service.store.db import transaction
from service.store.feeds import check_name_free, remove_feed
from service.store.records import article_of, report_of, result_of

router = APIRouter()


# --- feeds -----------


@router.post(
    "/feeds",
    status_code=201,
    response_model=FeedOut,
    tags=["feeds"],
    responses={409: {"description": "A feed with that url or name is already registered"}},
)
def create_feed(body: FeedIn, ctx: Ctx, _who: Writer) -> JSONResponse:
    """Register a feed. `secret` makes its webhooks require a signature."""
    try:
        with transaction(ctx.sessions) as s:
            check_name_free(s, body.name)
            feed = t.Feed(
                url=str(body.url),
                name=body.name,
                secret=body.secret,
                audience=body.audience,
                language=body.language,
            )
            s.add(feed)
            s.flush()
            out = FeedOut.of(feed)
    except IntegrityError as exc:
        raise Conflict(f"a feed with url {body.url} is already registered") from exc
    return JSONResponse(
        out.model_dump(mode="json"), status_code=201, headers={"Location": f"/feeds/{out.id}"}
    )


@router.get("/feeds", response_model=Page, tags=["feeds"])
def list_feeds(request: Request, s: DB, limit: Limit = 50, offset: Offset = 0) -> Page:
    total = s.scalar(select(func.count(t.Feed.id))) or 0
    rows = s.scalars(select(t.Feed).order_by(t.Feed.id).limit(limit).offset(offset))
    return Page.of(request, total, limit, offset, [FeedOut.of(f) for f in rows])


@router.get(
    "/feeds/{feed_id}",
    response_model=FeedOut,
    tags=["feeds"],
    responses={404: {"description": "No feed with that id"}},
)
def get_feed(feed_id: Id, s: DB) -> FeedOut:
    feed = s.get(t.Feed, feed_id)
    if feed is None:
        raise NotFound(f"no feed with id {feed_id}")
    return FeedOut.of(feed)


@router.patch(
    "/feeds/{feed_id}",
    response_model=FeedOut,
    tags=["feeds"],
    responses={
        404: {"description": "No feed with that id"},
        409: {"description": "Another feed has that name"},
    },
)
def update_feed(feed_id: Id, body: FeedPatch, ctx: Ctx, _who: Writer) -> FeedOut:
    """Rename a feed, rotate or remove its webhook secret, change its audience or
    language (the next explainers use them; published ones stay as they are)."""
    fields = body.model_fields_set
    if not fields:
        raise InputError("give at least one of name, secret, audience, language")
    with transaction(ctx.sessions) as s:
        feed = s.get(t.Feed, feed_id)
        if feed is None:
            raise NotFound(f"no feed with id {feed_id}")
        if "name" in fields:
            check_name_free(s, body.name, feed_id)
        for name in fields:
            setattr(feed, name, getattr(body, name))
        s.flush()
        return FeedOut.of(feed)


@router.delete(
    "/feeds/{feed_id}",
    status_code=204,
    tags=["feeds"],
    responses={
        404: {"description": "No feed with that id"},
        409: {"description": "A WebSub hub pushes to it, or one of its items is being explained"},
    },
)
def delete_feed(feed_id: Id, ctx: Ctx, _who: Writer, force: ForceRemove = False) -> Response:
    """Remove a feed with its items, explainers and its own subscribers (the webhook
    deliveries stay in the log, without their feed). Refused (409) while a WebSub hub
    pushes to it (unsubscribe first, or `force`: its pushes are then answered 410) or
    while a worker is explaining one of its items."""
    with transaction(ctx.sessions) as s:
        remove_feed(s, feed_id, force=force)
    return Response(status_code=204)


# --- deliveries -----------


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


# --- items -----------

StateQ = Annotated[ItemState | None, Query(description="Filter by state")]


@router.get("/items", response_model=Page, tags=["items"], responses=NO_FEED)
def list_items(
    request: Request,
    s: DB,
    feed_id: KnownFeed,
    state: StateQ = None,
    q: Annotated[
        str | None,
        Query(max_length=t.TITLE_QUERY_MAX, pattern=NO_NUL, description="Title contains"),
    ] = None,
    limit: Limit = 50,
    offset: Offset = 0,
) -> Page:
    """Items, newest first, filtered by feed, state and title."""
    sel = select(t.Item)
    cnt = select(func.count(t.Item.id))
    conds = []
    if feed_id is not None:
        conds.append(t.Item.feed_id == feed_id)
    if state is not None:
        conds.append(t.Item.state == state.value)
    if q:
        conds.append(func.lower(t.Item.title).contains(q.lower(), autoescape=True))
    for cond in conds:
        sel, cnt = sel.where(cond), cnt.where(cond)
    total = s.scalar(cnt) or 0
    rows = s.scalars(sel.order_by(*t.ITEMS_NEWEST_FIRST).limit(limit).offset(offset))
    return Page.of(request, total, limit, offset, [ItemOut.of(i) for i in rows])


def _item(s: DB, item_id: int) -> t.Item:
    item = s.get(t.Item, item_id)
    if item is None:
        raise NotFound(f"no item with id {item_id}")
    return item


@router.get(
    "/items/{item_id}",
    response_model=ItemOut,
    tags=["items"],
    responses={404: {"description": "No item with that id"}},
)
def get_item(item_id: Id, s: DB) -> ItemOut:
    """An item with its state, source text, explainer, check report, tokens and cost."""
    item = _item(s, item_id)
    return ItemOut.of(item, latest_explainer(s, item), full=True)


@router.get(
    "/items/{item_id}/explainer",
    tags=["items"],
    responses={
        200: {
            "content": {
                "application/json": {},
                "text/markdown": {"example": "PyTorch FlyDSL: ...\n\n1. ..."},
                "text/html": {},
                "text/plain": {},
            }
        },
        404: {"description": "Unknown item, or no explainer yet"},
        406: {"description": "Accept allows none of the four media types"},
    },
)
def get_explainer(
    item_id: Id,
    request: Request,
    s: DB,
    format: Annotated[Literal["json", "md", "html", "text"] | None, Query()] = None,
) -> Response:
    """The explainer as JSON, Markdown (`text/markdown`), HTML or text: `?format=` or Accept."""

    item = _item(s, item_id)
    ex = latest_explainer(s, item)
    if ex is None:
        raise NotFound(f"item {item_id} has no explainer yet (state: {item.state})")
    explainer = Explainer.model_validate(ex.body)
    # Several Accept lines are one list (RFC 9110 5.3); ?format= overrides them all.
    accept = ", ".join(request.headers.getlist("accept"))
    fmt = format or negotiate(accept)
    if fmt is None:
        offered = ", ".join(mt for _, mt in REPRESENTATIONS)
        raise NotAcceptable(
            f"the explainer is available as {offered} (or ?format=json|md|html|text);"
            f" none is acceptable to Accept: {accept}"
        )
    # The answer depends on Accept: a shared cache must not give one client's to another.
    vary = {"Vary": "Accept"}
    if fmt == "md":
        md = render.to_markdown(explainer)
        return PlainTextResponse(md, media_type="text/markdown", headers=vary)
    if fmt == "html":
        return HTMLResponse(render.to_html(explainer), headers=vary)
    if fmt == "text":
        return PlainTextResponse(render.to_text(explainer), headers=vary)
    doc = render.document(result_of(ex), report_of(ex), article_of(item))
    return JSONResponse({**doc, "item_id": item.id}, headers=vary)


# The representations of an explainer and their media types, in the order the server
# prefers them when the client weighs several alike (``*/*``, ``text/*``, equal q): JSON,
# the default, first.
REPRESENTATIONS: tuple[tuple[str, str], ...] = (
    ("json", "application/json"),
    ("md", "text/markdown"),
    ("html", "text/html"),
    ("text", "text/plain"),
)
# Older names clients still send, read as the type served (so that "text/*,
# text/markdown;q=0" refuses Markdown, which goes out as text/markdown).
_ALIASES = {"text/x-markdown": "text/markdown"}
_Q = re.compile(r"(?:[01](?:\.\d*)?|\.\d+)")  # lenient: Java clients send "q=.2"


def parse_accept(accept: str) -> list[tuple[str, str, float]]:
    """The media ranges of an Accept header as (type, subtype, q), lower-cased.

    An element without a type/subtype is left out rather than failing the request; a q
    that is not a number of 0 to 1 ("q=abc", "q=", "q=1.5") is read as 1, as Django's
    MediaType.quality reads it: the client named the type, and leaving it out answered
    "text/markdown;q=abc" with JSON. A bare ``*`` (old clients) is read as ``*/*``.
    Parameters other than q are ignored: every representation is served in UTF-8 and has
    none."""
    ranges = []
    for element in accept.split(","):
        media, *params = (p.strip() for p in element.split(";"))
        media = "*/*" if media == "*" else media.lower()
        media = _ALIASES.get(media, media)
        kind, _, sub = media.partition("/")
        if not kind or not sub or (kind == "*" and sub != "*"):
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                value = value.strip()
                q = float(value) if _Q.fullmatch(value) and float(value) <= 1 else 1.0
                break
        ranges.append((kind, sub, q))
    return ranges


def _weight(media_type: str, ranges: list[tuple[str, str, float]]) -> float:
    """The q the ranges give a media type: that of the most specific range matching it
    (RFC 9110 12.5.1: text/html over text/* over */*), 0 when none does."""
    kind, _, sub = media_type.partition("/")
    best_specificity, q = -1, 0.0
    for rk, rs, rq in ranges:
        if rk == kind and rs == sub:
            specificity = 2
        elif rk == kind and rs == "*":
            specificity = 1
        elif rk == "*":
            specificity = 0
        else:
            continue
        # Two ranges as specific (a type repeated, with parameters ignored): the higher q.
        if specificity > best_specificity or (specificity == best_specificity and rq > q):
            best_specificity, q = specificity, rq
    return q


def negotiate(accept: str) -> str | None:
    """The format to answer an Accept header with: the representation of highest q, the
    server's order breaking ties; None when none is acceptable (q=0 refuses). No Accept,
    or one with no element that parses, accepts anything: JSON, as before Accept was read."""
    ranges = parse_accept(accept)
    if not ranges:
        return REPRESENTATIONS[0][0]
    best, best_q = None, 0.0
    for fmt, media_type in REPRESENTATIONS:
        q = _weight(media_type, ranges)
        if q > best_q:  # strictly: an equal q keeps the earlier, preferred one
            best, best_q = fmt, q
    return best


@router.get(
    "/items/{item_id}/check",
    response_model=CheckReport,
    tags=["items"],
    responses={404: {"description": "No item with that id, or no checked explainer yet"}},
)
def get_check(item_id: Id, s: DB) -> CheckReport:
    """The number check of the item's explainer: every number and its source sentence."""
    item = _item(s, item_id)
    ex = latest_explainer(s, item)
    if ex is None or ex.check is None:
        raise NotFound(f"item {item_id} has no checked explainer yet (state: {item.state})")
    return CheckReport.model_validate(ex.check)


@router.post(
    "/items/{item_id}/retry",
    status_code=202,
    response_model=ItemOut,
    tags=["items"],
    responses={
        404: {"description": "No item with that id"},
        409: {"description": "The item is being processed"},
    },
)
def retry_item(item_id: Id, ctx: Ctx, _who: Writer) -> ItemOut:
    """Re-queue an item now (a failed or needs-review one is explained anew; a published
    one finds its stored explainer again, without a model call; a skipped one, an older
    entry of its feed's first delivery, is explained)."""
    ctx.pipeline.retry(item_id)
    ctx.notify()
    with ctx.sessions() as s:
        return ItemOut.of(_item(s, item_id))


def _header_text(value: str) -> str:
    """A header's text: HTTP carries bytes that Starlette reads as Latin-1, and a client
    that sends a name like "José" sends UTF-8 ("JosÃ©" when read so)."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except UnicodeError:  # not UTF-8 after all: Latin-1 it was
        return value


@router.post(
    "/items/{item_id}/approve",
    response_model=ItemOut,
    tags=["items"],
    responses={
        404: {"description": "No item with that id"},
        409: {"description": "The item is not in needs_review, or has no explainer"},
    },
)
def approve_item(item_id: Id, ctx: Ctx, who: Writer, request: Request) -> ItemOut:
    """Publish a reviewed `needs_review` explainer; records who (X-Reviewer) and when."""
    reviewer = _header_text(request.headers.get("x-reviewer", "")).strip()[:200] or who
    ctx.pipeline.approve(item_id, reviewer)
    with ctx.sessions() as s:
        item = _item(s, item_id)
        return ItemOut.of(item, latest_explainer(s, item))
