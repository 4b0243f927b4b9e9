"""The Atom tests' app on a fresh database and its seeded feeds and items."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session, sessionmaker

from service.api.app import create_app
from service.models import CheckReport, CheckStatus, Explainer, ItemState, NumberVerdict, Section
from tests.conftest import make_settings
from tests.seed_db import add_feed, add_item

PUBLIC = "https://plainfeed.example"
ATOM = "{http://www.w3.org/2005/Atom}"


def explainer(title: str, para: str = "It is 1.5x faster.") -> Explainer:
    return Explainer(
        title=title,
        sections=[Section(heading="What changed", paragraphs=[para])],
        takeaway="A plain takeaway.",
    )


REPORT = CheckReport(
    numbers=[
        NumberVerdict(
            text="1.5x",
            kind="quantity",
            status=CheckStatus.SUPPORTED,
            sentence="It is 1.5x faster.",
            source="It runs 1.5x faster.",
            source_block=0,
        )
    ]
)


FLAGGED = CheckReport(
    numbers=[
        NumberVerdict(
            text="9.9x",
            kind="quantity",
            status=CheckStatus.UNSUPPORTED,
            sentence="It is 9.9x faster.",
        )
    ]
)


def atom_client(db_url: str) -> Iterator[TestClient]:
    """A client of the app on a fresh database, its public address PUBLIC, no workers."""
    app = create_app(make_settings(db_url, public_url=PUBLIC + "/"), workers=0)
    with TestClient(app) as c:
        yield c


def sessions(client: TestClient):  # type: ignore[no-untyped-def]
    return client.app.state.ctx.sessions  # type: ignore[attr-defined]


def add_post_a1(sm: sessionmaker[Session], feed: int) -> int:
    """The published item "Post A1" of ``feed`` (Blog A's, or a copy under another feed):
    its id."""
    return add_item(
        sm,
        feed,
        title="Post A1",
        text="It runs 1.5x faster.",
        explainer=explainer("A1: faster kernels"),
        report=REPORT,
        link="https://a.example/a1",
        key="a1-guid",
        author="Alice",
        published=datetime(2026, 9, 1, 10, 0, tzinfo=UTC),
    )


def seed_blog_a(sm: sessionmaker[Session]) -> tuple[int, int]:
    """The feed "Blog A" and its published item "Post A1": their ids."""
    a = add_feed(sm, url="https://a.example/feed", name="Blog A")
    return a, add_post_a1(sm, a)


def seed_ids(client: TestClient) -> dict[str, int]:
    """Two feeds, a published item of each and one of the first waiting for review."""
    sm = sessions(client)
    a, a1 = seed_blog_a(sm)
    b = add_feed(sm, url="https://b.example/feed", name="Blog B")
    return {
        "a": a,
        "b": b,
        "a1": a1,
        "b1": add_item(
            sm,
            b,
            title="Post B1",
            text="It runs 1.5x faster.",
            explainer=explainer("B1: a new compiler"),
            report=REPORT,
            link="https://b.example/b1",
        ),
        "review": add_item(
            sm,
            a,
            title="Post A2",
            text="It runs 1.5x faster.",
            explainer=explainer("A2: waits for review", para="It is 9.9x faster."),
            report=FLAGGED,
            state=ItemState.NEEDS_REVIEW,
        ),
    }
