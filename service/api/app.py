"""The FastAPI application factory."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline

from service import __version__, outbound
from service.api import (
    atom,
    conditional,
    deliveries,
    feeds,
    items,
    limits,
    metrics,
    ops,
    pages,
    problems,
    ranges,
    subscribers,
    targets,
    utf8,
    webhooks,
    websub,
)
from service.api.deps import AppContext, one_value_each, utf8_query
from service.config import Settings, get_settings
from service.engines import get_engine
from service.pipeline import Pipeline
from service.pipeline.subscriptions import Renewer
from service.retention import Pruner
from service.store.db import make_engine, make_sessionmaker, migrate
from service.worker import WorkerPool

log = logging.getLogger(__name__)

DOCS_ASSETS = "/static-offline-docs"


def build_context(settings: Settings, *, workers: int) -> AppContext:
    """Database (migrated), pipeline and an idle worker pool for ``settings``."""
    db = make_engine(settings.database_url, pool_size=max(5, workers + 5))
    migrate(db)
    sessions = make_sessionmaker(db)
    pipeline = Pipeline(
        settings, sessions, get_engine(settings), on_event=outbound.EventHook(settings)
    )
    pool = (
        WorkerPool(
            pipeline,
            workers,
            # Built only for a pool: a sender's HTTP client is closed with the pool's jobs.
            extra_jobs=[
                outbound.Sender(settings, sessions),
                Renewer(settings, sessions),
                Pruner(settings, sessions),
            ],
            extra_threads=settings.outbound_concurrency,
        )
        if workers > 0
        else None
    )
    return AppContext(settings, db, sessions, pipeline, pool)


def create_app(settings: Settings | None = None, *, workers: int | None = None) -> FastAPI:
    """The API; with ``workers`` > 0 (default: settings.concurrency) it runs a worker pool
    in-process, started and stopped with the application."""
    settings = settings or get_settings()
    n = settings.concurrency if workers is None else workers

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        ctx = build_context(settings, workers=n)
        app.state.ctx = ctx
        if ctx.pool:
            ctx.pool.start()
        log.info(
            "plainfeed ready: engine=%s workers=%d db=%s",
            ctx.pipeline.engine.name,
            n,
            ctx.db.url.render_as_string(hide_password=True),
        )
        try:
            yield
        finally:
            if ctx.pool and not ctx.pool.shutdown(settings.shutdown_grace):
                log.warning("some jobs were still running at shutdown; their leases were released")
            if ctx.pool:
                # The outbound sender's HTTP connections (one sender, shared by workers).
                for job in {id(j): j for w in ctx.pool.workers for j in w.extra_jobs}.values():
                    if isinstance(job, outbound.Sender):
                        job.close()
            ctx.pipeline.engine.close()  # the LLM client's connections to the endpoint
            ctx.db.dispose()

    # /docs (Swagger UI) and /redoc with their scripts, stylesheets and icon served by the
    # service itself under /static-offline-docs: FastAPI's own pages load them from a CDN,
    # and were blank on a host with no network beyond loopback. validatorUrl off: Swagger
    # UI would send the spec to an outside validator for its badge.
    app = FastAPIOffline(
        static_url=DOCS_ASSETS,
        swagger_ui_parameters={"validatorUrl": None},
        dependencies=[
            Depends(utf8_query),
            Depends(one_value_each),
            Depends(utf8.whole_characters),
        ],
        title="Plainfeed",
        version=__version__,
        summary="Plain-language explainers of technical feed posts, every number checked.",
        lifespan=lifespan,
        openapi_tags=[
            {"name": "webhooks", "description": "Feed monitors announce changes here."},
            {"name": "feeds", "description": "Registered feeds."},
            {"name": "deliveries", "description": "Every webhook call and its outcome."},
            {"name": "items", "description": "Posts, their explainers and number checks."},
            {"name": "explain", "description": "Synchronous explaining of one article."},
            {"name": "subscribers", "description": "Outbound webhooks (Standard Webhooks)."},
            {"name": "ops", "description": "Health, readiness, statistics, metrics."},
        ],
    )
    problems.install(app)
    # Innermost: it reads the body through the limits' receive.
    app.add_middleware(utf8.Utf8Json)
    # (Before any route or mount reads a conditional GET's dates.)
    app.add_middleware(conditional.IgnoreFutureDates)
    # (Likewise before a static mount reads a Range.)
    app.add_middleware(ranges.RangeRequests)
    app.add_middleware(limits.BodyLimit)
    app.add_middleware(limits.HeadAsGet)
    # The body's clock runs from the request reaching the app.
    app.add_middleware(limits.BodyTimeout, seconds=settings.body_timeout)
    # Around it: it sees whether the body was asked of the server (Expect: 100-continue).
    app.add_middleware(limits.UnaskedBodyClose)
    # Outermost: CONNECT and "*" are answered before anything reads the request.
    app.add_middleware(targets.RequestTargets)
    app.include_router(webhooks.router)
    app.include_router(websub.router)
    app.include_router(feeds.router)
    app.include_router(deliveries.router)
    app.include_router(items.router)
    app.include_router(ops.router)
    app.include_router(subscribers.router)
    app.include_router(atom.router)
    app.include_router(metrics.router)
    # The root is the index page; the API's own documentation stays at /docs.
    app.include_router(pages.router)
    app.mount("/static", StaticFiles(directory=pages.STATIC), name="static")
    problems.document(app)

    return app
