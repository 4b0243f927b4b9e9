"""``plainfeed deliveries retry``: process a finished delivery again.

Messages go to stderr; nothing on stdout.
"""

from __future__ import annotations

from typing import Annotated

import typer

from service.cli.feeds import AN_ID, sessions

deliveries_app = typer.Typer(help="Webhook deliveries.", no_args_is_help=True)


def register(app: typer.Typer) -> None:
    app.add_typer(deliveries_app, name="deliveries")


@deliveries_app.command("retry")
def retry(
    delivery_id: Annotated[int, typer.Argument(parser=AN_ID)],
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Apply its version however dated (a publisher's rollback refused as "
            "older); its problems name what it applied over newer versions",
        ),
    ] = False,
) -> None:
    """Re-queue a processed or failed delivery: its document is processed again (a fetch
    of its feed when it carried none, or its body was pruned). A running worker takes it."""
    from service.config import get_settings
    from service.engines import get_engine
    from service.pipeline import Pipeline

    settings = get_settings()
    Pipeline(settings, sessions(), get_engine(settings)).retry_delivery(delivery_id, force=force)
    typer.echo(f"delivery {delivery_id} re-queued{' (forced)' if force else ''}", err=True)
