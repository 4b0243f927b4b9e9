"""A job's read of an answer (a fetch's: service.transport; a model call's:
service.engines.llm.client) waits in slices and looks at the job's lease between two
(service.abandon.read_sliced): the slicing must not change what the read gives. Real
sockets on loopback, read through httpcore's own streams."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import httpcore
import pytest

from service import abandon
from service.errors import LeaseLost


@pytest.fixture
def quiet() -> Iterator[tuple[httpcore.NetworkStream, socket.socket]]:
    """A connection (httpcore's) to a loopback server that accepted it, and the server's
    end of it, which sends nothing until the test does."""
    server = socket.create_server(("127.0.0.1", 0))
    stream = httpcore.SyncBackend().connect_tcp("127.0.0.1", server.getsockname()[1], 5.0)
    far, _ = server.accept()
    try:
        yield stream, far
    finally:
        stream.close()
        far.close()
        server.close()


def read(stream: httpcore.NetworkStream, timeout: float | None, lost: threading.Event) -> bytes:
    return abandon.read_sliced(
        lambda wait: stream.read(1024, wait), timeout, httpcore.ReadTimeout, lost, "a read"
    )


def test_a_read_left_no_time_is_a_timeout_not_a_read_error(
    quiet: tuple[httpcore.NetworkStream, socket.socket],
) -> None:
    # The slice was the time left, floored at 0, and a socket given 0 does not wait: its
    # read raised "would block" (EAGAIN), which httpcore names a ReadError: a fetch whose
    # time ran out between two slices failed as "cannot fetch: ReadError", not as a timeout.
    stream, _ = quiet
    with pytest.raises(httpcore.ReadTimeout):
        read(stream, 1e-9, threading.Event())


def test_an_answer_later_than_a_slice_is_read_whole(
    quiet: tuple[httpcore.NetworkStream, socket.socket],
) -> None:
    stream, far = quiet

    def answer() -> None:
        time.sleep(4 * abandon.LOOK_SECONDS)  # a few slices run out before it comes
        far.sendall(b"HTTP/1.1 200 OK\r\n")

    sender = threading.Thread(target=answer, daemon=True)
    sender.start()
    assert read(stream, 30.0, threading.Event()) == b"HTTP/1.1 200 OK\r\n"
    sender.join(10)


def test_a_read_given_its_time_ends_as_a_timeout(
    quiet: tuple[httpcore.NetworkStream, socket.socket],
) -> None:
    stream, _ = quiet
    with pytest.raises(httpcore.ReadTimeout):
        read(stream, 2 * abandon.LOOK_SECONDS, threading.Event())


def test_a_lost_lease_ends_the_read_and_says_what_was_abandoned(
    quiet: tuple[httpcore.NetworkStream, socket.socket],
) -> None:
    stream, far = quiet
    lost = threading.Event()
    lost.set()
    far.sendall(b"unread")  # there to read, but the lease is gone: nothing more is read
    with pytest.raises(LeaseLost) as raised:
        abandon.read_sliced(
            lambda wait: stream.read(1024, wait),
            None,
            httpcore.ReadTimeout,
            lost,
            "the model call in flight",
            in_flight=True,
        )
    assert raised.value.detail == "lease lost: the model call in flight abandoned"
    assert raised.value.extra == {"in_flight": True}
