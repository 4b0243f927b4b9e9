"""Bounded HTTP under httpx: a deadline for every socket operation of a request, and
content codings decoded in bounded pieces. Fetching (:mod:`service.fetch`) and the
outbound sender (:mod:`service.outbound`) send through it: httpx's timeouts bound each
read, not the request, and its decoders hand on all that a chunk unpacks to at once."""

from __future__ import annotations

import functools
import ipaddress
import socket
import ssl
import time
import zlib
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpcore
import httpx

# httpcore's stream over a plain or TLS socket, as its SyncBackend makes it: the streams
# of the connects and handshakes done here (service.connecting) are read as its own are.
from httpcore._backends.sync import SyncStream

from service import abandon, connecting
from service.errors import FetchError
from service.resolving import (
    RESOLVERS,
    ResolveBusy,
    Resolver,
    ResolveTimeout,
    system_resolver,
)

__all__ = [
    "ACCEPT_ENCODING",
    "ResolveBusy",
    "ResolveTimeout",
    "Resolver",
    "deadline",
    "deadline_transport",
    "decoded",
    "resolve",
    "system_resolver",
]

# The content codings asked for and decoded here (httpx would also offer br and zstd
# when their packages are installed, and decodes without bounding its output).
ACCEPT_ENCODING = "gzip, deflate"
_PIECE = 64 * 1024  # most bytes one decoding step hands on


