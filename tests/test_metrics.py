"""``GET /metrics``: process counters and database gauges, in Prometheus text format."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import create_engine
from sqlalchemy.orm import sessionmaker

from service import outbound
from service.api.app import create_app
from service.api.metrics import DatabaseCollector
from service.models import CheckReport, Explainer, ItemState, Section
from service.store import tables as t
from service.store.db import transaction
from tests.conftest import explain_pending, llm_settings, make_settings
from tests.seed_db import add_feed, add_item
from tests.stub_llm import StubLLM

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(client: TestClient) -> Samples:
    r = client.get("/metrics")
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/plain")
    out: Samples = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples[(name, tuple(sorted(labels.items())))]


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(db_url), workers=0)) as c:
        yield c


def sessions(client: TestClient):  # type: ignore[no-untyped-def]
    return client.app.state.ctx.sessions  # type: ignore[attr-defined]


def test_every_family_is_named_plainfeed_and_present_from_the_start(client: TestClient) -> None:
    samples = scrape(client)
    names = {name for name, _ in samples}
    ours = {n for n in names if n.startswith("plainfeed_")}
    for expected in (
        "plainfeed_deliveries_total",
        "plainfeed_outbound_deliveries_total",
        "plainfeed_items",
        "plainfeed_queue_depth",
        "plainfeed_queue_running",
        "plainfeed_queue_oldest_ready_seconds",
        "plainfeed_lease_expiries_total",
        "plainfeed_check_seconds_bucket",
        "plainfeed_check_numbers_total",
        "plainfeed_item_outcomes_total",
        "plainfeed_database_up",
    ):
        assert expected in ours, expected
    engine = client.app.state.ctx.pipeline.engine.name  # type: ignore[attr-defined]
    assert ("plainfeed_explain_seconds_count", (("engine", engine),)) in samples
    for status in ("supported", "derived", "unsupported", "misattached"):
        assert ("plainfeed_check_numbers_total", (("status", status),)) in samples
    assert value(samples, "plainfeed_database_up") == 1


def test_items_by_state_and_queue_depth_come_from_the_database(client: TestClient) -> None:
    sm = sessions(client)
    fid = add_feed(sm)
    ex = Explainer(title="T", sections=[Section(heading="H", paragraphs=["P."])])
    for i, state in enumerate(
        [ItemState.PUBLISHED, ItemState.PUBLISHED, ItemState.PENDING, ItemState.NEEDS_REVIEW]
    ):
        add_item(
            sm,
            fid,
            title=f"item {i}",
            text=f"text {i}",
            explainer=ex,
            report=CheckReport(),
            state=state,
        )
    with transaction(sm) as s:
        # a pending item whose next attempt is in the future is queued but not ready
        s.add(
            t.Item(
                feed_id=fid,
                key="later",
                title="later",
                content_hash="x",
                text="",
                state="pending",
                next_attempt_at=datetime.now(UTC) + timedelta(hours=1),
            )
        )
        s.add(t.Delivery(external_id="d1", state="received", body=b"<rss/>"))
    samples = scrape(client)
    assert value(samples, "plainfeed_items", state="published") == 2
    assert value(samples, "plainfeed_items", state="pending") == 2
    assert value(samples, "plainfeed_items", state="needs_review") == 1
    assert value(samples, "plainfeed_items", state="failed") == 0
    assert value(samples, "plainfeed_queue_depth", queue="items") == 2
    assert value(samples, "plainfeed_queue_depth", queue="deliveries") == 1
    assert value(samples, "plainfeed_queue_depth", queue="outbound") == 0
    assert value(samples, "plainfeed_deliveries", state="received") == 1
    assert value(samples, "plainfeed_queue_oldest_ready_seconds", queue="items") >= 0


def test_outbound_outcomes_and_lease_expiries_are_counted(client: TestClient) -> None:
    ctx = client.app.state.ctx  # type: ignore[attr-defined]
    before = scrape(client)
    with transaction(ctx.sessions) as s:
        sub = t.Subscriber(url="http://127.0.0.1:9/none", secret=outbound.new_secret(), events=[])
        s.add(sub)
        s.flush()
        # a delivery whose sender died mid-send: its lease ran out
        s.add(
            t.OutboundDelivery(
                subscriber_id=sub.id,
                event_id="msg_expired",
                event_type="explainer.published",
                payload={"type": "explainer.published"},
                state="sending",
                attempts=1,
                lease_owner="dead-worker",
                lease_until=datetime.now(UTC) - timedelta(seconds=5),
            )
        )
        sub.active = False  # the sender cancels instead of calling out
    mid = scrape(client)
    assert value(mid, "plainfeed_queue_running", queue="outbound") == 1
    assert value(mid, "plainfeed_outbound_deliveries", state="sending") == 1

    assert outbound.Sender(ctx.settings, ctx.sessions)("metrics-worker") is True
    after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("plainfeed_lease_expiries_total", queue="outbound_deliveries") == 1
    assert delta("plainfeed_outbound_deliveries_total", outcome="cancelled") == 1
    assert value(after, "plainfeed_outbound_deliveries", state="cancelled") == 1
    assert value(after, "plainfeed_subscribers_active") == 0


def test_an_unreachable_database_reports_down_instead_of_failing() -> None:
    engine = create_engine("postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=2")
    families = list(DatabaseCollector(sessionmaker(engine)).collect())
    assert [f.name for f in families] == ["plainfeed_database_up"]
    assert families[0].samples[0].value == 0


def test_explaining_an_item_moves_duration_llm_and_check_metrics(tmp_path: Path) -> None:
    with StubLLM() as stub:
        settings = llm_settings(
            f"sqlite:///{tmp_path / 'm.db'}",
            stub.url,
            llm_max_attempts=2,
        )
        with TestClient(create_app(settings, workers=1)) as client:
            before = scrape(client)
            ctx = client.app.state.ctx  # type: ignore[attr-defined]
            text = "# A post\n\nThe kernel is faster than before, on every GPU we tried."
            explain_pending(ctx, "A post", text)
            after = scrape(client)

    def delta(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("plainfeed_explain_seconds_count", engine="llm") == 1
    assert delta("plainfeed_check_seconds_count") >= 1
    assert delta("plainfeed_llm_calls_total", model="stub-model") >= 1
    assert delta("plainfeed_llm_tokens_total", model="stub-model", kind="prompt") > 0
    assert delta("plainfeed_llm_tokens_total", model="stub-model", kind="completion") > 0
    assert value(after, "plainfeed_items", state="pending") == 0
    assert value(after, "plainfeed_queue_depth", queue="items") == 0


def test_stats_sums_llm_calls_per_feed_and_per_day(client: TestClient) -> None:
    """``GET /stats``: tokens and cost per feed and per day over the window, and items by
    state (it once answered 500 on every call: a Result passed to dict())."""
    sm = sessions(client)
    feed = add_feed(sm)
    add_item(sm, feed, title="Post", text="FlyDSL is 1.10x faster.")
    now = datetime.now(UTC).replace(tzinfo=None)
    with transaction(sm) as s:
        for when, feed_id, prompt, completion, cost in (
            (now, feed, 100, 50, 0.25),
            (now, feed, 10, 5, 0.5),
            (now - timedelta(days=1), None, 1, 2, 0.125),
            (now - timedelta(days=40), feed, 1000, 1000, 9.0),  # outside the window
        ):
            s.add(
                t.LLMCall(
                    feed_id=feed_id,
                    model="m",
                    prompt_tokens=prompt,
                    completion_tokens=completion,
                    cost_usd=cost,
                    created_at=when,
                )
            )
    r = client.get("/stats", params={"days": 30})
    assert r.status_code == 200, r.text
    body = r.json()
    per_feed = {row["feed_id"]: row for row in body["per_feed"]}
    assert per_feed[feed] == {
        "feed_id": feed,
        "calls": 2,
        "prompt_tokens": 110,
        "completion_tokens": 55,
        "cost_usd": 0.75,
    }
    assert per_feed[None]["calls"] == 1
    assert [row["day"] for row in body["per_day"]] == [
        (now - timedelta(days=1)).date().isoformat(),
        now.date().isoformat(),
    ]
    assert body["total_cost_usd"] == 0.875
    assert body["items_by_state"] == {"published": 1}
    assert client.get("/stats", params={"days": 0}).status_code == 422
