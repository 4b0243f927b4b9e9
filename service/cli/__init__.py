"""The ``plainfeed`` command line. Each command group lives in its own module and
registers itself on the app; modules only call the pipeline and the pure steps."""

from __future__ import annotations

import sys

import typer

from service.errors import PlainfeedError

from . import check, eval, explain, feeds, items, serve

app = typer.Typer(
    name="plainfeed",
    help="Plain-language explainers of technical feed posts, with every number checked.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

for _module in (serve, explain, check, eval, feeds, items):
    _module.register(app)


def main() -> None:
    """Console-script entry point: expected errors become a message and exit status 2."""
    try:
        app()
    except PlainfeedError as exc:
        typer.echo(f"plainfeed: error: {exc.detail}", err=True)
        sys.exit(2)
