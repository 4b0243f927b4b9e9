"""Health, readiness, cost statistics and synchronous explaining."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Query
from fastapi.responses import JSONResponse
from sqlalchemy import String, func, select
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from service import clean, fetch, parse, render
from service.api.deps import DB, Ctx, Writer
from service.api.params import DIGITS
from service.api.schemas import CheckIn, CheckOut, ExplainIn, ExplainOut, PostIn
from service.check import check_explainer, headline_facts
from service.engines.base import ExplainOptions
from service.errors import PlainfeedError, StoreError, TooLongToCheck, Unprocessable
from service.gate import explain_and_check
from service.models import Article
from service.pipeline.base import Spent
from service.store import tables as t
from service.store.db import ping, transaction

log = logging.getLogger(__name__)

router = APIRouter()


@router.get("/healthz", tags=["ops"])
def healthz() -> dict[str, str]:
    """The process is alive (no dependencies checked)."""
    return {"status": "ok"}


@router.get(
    "/readyz",
    tags=["ops"],
    responses={
        503: {
            "description": "Not ready: the database does not answer, or the LLM circuit is"
            " open (`status`: `not ready`, and the same `checks`)",
            "content": {"application/json": {}},
        }
    },
)
def readyz(ctx: Ctx) -> JSONResponse:
    """Ready to take work: the database answers. Also reports the LLM circuit."""
    checks: dict[str, Any] = {}
    ok = True
    try:
        ping(ctx.db)
        checks["database"] = "ok"
    except StoreError as exc:
        # The driver's reason names the database's host and port: it goes to the log,
        # not to an endpoint anyone may call.
        log.warning("readyz: %s", exc.detail)
        checks["database"] = "unreachable"
        ok = False
    circuit = ctx.pipeline.circuit.state
    checks["llm_circuit"] = circuit
    if circuit == "open":
        checks["llm_retry_in_s"] = round(ctx.pipeline.circuit.seconds_until_retry(), 1)
        ok = False
    checks["engine"] = ctx.pipeline.engine.name
    checks["workers"] = ctx.pool.item_workers if ctx.pool else 0
    checks["senders"] = len(ctx.pool.workers) - ctx.pool.item_workers if ctx.pool else 0
    return JSONResponse(
        {"status": "ready" if ok else "not ready", "checks": checks},
        status_code=200 if ok else 503,
    )


@router.get("/stats", tags=["ops"])
def stats(
    s: DB,
    days: Annotated[int, Query(ge=1, le=366), DIGITS] = 30,
) -> dict[str, Any]:
    """LLM tokens and cost, summed per feed and per day, over the last `days` days; items
    by state; explainers reused from another item of the same post in those days."""
    since = datetime.now(UTC) - timedelta(days=days)
    day = func.substr(func.cast(t.LLMCall.created_at, String), 1, 10)
    fields = (
        func.coalesce(func.sum(t.LLMCall.calls), 0),
        func.coalesce(func.sum(t.LLMCall.prompt_tokens), 0),
        func.coalesce(func.sum(t.LLMCall.completion_tokens), 0),
        func.coalesce(func.sum(t.LLMCall.cost_usd), 0.0),
    )

    def rows(key: Any) -> list[dict[str, Any]]:
        q = select(key, *fields).where(t.LLMCall.created_at >= since).group_by(key).order_by(key)
        return [
            {
                "key": k,
                "calls": int(n),
                "prompt_tokens": int(p),
                "completion_tokens": int(c),
                "cost_usd": round(float(cost), 6),
            }
            for k, n, p, c, cost in s.execute(q)
        ]

    per_feed = [{"feed_id": r.pop("key"), **r} for r in rows(t.LLMCall.feed_id)]
    per_day = [{"day": r.pop("key"), **r} for r in rows(day)]
    # Not dict(result): a Result has .keys() (its columns), so dict() reads it as a mapping.
    counts = s.execute(select(t.Item.state, func.count(t.Item.id)).group_by(t.Item.state))
    states = {state: int(n) for state, n in counts}
    # Explainers copied from another item of the same post: the calls not made.
    reused = s.scalar(
        select(func.count(t.Explainer.id)).where(
            t.Explainer.reused_from.is_not(None), t.Explainer.created_at >= since
        )
    )
    return {
        "since": since.isoformat(),
        "per_feed": per_feed,
        "per_day": per_day,
        "total_cost_usd": round(sum(r["cost_usd"] for r in per_day), 6),
        "items_by_state": states,
        "explainers_reused": int(reused or 0),
    }


@router.post(
    "/explain",
    response_model=ExplainOut,
    tags=["explain"],
    responses={
        413: {"description": "The post is longer than the engine explains (post-too-long)"},
        422: {"description": "No usable text, not exactly one source, or no llm engine"},
        502: {"description": "The engine failed, or fetching `url` did"},
    },
)
async def explain(body: ExplainIn, ctx: Ctx, _who: Writer) -> ExplainOut:
    """Explain one article given as `html`, `markdown`, `text` or `url`, synchronously."""
    _one_source(body)
    if body.engine == "llm" and not ctx.settings.llm_configured:
        # Without an endpoint the client would retry a default host it cannot reach, and
        # answer a 502 after many seconds for what is the request's choice.
        raise Unprocessable(
            "the llm engine is not configured on this server (no OPENAI_BASE_URL or "
            "OPENAI_API_KEY); leave engine out or ask for extractive"
        )
    return await run_in_threadpool(_explain_sync, ctx, body)


_SOURCES = ("html", "markdown", "text", "url")  # the fields of PostIn that give the post


def _source(ctx: Ctx, body: PostIn) -> Article:
    """The article a request gives as exactly one of ``html``, ``markdown``, ``text`` or
    ``url``."""
    if body.url:
        got = fetch.fetch_url(str(body.url), ctx.settings, accept=fetch.PAGE_ACCEPT)
        kind = parse.sniff(got.body, got.content_type)
        if kind is not None:
            # Read as a page, a feed's markup gave "no prose sentences": say what it is.
            raise Unprocessable(
                f"{got.url} is a feed ({kind}), not an article: give the url of one of its "
                "posts, or send the feed to POST /webhooks/feed"
            )
        article = fetch.article_from_page(got.body, got.content_type, got.url)
    elif body.html:
        article = clean.article_from_document(body.html, kind="html", title=body.title)
    elif body.markdown:
        article = clean.article_from_document(body.markdown, kind="md", title=body.title)
    else:
        article = clean.article_from_document(body.text or "", kind="text", title=body.title)
    if not article.text.strip():
        raise Unprocessable("the article has no text")
    return article


def _one_source(body: PostIn) -> None:
    given = [k for k in _SOURCES if getattr(body, k)]
    if len(given) != 1:
        raise Unprocessable(f"give exactly one of {', '.join(_SOURCES)}")


def _record_spent(ctx: Ctx, spent: Spent | None) -> None:
    if spent is None:
        return
    try:
        with transaction(ctx.sessions) as s:
            spent.record(s, None, "explain-sync")
    except SQLAlchemyError:
        # The explainer is the caller's answer: a database that cannot take the row
        # costs the count, not the answer.
        log.warning("the tokens of a synchronous explain were not recorded", exc_info=True)


def _explain_sync(ctx: Ctx, body: ExplainIn) -> ExplainOut:
    from service.engines import get_engine

    article = _source(ctx, body)
    engine = ctx.pipeline.engine
    own = body.engine is not None and body.engine != engine.name
    if own:
        engine = get_engine(ctx.settings, name=body.engine)
    try:
        outcome = explain_and_check(
            engine,
            article,
            ExplainOptions(),
            repair_rounds=ctx.settings.repair_rounds,
            review_derived=ctx.settings.review_derived,
            feed_names=(body.feed_title,),
        )
    except PlainfeedError as exc:
        _record_spent(ctx, Spent.of(exc, None, ctx.settings.model))
        raise
    finally:
        if own:  # built for this request alone: its client's connections go with it
            engine.close()
    r = outcome.result
    # Billed as any item's calls are: GET /stats counts them (no feed, no item).
    _record_spent(ctx, Spent(None, r.model, r.usage, r.cost_usd) if r.usage.calls else None)
    return ExplainOut(
        explainer=r.explainer,
        source=render.document(r, None, article)["source"],
        check=outcome.report,
        engine=r.engine,
        model=r.model,
        prompt_version=r.prompt_version,
        usage={
            "prompt_tokens": r.usage.prompt_tokens,
            "completion_tokens": r.usage.completion_tokens,
            "calls": r.usage.calls,
        },
        cost_usd=round(r.cost_usd, 8),
        markdown=render.to_markdown(r.explainer),
    )


@router.post(
    "/check",
    response_model=CheckOut,
    tags=["explain"],
    responses={
        413: {
            "description": "The explainer is over PLAINFEED_CHECK_MAX_EXPLAINER_CHARS or "
            "PLAINFEED_CHECK_MAX_CHARS, or the source over PLAINFEED_CHECK_MAX_CHARS"
        },
        422: {"description": "An empty explainer, or a source without text"},
        502: {"description": "Fetching `url` failed"},
    },
)
async def check(body: CheckIn, ctx: Ctx, _who: Writer) -> CheckOut:
    """Check every number of an explainer written anywhere against the post it explains
    (`html`, `markdown`, `text` or `url`), as `plainfeed check` does. The answer is `200` whatever
    the verdict: `ok` is false when a number is unsupported or misattached."""
    _one_source(body)
    if isinstance(body.explainer, str) and not body.explainer.strip():
        # An empty explainer has no number to fail: it would pass.
        raise Unprocessable("the explainer is empty")
    return await run_in_threadpool(_check_sync, ctx, body)


def _check_sync(ctx: Ctx, body: CheckIn) -> CheckOut:
    settings = ctx.settings
    explainer = body.explainer
    # The smaller bound is the one the explainer is refused by, and the one its answer names.
    explainer_most, setting = min(
        (settings.check_max_chars, "PLAINFEED_CHECK_MAX_CHARS"),
        (settings.check_max_explainer_chars, "PLAINFEED_CHECK_MAX_EXPLAINER_CHARS"),
    )
    _within(
        explainer_most,
        setting,
        "explainer",
        explainer if isinstance(explainer, str) else render.to_markdown(explainer),
    )
    article = _source(ctx, body)
    _within(settings.check_max_chars, "PLAINFEED_CHECK_MAX_CHARS", "source", article.text)
    facts = headline_facts(article.text, article.title)  # as the gate reports them
    if isinstance(explainer, str) and clean.guess_kind(explainer) == "html":
        # An explainer as HTML (`format=html`) is read as text, as `plainfeed check`
        # reads it: its tags were numbers ("h1", "h2") that the post does not have.
        explainer = clean.article_from_document(explainer, kind="html").text
    # The feed it names, the post's author and site, as the gate reads them (its context).
    context = (body.feed_title, article.author, article.site_name)
    return CheckOut.of(
        check_explainer(explainer, article.text, facts, title=article.title, context_names=context)
    )


def _within(most: int, setting: str, what: str, text: str) -> None:
    """Refuse a text the check would spend minutes on, before it spends any."""
    if len(text) > most:
        raise TooLongToCheck(
            f"the {what} ({len(text):,} characters) is over {setting}={most:,}, the most "
            f"POST /check reads"
        )
