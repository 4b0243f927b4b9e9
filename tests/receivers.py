"""Subscribers' endpoints on loopback for the outbound webhook tests: a well-behaved one
that records what it is sent (:class:`Receiver`), a base for those that answer as no
well-behaved endpoint does (:class:`RawReceiver`); and the check of a received event's
signature as the Standard Webhooks specification says, without Plainfeed's code."""

from __future__ import annotations

import base64
import hashlib
import hmac
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
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


class Answering(RawReceiver):
    """A receiver that answers every POST with ``status`` and a body of ``size`` bytes,
    written ``step`` bytes at a time every ``pause`` seconds; it records whether it got
    to write the whole body (a sender that stops reading closes the connection first)."""

    def __init__(self, status: int, size: int, step: int, pause: float) -> None:
        self.finished: list[bool] = []

        def answer(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(status)
            handler.send_header("content-length", str(size))
            handler.end_headers()
            try:
                for _ in range(0, size, step):
                    handler.wfile.write(b"x" * step)
                    handler.wfile.flush()
                    time.sleep(pause)
            except OSError:
                self.finished.append(False)
                return
            self.finished.append(True)

        super().__init__(answer)


# The example of the Standard Webhooks specification (and its reference libraries).
SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek"
SPEC_TS = 1614265330
SPEC_BODY = b'{"test": 2432232314}'
SPEC_SIG = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes


@dataclass
class Receiver:
    """An HTTP endpoint on loopback that answers scripted statuses (then 204)."""

    statuses: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    port: int = 0  # the one it got, once entered

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def __enter__(self) -> Receiver:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                receiver.received.append(
                    Received({k.lower(): v for k, v in self.headers.items()}, body)
                )
                status = receiver.statuses.pop(0) if receiver.statuses else 204
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        # Bound here, not on a port found free before: that one could be taken meanwhile.
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.port = int(self.server.server_address[1])
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def independent_check(secret: str, r: Received) -> None:
    """Verify as the specification says, without Plainfeed's code."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{r.headers['webhook-id']}.{r.headers['webhook-timestamp']}.".encode() + r.body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    assert r.headers["webhook-signature"] == f"v1,{expected}"
    assert abs(time.time() - int(r.headers["webhook-timestamp"])) < 300
