"""Framing benchmark: what the service's HTTP protocols (service.api.protocol: the head
counted and timed, a body's end found, service.api.heads) add to uvicorn's own in
reading a request, fed in reads of a given size.

Each protocol is driven in this process with a transport of its own (no socket, no
kernel): a POST of a 1 MiB body is fed to ``data_received`` in reads of ``--read``
bytes, and its answer awaited from an application that reads the body whole. Bodies:
``Content-Length``, and chunked in chunks of ``--chunk`` bytes (each with its size
line). The figure is MiB of request per CPU second (process time: the machine is
shared), best of ``--repeat``, for uvicorn's protocol alone and for the service's.

    PYTHONPATH=. /work/venv/bin/python -m bench.framing [--read 16] [--chunk 16]
        [--size 1048576] [--repeat 5]
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from service.api.protocol import ProblemH11Protocol, ProblemHttpToolsProtocol

PROTOCOLS: list[tuple[str, type[Any]]] = [
    ("httptools, uvicorn alone", HttpToolsProtocol),
    ("httptools, the service's", ProblemHttpToolsProtocol),
    ("h11, uvicorn alone", H11Protocol),
    ("h11, the service's", ProblemH11Protocol),
]


class Transport(asyncio.Transport):
    """Where a protocol writes its answer; reading is never paused (all is fed)."""

    def __init__(self) -> None:
        super().__init__()
        self.out = bytearray()
        self.closing = False
        self.protocol: Any = None

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 40000)}.get(
            name, default
        )

    def write(self, data: Any) -> None:
        self.out += data

    def close(self) -> None:
        self.closing = True

    def is_closing(self) -> bool:
        return self.closing

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol

    def get_protocol(self) -> Any:
        return self.protocol


async def _drain(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Reads the body whole, answers its length."""
    n, more = 0, True
    while more:
        message = await receive()
        n += len(message.get("body", b""))
        more = message.get("more_body", False)
    body = str(n).encode()
    headers = [(b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def request(size: int, chunk: int | None) -> bytes:
    head = b"POST /x HTTP/1.1\r\nHost: x\r\n"
    body = b"x" * size
    if chunk is None:
        return head + b"Content-Length: %d\r\n\r\n" % size + body
    line = b"%x\r\n" % chunk
    chunks = b"".join(line + body[i : i + chunk] + b"\r\n" for i in range(0, size, chunk))
    return head + b"Transfer-Encoding: chunked\r\n\r\n" + chunks + b"0\r\n\r\n"


async def feed(protocol_class: type[Any], raw: bytes, read: int, size: int) -> float:
    """Seconds to feed ``raw`` in reads of ``read`` bytes and have its answer."""
    config = Config(_drain, lifespan="off", log_level="warning")
    config.load()
    protocol = protocol_class(config=config, server_state=ServerState(), app_state={})
    transport = Transport()
    transport.protocol = protocol
    protocol.connection_made(transport)
    pieces = [raw[i : i + read] for i in range(0, len(raw), read)]
    started = time.process_time()
    for piece in pieces:
        protocol.data_received(piece)
        await asyncio.sleep(0)  # a read a turn of the loop, as from a socket: the app reads
    while not transport.out.endswith(str(size).encode()):
        await asyncio.sleep(0)
    took = time.process_time() - started
    protocol.connection_lost(None)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--read", type=int, default=16, help="bytes a read")
    parser.add_argument("--chunk", type=int, default=16, help="bytes a chunk (chunked body)")
    parser.add_argument("--size", type=int, default=1024 * 1024, help="body bytes")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    bodies = {
        "Content-Length": request(args.size, None),
        f"chunked, {args.chunk} B chunks": request(args.size, args.chunk),
    }
    print(
        f"1 request, {args.size} B body, fed in {args.read} B reads: MiB/s, best of {args.repeat}"
    )
    print(f"{'protocol':28} " + "  ".join(f"{k:>26}" for k in bodies))
    for name, protocol_class in PROTOCOLS:
        cells = []
        for raw in bodies.values():
            best = min(
                asyncio.run(feed(protocol_class, raw, args.read, args.size))
                for _ in range(args.repeat)
            )
            cells.append(f"{len(raw) / best / 2**20:26.2f}")
        print(f"{name:28} " + "  ".join(cells))


if __name__ == "__main__":
    main()
