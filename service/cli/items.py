"""``plainfeed items list|show|retry``: items in the configured database."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from sqlalchemy import select

from service import render
from service.cli.feeds import sessions
from service.errors import NotFound
from service.models import Explainer, ItemState
from service.pipeline import latest_explainer
from service.store import tables as t
from service.store.db import transaction

items_app = typer.Typer(help="Items and their explainers.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(items_app, name="items")


@items_app.command("list")
def list_(
    state: Annotated[ItemState | None, typer.Option()] = None,
    feed: Annotated[int | None, typer.Option(help="Feed id")] = None,
    limit: Annotated[int, typer.Option(min=1)] = 50,
) -> None:
    """Items, newest first: id, state, title (tab-separated, pipes cleanly)."""
    q = select(t.Item).order_by(t.Item.id.desc()).limit(limit)
    if state:
        q = q.where(t.Item.state == state.value)
    if feed is not None:
        q = q.where(t.Item.feed_id == feed)
    with sessions()() as s:
        for i in s.scalars(q):
            typer.echo(f"{i.id}\t{i.state}\t{i.title}")


@items_app.command("show")
def show(
    item_id: int,
    format: Annotated[str, typer.Option("--format", "-f", help="md, text, html or json")] = "md",
) -> None:
    """An item's explainer (or its state and error when it has none)."""

    with sessions()() as s:
        item = s.get(t.Item, item_id)
        if item is None:
            raise NotFound(f"no item with id {item_id}")
        ex = latest_explainer(s, item)
        if ex is None:
            typer.echo(
                f"item {item.id} is {item.state}"
                + (f": {item.last_error}" if item.last_error else "")
            )
            raise typer.Exit(1)
        explainer = Explainer.model_validate(ex.body)
        if format == "json":
            typer.echo(
                json.dumps(
                    {"state": item.state, **explainer.model_dump(mode="json"), "check": ex.check},
                    indent=2,
                    ensure_ascii=False,
                )
            )
        elif format == "html":
            typer.echo(render.to_html(explainer))
        elif format == "text":
            typer.echo(render.to_text(explainer))
        else:
            typer.echo(render.to_markdown(explainer))


@items_app.command("retry")
def retry(item_id: int) -> None:
    """Re-queue a failed or needs-review item."""
    from service.config import get_settings
    from service.engines import get_engine
    from service.pipeline import Pipeline

    sm = sessions()
    with transaction(sm) as s:
        if s.get(t.Item, item_id) is None:
            raise NotFound(f"no item with id {item_id}")
    Pipeline(get_settings(), sm, get_engine(get_settings())).retry(item_id)
    typer.echo(f"item {item_id} re-queued")
