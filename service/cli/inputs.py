"""Input files of the commands, read with errors that name them."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer

from service.config import get_settings
from service.errors import InputError, NotFound, PayloadTooLarge


def read_input(path: Path, what: str) -> bytes:
    """The bytes of an input file; errors name the file. Files over the size cap that
    fetching uses (PLAINFEED_FETCH_MAX_BYTES) are refused: the check and the engines
    take minutes over tens of megabytes, and no post is that long."""
    if not path.exists():
        if str(path) == "-":  # was "file not found: -", as if a file were looked for
            raise InputError(f"{what}: standard input ('-') is not read; give a file path")
        raise NotFound(f"{what} file not found: {path}")
    if not path.is_file():
        raise InputError(f"{what} is not a file: {path}")
    cap = get_settings().fetch_max_bytes
    try:
        size = path.stat().st_size
        if size <= cap:
            return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {what} file {path}: {exc.strerror or exc}") from exc
    raise PayloadTooLarge(
        f"{what} file {path} is {size:,} bytes, over the {cap:,}-byte cap "
        "(PLAINFEED_FETCH_MAX_BYTES)"
    )


def whole(low: int, high: int) -> Callable[[str | int], int]:
    """The parser of a whole-number argument or option (an id, a limit, a port) within
    ``low``..``high``: written in the digits 0-9 alone. Typer reads an int as pydantic
    does, so "items show ' 12'" showed item 12, "--feed 1_0" filtered by feed 10 and
    "--limit +5" listed 5: a typo taken for a value. (A parser replaces Typer's min and
    max: the range is checked here.)"""

    def parse(raw: str | int) -> int:
        if isinstance(raw, int):  # the default, as declared
            return raw
        shown = raw if len(raw) <= 40 else raw[:40] + "..."
        if not (raw.isascii() and raw.isdigit()):
            raise typer.BadParameter(
                f"{shown!r} is not a whole number written in the digits 0-9 alone"
                " (no space, sign, point or _)"
            )
        # Compared as text past the widest bound: int() of thousands of digits is refused
        # (sys.set_int_max_str_digits) with a ValueError of its own, leading zeros too.
        digits = raw.lstrip("0") or "0"
        value = int(digits) if len(digits) <= len(str(high)) else high + 1
        if not low <= value <= high:
            raise typer.BadParameter(f"{shown} is not in the range {low} to {high}")
        return value

    return parse


def whole_option(low: int, high: int, *names: str, **kw: Any) -> Any:
    """A ``typer.Option`` of a whole number within ``low``..``high`` (``whole``), its
    range in its help as Typer's min and max showed it."""
    return typer.Option(*names, parser=whole(low, high), metavar=f"[{low}<=x<={high}]", **kw)
