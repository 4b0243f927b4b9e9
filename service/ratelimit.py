"""Per-process limits on LLM requests: how many at once, and how many per minute.

Workers are threads, so both limits are thread-safe and shared by every engine of the
process that talks to the same endpoint (see :func:`limiter_for`). In a job
(service.abandon), a wait for a slot or a token ends as soon as the job's lease is lost.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from service import abandon
from service.errors import LeaseLost

Clock = Callable[[], float]
Sleep = Callable[[float], None]


class TokenBucket:
    """Requests per minute as a token bucket: ``rate`` tokens a second, ``capacity`` burst."""

    def __init__(
        self,
        per_minute: float,
        capacity: float | None = None,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
    ) -> None:
        if per_minute <= 0:
            raise ValueError("per_minute must be positive")
        self.rate = per_minute / 60.0
        # Ten seconds' worth of requests may go at once; a steady stream is held to the rate.
        self.capacity = capacity if capacity is not None else max(1.0, self.rate * 10)
        self._tokens = self.capacity
        self._clock = clock
        self._sleep = sleep
        self._stamp = clock()
        self._lock = threading.Lock()

    def _refill(self) -> None:
        now = self._clock()
        self._tokens = min(self.capacity, self._tokens + (now - self._stamp) * self.rate)
        self._stamp = now

    def try_acquire(self) -> float:
        """Take a token and return 0.0, or return the seconds until one is due."""
        with self._lock:
            self._refill()
            if self._tokens >= 1.0:
                self._tokens -= 1.0
                return 0.0
            return (1.0 - self._tokens) / self.rate

    def acquire(self, lost: threading.Event | None = None) -> float:
        """Block until a token is taken; returns the seconds spent waiting. With ``lost``
        (a job's lease-lost event), the wait ends in LeaseLost once it is set: the token
        would be spent on a call whose answer is refused."""
        waited = 0.0
        while True:
            wait = self.try_acquire()
            if wait <= 0.0:
                return waited
            if lost is None:
                self._sleep(wait)
            elif lost.wait(wait):
                raise LeaseLost("lease lost: a model call not started (waiting for the rate)")
            waited += wait


class RateLimiter:
    """At most ``max_concurrency`` requests in flight and ``rpm`` started per minute."""

    def __init__(
        self,
        max_concurrency: int,
        rpm: float,
        clock: Clock = time.monotonic,
        sleep: Sleep = time.sleep,
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be at least 1")
        self.max_concurrency = max_concurrency
        self._slots = threading.BoundedSemaphore(max_concurrency)
        self.bucket = TokenBucket(rpm, clock=clock, sleep=sleep)
        self._lock = threading.Lock()
        self.in_flight = 0
        self.peak_in_flight = 0

    @contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one request slot for the duration of the block. In a job, the wait for
        the slot and the rate raises LeaseLost as soon as its lease is lost (no slot then
        held): behind other workers' calls it could last minutes for a refused result."""
        lost = abandon.current()
        self._take_slot(lost)
        try:
            self.bucket.acquire(lost)
            with self._lock:
                self.in_flight += 1
                self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            try:
                yield
            finally:
                with self._lock:
                    self.in_flight -= 1
        finally:
            self._slots.release()

    def _take_slot(self, lost: threading.Event | None) -> None:
        if lost is None:
            self._slots.acquire()
            return
        # A semaphore's wait cannot be woken by the event: it is taken in slices, the
        # lease looked at between them.
        while not self._slots.acquire(timeout=abandon.LOOK_SECONDS):
            if lost.is_set():
                raise LeaseLost("lease lost: a model call not started (waiting for a slot)")


_LIMITERS: dict[tuple[str, int, float], RateLimiter] = {}
_LIMITERS_LOCK = threading.Lock()


def limiter_for(endpoint: str, max_concurrency: int, rpm: float) -> RateLimiter:
    """The process-wide limiter of an endpoint (created on first use)."""
    key = (endpoint, max_concurrency, rpm)
    with _LIMITERS_LOCK:
        limiter = _LIMITERS.get(key)
        if limiter is None:
            limiter = _LIMITERS[key] = RateLimiter(max_concurrency, rpm)
        return limiter
