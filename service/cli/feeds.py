"""Placeholder: this command group is registered by its own issue's work."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    return None
