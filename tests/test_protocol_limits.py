"""The request head's limits as settings (PLAINFEED_MAX_HEAD_BYTES, PLAINFEED_HEAD_TIMEOUT):
raw bytes to a real server on loopback (and `plainfeed serve` as a process)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from service.api.app import create_app
from service.api.protocol import (
    MAX_HEAD_BYTES,
    ProblemH11Protocol,
    ProblemHttpToolsProtocol,
    bounded,
    http_protocol,
)
from service.config import Settings
from tests.conftest import make_settings, read_answer, serve_on_loopback
from tests.procs import READY, on_a_free_port, plainfeed, plainfeed_env, wait_ready

SMALL = 8 * 1024  # a cap under the default's 64 KiB


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    """One database: what is tested is the HTTP protocol, not the store."""
    return make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}")


def _head(size: int, end: bytes = b"\r\n\r\n", path: bytes = b"/healthz") -> bytes:
    return b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nX-Big: " + b"y" * size + end


@pytest.fixture(params=["httptools", "h11"])
def small_port(request: pytest.FixtureRequest, settings: Settings) -> Iterator[int]:
    """A server given PLAINFEED_MAX_HEAD_BYTES 8 KiB and PLAINFEED_HEAD_TIMEOUT 0.5 s."""
    limited = settings.model_copy(update={"max_head_bytes": SMALL, "head_timeout": 0.5})
    protocol = http_protocol(limited)
    if request.param == "h11":
        protocol = bounded(ProblemH11Protocol, SMALL, 0.5)
    yield from serve_on_loopback(create_app(limited, workers=0), protocol)


def test_the_settings_bound_the_head_in_size_and_time(small_port: int) -> None:
    with socket.create_connection(("127.0.0.1", small_port), timeout=10) as s:
        s.sendall(_head(SMALL - 1024, b"\r\nConnection: close\r\n\r\n"))
        assert read_answer(s)[0].startswith("HTTP/1.1 200")  # under the cap: served
    with socket.create_connection(("127.0.0.1", small_port), timeout=10) as s:
        s.sendall(_head(SMALL + 1024))  # under the default cap, over this one
        status, _, body = read_answer(s)
    assert status.startswith("HTTP/1.1 431") or status.startswith("HTTP/1.1 400"), status
    if status.startswith("HTTP/1.1 431"):  # (h11 refuses a head that came in pieces, 400)
        assert f"over {SMALL} bytes (PLAINFEED_MAX_HEAD_BYTES)" in json.loads(body)["detail"]
    with socket.create_connection(("127.0.0.1", small_port), timeout=10) as s:
        s.sendall(b"GET /healthz HTTP/1.1\r\n")  # and nothing more: the clock runs out
        status, _, body = read_answer(s)
    assert status.startswith("HTTP/1.1 408"), status
    assert "within 0.5 seconds (PLAINFEED_HEAD_TIMEOUT)" in json.loads(body)["detail"]


def test_without_settings_the_protocol_keeps_the_defaults() -> None:
    assert http_protocol() is ProblemHttpToolsProtocol
    assert (ProblemHttpToolsProtocol.max_head_bytes, ProblemHttpToolsProtocol.head_seconds) == (
        MAX_HEAD_BYTES,
        30.0,
    )


@pytest.mark.slow
def test_plainfeed_serve_takes_the_head_cap_from_its_setting(tmp_path: Path) -> None:
    env = plainfeed_env(f"sqlite:///{tmp_path / 'plainfeed.db'}", max_head_bytes=SMALL)

    def serve_on(port: int) -> Any:
        return plainfeed("serve", tmp_path, env, "--port", str(port), "--workers", "0")

    with on_a_free_port(serve_on, READY) as (server, port):
        wait_ready(server, f"http://127.0.0.1:{port}")
        with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
            s.sendall(_head(SMALL + 1024))
            status, _, _ = read_answer(s)
    assert status.startswith("HTTP/1.1 431"), status
