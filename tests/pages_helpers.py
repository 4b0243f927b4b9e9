"""The HTML pages' tests: the app on a fresh database, its seeded feed and items (a post
with an explainer and its check report), a page parsed."""

from __future__ import annotations

from collections.abc import Iterator

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.models import (
    CheckReport,
    CheckStatus,
    DroppedFact,
    Explainer,
    ItemState,
    NumberVerdict,
    Section,
)
from tests.conftest import make_settings
from tests.seed_db import add_feed, add_item

TOKEN = "page-test-token"

SOURCE = """# Faster kernels

The new kernel is **1.10x** faster on MI355X. It was measured on 8 GPUs.

## Models

| Model | Speedup |
| --- | --- |
| Llama-3.1-8B | 1.13x |
"""
S1 = "The kernel ran 1.10x faster on 8 GPUs."
S2 = "Llama-3.1-8B gained 1.13x, and 42 users agreed."
EXPLAINER = Explainer(
    title="Kernels: faster on MI355X",
    sections=[
        Section(heading="What changed", paragraphs=[S1]),
        Section(heading="Models", paragraphs=[S2], code="speed = 1.10"),
    ],
    takeaway="Faster kernels, with limits.",
)
REPORT = CheckReport(
    numbers=[
        NumberVerdict(
            text="MI355X",
            kind="identifier",
            status=CheckStatus.SUPPORTED,
            sentence="Kernels: faster on MI355X",
            source="The new kernel is **1.10x** faster on MI355X.",
            source_block=1,
        ),
        NumberVerdict(
            text="1.10x",
            kind="quantity",
            status=CheckStatus.SUPPORTED,
            sentence=S1,
            source="The new kernel is **1.10x** faster on MI355X.",
            source_block=1,
        ),
        NumberVerdict(
            text="8",
            kind="quantity",
            status=CheckStatus.DERIVED,
            sentence=S1,
            source="It was measured on 8 GPUs.",
            source_block=1,
        ),
        NumberVerdict(
            text="1.13x",
            kind="quantity",
            status=CheckStatus.MISATTACHED,
            sentence=S2,
            source="| Llama-3.1-8B | 1.13x |",
            source_block=3,
            reason="about a model, not the kernel",
        ),
        NumberVerdict(
            text="42",
            kind="quantity",
            status=CheckStatus.UNSUPPORTED,
            sentence=S2,
            reason="not in the source",
        ),
    ],
    dropped=[DroppedFact(value="2.04x", about="MXFP8 whole-request speedup")],
    shape=["12 sections, want 1..7"],
)


def page_client(db_url: str) -> Iterator[TestClient]:
    """A client of the app on a fresh database, its API token TOKEN, no workers."""
    app = create_app(make_settings(db_url, api_token=TOKEN), workers=0)
    with TestClient(app) as c:
        yield c


def sessions(client: TestClient):  # type: ignore[no-untyped-def]
    return client.app.state.ctx.sessions  # type: ignore[attr-defined]


def soup(html: str) -> BeautifulSoup:
    return BeautifulSoup(html, "html.parser")


def seed_ids(client: TestClient) -> dict[str, int]:
    """A feed with an item waiting for review (SOURCE, EXPLAINER, REPORT), a published one
    and a failed one: their ids by "feed", "item", "published", "failed"."""
    sm = sessions(client)
    fid = add_feed(sm, name="Kernel blog")
    ids = {"feed": fid}
    ids["item"] = add_item(
        sm,
        fid,
        title="Faster kernels on MI355X",
        text=SOURCE,
        explainer=EXPLAINER,
        report=REPORT,
        state=ItemState.NEEDS_REVIEW,
        link="https://example.org/posts/faster-kernels",
        author="Kernel team",
    )
    ids["published"] = add_item(
        sm,
        fid,
        title="An older post about compilers",
        text="A post. It has 3 parts.",
        explainer=Explainer(title="Compilers", sections=[Section(heading="H", paragraphs=["P."])]),
        report=CheckReport(),
    )
    ids["failed"] = add_item(sm, fid, title="A broken post", text="", state=ItemState.FAILED)
    return ids
