"""``plainfeed items list|show|retry``: items in the configured database.

Output is for pipes: plain text on stdout (tab-separated rows, or JSON), no colour,
no progress; messages go to stderr.
"""

from __future__ import annotations

import json
from enum import StrEnum
from typing import Annotated, Any

import typer
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from service import render
from service.cli.feeds import AN_ID, ID_MAX, sessions
from service.cli.inputs import whole_option
from service.errors import Conflict, InputError, NotFound
from service.models import Explainer, ItemState
from service.pipeline import latest_explainer
from service.store import tables as t
from service.store.records import article_of, report_of, result_of

items_app = typer.Typer(help="Items and their explainers.", no_args_is_help=True)


class ShowFormat(StrEnum):
    md = "md"
    text = "text"
    html = "html"
    json = "json"


def register(app: typer.Typer) -> None:
    app.add_typer(items_app, name="items")


def one_line(value: str | None) -> str:
    """A field of a tab-separated row: no tabs, newlines or other control characters."""
    return " ".join("".join(c if c.isprintable() else " " for c in (value or "")).split())


def _row(i: t.Item) -> dict[str, Any]:
    return {
        "id": i.id,
        "state": i.state,
        "feed_id": i.feed_id,
        "published": i.published.isoformat() if i.published else None,
        "title": i.title,
        "link": i.link,
        "last_error": i.last_error,
    }


def _feed_exists(s: Session, feed: int | None) -> None:
    """A --feed that names no feed is an error: filtered by it, the command found nothing
    and said so as for a feed with no such items (a mistyped id looked like an empty
    feed)."""
    if feed is not None and s.get(t.Feed, feed) is None:
        raise NotFound(f"no feed with id {feed}")


@items_app.command("list")
def list_(
    state: Annotated[ItemState | None, typer.Option(help="Only items in this state")] = None,
    feed: Annotated[int | None, whole_option(1, ID_MAX, help="Feed id")] = None,
    search: Annotated[str | None, typer.Option("--search", "-q", help="Title contains")] = None,
    # No table holds more rows than ids; a larger limit reached the driver (OverflowError).
    limit: Annotated[int, whole_option(1, ID_MAX)] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per line")] = False,
) -> None:
    """Items, newest first: id, state, title (tab-separated), or JSON lines."""
    if search is not None and len(search) > t.TITLE_QUERY_MAX:
        # As GET /items?q= refuses it (422): the same search answers the same here.
        raise InputError(
            f"--search/-q has at most {t.TITLE_QUERY_MAX} characters, as GET /items?q=; "
            f"this one has {len(search)}"
        )
    q = select(t.Item).order_by(*t.ITEMS_NEWEST_FIRST).limit(limit)
    if state:
        q = q.where(t.Item.state == state.value)
    if feed is not None:
        q = q.where(t.Item.feed_id == feed)
    if search:
        q = q.where(func.lower(t.Item.title).contains(search.lower(), autoescape=True))
    with sessions()() as s:
        _feed_exists(s, feed)
        for i in s.scalars(q):
            if as_json:
                typer.echo(json.dumps(_row(i), ensure_ascii=False))
            else:
                typer.echo(f"{i.id}\t{i.state}\t{one_line(i.title)}")


@items_app.command("show")
def show(
    item_id: Annotated[int, typer.Argument(parser=AN_ID)],
    format: Annotated[ShowFormat, typer.Option("--format", "-f")] = ShowFormat.md,
) -> None:
    """An item's explainer; exit status 1 (and the state on stderr) when it has none."""
    with sessions()() as s:
        item = s.get(t.Item, item_id)
        if item is None:
            raise NotFound(f"no item with id {item_id}")
        ex = latest_explainer(s, item)
        if ex is None:
            typer.echo(
                f"item {item.id} is {item.state}"
                + (f": {one_line(item.last_error)}" if item.last_error else "")
                + " (no explainer yet)",
                err=True,
            )
            raise typer.Exit(1)
        explainer = Explainer.model_validate(ex.body)
        if format is ShowFormat.json:
            doc = render.document(result_of(ex), report_of(ex), article_of(item))
            body = {**_row(item), **doc}
            typer.echo(json.dumps(body, indent=2, ensure_ascii=False))
        else:
            write = {
                ShowFormat.html: render.to_html,
                ShowFormat.text: render.to_text,
                ShowFormat.md: render.to_markdown,
            }[format]
            out = write(explainer)
            typer.echo(out, nl=not out.endswith("\n"))


@items_app.command("retry")
def retry(
    item_id: Annotated[
        int | None, typer.Argument(parser=AN_ID, help="The item (or give --state)")
    ] = None,
    state: Annotated[
        ItemState | None,
        typer.Option(help="Every item in this state instead (failed, after an outage)"),
    ] = None,
    feed: Annotated[
        int | None, whole_option(1, ID_MAX, help="With --state: of this feed only")
    ] = None,
) -> None:
    """Re-queue an item (in any state but processing), or every item in a --state.

    The item starts again with fresh attempts. A failed or needs-review item is explained
    anew; a published one is published again; a skipped one (an older entry of a feed's
    first delivery) is explained.
    """
    from service.config import get_settings
    from service.engines import get_engine
    from service.pipeline import Pipeline

    if feed is not None and state is None:
        raise InputError("--feed goes with --state")
    if item_id is None and state is None:
        raise InputError("give an item id or --state")
    if item_id is not None and state is not None:
        raise InputError("give an item id or --state, not both")
    if state is not None and state in (ItemState.PROCESSING, ItemState.PENDING):
        raise InputError(f"{state.value} items are queued already")
    sm = sessions()
    with sm() as s:
        if item_id is not None:
            if s.get(t.Item, item_id) is None:
                raise NotFound(f"no item with id {item_id}")
            ids = [item_id]
        else:
            assert state is not None
            _feed_exists(s, feed)
            sel = select(t.Item.id).where(t.Item.state == state.value)
            if feed is not None:
                sel = sel.where(t.Item.feed_id == feed)
            ids = list(s.scalars(sel.order_by(t.Item.id)))
    pipeline = Pipeline(get_settings(), sm, get_engine(get_settings()))
    done = 0
    for i in ids:
        try:
            pipeline.retry(i)
        except Conflict as exc:  # a worker took it meanwhile: not this command's to redo
            if item_id is not None:
                raise
            typer.echo(f"item {i}: {exc.detail}", err=True)
            continue
        done += 1
    if item_id is not None:
        typer.echo(f"item {item_id} re-queued", err=True)
    else:
        typer.echo(f"{done} item{'' if done == 1 else 's'} re-queued", err=True)
