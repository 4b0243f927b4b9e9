"""Real processes for durability tests and benches: the stub LLM, ``plainfeed serve`` and
``plainfeed worker`` as children of the test, plus small feeds to feed them.

Every child writes its output to a file (a full pipe would block it) and is killed in
``__exit__``, whatever happened in the test.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from tests.conftest import free_port

ROOT = Path(__file__).resolve().parent.parent


class Child:
    """One child process with its output in ``log``; killed on exit unless it ended."""

    def __init__(self, args: Sequence[str], log: Path, env: Mapping[str, str] | None = None):
        self.args = list(args)
        self.log = log
        self.env = dict(env) if env is not None else None
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Child:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        with open(self.log, "ab") as out:
            self.proc = subprocess.Popen(
                self.args, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT
            )
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def signal(self, sig: int) -> None:
        if self.alive():
            assert self.proc is not None
            self.proc.send_signal(sig)

    def kill(self) -> None:
        """SIGKILL and reap (the process gets no chance to clean up)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        if self.proc is not None:
            self.proc.wait(timeout=30)

    def wait(self, timeout: float) -> int:
        assert self.proc is not None
        return self.proc.wait(timeout=timeout)

    def run(self, timeout: float) -> int:
        """Start, and wait for the exit status (killed, whatever happens, when done)."""
        self.start()
        try:
            return self.wait(timeout)
        finally:
            self.kill()

    def output(self) -> str:
        try:
            return self.log.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            return ""

    def __enter__(self) -> Child:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.kill()


class StubProcess(Child):
    """``python -m tests.stub_llm`` on a free port; ``calls()`` reads its JSON-lines log.

    ``gated``: every answer is held until :meth:`release` (a request is logged on arrival,
    so ``calls()`` shows it while its caller waits): a test that kills or stops a worker
    in the middle of its calls knows they are still in flight, however slow the test."""

    def __init__(
        self,
        workdir: Path,
        *,
        delay: float = 0.0,
        script: Sequence[Mapping[str, Any]] = (),
        name: str = "stub",
        log_calls: bool = True,
        gated: bool = False,
    ) -> None:
        self.calls_log = workdir / f"{name}-calls.jsonl"
        args = [sys.executable, "-m", "tests.stub_llm", "--port", "0", "--delay", str(delay)]
        if log_calls:
            args += ["--log", str(self.calls_log)]
        if gated:
            args.append("--gated")
        if script:
            script_file = workdir / f"{name}-script.json"
            script_file.write_text(json.dumps(list(script)), encoding="utf-8")
            args += ["--script", str(script_file)]
        super().__init__(args, workdir / f"{name}.out")
        self.url = ""

    def start(self) -> StubProcess:
        super().start()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            for line in self.output().splitlines():
                if line.startswith("stub-llm listening on "):
                    self.url = line.rsplit(" ", 1)[1].strip()
                    return self
            if not self.alive():
                break
            time.sleep(0.05)
        self.kill()
        raise RuntimeError(f"the stub LLM did not start:\n{self.output()}")

    def release(self) -> None:
        """Answer the held requests, and every later one at once."""
        base = self.url.removesuffix("/v1")
        req = urllib.request.Request(
            f"{base}/_gate", data=b'{"open": true}', headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=30) as resp:
            assert resp.status == 200

    def calls(self) -> list[dict[str, Any]]:
        """Every chat request so far, in arrival order."""
        try:
            lines = self.calls_log.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            return []
        out = []
        for line in lines:
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:  # a line being written right now
                break
        return out


def user_text(call: Mapping[str, Any]) -> str:
    return "\n".join(str(m.get("content", "")) for m in call["messages"] if m["role"] == "user")


def calls_by_link(calls: Sequence[Mapping[str, Any]], links: Sequence[str]) -> dict[str, list]:
    """The calls that explain each post, matched by the ``Link:`` line of the prompt."""
    out: dict[str, list[Mapping[str, Any]]] = {link: [] for link in links}
    for call in calls:
        for line in user_text(call).splitlines():
            if line.startswith("Link: ") and line[6:].strip() in out:
                out[line[6:].strip()].append(call)
    return out


