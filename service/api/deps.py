"""Request dependencies: the application context and the bearer-token guard."""

from __future__ import annotations

import hmac
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from service.config import Settings
from service.errors import AuthError
from service.pipeline import Pipeline
from service.worker import WorkerPool


@dataclass
class AppContext:
    settings: Settings
    db: Engine
    sessions: sessionmaker[Session]
    pipeline: Pipeline
    pool: WorkerPool | None = None

    def notify(self) -> None:
        if self.pool is not None:
            self.pool.notify()


def get_ctx(request: Request) -> AppContext:
    ctx: AppContext = request.app.state.ctx
    return ctx


Ctx = Annotated[AppContext, Depends(get_ctx)]


def get_session(ctx: Ctx) -> Iterator[Session]:
    """A read-only session for GET routes (writes go through the pipeline)."""
    with ctx.pipeline.read_sessions() as s:
        yield s


DB = Annotated[Session, Depends(get_session)]


def bearer_ok(request: Request, settings: Settings) -> bool:
    if not settings.api_token:
        return True
    auth = request.headers.get("authorization", "")
    scheme, _, token = auth.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        token.strip().encode(), settings.api_token.encode()
    )


def require_token(request: Request, ctx: Ctx) -> str:
    """Guard for write endpoints when PLAINFEED_API_TOKEN is set. Returns who called."""
    if not bearer_ok(request, ctx.settings):
        raise AuthError("missing or wrong bearer token (Authorization: Bearer <token>)")
    return "api-token" if ctx.settings.api_token else "anonymous"


Writer = Annotated[str, Depends(require_token)]
