"""A request head's count and clock, and where a request's body ends: what the HTTP
protocols (service.api.protocol) bound a head by, in bytes (PLAINFEED_MAX_HEAD_BYTES)
and in time (PLAINFEED_HEAD_TIMEOUT), before the parser sees its bytes; the Upgrade
headers the server does not take, which the httptools parser is not shown; and the
methods and versions the server knows, the others of which that parser is not shown
either."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence

# The blank line that ends a head, as h11 finds it: lines may end in a bare LF, and a head
# read to a CRLF CRLF only counted the body, and the idle time after it, of such a request
# as its head (431, 408). (A valid head holds no other empty line; httptools refuses LF.)
_HEAD_END = re.compile(rb"\n\r?\n")
# The start of a chunk-size or trailer line kept while the rest of it comes (_kept): its
# digits are at its start, past leading zeros, and a trailer line is told from the empty
# one by its first byte.
_LINE_KEPT = 64
# A chunk's size as the parser reads it: hex digits alone (RFC 9112 7.1), which int(x, 16)
# is not: it takes a sign, "0x", "_" and white space. "-6" set the body's end back before
# its own line, and "-a91f25;x" a chunk's data before the read's start: take went round
# for good on the event loop, the whole server held by one request's first line.
_HEX = re.compile(rb"[0-9A-Fa-f]+")
# An Upgrade header's line start, as the parser reads its name (no space before the colon).
_UPGRADE = b"upgrade:"
# The methods the server knows (RFC 9110 9.3, and PATCH, RFC 5789): another is answered 501
# (RFC 9110 9.1, 15.6.2), one of these not taken at a path 405 with Allow (15.5.6). A
# method is case-sensitive: "get" is another method.
KNOWN_METHODS = frozenset(
    {b"GET", b"HEAD", b"POST", b"PUT", b"DELETE", b"CONNECT", b"OPTIONS", b"TRACE", b"PATCH"}
)
# A method as RFC 9110 5.6.2 spells one: a token.
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]*")
# A request line's version at its end, before its CR (RFC 9112 2.3, 3).
_LINE_VERSION = re.compile(rb" HTTP/([0-9]\.[0-9])\r\Z")


class HeadCount:
    """The bytes of a connection's request head read so far, counted before the parser
    sees them: from a request's first byte to the blank line that ends its head, which
    may come split (the last three bytes are kept)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.next_request()

    def next_request(self) -> None:
        # begun: a byte of the head read. Blank lines before its request line (which a
        # server ignores, RFC 9112 2.2) are not: they neither end the count nor start
        # the head's clock (a stray CRLF after an answer started 30 s of it in place of
        # the keep-alive's 5).
        self.reading, self.bytes, self.tail, self.begun = True, 0, b"", False

    @property
    def over(self) -> bool:
        """Whether the head read so far is over the limit."""
        return self.bytes > self.limit

    def read(self, data: bytes) -> int:
        """Counts ``data``'s bytes of the head; returns how many of its first bytes are
        the head's, blank lines before it included: all of them until its end, which
        ends the count (then the rest is a body, or the next request); 0 when no head is
        read (until next_request)."""
        if not self.reading:
            return 0
        start = 0
        if not self.begun:
            # "\r\n\r\n" first ended the count, and the head after it was read unbounded.
            start = len(data) - len(data.lstrip(b"\r\n"))
            if start == len(data):
                return start
            self.begun = True
        seen = self.tail + data[start:]
        end = _HEAD_END.search(seen)
        if end is None:
            self.bytes += len(data) - start
            self.tail = seen[-3:]
            return len(data)
        used = end.end() - len(self.tail)
        self.bytes += used
        self.reading = False
        return start + used


