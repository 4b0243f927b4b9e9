"""What every part of the orchestrator shares: its state and small database helpers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session, sessionmaker

from service import queue
from service.circuit import Circuit
from service.config import Settings
from service.engines.base import DEFAULT_AUDIENCE, Engine, ExplainOptions
from service.errors import LeaseLost
from service.store import tables as t
from service.store.db import readonly, transaction

# What the pipeline tells when an explainer is published or needs review: (session,
# event type, feed id, a loader of the item and its explainer). The sink (the outbound
# hook) runs inside the publishing transaction and loads the item only if it needs it.
ItemLoader = Callable[[], tuple[t.Item, t.Explainer]]
EventSink = Callable[[Session, str, int | None, ItemLoader], None]


class PipelineBase:
    """State of the orchestrator; the parts (intake, publishing, review) are mixed into
    :class:`service.pipeline.Pipeline` and share it."""

    def __init__(
        self,
        settings: Settings,
        sessions: sessionmaker[Session],
        engine: Engine,
        *,
        circuit: Circuit | None = None,
        on_event: EventSink | None = None,
    ) -> None:
        self.settings = settings
        self.sessions = sessions
        self.read_sessions = readonly(sessions)
        self.engine = engine
        self.circuit = circuit or Circuit(settings.circuit_threshold, settings.circuit_cooldown)
        self.on_event = on_event


def feed_options(feed: t.Feed | None) -> ExplainOptions:
    if feed is None:
        return ExplainOptions()
    return ExplainOptions(
        audience=feed.audience or DEFAULT_AUDIENCE,
        language=feed.language or "English",
        template_dir=Path(feed.template_dir) if feed.template_dir else None,
    )


def insert_ignore(session: Session, table: Any, rows: list[dict[str, Any]]) -> None:
    """INSERT ... ON CONFLICT DO NOTHING on both backends (idempotent writes)."""
    if not rows:
        return
    ins = pg_insert if session.get_bind().dialect.name == "postgresql" else sqlite_insert
    # Rows as parameters, not in the statement: its compiled form is cached and reused.
    session.execute(ins(table).on_conflict_do_nothing(), rows)


def latest_explainer(s: Session, item: t.Item) -> t.Explainer | None:
    """The explainer of the item's current content (newest first)."""
    return s.scalars(
        select(t.Explainer)
        .where(t.Explainer.item_id == item.id, t.Explainer.content_hash == item.content_hash)
        .order_by(t.Explainer.id.desc())
        .limit(1)
    ).first()


def renew_lease(
    sessions: sessionmaker[Session],
    spec: queue.QueueSpec,
    job_id: int,
    owner: str,
    lease_seconds: float,
) -> bool:
    try:
        with transaction(sessions) as s:
            queue.renew(s, spec, job_id, owner, lease_seconds)
        return True
    except LeaseLost:
        return False
