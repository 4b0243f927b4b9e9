"""``plainfeed prune``: drop what the database keeps of finished work past its time
(``service.retention``); workers do the same once an hour on their own."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from service import retention
from service.cli.feeds import sessions
from service.config import get_settings
from service.errors import InputError


def register(app: typer.Typer) -> None:
    app.command("prune")(prune)


def prune(
    older_than: Annotated[
        float | None,
        typer.Option(
            "--older-than",
            help="Days (default PLAINFEED_RETENTION_DAYS); finished work older than this goes",
            min=0,
            max=36_500,
        ),
    ] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Count, change nothing")] = False,
) -> None:
    """Drop finished work older than the retention period; prints what went.

    The raw bodies of finished deliveries go, the finished outbound deliveries and the
    explain claims dead workers left; items, explainers and their checks are never pruned."""
    days = get_settings().retention_days if older_than is None else older_than
    if not days and older_than is None:
        raise InputError("PLAINFEED_RETENTION_DAYS is 0 (keep for ever): give --older-than DAYS")
    made = sessions()
    if dry_run:
        with made() as s:
            done = retention.count(s, retention.cutoff(datetime.now(UTC), days))
    else:
        done, _ = retention.prune(made, days)
    verb = "would prune" if dry_run else "pruned"
    typer.echo(
        f"{verb} {done.delivery_bodies} delivery bodies, {done.outbound_deliveries}"
        f" outbound deliveries and {done.explain_claims} dead explain claims"
        f" older than {days:g} days"
    )
