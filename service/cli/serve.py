"""``plainfeed serve``, ``plainfeed worker`` and ``plainfeed demo``."""

from __future__ import annotations

import json
import logging
import signal
import socket
import threading
import time
import urllib.error
import urllib.request
from importlib.resources import files
from typing import Annotated, Any, Literal

import typer

from service.cli.inputs import whole_option
from service.config import MAX_WORKERS, Settings, get_settings
from service.engines import require_endpoint
from service.errors import ConfigError
from service.logsetup import setup_logging

log = logging.getLogger(__name__)


def register(app: typer.Typer) -> None:
    app.command()(serve)
    app.command()(worker)
    app.command()(demo)


def _check_database(url: str) -> None:
    """Fail before serving when the database URL is unusable or the database does not
    answer: inside uvicorn's start-up the error would be a logged traceback and exit 3."""
    from service.store.db import make_engine, ping

    db = make_engine(url)
    try:
        ping(db)
    finally:
        db.dispose()


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound before anything starts: a port in use or an address
    that is not this machine's is a message and exit 2, not a log line from inside
    uvicorn after the workers have begun to claim jobs (exit 3)."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
        sock = socket.socket(family, kind, proto)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)
        except OSError:
            sock.close()
            raise
    except OSError as exc:  # socket.gaierror included: a host that does not resolve
        raise ConfigError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from exc
    sock.set_inheritable(True)
    return sock


