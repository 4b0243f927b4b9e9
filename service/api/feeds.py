"""Registered feeds: register, list, show, change, remove."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError

from service.api.deps import DB, Ctx, Writer
from service.api.params import Id, Limit, Offset, Page
from service.api.schemas import FeedIn, FeedOut, FeedPatch, ForceRemove
from service.api.urls import refused_address
from service.errors import Conflict, InputError, NotFound
from service.store import tables as t
from service.store.db import transaction
from service.store.feeds import check_name_free, note_shown, remove_feed, shown

router = APIRouter()


@router.post(
    "/feeds",
    status_code=201,
    response_model=FeedOut,
    tags=["feeds"],
    responses={409: {"description": "A feed with that url or name is already registered"}},
)
def create_feed(body: FeedIn, ctx: Ctx, _who: Writer) -> JSONResponse:
    """Register a feed. `secret` makes its webhooks require a signature."""
    why = refused_address(body.url, ctx.settings)
    if why is not None:  # as FeedUrl's own checks answer: the settings are not theirs
        error = {"type": "value_error", "loc": ("body", "url"), "msg": f"Value error, {why}"}
        raise RequestValidationError([{**error, "input": str(body.url)}])
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
        before = shown(feed)
        for name in fields:
            setattr(feed, name, getattr(body, name))
        note_shown(feed, before)
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
