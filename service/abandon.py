"""A job given up while it runs: its worker's heartbeat found the lease lost (another
worker owns the job now), and the code that spends on the job checks, before each paid
step, whether to go on. A context variable, since the job's code runs in the worker's
thread while the heartbeat renews from its own.

Besides the steps' checks, the waits between them end when the lease is lost: a retry's
backoff (:func:`sleep`), a wait for the rate limiter's slot or token
(service.ratelimit), and a model call in flight, whose answer is read in short slices
that look at the lease between them (service.engines.llm.client), as a fetch's answer is
(a feed's, a page's: service.transport) and a host name's lookup waited for
(service.resolving)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from service.errors import LeaseLost

_LOST: ContextVar[threading.Event | None] = ContextVar("lease_lost", default=None)


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
