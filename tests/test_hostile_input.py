"""Hostile input to the API, over real HTTP on loopback: a clear problem within seconds,
never a hang or a generic error that does not say what is wrong."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import api_client, make_settings


@pytest.fixture
def server(tmp_path: Path) -> Iterator[httpx.Client]:
    # SQLite alone: what is tested here is read before any row is written.
    settings = make_settings(f"sqlite:///{tmp_path / 'hostile.db'}")
    with api_client(settings, workers=0, timeout=60) as client:
        yield client


@pytest.mark.parametrize(
    "text",
    [
        ">" * 100_000,  # a Markdown quote nested past reason
        "a/" * 50_000,  # a path with no digit in it
    ],
)
def test_a_long_run_without_spaces_or_digits_is_explained_at_once(
    server: httpx.Client, text: str
) -> None:
    # The extractive engine looked for its figures with a pattern that tried every start
    # of such a run (minutes of CPU for 100 KB, a worker or request thread held that long).
    started = time.monotonic()
    r = server.post("/explain", json={"markdown": text + " It is 1.5x faster than before."})
    assert r.status_code == 200, r.text
    assert time.monotonic() - started < 10
    assert {n["status"] for n in r.json()["check"]["numbers"]} == {"supported"}
