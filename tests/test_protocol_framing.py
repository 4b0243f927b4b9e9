"""Where the httptools protocol finds a request body's end (api.heads.BodyEnd) so that
the head after it is counted, and what it feeds the parser after a WebSocket handshake:
raw bytes to a real server on loopback."""

from __future__ import annotations

import json
import random
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httptools
import pytest

from service.api.app import create_app
from service.api.heads import BodyEnd
from service.api.protocol import (
    ProblemH11Protocol,
    ProblemHttpToolsProtocol,
    bounded,
    http_protocol,
)
from service.config import Settings
from tests.conftest import exchange, make_settings, serve_on_loopback, statuses

SMALL = 8 * 1024
CHECK = json.dumps({"markdown": "It is 1.5x faster.", "explainer": "It is 1.5x faster."}).encode()
CHUNKED = [(b"transfer-encoding", b"chunked")]


@pytest.fixture
def port(tmp_path: Path) -> Iterator[int]:
    """A server whose head cap is 8 KiB (its time the default's)."""
    settings: Settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}")
    protocol = bounded(ProblemHttpToolsProtocol, SMALL, 30.0)
    yield from serve_on_loopback(create_app(settings, workers=0), protocol)


def _post(chunks: bytes) -> bytes:
    return (
        b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Transfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n"
    )


BIG_HEAD = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: " + b"y" * (SMALL + 1024) + b"\r\n\r\n"


def test_a_chunk_size_with_leading_zeros_leaves_the_next_head_counted(port: int) -> None:
    # The parser reads a chunk size past any number of zeros; BodyEnd kept 64 bytes of
    # the line, took "000...0" for the last chunk and the CRLF starting its data for the
    # empty line after it: the parser's end of the body came later, in the midst of
    # what was fed at once, and the head over the cap after it was served (200).
    data = b"\r\n" + CHECK  # (white space before JSON)
    chunk = b"0" * 70 + b"%x\r\n%s\r\n" % (len(data), data)
    assert statuses(port, _post(chunk) + BIG_HEAD) == [
        b"HTTP/1.1 200 OK",
        b"HTTP/1.1 431 Request Header Fields Too Large",
    ]


def test_a_body_of_one_byte_chunks_is_read_to_its_end(port: int) -> None:
    # Each chunk a line and a byte: BodyEnd's loop over chunks in one read (_sizes).
    chunks = b"".join(b"1\r\n%s\r\n" % CHECK[i : i + 1] for i in range(len(CHECK)))
    assert statuses(port, _post(chunks) + BIG_HEAD) == [
        b"HTTP/1.1 200 OK",
        b"HTTP/1.1 431 Request Header Fields Too Large",
    ]


def test_body_end_reads_leading_zeros_and_extensions_however_split() -> None:
    body = (
        b"0" * 70 + b"3\r\n\r\nx\r\n"  # a chunk whose data starts with CRLF
        b"2;name=" + b"v" * 100 + b"\r\nab\r\n"  # an extension past the line kept
        b"1\r\nc\r\n" + b"0" * 80 + b"\r\nX-Trailer: 1\r\n\r\n"
    )
    assert BodyEnd(CHUNKED).take(body + b"GET / HTTP/1.1") == len(body)
    for cut in range(1, len(body)):
        split = BodyEnd(CHUNKED)
        assert split.take(body[:cut]) == cut
        assert split.take(body[cut:] + b"GET") == len(body) - cut, cut
    bytewise, taken = BodyEnd(CHUNKED), 0
    for i in range(len(body)):
        taken += bytewise.take(body[i : i + 1])
    assert taken == len(body) and bytewise.take(b"GET") == 0


def _chunks(sizes: list[int], line: bytes = b"%x") -> bytes:
    """Chunks of these sizes, their data what a last chunk's line looks like."""
    return b"".join(line % n + b"\r\n" + (b"0\r\n" * n)[:n] + b"\r\n" for n in sizes)


def test_body_end_reads_runs_of_chunks_of_one_size_however_split() -> None:
    # Chunks of one size after another are passed a window at a time (heads._run), no
    # longer a chunk a turn; a run ends at a chunk of another size, at one whose line
    # is written otherwise ("010"), and where a read ends in the midst of a chunk.
    body = (
        _chunks([16] * 40 + [3, 3, 16, 16])
        + _chunks([16] * 5, b"0%x")
        + _chunks([1] * 70 + [2] * 3 + [5] * 20)
        + b"0\r\n\r\n"
    )
    for cut in range(1, len(body)):
        split = BodyEnd(CHUNKED)
        assert split.take(body[:cut]) == cut
        assert split.take(body[cut:] + b"GET") == len(body) - cut, cut
    whole = BodyEnd(CHUNKED)
    assert whole.take(body + b"GET") == len(body) and whole.take(b"GET") == 0


