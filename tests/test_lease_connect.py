"""A job's connect and TLS handshake look at its lease every quarter second
(service.connecting), as its reads do: a worker whose lease is lost while it connects to
a host that drops the SYN, or shakes hands with a server that never answers TLS, stops
then, not the fetch timeout later, and leaves no socket or thread behind. Real sockets on
loopback (a listener whose backlog is full, a silent server), a real worker and queue on
SQLite and PostgreSQL."""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import socket
import ssl
import threading
from collections.abc import Callable, Iterator

import httpcore
import pytest
from sqlalchemy import Engine, func, select

from service import connecting, queue
from service.errors import LeaseLost
from service.store import tables as t
from tests.connect_helpers import BlackHole, SilentTLS, localhost_certificate
from tests.intake_rig import Rig, entry, rigs, rss, take_over
from tests.procs import wait_until

RSS = "application/rss+xml; charset=utf-8"


def open_fds() -> int:
    gc.collect()  # a socket dropped unclosed is closed by the collector: count it so
    return len(os.listdir("/proc/self/fd"))


def lost_after(seconds: float) -> threading.Event:
    """An event set ``seconds`` from now: a lease found lost while the wait is under way."""
    lost = threading.Event()
    timer = threading.Timer(seconds, lost.set)
    timer.daemon = True
    timer.start()
    return lost


# --- the connect ---------


def test_a_connect_makes_a_connected_socket_as_httpcores_does() -> None:
    server = socket.create_server(("127.0.0.1", 0))
    with server:
        sock = connecting.connect("127.0.0.1", server.getsockname()[1], 5.0, threading.Event())
        far, _ = server.accept()
        with sock, far:
            assert sock.getblocking()
            assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
            sock.sendall(b"ping")
            assert far.recv(4) == b"ping"


def test_a_refused_connect_is_a_connect_error_and_leaves_no_socket() -> None:
    free = socket.create_server(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()  # nothing listens there now: the connect is refused
    before = open_fds()
    with pytest.raises(httpcore.ConnectError, match="Connection refused"):
        connecting.connect("127.0.0.1", port, 5.0, threading.Event())
    assert open_fds() == before


def test_a_connect_given_its_time_ends_as_a_timeout_and_leaves_no_socket() -> None:
    with BlackHole() as hole:
        before = open_fds()
        with pytest.raises(httpcore.ConnectTimeout):
            connecting.connect("127.0.0.1", hole.port, 0.6, threading.Event())
        assert open_fds() == before


def test_a_connect_under_way_ends_once_the_lease_is_lost_and_leaves_nothing() -> None:
    with BlackHole() as hole:
        before, threads = open_fds(), threading.active_count()
        lost = lost_after(0.5)
        # 30 s to connect: a connect that did not look at the lease ends as a timeout.
        with pytest.raises(LeaseLost) as raised:
            connecting.connect("127.0.0.1", hole.port, 30.0, lost)
        assert raised.value.detail == "lease lost: a connect under way abandoned"
        assert open_fds() == before
        wait_until(lambda: threading.active_count() <= threads, 10, "the timer's end")


# --- the TLS handshake -----------


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    return localhost_certificate(tmp_path_factory.mktemp("tls"))


def trusting(certificate: tuple[str, str]) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=certificate[0])


