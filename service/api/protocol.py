"""uvicorn's HTTP protocols, answering a request they cannot parse the way the API answers
every error: a problem details body (RFC 9457), not uvicorn's plain text.

A request line or header block that does not parse never reaches the application: the
protocol answers 400 itself, and a client that reads every error as JSON would choke on
"Invalid HTTP request received.". Each protocol class keeps its own framing (the h11 state
machine, httptools' raw bytes) and changes only the body and its type. Both refuse a
request head over PLAINFEED_MAX_HEAD_BYTES the same way (431), before the parser buffers
it, and one not whole within PLAINFEED_HEAD_TIMEOUT seconds (408): ``http_protocol``
gives uvicorn the class with the settings' values. Both serve a request asking to upgrade
to anything but a WebSocket (h2c: the service speaks no HTTP/2) as HTTP/1.1, its Upgrade
ignored (RFC 9110 7.8), its body read and its connection kept. Both answer a method the
server does not know 501 (RFC 9110 9.1), its connection closed, once its head is read
whole (httptools' parser refused one it does not know with a 400, h11 took any, a 405),
and a major HTTP version but 1 505 (RFC 9110 15.6.6), a later 1.x served as 1.1. Both
take a proxy's X-Forwarded-Proto only of an HTTP scheme (service.api.forwarded).
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from service.api.forwarded import ForwardedScheme
from service.api.h11_reading import Connection, holds_nothing
from service.api.heads import (
    BodyEnd,
    HeadClock,
    HeadCount,
    IgnoredUpgrade,
    RequestLine,
)
from service.api.problems import MEDIA_TYPE
from service.api.refusals import (
    Refusal,
    bad_request_body,
    head_too_slow_body,
    headers_too_large_body,
    refusal,
)
from service.api.targets import origin_form, with_host
from service.config import Settings

try:  # uvicorn[standard] brings httptools, which uvicorn prefers; h11 is always there
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
except ImportError:  # pragma: no cover - httptools is a dependency of uvicorn[standard]
    HttpToolsProtocol = None  # type: ignore[assignment,misc]


# The longest request head (request line and headers) either protocol takes, unless
# PLAINFEED_MAX_HEAD_BYTES says otherwise: httptools buffers a header whole and bounds
# none, and h11 bounds only a head that comes in pieces (16 KiB); a client's 64 MiB
# header was read into memory and served.
MAX_HEAD_BYTES = 64 * 1024
HEADERS_TOO_LARGE = b"431 Request Header Fields Too Large"
# Seconds a request head has to arrive whole (HeadClock), as a body has its 30 s, unless
# PLAINFEED_HEAD_TIMEOUT says otherwise.
HEAD_SECONDS = 30.0


class _Refused(Exception):
    """Raised in the httptools parser's callback to stop it at a head refused: the
    parser's error is answered with the refusal, not the parser's 400."""


def _send_raw(protocol: Any, status: bytes, body: bytes) -> None:
    """Answer ``body`` (a problem) with ``status`` on ``protocol``'s connection and close
    it, written as bytes: for a head the parser has not seen, or could not parse."""
    content = [b"HTTP/1.1 " + status + b"\r\n"]
    for name, value in protocol.server_state.default_headers:
        content.extend([name, b": ", value, b"\r\n"])
    content += [
        b"content-type: " + MEDIA_TYPE.encode() + b"\r\n",
        b"content-length: " + str(len(body)).encode() + b"\r\n",
        b"connection: close\r\n\r\n",
        body,
    ]
    protocol.transport.write(b"".join(content))
    protocol.transport.close()


def _answer_too_slow(protocol: Any) -> None:
    """The 408 of a head not whole in time on ``protocol``'s connection, once no answer is
    in flight: a head pipelined while the request before it is served (httptools counts
    it from that request's end) would have its 408 read as that request's answer, which
    it cut off; its clock runs again instead."""
    if protocol.transport.is_closing():
        return
    cycle = protocol.cycle
    if cycle is not None and not cycle.response_complete:
        protocol._clock.stop()
        protocol._clock.watch(protocol._head, started=True)
        return
    _send_raw(protocol, b"408 Request Timeout", head_too_slow_body(protocol.head_seconds))


class _HeadGuard(asyncio.Protocol):
    """What both protocols add to uvicorn's: the head of each request counted
    (:class:`HeadCount`) and timed (:class:`HeadClock`) from the connection's start, and
    the rest of a body answered before it was read whole timed. First among the bases,
    so that its methods wrap the protocol's own. The limits are class attributes:
    :func:`http_protocol` sets the settings' on a subclass."""

    head_seconds = HEAD_SECONDS
    body_seconds = HEAD_SECONDS  # PLAINFEED_BODY_TIMEOUT's default, as the head's
    max_head_bytes = MAX_HEAD_BYTES
    loop: asyncio.AbstractEventLoop
    transport: asyncio.Transport
    app: Any  # (the application, as uvicorn wraps it)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # Outside uvicorn's proxy headers: they took "X-Forwarded-Proto: ws" as the scheme.
        self.app = ForwardedScheme(self.app)
        self._head = HeadCount(self.max_head_bytes)
        self._clock = HeadClock(self.loop, self.head_seconds, self._head_too_slow)
        self._rest: asyncio.TimerHandle | None = None  # the rest of a body answered
        self._rest_of: object = None  # the request (uvicorn's cycle) it is of

    def _answered_mid_body(self, unread: bool) -> None:
        """After an answer: with its request's body ``unread`` to its end, the rest has
        PLAINFEED_BODY_TIMEOUT seconds more to come, or the connection is closed. An
        answer given before the body was read whole (a 413 from its Content-Length, the
        400 of a UTF-16 body after its first bytes) left the rest to be read, to find
        the next request, with no clock: a client sending a byte a second held the
        connection for good (the app's clock, BodyTimeout, ends with its answer)."""
        if unread and self._rest is None and not self.transport.is_closing():
            self._rest = self.loop.call_later(self.body_seconds, self.transport.close)
            self._rest_of = getattr(self, "cycle", None)

    def _body_read(self) -> None:
        if self._rest is not None:
            self._rest.cancel()
            self._rest = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._clock.watch(self._head, started=True)

    def connection_lost(self, exc: Exception | None) -> None:
        self._clock.stop()
        self._body_read()
        super().connection_lost(exc)

    def _head_too_slow(self) -> None:
        _answer_too_slow(self)

    def _too_large(self) -> None:
        _send_raw(self, HEADERS_TOO_LARGE, headers_too_large_body(self.max_head_bytes))


class ProblemH11Protocol(_HeadGuard, H11Protocol):
    """uvicorn's h11 protocol with a problem details body on a request it cannot parse,
    and a head over the cap refused."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # h11's own bound, of a head that came in pieces, the same as the whole head's:
        # its 16 KiB refused (400) a head httptools takes.
        self.conn = Connection(h11.SERVER, max_incomplete_event_size=self.max_head_bytes)

    def data_received(self, data: bytes) -> None:
        if not self._head.reading and self.conn.their_state is h11.IDLE:
            # The last request was read whole and answered: these bytes start the next.
            self._head.next_request()
        self._head.read(data)
        if self._head.over:
            self._too_large()
            return
        if not self._head.begun and holds_nothing(self.conn):
            # Blank lines before a request line, which _Connection skips: not fed, so
            # that uvicorn's keep-alive close still runs (any byte fed stops it), as the
            # httptools protocol does; the head's clock runs from the connection's start.
            return
        self._clock.watch(self._head, started=True)
        super().data_received(data)
        # (Read to its end: the next request's body, read at once, is not that one.)
        if self.conn.their_state is not h11.SEND_BODY or self.cycle is not self._rest_of:
            self._body_read()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._answered_mid_body(self.conn.their_state is h11.SEND_BODY)

    def _unsupported_upgrade_warning(self) -> None:
        # An Upgrade to anything but a WebSocket is ignored, the request served as
        # HTTP/1.1 (h11 reads its body and denies the switch with the answer; the httptools
        # protocol leaves the header out, IgnoredUpgrade): no warning for each request of
        # a client that asks for h2c on every one (Java's HttpClient).
        if self._get_upgrade() == b"websocket":  # (no WebSocket library: uvicorn's word)
            super()._unsupported_upgrade_warning()

    def send_400_response(self, msg: str) -> None:
        refused = self.conn.refused if isinstance(self.conn, Connection) else None
        status, reason, body = refused or (400, b"Bad Request", bad_request_body(msg))
        headers = [
            # Date and Server, as the app's answers carry them, and the httptools
            # protocol's own (_send_raw): uvicorn's h11 protocol sent neither here, though
            # an origin server with a clock must send Date on a 4xx (RFC 9110 6.6.1).
            *self.server_state.default_headers,
            (b"content-type", MEDIA_TYPE.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        for event in (
            h11.Response(status_code=status, headers=headers, reason=reason),
            h11.Data(data=body),
            h11.EndOfMessage(),
        ):
            self.transport.write(self.conn.send(event))  # type: ignore[arg-type]
        self.transport.close()


if HttpToolsProtocol is not None:

    class ProblemHttpToolsProtocol(_HeadGuard, HttpToolsProtocol):
        """uvicorn's httptools protocol with a problem details body on a request it cannot
        parse, and a head over the cap refused."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            # A head refused while a request is answered (431, the parser's 400, a 501):
            # its status and body, written after the answer in flight.
            self._refused: tuple[bytes, bytes] | None = None
            self._in_body = False  # a head taken, its body read (a request being served)
            self._body: BodyEnd | None = None  # the body being read, after its head
            self._upgrade = IgnoredUpgrade(b"websocket" if self.ws_protocol_class else None)
            self._tunnel = False  # a CONNECT read: what follows it is no request
            self._refusal: Refusal | None = None  # a head the service refuses, its answer
            self._line = RequestLine()  # a method or version the parser is not shown

        def data_received(self, data: bytes) -> None:
            # Fed to the parser a head, or a body, at a time: what came at once (a body's
            # end, then the next request's head) was fed whole, and the parser told where
            # the body ended only in its midst: the head after it went uncounted.
            body = self._body
            if (
                body is not None
                and not (self._head.reading or self._tunnel or self.transport.is_closing())
                and body.within(len(data))
            ):
                # All of it amid a body, as most reads of a long body are: fed as it is
                # (no split, no copy): a tiny read costs little more than uvicorn's alone.
                super().data_received(data)
                return
            while data and not (self.transport.is_closing() or self._tunnel or self._refused):
                if self._head.reading:
                    n = self._head.read(data)
                    if self._head.over:
                        self._refuse()
                        return
                    if not self._head.begun:
                        # Blank lines before a request line, which the parser skips:
                        # not fed, so that uvicorn's keep-alive close still runs (it is
                        # stopped by any byte fed), and no head's clock starts.
                        return
                    self._clock.watch(self._head)
                    fed = self._line.feed(self._upgrade.feed(data[:n]))
                else:
                    n = self._body.take(data) if self._body is not None else len(data)
                    n = n or len(data)  # (the parser not where BodyEnd says: all, as before)
                    fed = data[:n] if n < len(data) else data
                super().data_received(fed)
                if self.transport.get_protocol() is not self:
                    # Upgraded to a WebSocket: the connection is the new protocol's, and
                    # the bytes after the handshake were fed to a parser done with it,
                    # whose 400 was written into it. Dropped, as uvicorn drops them.
                    return
                data = data[n:] if n < len(data) else b""

        def _refuse(self) -> None:
            self._answer(HEADERS_TOO_LARGE, headers_too_large_body(self.max_head_bytes))

        def _answer(self, status: bytes, body: bytes) -> None:
            """Refuse the head read with ``status`` and ``body`` (a problem), closing the
            connection, once the answers in flight are written."""
            in_flight = self.cycle is not None and not self.cycle.response_complete
            if in_flight and not self._in_body:
                # A head pipelined while a request is answered: its refusal written now
                # would be read as that answer, which the close cut off (the parser's 400
                # and the 501s were, as the 431 was). Read no more of it;
                # on_response_complete refuses it once every answer is written. (A body
                # that does not parse is of the request in flight: answered now, its app
                # waiting on the rest of it.)
                self._refused = (status, body)
                self.flow.pause_reading()
                return
            _send_raw(self, status, body)

        def on_response_complete(self) -> None:
            super().on_response_complete()
            done = self.cycle.response_complete and not self.transport.is_closing()
            if self._refused and done:
                _send_raw(self, *self._refused)
            # (A body being read that is not this answer's is a pipelined request's,
            # whose own answer, and clock, are still to come.)
            self._answered_mid_body(self._body is not None and done)

        # The parser says where a request and its head end: the bytes after a request are
        # the next one's head, and those after its head a body (BodyEnd, which says where
        # that ends in the bytes read with it).
        def on_headers_complete(self) -> None:
            self._head.reading = False
            self._clock.stop()
            self._body = BodyEnd(self.headers)
            line = self._line
            version = line.version
            if version is None:
                version = self.parser.get_http_version().encode()
            self._refusal = refusal(self.headers, self.url, line.method, version)
            if self._refusal:
                raise _Refused  # (the parser's error: send_400_response answers)
            # The targets uvicorn reads as a URL (service.api.targets): an absolute form
            # to its path, and its authority the Host (uvicorn kept the Host sent, and
            # failed on "http://x", which has no path: a 400); CONNECT's "host:port",
            # which is no URL (a 400), given to the app as its path, as h11 gives it.
            connect = self.url if self.parser.get_method() == b"CONNECT" else None
            if connect is not None:
                # (The bytes after it, which the parser takes for the tunnel's, are
                # dropped: fed to it, they were a 400 written after the app's answer.)
                self._tunnel, self.url = True, b"/"
            elif origin := origin_form(self.url):
                authority, self.url = origin
                self.headers[:] = with_host(self.headers, authority)  # (the scope's list)
            super().on_headers_complete()
            self._in_body = True
            if connect is not None and self.scope.get("path") == "/":
                self.scope["path"] = connect.decode("latin-1")
                self.scope["raw_path"] = connect

        def _unsupported_upgrade_warning(self) -> None:
            # The parser takes a CONNECT for an upgrade, and its bytes after the head for
            # the tunnel's (dropped): the app answers it (targets.RequestTargets).
            if self.scope.get("method") != "CONNECT":
                super()._unsupported_upgrade_warning()

        def on_message_complete(self) -> None:
            super().on_message_complete()
            self._body = None
            self._in_body = False
            self._body_read()
            self._head.next_request()
            self._upgrade.next_request()
            self._line.next_request()

        def send_400_response(self, msg: str) -> None:
            if self._refusal:
                status, reason, body = self._refusal
                self._answer(b"%d %s" % (status, reason), body)
                return
            self._answer(b"400 Bad Request", bad_request_body(msg))


def http_protocol(settings: Settings | None = None) -> type[asyncio.Protocol]:
    """The protocol class to give uvicorn's ``http`` setting: httptools' when installed
    (what uvicorn's "auto" picks), else h11's; with ``settings``, a subclass bounding a
    request head by their PLAINFEED_MAX_HEAD_BYTES and PLAINFEED_HEAD_TIMEOUT."""
    base: type[_HeadGuard] = ProblemH11Protocol
    if HttpToolsProtocol is not None:
        base = ProblemHttpToolsProtocol
    if settings is None:
        return base
    return bounded(
        base, settings.max_head_bytes, settings.head_timeout, body_seconds=settings.body_timeout
    )


def bounded(
    base: type[_HeadGuard],
    max_head_bytes: int,
    head_seconds: float,
    *,
    body_seconds: float = HEAD_SECONDS,
) -> type[_HeadGuard]:
    """``base`` (one of the protocols) with these limits of a request head, and of the
    rest of a body answered before it was read whole."""
    limits = {
        "max_head_bytes": max_head_bytes,
        "head_seconds": head_seconds,
        "body_seconds": body_seconds,
    }
    return type(base.__name__, (base,), limits)
