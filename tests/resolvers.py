"""A slow name resolver, for the code that takes one as a parameter (the Sender,
fetch.check_url): getaddrinfo takes no timeout, so the tests make resolution slow here."""

from __future__ import annotations

import threading
import time


class SlowResolver:
    """Answers every name with ``address`` after ``delay`` seconds, or, with no delay,
    once ``release`` is set (at most 30 s); ``asked`` holds the names asked for."""

    def __init__(self, delay: float | None = None, address: str = "127.0.0.1") -> None:
        self.delay = delay
        self.address = address
        self.release = threading.Event()
        self.asked: list[str] = []

    def __call__(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        if self.delay is None:
            self.release.wait(30)
        else:
            time.sleep(self.delay)
        return [self.address]
