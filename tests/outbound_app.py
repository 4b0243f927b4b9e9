"""The outbound webhook tests' helpers: the app's token, its context, an item waiting
for review, an event queued for a subscriber, and a sender run until it has made its
attempts."""

from __future__ import annotations

from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from service import outbound
from service.models import CheckReport, Explainer, ItemState, Section
from service.store import tables as t
from tests.conftest import OUTBOUND_TOKEN, wait_for
from tests.seed_db import add_item

TOKEN = OUTBOUND_TOKEN  # the token of the app of the `client` fixture
AUTH = {"Authorization": f"Bearer {TOKEN}"}


def ctx(client: TestClient):  # type: ignore[no-untyped-def]
    return client.app.state.ctx  # type: ignore[attr-defined]


def review_item(client: TestClient | sessionmaker[Session], feed_id: int, n: int = 0) -> int:
    """An item of ``feed_id`` waiting for review (in the app's database, or in the one
    of ``sessions``); ``n`` tells several of one feed apart."""
    return add_item(
        ctx(client).sessions if isinstance(client, TestClient) else client,
        feed_id,
        title="Faster kernels",
        text="It runs 1.5x faster.",
        explainer=Explainer(title="Kernels", sections=[Section(heading="H", paragraphs=["P."])]),
        report=CheckReport(),
        state=ItemState.NEEDS_REVIEW,
        link="https://example.org/k" + (f"/{n}" if n else ""),
    )


def approved_for(client: TestClient, feed_id: int, url: str) -> None:
    """A subscriber of ``feed_id`` at ``url`` and an item of the feed approved: one event
    queued for it."""
    client.post(f"/feeds/{feed_id}/subscribers", json={"url": url}, headers=AUTH)
    ctx(client).pipeline.approve(review_item(client, feed_id), "tester")


def send_all(sender: outbound.Sender, until: int, client: TestClient) -> None:
    """Run the sender (as a worker would) until ``until`` attempts were made overall."""

    def attempts() -> int:
        with ctx(client).sessions() as s:
            return sum(d.attempts for d in s.scalars(select(t.OutboundDelivery)))

    def step() -> bool:
        sender("test-worker")
        return attempts() >= until

    wait_for(step, timeout=30, interval=0.02)
