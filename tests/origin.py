"""A tiny real HTTP server on loopback for the far side of fetching: feeds, article pages
and WebSub hubs. Tests set routes; the server records every request it answers."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class Route:
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    etag: str | None = None
    last_modified: str | None = None
    delay: float = 0.0
    chunked: bool = False  # no Content-Length: the reader must count
    handler: Callable[[Seen], tuple[int, dict[str, str], bytes]] | None = None


class Origin:
    """``with Origin() as o: o.route("/feed.xml", body=...); o.url + "/feed.xml"``"""

    def __init__(self) -> None:
        self.routes: dict[str, Route] = {}
        self.seen: list[Seen] = []
        self._lock = threading.Lock()
        origin = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def _serve(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                seen = Seen(
                    self.command,
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length) if length else b"",
                )
                with origin._lock:
                    origin.seen.append(seen)
                route = origin.routes.get(self.path.split("?", 1)[0])
                if route is None:
                    self._send(404, {"Content-Type": "text/plain"}, b"not found")
                    return
                if route.delay:
                    time.sleep(route.delay)
                if route.handler is not None:
                    self._send(*route.handler(seen))
                    return
                headers = dict(route.headers)
                if route.etag:
                    headers["ETag"] = route.etag
                if route.last_modified:
                    headers["Last-Modified"] = route.last_modified
                inm = seen.headers.get("if-none-match")
                ims = seen.headers.get("if-modified-since")
                if (route.etag and inm == route.etag) or (
                    route.last_modified and not route.etag and ims == route.last_modified
                ):
                    self._send(304, headers, b"")
                    return
                self._send(route.status, headers, route.body, chunked=route.chunked)

            def _send(
                self, status: int, headers: dict[str, str], body: bytes, *, chunked: bool = False
            ) -> None:
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                if chunked:
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    step = 64 * 1024
                    try:
                        for i in range(0, len(body), step):
                            part = body[i : i + step]
                            self.wfile.write(f"{len(part):x}\r\n".encode() + part + b"\r\n")
                        self.wfile.write(b"0\r\n\r\n")
                    except (BrokenPipeError, ConnectionResetError):
                        pass  # the client stopped reading (size cap): expected
                    return
                if status != 304:
                    self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                try:
                    if status != 304:
                        self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            do_GET = _serve
            do_POST = _serve

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def route(self, path: str, **kw: object) -> str:
        self.routes[path] = Route(**kw)  # type: ignore[arg-type]
        return self.url + path

    def requests_to(self, path: str) -> list[Seen]:
        with self._lock:
            return [s for s in self.seen if s.path.split("?", 1)[0] == path]

    def __enter__(self) -> Origin:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


@contextmanager
def raw_origin(answer: Callable[[socket.socket], None], path: str = "/feed") -> Iterator[str]:
    """A loopback server that reads a request and lets ``answer`` write to the socket as it
    likes (byte by byte, for ever): what no well-behaved server does."""
    stop = threading.Event()
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            # OSError: the client hung up, which is what the test wants.
            with conn, contextlib.suppress(OSError):
                conn.recv(65536)
                answer(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}{path}"
    finally:
        stop.set()
        thread.join(timeout=10)
        server.close()
