"""``plainfeed feeds add|list``: feeds in the configured database."""

from __future__ import annotations

from typing import Annotated

import typer
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from service.config import get_settings
from service.errors import Conflict, InputError
from service.store import tables as t
from service.store.db import make_engine, make_sessionmaker, migrate, transaction

feeds_app = typer.Typer(help="Registered feeds.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(feeds_app, name="feeds")


def sessions() -> sessionmaker[Session]:
    """Sessions on the configured database, migrated to the newest schema."""
    db = make_engine(get_settings().database_url)
    migrate(db)
    return make_sessionmaker(db)


@feeds_app.command("add")
def add(
    url: Annotated[str, typer.Argument(help="The feed's URL")],
    name: Annotated[str | None, typer.Option()] = None,
    secret: Annotated[str | None, typer.Option(help="Webhook signing secret")] = None,
    audience: Annotated[str | None, typer.Option()] = None,
    language: Annotated[str | None, typer.Option()] = None,
) -> None:
    """Register a feed; prints its id."""
    if not url.startswith(("http://", "https://")):
        raise InputError(f"not an http(s) URL: {url}")
    try:
        with transaction(sessions()) as s:
            feed = t.Feed(url=url, name=name, secret=secret, audience=audience, language=language)
            s.add(feed)
            s.flush()
            typer.echo(feed.id)
    except IntegrityError as exc:
        raise Conflict(f"a feed with url {url} is already registered") from exc


@feeds_app.command("list")
def list_() -> None:
    """Registered feeds, one per line: id, url, name (tab-separated)."""
    with sessions()() as s:
        for f in s.scalars(select(t.Feed).order_by(t.Feed.id)):
            typer.echo(f"{f.id}\t{f.url}\t{f.name or f.title or ''}")
