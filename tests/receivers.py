"""Subscribers' endpoints on loopback for the outbound webhook tests: a well-behaved one
that records what it is sent (:class:`Receiver`), and a base for those that answer as no
well-behaved endpoint does (:class:`RawReceiver`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class RawReceiver:
    """An endpoint on loopback that reads each POST's body, then lets ``answer`` write
    the response through the request's handler as it likes (slowly, hugely, malformed).
    ``close()`` stops it."""

    def __init__(self, answer: Callable[[BaseHTTPRequestHandler], None]) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", "0")))
                answer(self)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
