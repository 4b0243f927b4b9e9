"""Put feeds, items and explainers straight into a database, for page, feed and
webhook tests and the page benchmark (no engine needed)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from service.models import CheckReport, Explainer, ItemState, content_hash
from service.store import tables as t
from service.store.db import transaction

ROOT = Path(__file__).resolve().parent.parent
FLYDSL_POST = (
    ROOT / "tests/data/corpus/posts/pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"
)
FLYDSL_RECORDING = (
    ROOT / "eval/recordings/pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.json"
)
FLYDSL_URL = "https://pytorch.org/blog/accelerating-pytorch-on-amd-gpus-with-flydsl/"


def flydsl_explainer() -> Explainer:
    """The 003 seed explainer of the FlyDSL post, in the explainer JSON shape."""
    return Explainer.model_validate(json.loads(FLYDSL_RECORDING.read_text())["answer"])


def add_feed(
    sessions: sessionmaker[Session], url: str = "https://pytorch.org/blog/feed/", **kw: object
) -> int:
    with transaction(sessions) as s:
        feed = t.Feed(url=url, **kw)
        s.add(feed)
        s.flush()
        return feed.id


def add_item(
    sessions: sessionmaker[Session],
    feed_id: int | None,
    *,
    title: str,
    text: str,
    explainer: Explainer | None = None,
    report: CheckReport | None = None,
    state: ItemState = ItemState.PUBLISHED,
    link: str | None = None,
    key: str | None = None,
    author: str | None = None,
    published: datetime | None = None,
    model: str = "stub-model",
    prompt_version: str = "explain@1",
    engine: str = "llm",
    prompt_tokens: int = 1200,
    completion_tokens: int = 800,
    cost_usd: float = 0.00066,
) -> int:
    """An item in ``state`` and, when given, its explainer and check report."""
    now = datetime.now(UTC)
    digest = content_hash(text)
    with transaction(sessions) as s:
        item = t.Item(
            feed_id=feed_id,
            key=key or link or title,
            guid=key,
            link=link,
            title=title,
            author=author,
            published=published,
            content_hash=digest,
            text=text,
            state=state.value,
            published_at=now if state == ItemState.PUBLISHED else None,
            created_at=now,
            updated_at=now,
        )
        s.add(item)
        s.flush()
        if explainer is not None:
            s.add(
                t.Explainer(
                    item_id=item.id,
                    content_hash=digest,
                    prompt_version=prompt_version,
                    model=model,
                    engine=engine,
                    body=explainer.model_dump(mode="json"),
                    check=report.model_dump(mode="json") if report else None,
                    check_ok=report.ok if report else False,
                    prompt_tokens=prompt_tokens,
                    completion_tokens=completion_tokens,
                    llm_calls=1,
                    cost_usd=cost_usd,
                    created_at=now,
                )
            )
        return item.id