@pytest.fixture
def tls_server(certificate: tuple[str, str]) -> Iterator[int]:
    """A loopback TLS server (a certificate made for the run) that echoes what it is sent, once."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*certificate)
    server = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        # A client that refuses the certificate ends the handshake with an alert.
        with conn, contextlib.suppress(ssl.SSLError):
            conn.settimeout(10)
            with context.wrap_socket(conn, server_side=True) as tls:
                tls.sendall(tls.recv(1024))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1]
    finally:
        server.close()
        thread.join(10)


def test_a_handshake_in_slices_gives_a_stream_read_as_httpcores(
    tls_server: int, certificate: tuple[str, str]
) -> None:
    lost = threading.Event()
    sock = connecting.connect("127.0.0.1", tls_server, 5.0, lost)
    tls = connecting.handshake(sock, trusting(certificate), "localhost", 5.0, lost)
    with tls:
        assert tls.getblocking() and tls.version() is not None
        tls.sendall(b"hello over TLS")
        assert tls.recv(1024) == b"hello over TLS"


def test_a_certificate_not_trusted_is_a_connect_error_and_the_socket_closed(
    tls_server: int,
) -> None:
    lost = threading.Event()
    sock = connecting.connect("127.0.0.1", tls_server, 5.0, lost)
    with pytest.raises(httpcore.ConnectError) as raised:
        connecting.handshake(sock, ssl.create_default_context(), "localhost", 5.0, lost)
    assert isinstance(raised.value.__cause__, ssl.SSLCertVerificationError)
    assert sock.fileno() == -1  # handed to the TLS socket, which was closed


def test_a_handshake_under_way_ends_once_the_lease_is_lost() -> None:
    before = open_fds()
    with SilentTLS() as silent:
        sock = connecting.connect("127.0.0.1", silent.port, 5.0, threading.Event())
        with pytest.raises(LeaseLost) as raised:
            # A server that never answers: what the client would trust is not reached.
            context = ssl.create_default_context()
            connecting.handshake(sock, context, "localhost", 30.0, lost_after(0.5))
        assert raised.value.detail == "lease lost: a TLS handshake under way abandoned"
        assert sock.fileno() == -1
    assert open_fds() == before  # the server's end closed with it


# --- a worker's fetch -------------


@pytest.fixture
def rig(db: Engine) -> Iterator[Callable[..., Rig]]:
    with rigs(db) as make:
        yield make


def abandoned(
    r: Rig, did: int, under_way: Callable[[], bool], caplog: pytest.LogCaptureFixture
) -> None:
    """Run the worker's next delivery (a ping, its feed fetched) and take its lease away
    once ``under_way``: the job ends soon after the heartbeat finds out, the delivery left
    to the new holder of its lease, untouched."""
    runner = threading.Thread(target=r.worker._one, args=(queue.DELIVERIES,), daemon=True)
    runner.start()
    wait_until(under_way, 30, "the connect under way")
    take_over(r, t.Delivery, did, 5)
    wait_until(lambda: "lease lost" in caplog.text, 30, "the heartbeat's renewal")
    # Without the slices the fetch waits the rig's 60 s fetch timeout: a bound well under
    # it, not a measure of the quarter second (the machine may be loaded).
    runner.join(30)
    assert not runner.is_alive(), "the connect under way went on with the lease lost"
    assert "lease lost, result discarded" in caplog.text
    d = r.delivery(did)
    assert (d.state, d.lease_owner, d.error, d.attempts) == ("processing", "other-worker", None, 1)
    with r.sessions() as s:
        assert s.scalar(select(func.count()).select_from(t.Item)) == 0


def test_a_feeds_connect_under_way_ends_with_the_lease_and_the_new_holder_fetches(
    rig: Callable[..., Rig], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    r = rig(lease_seconds=2, fetch_timeout=60)
    with BlackHole() as hole:
        did = r.ping(hole.url("/feed.xml"))
        abandoned(r, did, hole.syn_sent, caplog)

        # The host answers again, and the other worker's lease runs out: the delivery's
        # next holder fetches the feed and stores its items.
        hole.open(rss([entry(i) for i in range(3)]), RSS)
        take_over(r, t.Delivery, did, -1)
        assert r.worker._one(queue.DELIVERIES)
    d = r.delivery(did)
    assert (d.state, d.items_new, d.error) == ("processed", 3, None)


def test_a_feeds_tls_handshake_under_way_ends_with_the_lease(
    rig: Callable[..., Rig], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    r = rig(lease_seconds=2, fetch_timeout=60)
    with SilentTLS() as silent:
        did = r.ping(silent.url("/feed.xml"))
        abandoned(r, did, silent.accepted.is_set, caplog)