# When the request being sent must be done (a ``time.monotonic()`` value), for the
# thread sending it; None: only httpx's own timeouts. Read at each connect, read and
# write, so that a client shared by threads (outbound events) bounds each one's request.
_DEADLINE: ContextVar[float | None] = ContextVar("plainfeed_http_deadline", default=None)


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Requests sent in this block by a client over :func:`deadline_transport` end within
    ``seconds``, all of it: name resolution (see :func:`resolve`), connects, TLS, status
    line, headers, body, redirects.

    httpx's timeouts bound each read, not the request: an origin (or a subscriber) that
    sends a header line every second never lets one read time out, and the status line
    and headers are read before a caller can look at the clock."""
    token = _DEADLINE.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    """``timeout`` shortened to what is left before the deadline; raises ``error`` past it."""
    end = _DEADLINE.get()
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise error("the request's time limit passed")
    return left if timeout is None else min(timeout, left)


def resolve(host: str, port: int, resolver: Resolver = system_resolver) -> list[str]:
    """``resolver``'s addresses for ``host``, within the :func:`deadline` of the block:
    raises :class:`ResolveTimeout` past it, :class:`ResolveBusy` at once when every
    resolver thread is stuck; the resolver's own errors (socket.gaierror, UnicodeError)
    pass as they are. Outside a deadline block, resolved unbounded.

    getaddrinfo takes no timeout and cannot be interrupted, and a resolver that answers
    slowly held a send past its deadline, and its lease: another worker sent the event
    again. It is asked on the process's pool of resolver threads (service.resolving),
    where a lookup the deadline passed is left to finish."""
    left = _left(None, ResolveTimeout)
    if left is None:
        return list(resolver(host, port))
    return RESOLVERS.resolve(resolver, host, port, left)


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


class _DeadlineStream(httpcore.NetworkStream):
    """A connection whose every read and write ends by the deadline (see ``deadline``);
    in a job, a read also ends in LeaseLost soon after the job's lease is lost."""

    def __init__(self, inner: httpcore.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        # In a job, in slices, the lease looked at between two, as a model call's answer
        # is: a page server that answered slowly held a delivery whose lease was lost up
        # to the fetch timeout (PLAINFEED_FETCH_TIMEOUT), for an outcome to be refused.
        return abandon.read_watched(
            lambda wait: self._inner.read(max_bytes, wait),
            _left(timeout, httpcore.ReadTimeout),
            httpcore.ReadTimeout,
            "a fetch in flight",
        )

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        lost = abandon.current()
        sock = self._inner.get_extra_info("socket")
        if lost is None or not isinstance(sock, socket.socket) or isinstance(sock, ssl.SSLSocket):
            return _DeadlineStream(self._inner.start_tls(ssl_context, server_hostname, left))
        # In a job, in slices, the lease looked at between two: a server that accepted
        # the connection and never answered TLS held the worker up to the fetch timeout.
        tls = connecting.handshake(sock, ssl_context, server_hostname, left, lost)
        return _DeadlineStream(SyncStream(tls))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    """TCP connections whose name resolution, connects, reads and writes end by the
    deadline."""

    def __init__(self, resolver: Resolver) -> None:
        self._inner = httpcore.SyncBackend()
        self._resolver = resolver

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore.NetworkStream:
        # Resolved here, within the deadline (socket.create_connection would resolve a
        # name unbounded), and each address tried in turn as create_connection does. A
        # URL pinned to the address the SSRF guard checked names no host to resolve.
        if _is_address(host):
            addresses = [host]
        else:
            try:
                addresses = resolve(host, port, self._resolver)
            except (OSError, UnicodeError) as exc:
                raise httpcore.ConnectError(f"cannot resolve {host}: {exc}") from exc
        failed: Exception = httpcore.ConnectError(f"{host} has no address")
        for address in addresses:
            left = _left(timeout, httpcore.ConnectTimeout)
            try:
                stream = self._connect(address, port, left, local_address, socket_options)
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failed = exc
                continue
            return _DeadlineStream(stream)
        raise failed

    def _connect(
        self,
        address: str,
        port: int,
        timeout: float | None,
        local_address: str | None,
        socket_options: Any,
    ) -> httpcore.NetworkStream:
        lost = abandon.current()
        if lost is None:
            return self._inner.connect_tcp(address, port, timeout, local_address, socket_options)
        # In a job, in slices, the lease looked at between two: a host that drops the
        # connect (black-holed) held the worker up to the fetch timeout, lease lost or not.
        sock = connecting.connect(address, port, timeout, lost, local_address, socket_options)
        return SyncStream(sock)

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore.NetworkStream:
        raise httpcore.ConnectError("requests go over TCP only")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """The TLS settings of every fetch, built once (loading the CA bundle costs ~40 ms)."""
    return httpx.create_ssl_context(trust_env=False)


class _DeadlineTransport(httpx.HTTPTransport):
    """httpx's transport over :class:`_DeadlineBackend`."""

    def __init__(self, resolver: Resolver) -> None:
        # HTTPTransport.__init__ only builds its pool; this one is built over the backend.
        self._pool = httpcore.ConnectionPool(
            ssl_context=_ssl_context(), network_backend=_DeadlineBackend(resolver)
        )


def deadline_transport(resolver: Resolver = system_resolver) -> httpx.HTTPTransport:
    """A transport whose requests end by the :func:`deadline` of the block sending them,
    the resolution of a host name by ``resolver`` included."""
    return _DeadlineTransport(resolver)


def _inflate(chunks: Iterable[bytes], coding: str, url: str) -> Iterator[bytes]:
    """``chunks`` decoded from one content coding (gzip or deflate), in pieces of at most
    64 KiB: zlib is asked for no more output than that at a time, so that what a few
    kilobytes unpack to is seen by the size cap before it is made."""
    gzip = coding in ("gzip", "x-gzip")
    d = zlib.decompressobj(16 + zlib.MAX_WBITS if gzip else zlib.MAX_WBITS)
    started = False  # "deflate" is zlib-wrapped by the RFC, raw by some servers
    sent = False  # any byte at all: an empty body with a coding named is empty
    for chunk in chunks:
        data = chunk
        sent = sent or bool(chunk)
        while data:
            try:
                out = d.decompress(data, _PIECE)
            except zlib.error as exc:
                if gzip or started:
                    raise FetchError(f"{url} sent a body that is not valid {coding}") from exc
                started = True
                d = zlib.decompressobj(-zlib.MAX_WBITS)
                continue
            started = True
            if out:
                yield out
            if d.eof:
                # Concatenated gzip members are one body; what follows a deflate stream
                # is not part of it.
                data = d.unused_data if gzip else b""
                if data:
                    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            else:
                data = d.unconsumed_tail  # left over when the output was cut at a piece
    while not d.eof and (out := d.decompress(b"", _PIECE)):
        yield out  # what zlib still held when the body ended
    if sent and not d.eof:
        # The stream's end (a gzip member's trailer, deflate's last block) never came:
        # an origin that died mid-body on a connection whose close ends the body (no
        # Content-Length), or a proxy that ended the chunks of an answer it lost. Taken
        # whole, half a page was stored and explained as the post. A fetch error, tried
        # again (transient).
        raise FetchError(f"{url} sent a {coding} body cut short (its end never came)")


def decoded(resp: httpx.Response, url: str) -> Iterator[bytes]:
    """The body of ``resp`` without its content codings, in bounded pieces. httpx's own
    decoding hands on all that a chunk unpacks to at once: two gzip layers
    (``Content-Encoding: gzip, gzip``) of 3.5 KB held 4 GB before the cap could count."""
    codings = [
        c.strip().lower()
        for c in resp.headers.get("content-encoding", "").split(",")
        if c.strip() and c.strip().lower() != "identity"
    ]
    for c in codings:
        if c not in ("gzip", "x-gzip", "deflate"):
            raise FetchError(f"{url} sent its body in a content coding not asked for: {c}")
    pieces: Iterable[bytes] = resp.iter_raw()
    for c in reversed(codings):  # the last coding applied is the first removed
        pieces = _inflate(pieces, c, url)
    return iter(pieces)