class BodyEnd:
    """Where a request's body ends in the bytes read after its head (RFC 9112 6.3): at
    its Content-Length, or after the last chunk and trailers of a chunked one. The bytes
    after it are the next request's head, counted as such: read at once with the body's
    end, they went uncounted (a head of any size, pipelined after a body)."""

    def __init__(self, headers: Sequence[tuple[bytes, bytes]]) -> None:
        coding = b",".join(v for k, v in headers if k.lower() == b"transfer-encoding")
        length = next((v for k, v in headers if k.lower() == b"content-length"), b"0")
        self.chunked = b"chunked" in coding.lower()
        self.left = int(length) if length.strip().isdigit() and not self.chunked else 0
        self._state = "size"  # of a chunked body: size, data, trailer, then end (or bad)
        self._line = b""

    def within(self, n: int) -> bool:
        """Whether the next ``n`` bytes are all of the body, none past a chunk's data
        (then they are taken): :meth:`take`'s answer for a read amid a long body or a
        chunk, in a step."""
        if n > self.left or (self.chunked and self._state != "data"):
            return False
        self.left -= n
        if self.chunked and not self.left:
            self._state = "size"
        return True

    def take(self, data: bytes) -> int:
        """How many of ``data``'s first bytes are the body's: all of them until its end,
        none after it. (Framing the parser refuses is all body: the parser answers 400.)"""
        if not self.chunked:
            n = min(len(data), self.left)
            self.left -= n
            return n
        i, end = 0, len(data)
        while i < end and self._state not in ("end", "bad"):
            if self._state == "data":  # a chunk's bytes and the CRLF after them
                step = min(self.left, end - i)
                i, self.left = i + step, self.left - step
                self._state = "data" if self.left else "size"
                continue
            if self._state == "size" and not self._line:
                i = self._sizes(data, i, end)
                if self._state != "size" or i == end:
                    continue
            i = self._one_line(data, i, end)
        return end if self._state == "bad" else i

    def _sizes(self, data: bytes, i: int, end: int) -> int:
        """Past the chunks whose size lines (no extension) and data are all in ``data``
        from ``i``: where the first other line starts. A loop of its own, a chunk a
        turn: a body of tiny chunks, each a turn of take's with its line copied, split
        and stripped, took several times as long to read as it took uvicorn alone."""
        find = data.find
        last = 0  # the size of the chunk before
        while (nl := find(b"\n", i)) >= 0:
            # Digits and a CR, else an extension, or bad (_one_line). int() reads them
            # past any number of leading zeros, as the parser does (a line kept to 64
            # bytes made "000...05" a last chunk, and the body's end, and the head after
            # it, was read in the wrong place).
            if data[nl - 1 : nl] != b"\r" or not _HEX.fullmatch(data, i, nl - 1):
                return i
            size = int(data[i:nl], 16)
            if not size:
                self._state = "trailer"
                return nl + 1
            if nl + 3 + size > end:  # the chunk's data (and CRLF) goes on in a later read
                self.left, self._state = nl + 3 + size - end, "data"
                return end
            if size == last:  # a run of chunks of one size, as a client's buffer sends
                i = _run(data, nl + 3 + size, data[i : nl + 1], nl + 3 + size - i, end)
            else:
                i = nl + 3 + size
            last = size
        return i

    def _one_line(self, data: bytes, i: int, end: int) -> int:
        """A size line with an extension or split over reads, or a trailer line, from
        ``i``: where the next line starts (``end`` if this one goes on)."""
        nl = data.find(b"\n", i)
        if nl < 0:
            self._line = _kept(self._line + data[i:])
            return end
        line, self._line = self._line + data[i:nl], b""
        if self._state == "trailer":
            if not line.rstrip(b"\r"):  # the empty line that ends the message
                self._state = "end"
            return nl + 1
        # Digits, an extension perhaps, and the CR before the LF (the parser refuses a
        # bare LF: read as a line end, the body ended before where the parser found it).
        digits = line[:-1].split(b";", 1)[0]
        if line[-1:] != b"\r" or not _HEX.fullmatch(digits):
            self._state = "bad"
            return end
        size = int(digits, 16)
        self.left, self._state = size + 2, ("data" if size else "trailer")
        return nl + 1


# A head's Transfer-Encoding, Content-Length and Host fields, as h11 reads them (white
# space after the colon, none before it), and its request line's version.
_HEAD_FIELD = re.compile(rb"^(transfer-encoding|content-length|host):[ \t]*([^\r\n]*)", re.I | re.M)
_VERSION = re.compile(rb"[^\r\n]* HTTP/([0-9]\.[0-9])\r?\n")


def head_fields(head: bytes) -> list[tuple[bytes, bytes]]:
    """The framing fields and Host of a request ``head`` (its bytes), names lowercased."""
    return [(k.lower(), v) for k, v in _HEAD_FIELD.findall(head)]


