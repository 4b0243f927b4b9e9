"""The ``plainfeed`` command line. Each command group lives in its own module and
registers itself on the app; modules only call the pipeline and the pure steps.

A command's module is imported only when that command runs: the modules together pull
in the web stack, the database layer and the model client (over a second of imports),
while ``plainfeed check`` needs none of them. ``plainfeed --help`` loads them all.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
from collections.abc import Sequence
from typing import Any

import typer

from service.errors import PlainfeedError

# What a write gives when the disk under it is full: only writes give these (a read's or a
# socket's errors are others), and the commands' own files name themselves first.
_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})

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
    if sys.stdout is None:
        # Started with stdout closed (">&-"): click's echo drops every line unsaid (a
        # feed's new id, an explainer already paid for) and explain failed on it with an
        # AttributeError. Refused before any work, as ls and cat refuse.
        typer.echo(
            "plainfeed: error: standard output is closed; redirect it (>/dev/null to discard)",
            err=True,
        )
        sys.exit(2)
    try:
        try:
            build_app(args[0] if args else None)(args)
        except SystemExit:
            # What is still buffered fails here, where it is reported, not at exit.
            sys.stdout.flush()
            raise
    except PlainfeedError as exc:
        typer.echo(f"plainfeed: error: {exc.detail}", err=True)
        sys.exit(2)
    except BrokenPipeError:
        # The reader of stdout gone while what it still held was flushed (click answers
        # a closed pipe during the command itself): exit 1 as click does, no traceback,
        # and no "Exception ignored" from the flush at exit.
        _quiet_stdout()
        sys.exit(1)
    except OSError as exc:
        if exc.filename is None and exc.errno in _FULL:
            # A full disk (or /dev/full) behind ">out": a traceback, and exit status 1
            # (check's "a number is unsupported"), said nothing of the output lost. Files
            # the commands write themselves (eval --json) are named where they are written.
            typer.echo(
                f"plainfeed: error: cannot write the output: {exc.strerror or exc}", err=True
            )
            _quiet_stdout()
            sys.exit(2)
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


def _quiet_stdout() -> None:
    """stdout pointed at /dev/null: what it still holds would fail again at exit, the
    error printed once more ("Exception ignored")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
