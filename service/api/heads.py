"""A request head's count and clock: what the HTTP protocols (service.api.protocol) bound
a head by, in bytes (PLAINFEED_MAX_HEAD_BYTES) and in time (PLAINFEED_HEAD_TIMEOUT),
before the parser sees its bytes."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable

# The blank line that ends a head, as h11 finds it: lines may end in a bare LF, and a head
# read to a CRLF CRLF only counted the body, and the idle time after it, of such a request
# as its head (431, 408). (A valid head holds no other empty line; httptools refuses LF.)
_HEAD_END = re.compile(rb"\n\r?\n")


class HeadCount:
    """The bytes of a connection's request head read so far, counted before the parser
    sees them: from a request's first byte to the blank line that ends its head, which
    may come split (the last three bytes are kept)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.next_request()

    def next_request(self) -> None:
        # (begun: any byte read, blank lines too, which start the clock: HeadClock.)
        self.reading, self.bytes, self.tail, self.begun = True, 0, b"", False

    def over(self, data: bytes) -> bool:
        """Whether the head, with ``data`` read, is over the limit. Bytes after the
        head (a body) are not counted; nor is another request until next_request."""
        if not self.reading:
            return False
        self.begun = self.begun or bool(data)
        if not self.bytes:
            # Blank lines before the request line, which a server ignores (RFC 9112
            # 2.2; httptools does): no head's end. "\r\n\r\n" first ended the count,
            # and the head after it was read unbounded in size and time.
            data = data.lstrip(b"\r\n")
            if not data:
                return False
        seen = self.tail + data
        end = _HEAD_END.search(seen)
        if end is None:
            self.bytes += len(data)
            self.tail = seen[-3:]
        else:
            self.bytes += max(0, end.end() - len(self.tail))
            self.reading = False
        return self.bytes > self.limit


class HeadClock:
    """The time a request head has to arrive whole: from the connection's start, or from
    a later head's first byte, to its end (uvicorn bounds only the wait between requests,
    and a head sent a header every few seconds held its connection for good). Not while
    a request is served: its body has PLAINFEED_BODY_TIMEOUT (service.api.limits)."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, seconds: float, expired: Callable[[], None]
    ) -> None:
        self._loop, self._seconds, self._expired = loop, seconds, expired
        self._handle: asyncio.TimerHandle | None = None

    def watch(self, head: HeadCount, *, started: bool = False) -> None:
        """Run while ``head`` is read and begun (or ``started``), else stop."""
        if head.reading and (started or head.begun):
            if self._handle is None:
                self._handle = self._loop.call_later(self._seconds, self._expired)
        else:
            self.stop()

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
