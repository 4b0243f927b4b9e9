"""Inbound webhooks: a feed changed. The request path only classifies and stores the
delivery; workers parse it (feedparser is too slow for the request path)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse

from service import ingest
from service.api.deps import Ctx, require_token
from service.api.schemas import Accepted
from service.errors import PayloadTooLarge

router = APIRouter(tags=["webhooks"])


async def read_body(request: Request, limit: int) -> bytes:
    """The raw body, refusing early (413) what is over the cap instead of buffering it."""
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge(f"body of {declared} bytes is over the {limit}-byte cap")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge(f"body is over the {limit}-byte cap")
        chunks.append(chunk)
    return b"".join(chunks)


@router.post(
    "/webhooks/feed",
    status_code=202,
    response_model=Accepted,
    responses={
        200: {"model": Accepted, "description": "A replay of a delivery already stored"},
        400: {"description": "Empty body or bad JSON"},
        401: {"description": "Missing or wrong bearer token or signature"},
        404: {"description": "Unknown feed_id"},
        413: {"description": "Body over 10 MiB"},
        415: {"description": "Unsupported content type"},
        422: {"description": "Not a feed, or JSON without a feed reference"},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "application/rss+xml": {"schema": {"type": "string"}},
                "application/atom+xml": {"schema": {"type": "string"}},
                "application/feed+json": {"schema": {"type": "object"}},
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "feed_id": {"type": "integer"},
                            "feed_url": {"type": "string", "format": "uri"},
                            "content": {"type": "string"},
                        },
                    },
                    "example": {"feed_url": "https://pytorch.org/blog/feed/"},
                },
            },
        }
    },
)
async def feed_changed(
    request: Request,
    ctx: Ctx,
    feed_id: Annotated[int | None, Query(description="The registered feed this body is")] = None,
) -> JSONResponse:
    """A feed changed. The body is the feed document itself or JSON naming the feed.

    Answers 202 once the delivery is durably stored; `GET /deliveries/{id}` shows what
    the worker made of it. A replay of a stored delivery is answered 200 with
    `duplicate: true` and causes no work.
    """
    require_token(request, ctx)
    body = await read_body(request, ctx.settings.max_body_bytes)
    incoming = ingest.read_webhook(
        body,
        request.headers.get("content-type"),
        {k.lower(): v for k, v in request.headers.items()},
        max_bytes=ctx.settings.max_body_bytes,
        feed_id=feed_id,
    )
    from starlette.concurrency import run_in_threadpool

    accepted = await run_in_threadpool(ctx.pipeline.accept, incoming)
    if not accepted.duplicate:
        ctx.notify()
    out = Accepted(
        delivery_id=accepted.delivery_id,
        duplicate=accepted.duplicate,
        status_url=f"/deliveries/{accepted.delivery_id}",
    )
    return JSONResponse(
        out.model_dump(),
        status_code=200 if accepted.duplicate else 202,
        headers={"Location": out.status_url},
    )
