"""Far sides that hold a connect or a TLS handshake for good, on loopback and without
firewall rules (tests/test_lease_connect.py): a port whose listener's backlog is full,
and a server that accepts a connection and never answers TLS."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
from pathlib import Path
from types import TracebackType

# /proc/net/tcp's state of a socket whose SYN went out unanswered.
_SYN_SENT = "02"


class BlackHole:
    """A loopback port whose connects never complete: its listener (backlog 0) holds one
    connection it never accepts, and Linux drops the SYN of every connect after that
    while the accept queue is full (net.ipv4.tcp_abort_on_overflow 0, the default): the
    connect waits until its own timeout, as to a black-holed host. :meth:`open` accepts
    the queue and answers HTTP: the connects after go through."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0), backlog=0)
        self.port: int = self.server.getsockname()[1]
        self._fill: list[socket.socket] = []
        self._answering: threading.Thread | None = None
        self._closed = threading.Event()
        # Connect until one does not complete: the accept queue is full from then on
        # (how many it takes is the kernel's: one on Linux for a backlog of 0).
        for _ in range(16):
            c = socket.socket()
            c.settimeout(0.3)
            try:
                c.connect(("127.0.0.1", self.port))
            except TimeoutError:
                c.close()
                return
            self._fill.append(c)
        raise AssertionError("the listener's backlog never filled")

    def url(self, path: str, scheme: str = "http") -> str:
        return f"{scheme}://127.0.0.1:{self.port}{path}"

    def syn_sent(self) -> bool:
        """Whether a connect to the port is under way (its SYN sent, not answered)."""
        with open("/proc/net/tcp") as table:
            rows = [line.split() for line in table.readlines()[1:]]
        return any(row[2].endswith(f":{self.port:04X}") and row[3] == _SYN_SENT for row in rows)

    def open(self, body: bytes, content_type: str) -> None:
        """Accept the connections queued and all that come after, each answered ``body``."""
        for c in self._fill:
            c.close()
        answer = (
            f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        ).encode() + body

        def serve() -> None:
            while not self._closed.is_set():
                try:
                    conn, _ = self.server.accept()
                except OSError:
                    return  # closed
                with conn, contextlib.suppress(OSError):
                    conn.settimeout(10)
                    head = b""
                    while b"\r\n\r\n" not in head:
                        got = conn.recv(4096)
                        if not got:
                            break  # a filler, closed before it said anything
                        head += got
                    if head:
                        conn.sendall(answer)

        self._answering = threading.Thread(target=serve, daemon=True)
        self._answering.start()

    def __enter__(self) -> BlackHole:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._closed.set()
        for c in self._fill:
            c.close()
        with contextlib.suppress(OSError):  # wakes the thread blocked in accept
            self.server.shutdown(socket.SHUT_RDWR)
        self.server.close()
        if self._answering is not None:
            self._answering.join(10)


class SilentTLS:
    """A loopback server that accepts every connection and never says a word: a TLS
    handshake with it waits for the server's hello until its timeout."""

    def __init__(self) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.server.getsockname()[1]
        self.accepted = threading.Event()
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return  # closed
            self._held.append(conn)
            self.accepted.set()

    def url(self, path: str) -> str:
        return f"https://127.0.0.1:{self.port}{path}"

    def __enter__(self) -> SilentTLS:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # shutdown wakes the thread blocked in accept (a close alone may not, on Linux).
        with contextlib.suppress(OSError):
            self.server.shutdown(socket.SHUT_RDWR)
        self.server.close()
        self._thread.join(10)
        for c in self._held:
            c.close()


def localhost_certificate(directory: Path) -> tuple[str, str]:
    """A self-signed certificate for localhost and 127.0.0.1, and its key, made in
    ``directory`` for this run by the openssl command line: no key is kept in the
    repository (a committed private key reads as a leaked secret to every scanner)."""
    pem, key = directory / "localhost.pem", directory / "localhost.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-days",
            "2",
            "-nodes",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(pem),
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )
    return str(pem), str(key)
