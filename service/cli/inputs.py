"""Input files of the commands, read with errors that name them."""

from __future__ import annotations

from pathlib import Path

from service.config import get_settings
from service.errors import InputError, NotFound, PayloadTooLarge


def read_input(path: Path, what: str) -> bytes:
    """The bytes of an input file; errors name the file. Files over the size cap that
    fetching uses (PLAINFEED_FETCH_MAX_BYTES) are refused: the check and the engines
    take minutes over tens of megabytes, and no post is that long."""
    if not path.exists():
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
