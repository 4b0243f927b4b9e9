"""``GET /metrics``: the process's counters and histograms (``service.metrics``) plus
gauges read from the database at scrape time (items by state, queue depth and age,
outbound deliveries by state, active subscribers).

The database gauges come from a collector bound to the application's engine and
joined with the global registry per scrape, so several apps in one process (tests)
never register twice. Counters are per process: with separate ``plainfeed worker``
processes, scrape each of them too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from service import metrics, queue
from service.api.deps import Ctx
from service.models import DeliveryState, ItemState, OutboundState
from service.store import tables as t

log = logging.getLogger(__name__)
router = APIRouter(tags=["ops"])

QUEUES = {"deliveries": queue.DELIVERIES, "items": queue.ITEMS, "outbound": queue.OUTBOUND}
OUTBOUND_STATES = tuple(OutboundState)


def _touch_labels() -> None:
    """Series that exist from the first scrape, at zero, so rates and alerts work
    before the first event."""
    for outcome in ("accepted", "duplicate", "processed", "retry", "failed"):
        metrics.DELIVERIES.labels(outcome)
    for outcome in ("delivered", "retry", "failed", "gone", "cancelled"):
        metrics.OUTBOUND.labels(outcome)
    for state in ("published", "needs_review", "failed", "retry"):
        metrics.ITEM_OUTCOMES.labels(state)
    for status in ("supported", "derived", "unsupported", "misattached"):
        metrics.CHECK_NUMBERS.labels(status)
    for name in QUEUES:
        metrics.LEASE_EXPIRIES.labels(
            {"deliveries": "deliveries", "items": "items", "outbound": "outbound_deliveries"}[name]
        )


_touch_labels()


def _age(oldest: Any, now: datetime) -> float:
    if oldest is None:
        return 0.0
    if isinstance(oldest, str):
        oldest = datetime.fromisoformat(oldest)
    if oldest.tzinfo is None:
        oldest = oldest.replace(tzinfo=UTC)
    return max(0.0, float((now - oldest).total_seconds()))


def _counts(s: Session, stmt: Any) -> dict[str, int]:
    return {str(k): int(v) for k, v in s.execute(stmt).all()}


class DatabaseCollector(Collector):
    """Gauges computed from the database on each scrape (a handful of indexed counts)."""

    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self.sessions = sessions  # read-only ones: a scrape never waits behind writers

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily("plainfeed_database_up", "1 when the database answered the scrape")
        try:
            with self.sessions() as s:
                families = list(self._families(s))
        except SQLAlchemyError:
            log.warning("metrics: database query failed", exc_info=True)
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from families

    def _families(self, s: Session) -> Iterable[GaugeMetricFamily]:
        now = datetime.now(UTC)
        items = GaugeMetricFamily("plainfeed_items", "Items by state", labels=["state"])
        by_state = _counts(s, select(t.Item.state, func.count()).group_by(t.Item.state))
        for st in ItemState:
            items.add_metric([st.value], by_state.get(st.value, 0))
        yield items

        deliveries = GaugeMetricFamily(
            "plainfeed_deliveries", "Inbound webhook deliveries by state", labels=["state"]
        )
        d_state = _counts(s, select(t.Delivery.state, func.count()).group_by(t.Delivery.state))
        for ds in DeliveryState:
            deliveries.add_metric([ds.value], d_state.get(ds.value, 0))
        yield deliveries

        outbound = GaugeMetricFamily(
            "plainfeed_outbound_deliveries",
            "Outbound webhook deliveries by state",
            labels=["state"],
        )
        o_state = _counts(
            s, select(t.OutboundDelivery.state, func.count()).group_by(t.OutboundDelivery.state)
        )
        for os_ in OUTBOUND_STATES:
            outbound.add_metric([os_], o_state.get(os_, 0))
        yield outbound

        depth = GaugeMetricFamily(
            "plainfeed_queue_depth",
            "Jobs waiting in a queue (ready now or later)",
            labels=["queue"],
        )
        running = GaugeMetricFamily(
            "plainfeed_queue_running", "Jobs leased by a worker", labels=["queue"]
        )
        oldest = GaugeMetricFamily(
            "plainfeed_queue_oldest_ready_seconds",
            "Age of the oldest job that is ready now",
            labels=["queue"],
        )
        for name, spec in QUEUES.items():
            tbl = spec.table
            waiting = s.scalar(select(func.count()).where(tbl.state == spec.ready)) or 0
            busy = s.scalar(select(func.count()).where(tbl.state == spec.running)) or 0
            ready_first = s.scalar(
                select(func.min(tbl.next_attempt_at)).where(
                    tbl.state == spec.ready, tbl.next_attempt_at <= now
                )
            )
            depth.add_metric([name], int(waiting))
            running.add_metric([name], int(busy))
            oldest.add_metric([name], _age(ready_first, now))
        yield depth
        yield running
        yield oldest

        subs = GaugeMetricFamily("plainfeed_subscribers_active", "Active outbound subscribers")
        subs.add_metric(
            [], s.scalar(select(func.count()).where(t.Subscriber.active.is_(True))) or 0
        )
        yield subs


class _Joined:
    """The global registry and one app's database collector, as one registry."""

    def __init__(self, *parts: Any) -> None:
        self.parts = parts

    def collect(self) -> Iterator[Any]:
        for part in self.parts:
            yield from part.collect()


@router.get(
    "/metrics",
    response_class=Response,
    responses={200: {"content": {CONTENT_TYPE_LATEST: {}}}},
)
def prometheus(ctx: Ctx) -> Response:
    """Prometheus metrics, names prefixed `plainfeed_`, beside the client library's
    `process_` and `python_` ones."""
    # The configured engine's and model's series exist before their first explainer.
    engine = ctx.pipeline.engine.name
    metrics.EXPLAIN_SECONDS.labels(engine)
    if engine == "llm":
        model = ctx.settings.model
        metrics.LLM_CALLS.labels(model)
        metrics.LLM_COST.labels(model)
        for kind in ("prompt", "completion"):
            metrics.LLM_TOKENS.labels(model, kind)
    joined = _Joined(REGISTRY, DatabaseCollector(ctx.pipeline.read_sessions))
    return Response(generate_latest(joined), media_type=CONTENT_TYPE_LATEST)  # type: ignore[arg-type]
