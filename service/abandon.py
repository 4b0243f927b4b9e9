"""A job given up while it runs: its worker's heartbeat found the lease lost (another
worker owns the job now), and the code that spends on the job checks, before each paid
step, whether to go on. A context variable, since the job's code runs in the worker's
thread while the heartbeat renews from its own.

Besides the steps' checks, the waits between them end when the lease is lost: a retry's
backoff (:func:`sleep`), a wait for the rate limiter's slot or token
(service.ratelimit), and a model call in flight, whose answer is read in short slices
that look at the lease between them (:func:`read_sliced`: service.engines.llm.client),
as a fetch's answer is (a feed's, a page's: service.transport), its connect and TLS
handshake (service.connecting), and a host name's lookup waited for (service.resolving)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from service.errors import LeaseLost

T = TypeVar("T")

_LOST: ContextVar[threading.Event | None] = ContextVar("lease_lost", default=None)

# How long a job's wait that no event can wake (a socket read, a semaphore, a lookup's
# answer) goes before it looks at the job's lease again: a lost lease ends it within this.
LOOK_SECONDS = 0.25


@contextmanager
def watching(lost: threading.Event) -> Iterator[None]:
    """Run the block as the job whose lease ``lost`` says is gone once set."""
    token = _LOST.set(lost)
    try:
        yield
    finally:
        _LOST.reset(token)


def check(step: str) -> None:
    """Raise LeaseLost before ``step`` when the running job's lease is lost: its result
    would be refused, so the step (a model call) would be paid for nothing."""
    lost = _LOST.get()
    if lost is not None and lost.is_set():
        raise LeaseLost(f"lease lost: {step} not started")


def current() -> threading.Event | None:
    """The event set when the running job's lease is lost; None outside a job."""
    return _LOST.get()


def sleep(seconds: float, step: str) -> None:
    """Wait ``seconds`` before ``step`` (a retry's backoff), and raise LeaseLost as soon
    as the running job's lease is lost: the wait, up to a minute, held the worker on a
    job whose result would be refused."""
    lost = _LOST.get()
    if lost is None:
        time.sleep(seconds)
    elif lost.wait(seconds):
        raise LeaseLost(f"lease lost: {step} not started")


def read_sliced(
    read: Callable[[float], bytes],
    timeout: float | None,
    timed_out: type[Exception],
    lost: threading.Event,
    what: str,
    **extra: object,
) -> bytes:
    """``read(seconds)``, one socket read of a job's answer that raises ``timed_out`` when
    no byte came within ``seconds``, asked in slices (:func:`sliced`). Used by a fetch
    (service.transport) and a model call (service.engines.llm.client); the caller that
    raises leaves the answer unread, and httpcore closes the connection instead of
    handing it to the next request.

    A read that timed out took no bytes (a TLS record read in part stays in the TLS
    layer's buffer): asking it again is the same read."""
    return sliced(read, timeout, timed_out, lost, what, **extra)


def sliced(
    wait: Callable[[float], T],
    timeout: float | None,
    timed_out: type[Exception],
    lost: threading.Event,
    what: str,
    **extra: object,
) -> T:
    """``wait(seconds)``, a wait that raises ``timed_out`` when what it waits for did not
    come within ``seconds`` (a socket's read, a connect's or a handshake's next step:
    service.connecting), asked in slices of at most :data:`LOOK_SECONDS` until
    ``timeout`` has passed (None: no end), and LeaseLost (``what`` abandoned, with
    ``extra``) raised between two once ``lost`` is set: a socket wait cannot be woken by
    the event. Asking ``wait`` again after it timed out must be the same wait."""
    end = None if timeout is None else time.monotonic() + timeout
    while True:
        if lost.is_set():
            raise LeaseLost(f"lease lost: {what} abandoned", **extra)
        left = LOOK_SECONDS if end is None else end - time.monotonic()
        if left <= 0:
            # Not a wait given no time: a socket whose timeout is 0 does not wait, and
            # its read raised "would block" (a ReadError, not a timeout) with no byte there.
            raise timed_out("timed out")
        try:
            return wait(min(LOOK_SECONDS, left))
        except timed_out:
            if end is not None and time.monotonic() >= end:
                raise


def read_watched(
    read: Callable[[float | None], bytes],
    timeout: float | None,
    timed_out: type[Exception],
    what: str,
    **extra: object,
) -> bytes:
    """``read(timeout)`` as one wait outside a job (the CLI's explain, the API's
    synchronous one), and in a job :func:`read_sliced`, so that the read ends in
    LeaseLost soon after the job's lease is lost. The socket reads of a fetch
    (service.transport) and of a model call (service.engines.llm.client)."""
    lost = _LOST.get()
    if lost is None:
        return read(timeout)
    return read_sliced(read, timeout, timed_out, lost, what, **extra)
