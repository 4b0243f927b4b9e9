"""What every part of the orchestrator shares: its state and small database helpers."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import insert, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session, sessionmaker

from service import metrics, queue
from service.circuit import Circuit
from service.config import Settings
from service.engines.base import DEFAULT_AUDIENCE, Engine, ExplainOptions
from service.errors import LeaseLost, PlainfeedError
from service.models import Usage
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


@dataclass(frozen=True, slots=True)
class Spent:
    """Tokens paid for outside a stored explainer (an attempt that failed: its engine
    error's ``extra["usage"]`` and ``extra["cost_usd"]``; a synchronous explain), recorded
    as an LLM call row, so that ``GET /stats`` counts what the endpoint will bill."""

    feed_id: int | None
    model: str
    usage: Usage
    cost_usd: float

    @classmethod
    def of(cls, exc: PlainfeedError, feed_id: int | None, model: str) -> Spent | None:
        usage = exc.extra.get("usage")
        if not isinstance(usage, Usage) or not usage.calls:
            return None
        cost = exc.extra.get("cost_usd")
        return cls(feed_id, model, usage, float(cost) if isinstance(cost, int | float) else 0.0)

    def record(self, s: Session, item_id: int | None, purpose: str = "explain-failed") -> None:
        s.execute(
            insert(t.Base.metadata.tables[t.LLMCall.__tablename__]),
            {
                "item_id": item_id,
                "feed_id": self.feed_id,
                "model": self.model,
                "purpose": purpose,
                "calls": self.usage.calls,
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
                "cost_usd": self.cost_usd,
                "created_at": datetime.now(UTC),
            },
        )
        metrics.LLM_CALLS.labels(self.model).inc(self.usage.calls)
        metrics.LLM_TOKENS.labels(self.model, "prompt").inc(self.usage.prompt_tokens)
        metrics.LLM_TOKENS.labels(self.model, "completion").inc(self.usage.completion_tokens)
        metrics.LLM_COST.labels(self.model).inc(self.cost_usd)


def feed_options(feed: t.Feed | None) -> ExplainOptions:
    if feed is None:
        return ExplainOptions()
    return ExplainOptions(
        audience=feed.audience or DEFAULT_AUDIENCE,
        language=feed.language or "English",
        template_dir=Path(feed.template_dir) if feed.template_dir else None,
    )


def feed_names(feed: t.Feed | None) -> tuple[str | None, ...]:
    """What the feed is called (its document's title, "PyTorch Blog", and the name it was
    registered with): the number check reads a name of them as the post's context."""
    return () if feed is None else (feed.title, feed.name)


_T = TypeVar("_T")
# Values per ``IN (...)`` list: each is a bound parameter, and PostgreSQL's protocol takes
# at most 65,535 in one statement (SQLite builds before 3.32, 999): a feed of 70,000
# entries failed its delivery when all its keys went into one list.
IN_CHUNK = 900


def in_chunks(values: Sequence[_T], size: int = IN_CHUNK) -> Iterator[Sequence[_T]]:
    """``values`` in slices short enough for one ``IN (...)`` list each."""
    for start in range(0, len(values), size):
        yield values[start : start + size]


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
    attempts: int | None = None,
) -> bool:
    """Renew a running job's lease; False only when another worker has taken it over (a
    job finished meanwhile is not a loss, unless ``attempts``, the claim's, says another
    worker claimed it since: see queue.renew)."""
    try:
        with transaction(sessions) as s:
            queue.renew(s, spec, job_id, owner, lease_seconds, attempts)
        return True
    except LeaseLost:
        return False
