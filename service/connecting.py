"""A job's TCP connect and TLS handshake, waited for in slices that look at the job's lease
between two (service.abandon), as its reads are.

A connect to a host that drops the SYN (a black-holed address, a listener whose backlog
is full) and a handshake with a server that accepted the connection but never answers
TLS each wait the whole connect timeout (PLAINFEED_FETCH_TIMEOUT), and socket.connect
and ssl's wrap_socket cannot be woken by an event: a worker whose lease was lost went on
waiting on a fetch whose outcome would be refused. Here the socket is non-blocking, the
connect and each handshake step are waited for with a selector in slices of
:data:`abandon.LOOK_SECONDS`, and LeaseLost is raised between two once the lease is lost.
The socket is closed on every way out but success: nothing is left open, no thread is
started."""

from __future__ import annotations

import errno
import os
import selectors
import socket
import ssl
import threading
import time
from typing import Any

import httpcore

from service import abandon

# Of a non-blocking connect: started and not done yet (EINPROGRESS on Linux and macOS).
_UNDER_WAY = {errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EALREADY}


def _wait_ready(
    sock: socket.socket,
    events: int,
    end: float | None,
    lost: threading.Event,
    what: str,
) -> None:
    """Until ``sock`` is ready for ``events`` (selectors.EVENT_READ / EVENT_WRITE), by
    ``end`` (a ``time.monotonic()`` value, None: no end): ConnectTimeout past it,
    LeaseLost once ``lost`` is set, looked at every quarter second."""

    def ready(seconds: float) -> None:
        if not selector.select(seconds):
            raise httpcore.ConnectTimeout("timed out")

    # A selector, not select.select: that refuses a socket numbered 1024 or more, which a
    # worker with many connections open (page reads, a database pool) may be given.
    with selectors.DefaultSelector() as selector:
        selector.register(sock, events)
        left = None if end is None else end - time.monotonic()
        abandon.sliced(ready, left, httpcore.ConnectTimeout, lost, what)


def _end(timeout: float | None) -> float | None:
    return None if timeout is None else time.monotonic() + timeout


def connect(
    address: str,
    port: int,
    timeout: float | None,
    lost: threading.Event,
    local_address: str | None = None,
    socket_options: Any = None,
) -> socket.socket:
    """A connected TCP socket to ``address`` (an IP address: names are resolved before,
    within the request's deadline) within ``timeout`` seconds, as httpcore's SyncBackend
    makes it (its socket options, TCP_NODELAY); httpcore's ConnectTimeout and
    ConnectError as it raises them, LeaseLost once ``lost`` is set."""
    try:
        # A numeric address: no lookup, only its family and socket address.
        family, kind, proto, _, where = socket.getaddrinfo(
            address, port, type=socket.SOCK_STREAM, flags=socket.AI_NUMERICHOST
        )[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise httpcore.ConnectError(f"cannot connect to {address}: {exc}") from exc
    try:
        sock.setblocking(False)
        if local_address is not None:
            sock.bind((local_address, 0))
        code = sock.connect_ex(where)
        if code in _UNDER_WAY:
            _wait_ready(sock, selectors.EVENT_WRITE, _end(timeout), lost, "a connect under way")
            code = sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if code:
            raise httpcore.ConnectError(f"[Errno {code}] {os.strerror(code)}")
        for option in socket_options or ():
            sock.setsockopt(*option)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.setblocking(True)  # httpcore sets each read's and write's own timeout
        return sock
    except OSError as exc:
        sock.close()
        raise httpcore.ConnectError(str(exc)) from exc
    except BaseException:
        sock.close()
        raise


def handshake(
    sock: socket.socket,
    context: ssl.SSLContext,
    server_hostname: str | None,
    timeout: float | None,
    lost: threading.Event,
) -> ssl.SSLSocket:
    """``sock`` after a TLS handshake under ``context`` within ``timeout`` seconds, each
    step waited for in slices (LeaseLost once ``lost`` is set); httpcore's ConnectTimeout
    and ConnectError as its start_tls raises them. ``sock`` is closed when it fails."""
    end = _end(timeout)
    try:
        sock.setblocking(False)
        tls = context.wrap_socket(
            sock, server_hostname=server_hostname, do_handshake_on_connect=False
        )
    except BaseException as exc:
        sock.close()
        if isinstance(exc, OSError):
            raise httpcore.ConnectError(str(exc)) from exc
        raise
    try:
        while True:
            try:
                tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                events = selectors.EVENT_READ
            except ssl.SSLWantWriteError:
                events = selectors.EVENT_WRITE
            _wait_ready(tls, events, end, lost, "a TLS handshake under way")
        tls.setblocking(True)
        return tls
    except OSError as exc:  # ssl.SSLError (a certificate refused) is one
        tls.close()
        raise httpcore.ConnectError(str(exc)) from exc
    except BaseException:
        tls.close()
        raise
