"""A circuit breaker for the model endpoint.

After ``threshold`` consecutive upstream failures the circuit opens: workers stop
claiming items for ``cooldown`` seconds instead of burning attempts against a dead
endpoint. After the cool-down one trial is let through (half-open); its success closes
the circuit, its failure opens it again. A trial that made no call (no item was ready)
is given back with :meth:`Circuit.abandon`; one that never reports (its job crashed or
reused a stored result) expires after another cool-down, so the circuit cannot stay
shut for good.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Circuit:
    def __init__(
        self,
        threshold: int,
        cooldown: float,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.threshold = threshold
        self.cooldown = cooldown
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._trial_at: float | None = None  # when the half-open trial was let through
        self._trial_thread: int | None = None

    @property
    def state(self) -> str:
        with self._lock:
            return self._state()

    def _state(self) -> str:
        if self._opened_at is None:
            return "closed"
        if self._clock() - self._opened_at >= self.cooldown:
            return "half-open"
        return "open"

    def allow(self) -> bool:
        """May a worker start an upstream call now?"""
        with self._lock:
            st = self._state()
            if st == "closed":
                return True
            now = self._clock()
            if st == "half-open" and (
                self._trial_at is None or now - self._trial_at >= self.cooldown
            ):
                self._trial_at = now
                self._trial_thread = threading.get_ident()
                return True
            return False

    def holds_trial(self) -> bool:
        """Whether the calling thread holds the half-open trial."""
        with self._lock:
            return self._trial_thread == threading.get_ident()

    def abandon(self) -> None:
        """Give back the caller's half-open trial if it neither succeeded nor failed."""
        with self._lock:
            if self._trial_thread == threading.get_ident():
                self._trial_at = None
                self._trial_thread = None

    def success(self) -> None:
        with self._lock:
            self._failures = 0
            self._opened_at = None
            self._trial_at = None
            self._trial_thread = None

    def failure(self) -> None:
        with self._lock:
            self._failures += 1
            self._trial_at = None
            self._trial_thread = None
            if self._failures >= self.threshold or self._opened_at is not None:
                self._opened_at = self._clock()

    def seconds_until_retry(self) -> float:
        with self._lock:
            if self._opened_at is None:
                return 0.0
            return max(0.0, self.cooldown - (self._clock() - self._opened_at))
