"""A stand-in OpenAI chat-completions server on loopback: the one allowed fake.

Three ways to use it:

* pytest: the ``stub_llm`` fixture starts a :class:`StubLLM` in a thread on a free port
  (add ``pytest_plugins = ["tests.stub_llm"]`` to a conftest, or import the fixture);
  :func:`settings_for` gives Settings pointing at it, with tiny retry waits.
* a process: ``python -m tests.stub_llm --port P [--delay S] [--script FILE]
  [--recordings DIR] [--log FILE] [--reject-format json_schema] [--gated]``; it prints
  ``stub-llm listening on http://127.0.0.1:P/v1`` once ready (``--port 0`` picks one).
* eval and benches: ``with StubLLM(recordings=Path("eval/recordings")) as stub: ...``.

What it answers, in order: a request whose ``response_format`` type is in
``reject_formats`` gets a 500 naming it (as llama.cpp does for ``json_schema``);
else the next scripted :class:`Reply` (its kinds, the recordings and the default
explainer are in tests.stub_llm_replies), if any; else a recorded answer whose match
string (post URL or title) appears in the user message; else a small valid explainer
built from the request, with no digit in it, so it passes any number check.

Every chat request is logged: ``GET /_calls`` returns the list, and ``--log FILE``
appends each as one JSON line: ``{"seq", "at", "model", "messages", "response_format",
"temperature", "max_tokens", "reply", "status"}``. ``POST /_script`` (a JSON list of
replies) queues more replies; ``DELETE /_calls`` clears the log; ``POST /_gate``
(``{"open": false}`` / ``{"open": true}``) holds every answer from then on / lets them go
(``--gated`` starts held). Usage tokens are characters / 4.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tests.stub_llm_replies import Recording, Reply, default_explainer, load_recordings


def _tokens(text: str) -> int:
    return max(1, len(text) // 4)


class StubLLM:
    """The server. Start with :meth:`start` (or as a context manager); ``url`` is the base
    URL to give the openai client (``.../v1``)."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        delay: float = 0.0,
        script: Sequence[Reply] = (),
        recordings: Path | Sequence[Recording] | None = None,
        log: Path | None = None,
        reject_formats: Sequence[str] = (),
    ) -> None:
        self.host = host
        self.port = port
        self.delay = delay
        self.reject_formats = set(reject_formats)
        self.log_path = log
        if isinstance(recordings, (str, Path)):
            self.recordings = load_recordings(Path(recordings))
        else:
            self.recordings = list(recordings or ())
        self._script: deque[Reply] = deque(script)
        self._calls: list[dict[str, Any]] = []
        self.proxied: list[str] = []  # the absolute URLs of requests sent as to a proxy
        self._lock = threading.Lock()
        # When set to an Event, every request waits for it after being logged: a test
        # holds a caller inside its model call (an interleaving forced, not timed).
        self.gate: threading.Event | None = None
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- control -------------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def push(self, *replies: Reply | Mapping[str, Any]) -> None:
        """Queue scripted replies (answered in order, before recordings and the default)."""
        with self._lock:
            for r in replies:
                self._script.append(r if isinstance(r, Reply) else Reply.from_dict(r))

    @property
    def calls(self) -> list[dict[str, Any]]:
        """Every chat request so far (a copy)."""
        with self._lock:
            return [dict(c) for c in self._calls]

    def clear_calls(self) -> None:
        with self._lock:
            self._calls.clear()

    def hold(self) -> None:
        """Hold every answer from now on (each request is logged, then waits)."""
        with self._lock:
            if self.gate is None or self.gate.is_set():
                self.gate = threading.Event()

    def release(self) -> None:
        """Answer the held requests, and the later ones at once."""
        with self._lock:
            gate, self.gate = self.gate, None
        if gate is not None:
            gate.set()

    def start(self) -> StubLLM:
        server = ThreadingHTTPServer((self.host, self.port), _handler_for(self))
        server.daemon_threads = True
        self._server = server
        self.port = server.server_address[1]
        self._thread = threading.Thread(
            target=server.serve_forever, args=(0.05,), name="stub-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> StubLLM:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- answering --------------------------------------------------------------------------

    def _log(self, record: dict[str, Any]) -> None:
        with self._lock:
            record["seq"] = len(self._calls) + 1
            self._calls.append(record)
            if self.log_path is not None:
                with open(self.log_path, "a", encoding="utf-8") as fh:
                    fh.write(json.dumps(record, ensure_ascii=False) + "\n")

    def _next_reply(self, user_text: str) -> tuple[Reply, str]:
        with self._lock:
            if self._script:
                reply = self._script.popleft()
                return reply, reply.kind
        lowered = user_text.lower()
        for rec in self.recordings:
            if any(m.lower() in lowered for m in rec.match):
                if rec.repair is not None and "<explainer>" in user_text:
                    return Reply.explainer(rec.repair), f"recording-repair:{rec.slug}"
                return Reply.explainer(rec.answer), f"recording:{rec.slug}"
        return Reply("default"), "default"

    def answer(self, request: Mapping[str, Any]) -> tuple[int, dict[str, str], dict[str, Any]]:
        """Status, headers and JSON body for one chat-completions request."""
        messages = request.get("messages") or []
        user_text = "\n".join(
            str(m.get("content", "")) for m in messages if m.get("role") == "user"
        )
        all_text = "\n".join(str(m.get("content", "")) for m in messages)
        fmt = request.get("response_format")
        fmt_type = fmt.get("type") if isinstance(fmt, dict) else None
        record: dict[str, Any] = {
            "at": time.time(),
            "model": request.get("model"),
            "messages": messages,
            "response_format": fmt,
            "temperature": request.get("temperature"),
            "max_tokens": request.get("max_tokens"),
        }
        if fmt_type in self.reject_formats:
            record.update(reply=f"reject:{fmt_type}", status=500)
            self._log(record)
            return _error(500, f"response_format type {fmt_type} is not supported by this server")
        reply, label = self._next_reply(user_text)
        status = {"status": reply.status, "reject_schema": 500}.get(reply.kind, 200)
        # Logged on arrival, so that a request whose client gave up is on record too.
        record.update(reply=label, status=status)
        self._log(record)
        gate = self.gate
        if gate is not None:
            gate.wait(timeout=120)
        if self.delay:
            time.sleep(self.delay)
        if reply.kind == "sleep":
            time.sleep(reply.seconds)
        if reply.kind == "status":
            return _error(
                reply.status, reply.message or f"stub error {reply.status}", reply.headers
            )
        if reply.kind == "reject_schema":
            return _error(500, "json_schema is not supported: failed to parse grammar")
        if reply.kind == "body":
            return 200, {}, reply.body
        body = reply.body if reply.body is not None else default_explainer(user_text)
        finish = "stop"
        headers: dict[str, str] = {}
        if reply.kind == "drip":
            headers[DRIP_HEADER] = str(reply.seconds)
        if reply.kind == "huge":
            content = "a" * int(body)
        elif reply.kind == "choice":
            content = str(body.get("message", {}).get("content") or "")
        elif reply.kind == "text":
            content = str(body)
        elif reply.kind == "fenced":
            content = "Here is the explainer.\n\n```json\n" + json.dumps(body, indent=2) + "\n```\n"
        elif reply.kind == "length":
            full = json.dumps(body, ensure_ascii=False)
            content, finish = full[: len(full) // 2], "length"
        else:
            content = json.dumps(body, ensure_ascii=False)
        choice = {
            "index": 0,
            "message": {"role": "assistant", "content": content},
            "finish_reason": finish,
        }
        if reply.kind == "choice":
            choice = {"index": 0, **body}
        return (
            200,
            headers,
            {
                "id": f"chatcmpl-stub-{record['seq']}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": request.get("model") or "stub",
                "choices": [choice],
                "usage": {
                    "prompt_tokens": _tokens(all_text),
                    "completion_tokens": _tokens(content),
                    "total_tokens": _tokens(all_text) + _tokens(content),
                },
            },
        )


# An answer's header that is not sent: the handler writes the body slowly instead.
DRIP_HEADER = "x-stub-drip"


def _error(
    status: int, message: str, headers: Mapping[str, str] | None = None
) -> tuple[int, dict[str, str], dict[str, Any]]:
    kind = (
        "rate_limit_error"
        if status == 429
        else "server_error"
        if status >= 500
        else "invalid_request_error"
    )
    return (
        status,
        dict(headers or {}),
        {"error": {"message": message, "type": kind, "code": status}},
    )


def _handler_for(stub: StubLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "stub-llm/1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the call log is the record; stderr noise helps no one

        def _send(self, status: int, body: Any, headers: Mapping[str, str] | None = None) -> None:
            data = json.dumps(body, ensure_ascii=False).encode("utf-8")
            headers = dict(headers or {})
            drip = float(headers.pop(DRIP_HEADER, 0.0))
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                if not drip:
                    self.wfile.write(data)
                for start in range(0, len(data) if drip else 0, 16):
                    self.wfile.write(data[start : start + 16])
                    self.wfile.flush()
                    time.sleep(drip)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test): nothing to tell it

        def _read_json(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            return json.loads(self.rfile.read(length) or b"null")

        def do_GET(self) -> None:
            if self.path == "/_calls":
                self._send(200, stub.calls)
            elif self.path in ("/v1/models", "/models"):
                self._send(200, {"object": "list", "data": [{"id": "stub", "object": "model"}]})
            elif self.path in ("/healthz", "/health"):
                self._send(200, {"status": "ok"})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_DELETE(self) -> None:
            if self.path == "/_calls":
                stub.clear_calls()
                self._send(200, {"cleared": True})
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self) -> None:
            try:
                data = self._read_json()
            except (ValueError, UnicodeDecodeError):
                self._send(400, {"error": {"message": "body is not JSON"}})
                return
            if self.path.startswith("http://"):
                # Sent as to a proxy (HTTP_PROXY aimed here): the absolute form of the path.
                stub.proxied.append(self.path)
                self.path = urlsplit(self.path).path
            if self.path == "/_script":
                stub.push(*[Reply.from_dict(d) for d in data])
                self._send(200, {"queued": len(data)})
            elif self.path == "/_gate" and isinstance(data, dict) and "open" in data:
                if data["open"]:
                    stub.release()
                else:
                    stub.hold()
                self._send(200, {"open": bool(data["open"])})
            elif self.path in ("/v1/chat/completions", "/chat/completions"):
                status, headers, body = stub.answer(data if isinstance(data, dict) else {})
                self._send(status, body, headers)
            else:
                self._send(404, {"error": {"message": f"no route {self.path}"}})

    return Handler


def settings_for(stub: StubLLM, **overrides: Any) -> Any:
    """Settings aimed at ``stub``, with tiny retry waits so tests stay fast."""
    from service.config import Settings

    values: dict[str, Any] = {
        "engine": "llm",
        "openai_base_url": stub.url,
        "openai_api_key": "test-key",
        "model": "stub-model",
        "llm_timeout": 10.0,
        "llm_max_attempts": 3,
        "llm_backoff_initial": 0.01,
        "llm_backoff_max": 0.05,
        "llm_retry_after_max": 0.05,
    }
    values.update(overrides)
    return Settings(**values)


try:
    import pytest
except ImportError:  # running as a process without the test tools
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    @pytest.fixture
    def stub_llm() -> Iterator[StubLLM]:
        """A fresh stub LLM server on a free loopback port."""
        with StubLLM() as stub:
            yield stub


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tests.stub_llm", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True, help="0 picks a free port")
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before each answer")
    parser.add_argument("--script", type=Path, help="JSON file: a list of replies, in order")
    parser.add_argument("--recordings", type=Path, help="directory of <slug>.json recordings")
    parser.add_argument("--log", type=Path, help="append every request here as a JSON line")
    parser.add_argument(
        "--reject-format",
        action="append",
        default=[],
        choices=["json_schema", "json_object"],
        help="answer 500 to requests with this response_format type (repeatable)",
    )
    parser.add_argument(
        "--gated",
        action="store_true",
        help='hold every answer until POST /_gate {"open": true} (a caller kept mid-call)',
    )
    args = parser.parse_args(argv)
    script = (
        [Reply.from_dict(d) for d in json.loads(args.script.read_text(encoding="utf-8"))]
        if args.script
        else []
    )
    stub = StubLLM(
        args.host,
        args.port,
        delay=args.delay,
        script=script,
        recordings=args.recordings,
        log=args.log,
        reject_formats=args.reject_format,
    )
    if args.gated:
        stub.hold()  # before the first request can arrive
    stub.start()
    print(f"stub-llm listening on {stub.url}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        stub.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