def head_version(head: bytes) -> bytes | None:
    """The HTTP version of a request ``head``'s request line (b"1.1"), None if none."""
    found = _VERSION.match(head)
    return found.group(1) if found else None


def unknown_codings(headers: Sequence[tuple[bytes, bytes]]) -> list[bytes]:
    """The transfer codings a request's body is sent in that the service does not decode
    (any but chunked), where chunked is the last, as both parsers need it to be, and no
    Content-Length frames the body too (a 400): answered 501 (RFC 9112 6.1). httptools
    undid the chunked coding and gave the app the body still gzipped (a 422 of its JSON),
    h11 answered 400."""
    if any(k.lower() == b"content-length" for k, _ in headers):
        return []
    codings = [
        c.strip(b" \t").lower()
        for k, v in headers
        if k.lower() == b"transfer-encoding"
        for c in v.split(b",")
    ]
    codings = [c for c in codings if c]
    if not codings or codings[-1] != b"chunked":
        return []
    return [c for c in codings[:-1] if c != b"chunked"]


def _run(data: bytes, i: int, line: bytes, unit: int, end: int) -> int:
    """Past the chunks of ``data`` from ``i`` whose size line is ``line`` (the same bytes),
    each ``unit`` bytes with its data and CRLF, and whole before ``end``. Compared a
    window of chunks at a time, a strided slice for each byte of the line (in C), the
    window doubled while all of it matches: a body of 16-byte chunks took 2.5 times as
    long to read as uvicorn alone took, a chunk a turn of _sizes' loop (bench.framing).
    A run cut short costs one window of 16."""
    window = 16
    while k := min(window, (end - i) // unit):
        same = k
        for o in range(len(line)):
            column = data[i + o : i + o + same * unit : unit]
            same = len(column) - len(column.lstrip(line[o : o + 1]))
            if not same:
                return i
        i += same * unit
        if same < k:
            return i
        window *= 2
    return i


def _kept(line: bytes) -> bytes:
    """The start of a chunk-size or trailer line kept while the rest of it comes: its
    digits with one leading zero at most, or whether it is empty; and its last byte (a
    CR, or not, before the LF to come)."""
    digits = line.lstrip(b"0")
    kept = digits if len(digits) == len(line) else b"0" + digits
    return kept if len(kept) <= _LINE_KEPT else kept[:_LINE_KEPT] + kept[-1:]


class IgnoredUpgrade:
    """A request head as the httptools parser is fed it, less each Upgrade header naming
    a protocol the server does not take (any but ``taken``: uvicorn's "websocket" when it
    has a WebSocket protocol), which RFC 9110 7.8 lets a server ignore: the parser, told
    of one, ends the request at its head (httptools 124), and the body of a POST asking
    for h2c (Java's HttpClient and Ktor ask on every request) was read as the next
    request (400), or dropped with the requests read at once with it. A line that may
    be one is held until it ends; every other byte is passed on at once."""

    def __init__(self, taken: bytes | None) -> None:
        self.taken = taken
        self.next_request()

    def next_request(self) -> None:
        self._at_line_start, self._held = True, b""

    def feed(self, data: bytes) -> bytes:
        """The bytes of ``data`` (the head's, in order) to feed the parser now."""
        data, self._held = self._held + data, b""
        start = 0
        if not self._at_line_start:  # (the rest of a line begun in an earlier read)
            start = data.find(b"\n") + 1
            if not start:
                return data
        low = data.lower()
        kept, i = [], 0
        at = 0 if low.startswith(_UPGRADE) and not start else _next_upgrade(low, start - 1)
        while at >= 0 and (nl := data.find(b"\n", at)) >= 0:
            # Left out if its value (white space aside, as the parser reads it) is not the
            # one taken; a line the parser refuses (ended by a bare LF) is passed on: a 400.
            value = low[at + len(_UPGRADE) : nl - 1].strip(b" \t")
            if value != self.taken and low[nl - 1 : nl] == b"\r":
                kept.append(data[i:at])
                i = nl + 1
            at = _next_upgrade(low, nl)
        # The last line, not whole: held if it may be an Upgrade header, its value (or the
        # rest of its name) to come.
        last = data.rfind(b"\n") + 1
        tail = low[last:]
        if tail and (tail.startswith(_UPGRADE) or _UPGRADE.startswith(tail)):
            self._held = data[last:]
            kept.append(data[i:last])
        else:
            kept.append(data[i:])
        self._at_line_start = not tail or bool(self._held)
        return b"".join(kept)


class RequestLine:
    """A request line as the httptools parser is fed it: its method one the server knows,
    its version 1.0 or 1.1; the others are kept for the service to answer once the head
    is read whole, as h11, which takes them, gives them.

    An unknown method is fed as GET (``method``): the parser (llhttp) refused one it does
    not know with a 400 of its own at its first byte, before the rest of the head was
    read, and passed those it knows (PROPFIND, PURGE, QUERY, ...) to the app, a 405; h11
    passed them all, a 405 too. Another version is fed as 1.1 (``version``; b"" where the
    line names none, HTTP/0.9's): the parser refused 1.2 and 3.0 (400) and served 2.0
    and a line of no version as 1.1, h11 served 1.2, 2.0 and 3.7 and refused a line of
    no version. The line is held until it ends; a method with a byte no token holds
    passes the head on at once as it is (the parser's 400)."""

    def __init__(self) -> None:
        self.next_request()

    def next_request(self) -> None:
        self.method: bytes | None = None  # an unknown method read, the head fed as GET
        self.version: bytes | None = None  # a version but 1.0 and 1.1, the head fed as 1.1
        self._held = bytearray()
        self._start = self._scanned = 0  # where the method starts; how far it is read
        self._method_end = -1  # where the method ends, once read
        self._read = False  # the line read (or no token): the rest passes as it is

    def feed(self, data: bytes) -> bytes:
        """The bytes of ``data`` (the head's, in order) to feed the parser now."""
        if self._read:
            return data
        held = self._held
        seen: bytes | bytearray = data
        if held:
            held += data
            seen = held
        else:
            # (Blank lines before a request line, which the parser skips, stay before it.
            # A read of them alone is not fed: HeadCount.)
            self._start = self._scanned = len(data) - len(data.lstrip(b"\r\n"))
        # (Scanned from where the last read ended: a line sent a byte a read is read
        # once, not once a read.)
        if self._method_end < 0:
            end = _TOKEN.match(seen, self._scanned).end()  # type: ignore[union-attr]
            if end < len(seen) and (seen[end : end + 1] != b" " or end == self._start):
                # No token: the parser refuses it, at once. (Copied before the held
                # bytes are cleared: ``seen`` may be them, and an emptied head was fed
                # as nothing, the connection left waiting with no answer.)
                self._read = True
                out = data if seen is data else bytes(seen)
                held.clear()
                return out
            self._scanned = end
            if end < len(seen):
                self._method_end = end
        nl = seen.find(b"\n", self._scanned) if self._method_end >= 0 else -1
        if nl < 0:  # the line goes on in a later read
            if not held:
                held += data
            self._scanned = len(seen)
            return b""
        seen = bytes(seen)
        held.clear()
        self._read = True
        return self._fed(seen, nl)

    def _fed(self, seen: bytes, nl: int) -> bytes:
        """``seen`` (its request line ending at ``nl``) as the parser is fed it."""
        start, end = self._start, self._method_end
        method = seen[start:end]
        if method not in KNOWN_METHODS:
            self.method = method
        found = _LINE_VERSION.search(seen, end, nl)
        version = found.group(1) if found else None
        if version is None and b" " not in seen[end + 1 : nl]:
            self.version = b""  # (the parser serves it as 1.1)
        elif version not in (None, b"1.0", b"1.1"):
            self.version = version
        if self.method is None and not self.version:
            return seen  # (as most lines are: not copied)
        fed = [seen[:start], b"GET" if self.method else method]
        at = end
        if found and self.version:
            fed += [seen[end : found.start(1)], b"1.1"]
            at = found.end(1)
        fed.append(seen[at:])
        return b"".join(fed)


def _next_upgrade(low: bytes, after: int) -> int:
    """Where the next line naming Upgrade starts in ``low`` (a head, lowercased), the
    line after ``after`` or a later one; -1 if none does."""
    at = low.find(b"\n" + _UPGRADE, max(after, 0))
    return at + 1 if at >= 0 else -1


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