def _url(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def _served_at(settings: Settings, sock: socket.socket) -> Settings:
    """The settings with ``public_url`` the address served when it is not set: its
    default names port 8000, and every Atom link and the WebSub callback of a server on
    another port pointed at a port where nothing (or something else) listens."""
    if "public_url" in settings.model_fields_set:
        return settings
    host, port = sock.getsockname()[:2]
    # An address of every interface is no address to reach: this machine's loopback is,
    # as the default's 127.0.0.1 was.
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
    url = f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"
    served = settings.model_copy(update={"public_url": url})
    # Not the operator's choice: pagination links keep the request's host rather than
    # this loopback address (service.api.params.Page.of).
    served.model_fields_set.discard("public_url")
    return served


def serve(
    host: Annotated[str, typer.Option(help="Address to bind")] = "127.0.0.1",
    port: Annotated[int, whole_option(0, 65535, help="Port to bind")] = 8000,
    workers: Annotated[
        int | None,
        whole_option(0, MAX_WORKERS, help="In-process workers (default PLAINFEED_CONCURRENCY)"),
    ] = None,
) -> None:
    """Run the HTTP API with in-process workers."""
    import uvicorn

    from service.api.app import create_app
    from service.api.protocol import http_protocol

    settings = get_settings()
    require_endpoint(settings)
    _check_database(settings.database_url)
    sock = _bind(host, port)
    settings = _served_at(settings, sock)
    setup_logging(settings.log_format, settings.log_level)
    # uvicorn given a socket names no address of its own: this line is the one place an
    # operator (or a supervisor, with --port 0) reads which port was bound.
    log.info("serving on %s", _url(sock))
    config = uvicorn.Config(
        create_app(settings, workers=workers),
        http=http_protocol(settings),
        log_config=None,
        timeout_graceful_shutdown=int(settings.shutdown_grace),
    )
    uvicorn.Server(config).run(sockets=[sock])


def worker(
    concurrency: Annotated[
        int | None,
        whole_option(1, MAX_WORKERS, help="Worker threads (default PLAINFEED_CONCURRENCY)"),
    ] = None,
    metrics_port: Annotated[
        int | None,
        whole_option(
            0,
            65535,
            help="Serve this process's Prometheus metrics on this port "
            "(default PLAINFEED_WORKER_METRICS_PORT; 0: off)",
        ),
    ] = None,
) -> None:
    """Run workers alone (no API), e.g. on other machines sharing one PostgreSQL."""
    from service.api.app import build_context

    settings = get_settings()
    require_endpoint(settings)
    threads = settings.concurrency if concurrency is None else concurrency
    if threads < 1:
        # PLAINFEED_CONCURRENCY=0 is serve's "API only"; a worker without threads would
        # sit idle for ever.
        raise ConfigError(
            "plainfeed worker needs at least one thread: PLAINFEED_CONCURRENCY is 0; "
            "give --concurrency N"
        )
    setup_logging(settings.log_format, settings.log_level)
    port = metrics_port if metrics_port is not None else settings.worker_metrics_port
    # 0 is "off", not "any free port": a scraper cannot find a port picked at random, and
    # `--metrics-port 0` must be able to switch off a port set in the environment.
    if port:
        # The counters of items explained, tokens and check times live in the process
        # that did the work: a worker without the API has to serve its own.
        from prometheus_client import start_http_server

        try:
            server, _ = start_http_server(port, addr=settings.worker_metrics_host)
        except OSError as exc:
            typer.echo(f"plainfeed worker: cannot serve metrics on port {port}: {exc}", err=True)
            raise typer.Exit(2) from exc
        # Through the log, so that PLAINFEED_LOG_FORMAT=json keeps every line JSON.
        log.info(
            "plainfeed worker: metrics on http://%s:%s/metrics",
            settings.worker_metrics_host,
            server.server_port,
        )
    ctx = build_context(settings, workers=threads)
    assert ctx.pool is not None
    stop = threading.Event()

    def _term(signum: int, _frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _term)
    signal.signal(signal.SIGINT, _term)
    ctx.pool.start()
    log.info(
        "plainfeed worker: %d threads, engine %s, %d outbound sender threads",
        ctx.pool.item_workers,
        ctx.pipeline.engine.name,
        len(ctx.pool.workers) - ctx.pool.item_workers,
    )
    while not stop.wait(1.0):
        pass
    clean = ctx.pool.shutdown(settings.shutdown_grace)
    ctx.db.dispose()
    raise typer.Exit(0 if clean else 1)


def demo(
    host: Annotated[str, typer.Option()] = "127.0.0.1",
    port: Annotated[int, whole_option(0, 65535)] = 8000,
    wait: Annotated[float, typer.Option(help="Seconds to wait for the items", min=0)] = 120.0,
    engine: Annotated[
        Literal["extractive", "llm", "auto"],
        typer.Option(
            help="Engine of the demo: the offline one unless asked (PLAINFEED_ENGINE "
            "is not read: an exported API key must not make a demo call a paid model)"
        ),
    ] = "extractive",
) -> None:
    """Serve, post the bundled PyTorch blog feed to the own webhook, print its items.

    Prints the URL of each item's explainer, then keeps serving until Ctrl-C."""
    import uvicorn

    from service.api.app import create_app
    from service.api.protocol import http_protocol

    settings = get_settings().model_copy(update={"engine": engine})
    _check_database(settings.database_url)
    sock = _bind(host, port)
    settings = _served_at(settings, sock)
    setup_logging(settings.log_format, settings.log_level)
    config = uvicorn.Config(
        create_app(settings),
        http=http_protocol(settings),
        log_config=None,
        log_level="warning",
    )
    server = uvicorn.Server(config)
    th = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    th.start()
    base = _url(sock)  # the port bound: --port 0 picks a free one
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not th.is_alive():
            typer.echo(f"plainfeed demo: could not serve on {base} (see the log above)", err=True)
            raise typer.Exit(1)
        time.sleep(0.05)
    feed = files("service").joinpath("samples/pytorch-blog-feed.xml").read_bytes()
    headers = {"Content-Type": "application/rss+xml"}
    if settings.api_token:
        headers["Authorization"] = f"Bearer {settings.api_token}"
    try:
        accepted = _demo_json(f"{base}/webhooks/feed", feed, headers)
    except urllib.error.HTTPError as exc:
        # The demo's own settings can refuse its feed (a body cap below its size, a
        # secret on the feed's URL): say so, as a problem says it, not as a traceback.
        typer.echo(
            f"plainfeed demo: the webhook refused the sample feed: {exc.code} {_detail(exc)}",
            err=True,
        )
        raise typer.Exit(1) from exc
    typer.echo(
        f"posted the PyTorch blog feed ({len(feed):,} bytes): delivery "
        f"{accepted['delivery_id']} ({'replay' if accepted['duplicate'] else 'new'})"
    )
    delivery_url = f"{base}/deliveries/{accepted['delivery_id']}"
    end = time.monotonic() + wait
    # Read once whatever --wait says: with --wait 0 the items are listed as they stand.
    d = _demo_json(delivery_url)
    while d["state"] not in ("processed", "failed") and time.monotonic() < end:
        time.sleep(0.2)
        d = _demo_json(delivery_url)
    if d["state"] == "failed":
        typer.echo(f"delivery failed: {d['error']}", err=True)
    while time.monotonic() < end:
        pending = _demo_json(f"{base}/items?state=pending&limit=1")["total"]
        pending += _demo_json(f"{base}/items?state=processing&limit=1")["total"]
        if pending == 0:
            break
        time.sleep(0.3)
    items = _demo_json(f"{base}/items?limit=100")["items"]
    for it in items:
        typer.echo(f"{it['state']:>12}  {base}/items/{it['id']}/explainer?format=md  {it['title']}")
    typer.echo(f"\nAPI docs: {base}/docs   items: {base}/items   (Ctrl-C to stop)")
    try:
        while th.is_alive():
            th.join(1.0)
    except KeyboardInterrupt:
        server.should_exit = True
        th.join(settings.shutdown_grace)


def _demo_json(url: str, data: bytes | None = None, headers: dict[str, str] | None = None) -> Any:
    """The JSON answer of one request of the demo to its own server."""
    req = urllib.request.Request(url, data=data, headers=headers or {})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return json.load(resp)


def _detail(exc: urllib.error.HTTPError) -> str:
    """The ``detail`` of a problem answer, else its reason phrase."""
    try:
        problem = json.loads(exc.read(65536))
    except (OSError, ValueError):
        return str(exc.reason)
    detail = problem.get("detail") if isinstance(problem, dict) else None
    return str(detail) if detail else str(exc.reason)
