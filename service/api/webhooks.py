"""Inbound webhooks: a feed changed. The request path only classifies and stores the
delivery; workers parse it (feedparser is too slow for the request path)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from service import ingest, pipeline, signatures
from service.api.deps import AppContext, Ctx, bearer_ok
from service.api.params import DIGITS
from service.api.schemas import Accepted
from service.errors import AuthError, PayloadTooLarge
from service.store.tables import MAX_ID

router = APIRouter(tags=["webhooks"])

# The request body of a feed document, for the OpenAPI document: every type
# service.ingest takes as one (others, text/plain included, are sniffed).
FEED_DOCUMENT: dict[str, Any] = {
    t: {"schema": {"type": "object" if t.endswith("json") else "string"}}
    for t in sorted(ingest.FEED_TYPES)
}


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
        400: {
            "description": "Empty body or bad JSON, or a signature header given twice, or a "
            "delivery-id header (webhook-id, X-GitHub-Delivery) given twice, or more than one "
            "Authorization header (where PLAINFEED_API_TOKEN is set)"
        },
        401: {"description": "Missing or wrong bearer token or signature"},
        404: {"description": "No registered feed with that id, url or name"},
        413: {"description": "Body over PLAINFEED_MAX_BODY_BYTES (10 MiB)"},
        415: {"description": "Unsupported content type"},
        422: {"description": "Not a feed, or JSON without a feed reference or repeating a name"},
    },
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                **FEED_DOCUMENT,
                "application/json": {
                    "schema": {
                        "type": "object",
                        "properties": {
                            "feed_id": {"type": "integer"},
                            "feed_url": {"type": "string", "format": "uri"},
                            "content": {"type": "string"},
                            "type": {
                                "type": "string",
                                "enum": ["feed.changed"],
                                "description": "A change record (README: Change records)",
                            },
                            "data": {
                                "type": "object",
                                "description": "source, commit, status, bytes, headers, "
                                "artifact, content?",
                            },
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
    feed_id: Annotated[
        int | None,
        Query(ge=1, le=MAX_ID, description="The registered feed this body is"),
        DIGITS,
    ] = None,
) -> JSONResponse:
    """A feed changed. The body is the feed document itself, JSON naming a registered feed,
    a change record (`feed.changed` envelope), or a Miniflux / changedetection.io payload.

    A feed with a secret takes only signed deliveries (`X-Hub-Signature-256`,
    `X-Hub-Signature`, Standard Webhooks `webhook-signature` or `X-Miniflux-Signature`); a
    valid signature also stands in for the API token. Answers 202 once the delivery is
    durably stored; `GET /deliveries/{id}` shows what the worker made of it. A replay of a
    stored delivery is answered 200 with `duplicate: true` and causes no work.
    """
    return await take_delivery(request, ctx, feed_id=feed_id, websub=False)


async def take_delivery(
    request: Request, ctx: AppContext, *, feed_id: int | None, websub: bool
) -> JSONResponse:
    """Read, classify, authorise and store one delivery; answer 202, or 200 for a replay."""
    token_ok = bearer_ok(request, ctx.settings)
    # (The dict below keeps the last of a header given twice: a signature's and an id's
    # are refused.)
    names = request.headers.keys()
    signatures.refuse_repeated(names)
    ingest.refuse_repeated_ids(names)
    headers = {k.lower(): v for k, v in request.headers.items()}
    if not token_ok and not websub and not signatures.is_signed(headers):
        # Cheap refusal before reading a body that could not be taken anyway.
        raise AuthError(
            "missing or wrong bearer token (Authorization: Bearer <token>) and no signature"
        )
    body = await read_body(request, ctx.settings.max_body_bytes)
    content_type = request.headers.get("content-type")

    def take() -> pipeline.Accepted:
        # Off the event loop: decoding a 300 KB JSON change record or hashing a feed
        # would stall every other connection's body upload meanwhile.
        incoming = ingest.read_webhook(
            body,
            content_type,
            headers,
            max_bytes=ctx.settings.max_body_bytes,
            feed_id=feed_id,
            websub=websub,
        )
        return ctx.pipeline.accept(incoming, token_ok=token_ok)

    accepted = await run_in_threadpool(take)
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
