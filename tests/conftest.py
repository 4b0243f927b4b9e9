"""Shared fixtures: real SQLite and PostgreSQL databases, a real HTTP server on loopback.

PostgreSQL tests create their own database (``pf_test_<random>``) on the server at
``PLAINFEED_TEST_PG`` (default 127.0.0.1:5432, trust auth), so parallel runs never meet,
and drop it afterwards.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psycopg
import pytest
import uvicorn
from sqlalchemy import Connection, Engine, text

from service.api.protocol import http_protocol
from service.config import Settings
from service.store.db import make_engine, migrate
from tests.origin import Origin
from tests.receivers import Receiver

if TYPE_CHECKING:
    import httpx
    from fastapi.testclient import TestClient

    from tests.live import Service
    from tests.stub_llm import StubLLM

DATA = Path(__file__).parent / "data"
CORPUS = DATA / "corpus"
SEEDS = DATA / "seeds"
PYTORCH_FEED = CORPUS / "feeds" / "pytorch-blog-2026-09-02-397d8ac.xml"
PG_ADMIN = os.environ.get("PLAINFEED_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")


def _pg_available() -> bool:
    try:
        with psycopg.connect(PG_ADMIN, connect_timeout=3):
            return True
    except psycopg.Error:
        return False


@pytest.fixture(scope="session")
def pg_admin_url() -> str:
    if not _pg_available():
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is not reachable at {PG_ADMIN}")
        pytest.skip(f"PostgreSQL is not reachable at {PG_ADMIN}")
    return PG_ADMIN


def create_pg_database(admin_url: str) -> str:
    """Create a fresh database and return its SQLAlchemy URL."""
    name = f"pf_test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = admin_url.rsplit("/", 1)[0]
    return f"{base}/{name}".replace("postgresql://", "postgresql+psycopg://", 1)


def drop_pg_database(admin_url: str, url: str) -> None:
    name = url.rsplit("/", 1)[1]
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database URL: once on SQLite, once on PostgreSQL."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'plainfeed.db'}"
        return
    admin = request.getfixturevalue("pg_admin_url")
    url = create_pg_database(admin)
    try:
        yield url
    finally:
        drop_pg_database(admin, url)


@pytest.fixture
def pg_url(pg_admin_url: str) -> Iterator[str]:
    """A fresh PostgreSQL database only (for tests of concurrency across connections)."""
    url = create_pg_database(pg_admin_url)
    try:
        yield url
    finally:
        drop_pg_database(pg_admin_url, url)


@pytest.fixture
def db(db_url: str) -> Iterator[Engine]:
    engine = make_engine(db_url)
    migrate(engine)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture(autouse=True)
def no_heartbeat_left() -> Iterator[None]:
    """Every test closes the workers it made (``with Worker(...)``, a pool's shutdown): a
    worker's heartbeat thread left running outlived its test and its database, and logged
    "lease renewal failed" into the closed log capture ("--- Logging error ---")."""
    before = {th for th in threading.enumerate() if th.name == "heartbeat"}
    yield
    left = [th for th in threading.enumerate() if th.name == "heartbeat" and th not in before]
    for th in left:
        th.join(5)  # one ending as the test ends
    alive = [th for th in left if th.is_alive()]
    assert not alive, f"{len(alive)} worker heartbeat thread(s) left running: close the worker"


def free_port() -> int:
    """A port free now, for a child process to bind later (it may be taken meanwhile:
    start the child with tests.procs.on_a_free_port). A server in this process takes a
    :func:`loopback_socket` instead."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def loopback_socket() -> socket.socket:
    """A socket bound to a free loopback port, for a server in this process to listen on
    (``uvicorn.Server.run(sockets=[...])``): a port found free and bound again later could
    be taken in between, by another test's server or any process's outgoing connection."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))  # no SO_REUSEADDR: no other socket can bind it too
    return sock


def serve_on_loopback(app: object, protocol: type[Any], **options: Any) -> Iterator[int]:
    """Serve ``app`` with uvicorn in a thread through one of its HTTP protocol classes
    (and uvicorn's ``options``, e.g. timeout_keep_alive); yields the port once it
    listens, stops the server after (a generator for fixtures)."""
    sock = loopback_socket()
    port = int(sock.getsockname()[1])
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        http=protocol,
        log_level="warning",
        lifespan="on",
        **options,
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "server did not start"
        time.sleep(0.02)
    try:
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()  # closed by the server when it ran; not when it failed to start


def read_answer(s: socket.socket) -> tuple[str, dict[str, str], bytes]:
    """The status line, headers and body of the answer, read until the server closes."""
    data = b"".join(iter(lambda: s.recv(65536), b""))
    head, _, body = data.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return status, headers, body


def read_statuses(s: socket.socket) -> list[bytes]:
    """The status lines of every answer read until the server closes."""
    data = b"".join(iter(lambda: s.recv(65536), b""))
    # (An answer's status line follows the body before it with no line break.)
    return re.findall(rb"HTTP/1\.1 [1-5]\d\d [A-Za-z ]*", data)


def exchange(port: int, raw: bytes, timeout: float = 10) -> tuple[str, dict[str, str], bytes]:
    """Send ``raw`` at once; the status line, headers and body of the answer, read until
    the server closes (``timeout`` seconds at most for each read)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(raw)
        return read_answer(s)


def statuses(port: int, raw: bytes) -> list[bytes]:
    """The status lines of every answer to ``raw`` (sent at once), read to close."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(raw)
        return read_statuses(s)


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port nothing listens on, for the whole test: bound but not listening, so
    a connection is refused, and no server can take it meanwhile (as one could a port
    found free and let go: the test saw an answer where it expected a refusal)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield int(s.getsockname()[1])


@contextmanager
def taken_port() -> Iterator[int]:
    """A loopback port something else listens on, for as long as the block runs."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield int(s.getsockname()[1])


class LiveServer:
    """A uvicorn server in a thread on a free loopback port."""

    def __init__(self, app: object) -> None:
        self.sock = loopback_socket()
        self.port = int(self.sock.getsockname()[1])
        self.url = f"http://127.0.0.1:{self.port}"
        # The protocol `plainfeed serve` runs, so that tests see what clients see.
        config = uvicorn.Config(
            app,
            host="127.0.0.1",
            port=self.port,
            http=http_protocol(),
            log_level="warning",
            lifespan="on",
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True
        )

    def __enter__(self) -> LiveServer:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                self.__exit__()
                raise RuntimeError("server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)
        self.sock.close()  # closed by the server when it ran; not when it failed to start


@contextmanager
def api_client(settings: Settings, *, workers: int = 2, timeout: float = 30) -> Iterator[Any]:
    """An httpx client of the app served by a :class:`LiveServer` (``workers`` in-process
    workers; 0: the API alone)."""
    import httpx

    from service.api.app import create_app

    with (
        LiveServer(create_app(settings, workers=workers)) as live,
        httpx.Client(base_url=live.url, timeout=timeout) as client,
    ):
        yield client


def end_lock_waiters(conn: Connection) -> None:
    """End every session of the test database that waits on a lock (PostgreSQL): its
    connection gone mid-transaction, as in a failover or a pooler restart."""
    conn.execute(
        text(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
            "wait_event_type = 'Lock' AND datname = current_database()"
        )
    )


def waiting_on_a_lock(engine: Engine) -> bool:
    """Whether a session of the test database waits on a row or table lock (PostgreSQL):
    the point a test holding that lock knows its other request is blocked on it."""
    with engine.connect() as c:
        return bool(
            c.scalar(
                text(
                    "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = "
                    "'Lock' AND datname = current_database()"
                )
            )
        )


def make_settings(db_url: str, **kw: object) -> Settings:
    base: dict[str, object] = {
        "database_url": db_url,
        "engine": "extractive",
        "openai_api_key": None,
        "openai_base_url": None,
        "poll_interval": 0.05,
        "backoff_base": 0.05,
        "backoff_max": 1.0,
        "outbound_backoff_base": 0.05,
        "outbound_backoff_max": 1.0,
        "lease_seconds": 10.0,
        "allow_private_urls": True,
    }
    base.update(kw)
    for prefix in ("", "outbound_"):
        # The 1 s cap above keeps retries quick; a test that sets a long base delay to
        # mean "not retried here" must lift the cap too, or it is retried within a second.
        low, cap = base[f"{prefix}backoff_base"], base[f"{prefix}backoff_max"]
        assert isinstance(low, float | int) and isinstance(cap, float | int)
        if low > cap:
            raise ValueError(f"{prefix}backoff_base {low} over {prefix}backoff_max {cap}: set both")
    return Settings(_env_file=None, **base)  # type: ignore[call-arg]


def llm_settings(db_url: str, stub_url: str, **kw: object) -> Settings:
    """:func:`make_settings` with the llm engine aimed at the stub model server."""
    base: dict[str, object] = {
        "engine": "llm",
        "openai_base_url": stub_url,
        "openai_api_key": "test-key",
        "model": "stub-model",
    }
    return make_settings(db_url, **(base | kw))


@pytest.fixture
def origin() -> Iterator[Origin]:
    """A loopback HTTP server serving what a test routes to it (feeds, pages, hubs)."""
    with Origin() as o:
        yield o


@pytest.fixture
def stub() -> Iterator[StubLLM]:
    """A stub LLM server on a free loopback port (tests.stub_llm), for the engine's tests."""
    from tests.stub_llm import StubLLM

    with StubLLM() as server:
        yield server


@pytest.fixture
def svc(db_url: str) -> Iterator[Service]:
    """The app with two in-process workers on a loopback port, on each database."""
    from tests.live import running

    with running(make_settings(db_url)) as s:
        yield s


@pytest.fixture
def engine_for() -> Iterator[Any]:
    """Engines made (and migrated) on the URLs a test asks for, disposed of at its end
    (the durability tests, test_durability_*.py)."""
    engines: list[Engine] = []

    def make(url: str) -> Engine:
        engine = make_engine(url)
        migrate(engine)
        engines.append(engine)
        return engine

    yield make
    for engine in engines:
        engine.dispose()


@pytest.fixture
def settings(db_url: str) -> Settings:
    return make_settings(db_url)


@pytest.fixture
def server(settings: Settings) -> Iterator[httpx.Client]:
    """The app with two in-process workers on a loopback port, on each database, and an
    HTTP client for it (the tests of the API, test_api_*.py); test modules with a
    ``server`` fixture of their own use theirs."""
    with api_client(settings) as client:
        yield client


# The API token of the outbound webhook tests' app (the ``client`` fixture).
OUTBOUND_TOKEN = "outbound-test-token"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A subscriber's endpoint on loopback that records what it is sent."""
    with Receiver() as r:
        yield r


@pytest.fixture
def client(db_url: str) -> Iterator[TestClient]:
    """The app of the outbound webhook tests (test_outbound_*.py), with no workers (the
    tests run the sender themselves), on each database; test modules with a ``client``
    fixture of their own use theirs."""
    from fastapi.testclient import TestClient

    from service.api.app import create_app

    settings = make_settings(
        db_url, api_token=OUTBOUND_TOKEN, max_attempts=3, outbound_max_attempts=3
    )
    with TestClient(create_app(settings, workers=0)) as c:
        yield c


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.05):  # type: ignore[no-untyped-def]
    """Poll until ``predicate()`` is truthy; return its value or fail the test."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {predicate}")
        time.sleep(interval)


def explain_pending(ctx: Any, title: str, text: str, timeout: float = 60) -> tuple[int, str]:
    """Add one pending item for the app's in-process workers, wait until it is published
    or held for review, and return its id and state."""
    from service.models import ItemState
    from service.store import tables as t
    from tests.seed_db import add_feed, add_item

    iid = add_item(
        ctx.sessions, add_feed(ctx.sessions), title=title, text=text, state=ItemState.PENDING
    )
    ctx.notify()

    def settled() -> str | None:
        with ctx.sessions() as s:
            state = str(s.get(t.Item, iid).state)
            return state if state in ("published", "needs_review") else None

    return iid, str(wait_for(settled, timeout=timeout))
