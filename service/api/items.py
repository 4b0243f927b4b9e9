"""Items: listing, explainers (four representations), number checks, retry, approval."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from sqlalchemy import func, select

from service import render
from service.api.deps import DB, NO_FEED, Ctx, KnownFeed, Writer
from service.api.negotiate import REPRESENTATIONS, negotiate
from service.api.params import Id, Limit, Offset, Page
from service.api.schemas import NO_NUL, ItemOut
from service.errors import NotAcceptable, NotFound
from service.models import CheckReport, Explainer, ItemState
from service.pipeline import latest_explainer
from service.store import tables as t
from service.store.records import article_of, report_of, result_of

router = APIRouter()


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
