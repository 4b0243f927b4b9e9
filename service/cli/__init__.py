"""The ``plainfeed`` command line. Each command group lives in its own module and
registers itself on the app; modules only call the pipeline and the pure steps.

A command's module is imported only when that command runs: the modules together pull
in the web stack, the database layer and the model client (over a second of imports),
while ``plainfeed check`` needs none of them. ``plainfeed --help`` loads them all.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence
from typing import Any

import typer

from service.errors import PlainfeedError

# Command (or group) -> the module that registers it, in the order help lists them.
_MODULES = {
    "serve": "serve",
    "worker": "serve",
    "demo": "serve",
    "explain": "explain",
    "check": "check",
    "eval": "eval",
    "feeds": "feeds",
    "items": "items",
    "deliveries": "deliveries",
    "prune": "prune",
}


def _group() -> None:
    pass


def build_app(command: str | None = None) -> typer.Typer:
    """The app with ``command``'s module registered, or every module's (no command, an
    unknown one, or an option such as ``--help``)."""
    app = typer.Typer(
        name="plainfeed",
        help="Plain-language explainers of technical feed posts, with every number checked.",
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        add_completion=False,
    )
    # A callback keeps the app a group: Typer runs a lone command as the app itself, which
    # would make ``plainfeed check ...`` read "check" as an extra argument.
    app.callback()(_group)
    wanted = [_MODULES[command]] if command in _MODULES else list(dict.fromkeys(_MODULES.values()))
    for name in wanted:
        importlib.import_module(f"{__name__}.{name}").register(app)
    return app


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole app, for tests and tools that drive it in-process
        return build_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: Sequence[str] | None = None) -> None:
    """Console-script entry point: expected errors become a message and exit status 2,
    Ctrl-C exit status 130."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        build_app(args[0] if args else None)(args)
    except PlainfeedError as exc:
        typer.echo(f"plainfeed: error: {exc.detail}", err=True)
        sys.exit(2)
    except OSError as exc:
        if exc.filename is None:  # a socket, a pipe: not a path the user gave
            raise
        # A path the system refuses before any file is opened (a name longer than it
        # allows): pathlib's exists() and is_file() raise it rather than answer no, in
        # every command that takes a path. The user's input, so bad input: exit 2.
        typer.echo(f"plainfeed: error: {exc.filename}: {exc.strerror or exc}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        # Ctrl-C while the command's modules import (seconds on a busy machine), before
        # click runs it and turns Ctrl-C into exit 130 itself: the same, not a traceback.
        sys.exit(130)