def test_body_end_within_takes_a_read_amid_a_body_or_a_chunk() -> None:
    length = BodyEnd([(b"content-length", b"10")])
    assert length.within(4) and length.within(6) and not length.within(1)
    assert length.take(b"GET") == 0
    chunked = BodyEnd(CHUNKED)
    assert not chunked.within(1)  # a size line first: take reads it
    assert chunked.take(b"5\r\nab") == 5
    assert chunked.within(3) and chunked.within(2)  # "cde" and its CRLF
    assert not chunked.within(1)  # the next line
    assert chunked.take(b"0\r\n\r\nGET") == 5


def test_body_end_of_a_size_the_parser_refuses_is_all_body() -> None:
    # (The parser answers 400 and closes: nothing after it is a request.)
    assert BodyEnd(CHUNKED).take(b"zz\r\nhello\r\n0\r\n\r\nGET") == len(
        b"zz\r\nhello\r\n0\r\n\r\nGET"
    )


# Size lines int(x, 16) reads and the parser refuses: a sign, "0x", "_", white space,
# an LF without its CR. "-6" and "-a91f25;x" set the body's end back: take went round
# for good (the event loop held, every connection with it) or raised.
REFUSED_SIZES = [
    b"-6",
    b"-a91f25;x",
    b"-0",
    b"+5",
    b"0x5",
    b"5_0",
    b" 5",
    b"5 ",
    b"5\t",
    b"\t5",
    b"5\x0b",
    b"5 ;a=b",
]


@pytest.mark.timeout(60, method="thread")  # a take that goes round for good ends the run
@pytest.mark.parametrize("size", REFUSED_SIZES)
def test_a_size_line_the_parser_refuses_is_answered_400_and_the_server_goes_on(
    port: int, size: bytes
) -> None:
    body = b"3\r\nabc\r\n" + size + b"\r\nhello\r\n0\r\n\r\n"
    head = b"POST /check HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
    assert statuses(port, head + body) == [b"HTTP/1.1 400 Bad Request"]
    assert statuses(port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n") == [
        b"HTTP/1.1 200 OK"
    ]


@pytest.mark.timeout(60, method="thread")  # a take that goes round for good ends the run
@pytest.mark.parametrize("size", [*REFUSED_SIZES, b"5", b"5\n", b"5;a"])
def test_body_end_of_a_size_line_is_where_the_parser_ends_or_all_body_however_split(
    size: bytes,
) -> None:
    line = size if size.endswith(b"\n") else size + b"\r\n"
    body = b"3\r\nabc\r\n" + line + b"hello\r\n0\r\n\r\nGET / HTTP/1.1\r\n"
    parser = _ParserEnd()
    end = parser.feed(body)
    for cut in range(len(body) + 1):
        split = BodyEnd(CHUNKED)
        taken = split.take(body[:cut]) + split.take(body[cut:])
        # Where the parser ends the body, there; where it refuses the line, all of it.
        assert taken == (end if end is not None else len(body)), (cut, taken, end)


@pytest.mark.timeout(60, method="thread")  # a take that goes round for good ends the run
def test_body_end_ends_a_body_where_the_parser_does_for_random_framing() -> None:
    # Random bytes of a chunked body's alphabet, a size line's few bytes at a time: the
    # body ends where httptools' parser ends it, whole or split, and take always returns
    # (no size line sets it back). (Where the parser refuses the framing it answers 400
    # and closes: where the body was said to end matters no more.)
    rng = random.Random(20261201)
    pieces = [b"0", b"1", b"3", b"a", b"F", b"-", b"+", b"x", b"_", b" ", b";", b"\r", b"\n"]
    pieces += [b"\r\n", b"abc", b"0\r\n\r\n"]
    ended = 0
    for _ in range(3000):
        body = b"".join(rng.choice(pieces) for _ in range(rng.randint(1, 12))) + b"GET"
        end = _ParserEnd().feed(body)
        cut = rng.randint(0, len(body))
        split = BodyEnd(CHUNKED)
        taken = split.take(body[:cut]) + split.take(body[cut:])
        whole = BodyEnd(CHUNKED).take(body)
        assert 0 <= whole <= len(body) and 0 <= taken <= len(body), body
        if end is not None:
            assert whole == taken == end, (body, cut)
            ended += 1
    assert ended > 100  # (the cases the parser ends are many enough to tell)