def plainfeed_env(db_url: str, stub_url: str | None = None, **settings: object) -> dict[str, str]:
    """The environment of a plainfeed child: ``settings`` become ``PLAINFEED_<NAME>``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PLAINFEED_", "OPENAI_"))}
    env["PYTHONPATH"] = str(ROOT)
    env["PYTHONUNBUFFERED"] = "1"
    env["PLAINFEED_DATABASE_URL"] = db_url
    env["PLAINFEED_LOG_LEVEL"] = "INFO"
    if stub_url:
        env.update(
            OPENAI_BASE_URL=stub_url,
            OPENAI_API_KEY="x",
            PLAINFEED_ENGINE="llm",
            PLAINFEED_MODEL="stub-model",
        )
    else:
        env["PLAINFEED_ENGINE"] = "extractive"
    for key, value in settings.items():
        env[f"PLAINFEED_{key.upper()}"] = str(value)
    return env


def plainfeed(
    command: str, workdir: Path, env: Mapping[str, str], *args: str, name: str | None = None
) -> Child:
    """A ``python -m service <command> ...`` child (not started)."""
    name = name or command
    return Child([sys.executable, "-m", "service", command, *args], workdir / f"{name}.out", env)


def http_json(
    url: str, data: bytes | None = None, headers: Mapping[str, str] | None = None
) -> tuple[int, Any]:
    """Status and JSON body of one request (errors included, never raised)."""
    req = urllib.request.Request(url, data=data, headers=dict(headers or {}))
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


def wait_until(
    predicate: Callable[[], Any], timeout: float, what: str, interval: float = 0.1
) -> Any:
    """Poll until truthy; AssertionError naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:g}s waiting for {what}")
        time.sleep(interval)


def wait_output(child: Child, marker: str, timeout: float = 60.0) -> None:
    """Wait until ``marker`` appears in the child's output (``plainfeed worker:`` once the
    worker threads run)."""

    def seen() -> bool:
        if not child.alive():
            raise AssertionError(f"{child.args} exited:\n{child.output()}")
        return marker in child.output()

    wait_until(seen, timeout, f"{marker!r} from {child.args}")


# Logged by serve (and demo) once the port is bound and the workers run.
READY = "plainfeed ready:"


@contextmanager
def on_a_free_port(
    make: Callable[[int], Child], listening: str, timeout: float = 60.0, tries: int = 5
) -> Iterator[tuple[Child, int]]:
    """Start the child ``make(port)`` gives on a free port and wait until its output says
    ``listening``; killed after the block. A port found free is free only until something
    binds it (another test's server, an outgoing connection of any process), and a child
    takes seconds to start: one that exits with status 2, "cannot serve" on the port it
    was given, is started again on another."""
    for _ in range(tries):
        port = free_port()
        child = make(port)
        if _listens(child, listening, timeout):
            break
        if child.proc is None or child.proc.returncode != 2 or "cannot serve" not in child.output():
            raise AssertionError(f"{child.args} exited:\n{child.output()}")
        child.log.unlink()  # the next try writes its own output
    else:
        raise AssertionError(f"no free port in {tries} tries")
    try:
        yield child, port
    finally:
        child.kill()


def _listens(child: Child, listening: str, timeout: float) -> bool:
    """Start ``child``; whether its output says ``listening`` (False: it exited first)."""
    child.start()
    try:
        wait_until(
            lambda: listening in child.output() or not child.alive(),
            timeout,
            f"{listening!r} from {child.args}",
        )
    except BaseException:
        child.kill()
        raise
    if listening in child.output():
        return True
    child.kill()  # reaped: its exit status is read
    return False


def wait_ready(child: Child, base_url: str, timeout: float = 60.0) -> None:
    """Wait until ``GET /healthz`` answers (or fail with the child's output)."""

    def up() -> bool:
        if not child.alive():
            raise AssertionError(f"{child.args} exited:\n{child.output()}")
        try:
            return http_json(f"{base_url}/healthz")[0] == 200
        except OSError:
            return False

    wait_until(up, timeout, f"{base_url}/healthz")


def _letters(n: int) -> str:
    """0 -> 'a', 25 -> 'z', 26 -> 'ba': digit-free names for titles."""
    out = ""
    while True:
        out = chr(ord("a") + n % 26) + out
        n //= 26
        if n == 0:
            return out


def post_link(batch: int, n: int) -> str:
    return f"https://example.org/posts/b{batch}-n{n}"


def post_title(batch: int, n: int) -> str:
    return f"Note {_letters(batch).capitalize()} {_letters(n).capitalize()}"


def rss_document(batch: int, count: int, *, site: str = "https://example.org/") -> bytes:
    """An RSS feed of ``count`` new posts (batch ``batch``), titles and bodies digit-free,
    so any explainer without digits passes the number check."""
    items = []
    for n in range(count):
        title = post_title(batch, n)
        body = (
            f"<p>{title} describes a small change to the widget library. "
            "The change makes the parser faster and simpler to read.</p>"
            "<p>The authors explain why the old code was slow and what they removed.</p>"
        )
        items.append(
            f"<item><title>{escape(title)}</title><link>{post_link(batch, n)}</link>"
            f"<guid>{post_link(batch, n)}</guid>"
            f"<description>{escape(body)}</description></item>"
        )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n<rss version="2.0"><channel>'
        f"<title>Example notes</title><link>{site}</link>"
        "<description>Small notes</description>" + "".join(items) + "</channel></rss>"
    ).encode()
