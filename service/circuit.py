"""A circuit breaker for the model endpoint.

After ``threshold`` consecutive upstream failures the circuit opens: workers stop
claiming items for ``cooldown`` seconds instead of burning attempts against a dead
endpoint. After the cool-down one trial is let through (half-open); its success closes
the circuit, its failure opens it again.
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
        self._trial = False

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
            if st == "half-open" and not self._trial:
                self._trial = True
                return True
            return False

    def success(self) -> None:
        with self._lock:
            self._failures = 0
            self._opened_at = None
            self._trial = False

    def failure(self) -> None:
        with self._lock:
            self._failures += 1
            self._trial = False
            if self._failures >= self.threshold or self._opened_at is not None:
                self._opened_at = self._clock()

    def seconds_until_retry(self) -> float:
        with self._lock:
            if self._opened_at is None:
                return 0.0
            return max(0.0, self.cooldown - (self._clock() - self._opened_at))