class _ParserEnd:
    """Where httptools' parser ends a chunked request's body: fed a byte at a time."""

    def __init__(self) -> None:
        self.done = False
        self.parser = httptools.HttpRequestParser(self)
        self.parser.feed_data(b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")

    def on_message_complete(self) -> None:
        self.done = True

    def feed(self, body: bytes) -> int | None:
        """How many bytes of ``body`` are the body's; None if the parser refuses it (or
        it does not end)."""
        for i in range(len(body)):
            try:
                self.parser.feed_data(body[i : i + 1])
            except httptools.HttpParserError:
                return None
            if self.done:
                return i + 1
        return None


def test_bytes_sent_with_a_websocket_handshake_are_not_read_as_http(port: int) -> None:
    # The parser is done with the connection once it is upgraded: the frame sent with
    # the handshake was fed to it, and its 400 problem was written into the WebSocket
    # connection in place of the WebSocket protocol's answer (no route takes one: 403).
    handshake = (
        b"GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    )
    frame = b"\x81\x85\x37\xfa\x21\x3d\x7f\x9f\x4d\x51\x58"  # a masked text frame, "Hello"
    status, _, body = exchange(port, handshake + frame)
    assert status.startswith("HTTP/1.1 403"), status
    assert b"bad-http-request" not in body


@pytest.mark.parametrize("protocol", [ProblemHttpToolsProtocol, ProblemH11Protocol])
@pytest.mark.parametrize(
    ("target", "length", "status"),
    [(b"/check", 20_000_000, b"413"), (b"/no-such-route", 5, b"404")],
    ids=["over-the-cap", "no-route"],
)
def test_an_answer_to_a_body_never_asked_for_closes_the_connection(
    tmp_path: Path, protocol: type[Any], target: bytes, length: int, status: bytes
) -> None:
    # Expect: 100-continue, answered before the body was asked for: the client sends no
    # body, and the server read its next request as that body (the connection hung).
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}")
    for port in serve_on_loopback(create_app(settings, workers=0), protocol):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(
                b"POST " + target + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\nExpect: 100-continue\r\n\r\n" % length
            )
            answer = s.recv(65536)
            assert answer.startswith(b"HTTP/1.1 " + status), answer
            assert b"\r\nconnection: close\r\n" in answer.lower()
            s.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")  # (read as nothing)
            rest = b""
            try:
                while chunk := s.recv(65536):  # closed by the server
                    rest += chunk
            except ConnectionResetError:
                pass  # (closed with the request unread: a reset)
        assert b"HTTP/1.1" not in rest


@pytest.mark.parametrize("h11", [False, True], ids=["httptools", "h11"])
def test_the_rest_of_a_body_answered_early_has_the_body_timeout(tmp_path: Path, h11: bool) -> None:
    # A UTF-16 body is answered (400) from its first bytes: the rest, read only to find
    # the next request, came with no clock (the app's ended with its answer), and a
    # client sending a byte every so often held the connection for good.
    settings = make_settings(f"sqlite:///{tmp_path / 'plainfeed.db'}", body_timeout=0.5)
    protocol = http_protocol(settings)
    if h11:
        protocol = bounded(ProblemH11Protocol, SMALL, 30.0, body_seconds=0.5)
    body = json.dumps({"markdown": "x" * 100, "explainer": "y"}).encode("utf-16")
    for port in serve_on_loopback(create_app(settings, workers=0), protocol):
        with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
            s.sendall(
                b"POST /check HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b"Content-Length: %d\r\n\r\n%s" % (len(body), body[:100])
            )
            assert s.recv(65536).startswith(b"HTTP/1.1 400")
            s.settimeout(0.2)
            closed = False
            for i in range(100, min(len(body), 150)):  # a byte every 0.2 s, 10 s in all
                try:
                    s.sendall(body[i : i + 1])
                    closed = s.recv(65536) == b""
                except TimeoutError:
                    continue
                except OSError:
                    closed = True
                if closed:
                    break
        assert closed
