"""The WebSub subscriber callback: intent verification (GET) and content distribution
(POST) for one registered feed. ``plainfeed feeds subscribe ID`` asks the hub."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from sqlalchemy import update
from starlette.concurrency import run_in_threadpool

from service import websub
from service.api.deps import AppContext, Ctx
from service.api.params import Id
from service.api.schemas import Accepted
from service.api.webhooks import FEED_DOCUMENT, take_delivery
from service.errors import NotFound
from service.store import tables as t
from service.store.db import transaction

router = APIRouter(tags=["webhooks"])


def _verify(ctx: AppContext, feed_id: int, params: dict[str, str], token: str) -> str:
    with transaction(ctx.sessions) as s:
        feed = s.get(t.Feed, feed_id)
        if feed is None:
            raise NotFound(f"no feed with id {feed_id}")
        if not websub.token_ok(feed.websub_secret, token):
            # Not the URL this server told its hub: nobody else may confirm or deny.
            raise NotFound(f"no subscription of feed {feed_id} has this callback")
        now = datetime.now(UTC)
        # A request given up (its time up, service.websub.settled) is no longer pending:
        # a verification that comes after is not echoed.
        state = websub.settled(feed.websub_state, feed.websub_lease_until, now)
        answer = websub.answer_intent(state, feed.url, params, now)
        # A request verified is settled: the failure of an ask (a hub refusing an ask
        # again) is past. A denial keeps what was said before it.
        error = feed.websub_error if answer.state == websub.DENIED else None
        # Fenced on the row it was decided on (the state, and the secret the token was
        # checked against): two verifications racing cannot both win. The Renewer settling
        # the request or a new subscribe may change it in between (PostgreSQL reads
        # committed): then nothing was written, and the hub is not told it was verified.
        done = s.execute(
            update(t.Feed)
            .where(
                t.Feed.id == feed_id,
                t.Feed.websub_state == feed.websub_state,
                t.Feed.websub_secret.is_not_distinct_from(feed.websub_secret),
            )
            .values(
                websub_state=answer.state,
                websub_lease_until=answer.lease_until,
                # Settled: whichever ask the hub verified, none is asked again.
                websub_ask_at=None,
                websub_asks=0,
                websub_error=error,
            )
        )
        if done.rowcount != 1:  # type: ignore[attr-defined]
            raise NotFound(f"the subscription of feed {feed_id} changed meanwhile: not verified")
        return answer.body


@router.get(
    "/websub/{feed_id}",
    response_class=PlainTextResponse,
    responses={
        200: {"description": "The hub.challenge, echoed", "content": {"text/plain": {}}},
        404: {"description": "No pending request of this mode for this topic"},
    },
)
async def verify_intent(feed_id: Id, request: Request, ctx: Ctx) -> PlainTextResponse:
    """WebSub intent verification: the hub checks that this subscriber asked for the
    (un)subscription. The challenge is echoed only for a pending request of the same mode
    and topic (the registered feed URL) at the callback URL told to the hub (its `token`);
    anything else is 404. `hub.mode=denied` records the hub's refusal."""
    query = request.query_params
    # A parameter given twice is no hub's request: which one would count? (A dict of the
    # query keeps the last, and "hub.mode=subscribe&hub.mode=denied" was read as denied.)
    twice = sorted({k for k in query if len(query.getlist(k)) > 1})
    if twice:
        raise NotFound(f"{', '.join(twice)} given more than once: no hub's verification")
    params = {k: v for k, v in query.items() if k.startswith("hub.")}
    token = query.get("token", "")
    body = await run_in_threadpool(_verify, ctx, feed_id, params, token)
    return PlainTextResponse(body)


@router.post(
    "/websub/{feed_id}",
    status_code=202,
    response_model=Accepted,
    responses={
        200: {"model": Accepted, "description": "A replay of a delivery already stored"},
        400: {
            "description": "Empty body, or a signature header given twice, or a delivery-id "
            "header (webhook-id, X-GitHub-Delivery) given twice, or more than one "
            "Authorization header (where PLAINFEED_API_TOKEN is set: it stands in for the "
            "signature of a feed without a secret)"
        },
        401: {"description": "Missing or wrong X-Hub-Signature"},
        410: {"description": "Unknown feed, or no active subscription: the hub should stop"},
        413: {"description": "Body over PLAINFEED_MAX_BODY_BYTES (10 MiB)"},
        415: {"description": "Unsupported content type, or a compressed body"},
        422: {"description": "The body is not a feed document"},
    },
    openapi_extra={"requestBody": {"required": True, "content": FEED_DOCUMENT}},
)
async def content_distribution(feed_id: Id, request: Request, ctx: Ctx) -> JSONResponse:
    """WebSub content distribution: the hub POSTs the updated feed document, signed with
    `X-Hub-Signature` (the `hub.secret` sent when subscribing). Stored like a webhook
    delivery; 410 tells the hub to drop a subscription this feed does not have."""
    return await take_delivery(request, ctx, feed_id=feed_id, websub=True)
