"""A job given up while it runs: its worker's heartbeat found the lease lost (another
worker owns the job now), and the code that spends on the job checks, before each paid
step, whether to go on. A context variable, since the job's code runs in the worker's
thread while the heartbeat renews from its own."""

from __future__ import annotations

import threading
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
