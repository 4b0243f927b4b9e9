"""The guard asked before anything depending on a URL is recorded (fetch.check_url, a
WebSub hub's URL): it resolves the host to check its addresses, and ends within
PLAINFEED_FETCH_TIMEOUT however slowly the name is resolved, with an error saying so."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from service import cli, fetch
from service.config import get_settings
from service.errors import FetchError, FetchRefused
from tests.cli_helpers import plainfeed
from tests.conftest import make_settings
from tests.resolvers import SlowResolver

# A public address: check_url refuses a private one.
PUBLIC = "93.184.215.14"


@pytest.fixture
def slow() -> Iterator[SlowResolver]:
    resolver = SlowResolver(address=PUBLIC)
    yield resolver
    resolver.release.set()  # its thread, left to finish, ends with the test


def test_a_name_resolved_too_slowly_is_a_fetch_error_within_the_fetch_timeout(
    tmp_path: Path, slow: SlowResolver
) -> None:
    settings = make_settings(
        f"sqlite:///{tmp_path / 'r.db'}", fetch_timeout=0.5, allow_private_urls=False
    )
    began = time.monotonic()
    with pytest.raises(FetchError) as raised:
        fetch.check_url("https://hub.example/", settings, slow)
    assert time.monotonic() - began < 2  # not the 30 s the resolver takes
    assert slow.asked == ["hub.example"]
    assert not isinstance(raised.value, FetchRefused)  # the URL may be fine: try again
    assert raised.value.detail == (
        "resolving host 'hub.example' took longer than the time limit "
        "(PLAINFEED_FETCH_TIMEOUT=0.5s)"
    )
    assert fetch.transient(raised.value)


def test_a_name_resolved_within_the_fetch_timeout_is_checked(tmp_path: Path) -> None:
    settings = make_settings(
        f"sqlite:///{tmp_path / 'r.db'}", fetch_timeout=2.0, allow_private_urls=False
    )
    fetch.check_url("https://hub.example/", settings, SlowResolver(0.3, PUBLIC))
    inside = SlowResolver(0.3, "10.0.0.7")
    with pytest.raises(FetchRefused, match=r"hub\.example \(10\.0\.0\.7\)"):
        fetch.check_url("https://hub.example/", settings, inside)


def test_subscribe_to_a_hub_whose_name_does_not_resolve_in_time_says_so(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The command in this process, the system's resolver (getaddrinfo) slow for the
    # hub's name: it waited as long as the resolver did, and said nothing of why.
    assert plainfeed(tmp_path, "feeds", "add", "https://a.example/feed").returncode == 0
    release = threading.Event()
    real = socket.getaddrinfo

    def resolver(host: str, *args: object, **kw: object) -> object:
        if host == "hub.example":
            release.wait(30)
        return real(host, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    monkeypatch.setenv("PLAINFEED_DATABASE_URL", f"sqlite:///{tmp_path / 'cli.db'}")
    monkeypatch.setenv("PLAINFEED_FETCH_TIMEOUT", "0.5")
    monkeypatch.delenv("PLAINFEED_ALLOW_PRIVATE_URLS", raising=False)
    get_settings.cache_clear()
    began = time.monotonic()
    try:
        with pytest.raises(SystemExit) as exited:
            cli.main(["feeds", "subscribe", "1", "--hub", "https://hub.example/hub"])
    finally:
        release.set()
        get_settings.cache_clear()
    assert time.monotonic() - began < 10  # the database's migration, not the 30 s
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        "plainfeed: error: resolving host 'hub.example' took longer than the time limit "
        "(PLAINFEED_FETCH_TIMEOUT=0.5s)"
    )
