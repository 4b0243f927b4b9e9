"""Host names resolved within a deadline share a small pool of threads
(service.resolving). A lookup that outlasts its deadline is left to finish in its thread:
a thread per lookup piled up threads while a name server did not answer, one more per
fetch, page and event (for ever with a resolver that never returns). Now a lookup asked
while every thread is held by one its caller gave up on is refused at once, saying why,
and the threads serve again once the resolver answers. Through the real guard and
transport (fetch.check_url, fetch.fetch_url to a loopback server)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from service import abandon, fetch, transport
from service.errors import FetchError, LeaseLost
from service.resolving import RESOLVER_THREADS, RESOLVERS, ResolveTimeout
from tests.conftest import make_settings
from tests.origin import Origin
from tests.procs import wait_until
from tests.resolvers import SlowResolver

PUBLIC = "93.184.215.14"  # check_url refuses a private address


def resolver_threads() -> int:
    return sum(th.name.startswith("resolver-") for th in threading.enumerate())


@pytest.fixture
def slow() -> Iterator[SlowResolver]:
    """A resolver that answers no name until the test sets its ``release`` (or ends)."""
    # The lookups earlier tests left to finish end as those tests do.
    wait_until(lambda: RESOLVERS.running == 0, 35, "earlier tests' lookups to end")
    resolver = SlowResolver(address=PUBLIC)
    yield resolver
    resolver.release.set()
    wait_until(lambda: RESOLVERS.running == 0, 10, "the test's lookups to end")


def hold_every_thread(resolver: SlowResolver) -> None:
    """Every resolver thread held by a lookup of ``resolver`` whose caller gave up."""
    for n in range(10 * RESOLVER_THREADS):
        if RESOLVERS.stuck == RESOLVER_THREADS:
            break
        with transport.deadline(0.1), pytest.raises(ResolveTimeout):
            transport.resolve(f"h{n}.example", 443, resolver)
    assert RESOLVERS.stuck == RESOLVER_THREADS
    # A thread marks its lookup running a moment before it asks the resolver.
    wait_until(lambda: len(resolver.asked) >= RESOLVER_THREADS, 10, "every lookup asked")
    assert len(resolver.asked) == RESOLVER_THREADS  # a lookup given up unasked is no thread's


def test_a_lookup_is_refused_at_once_while_every_resolver_thread_is_stuck(
    tmp_path: Path, slow: SlowResolver
) -> None:
    hold_every_thread(slow)
    settings = make_settings(
        f"sqlite:///{tmp_path / 'r.db'}", fetch_timeout=5.0, allow_private_urls=False
    )
    with pytest.raises(FetchError) as raised:
        fetch.check_url("https://hub.example/", settings, slow)
    # Refused, not queued: one queued would have run out the 5 s time limit, which says so.
    assert raised.value.detail == (
        f"host 'hub.example' not resolved: all {RESOLVER_THREADS} resolver threads are "
        "still waiting on earlier lookups that a name server has not answered"
    )
    assert fetch.transient(raised.value)  # tried again later, when names resolve
    assert "hub.example" not in slow.asked
    assert resolver_threads() == RESOLVER_THREADS  # no thread started for it

    # The name server answers again: its lookups end, and the threads serve the next.
    slow.release.set()
    wait_until(lambda: RESOLVERS.stuck == 0, 10, "the stuck lookups to end")
    for _ in range(3 * RESOLVER_THREADS):
        fetch.check_url("https://hub.example/", settings, slow)
    assert resolver_threads() == RESOLVER_THREADS  # the same threads, none per lookup


def test_a_fetch_that_resolves_as_it_connects_is_refused_at_once_too(
    tmp_path: Path, origin: Origin, slow: SlowResolver
) -> None:
    # Private URLs allowed, the transport resolves the name as it connects.
    hold_every_thread(slow)
    settings = make_settings(f"sqlite:///{tmp_path / 'r.db'}", fetch_timeout=5.0)
    port = origin.url.rsplit(":", 1)[1]
    busy = f"all {RESOLVER_THREADS} resolver threads are still waiting"
    with pytest.raises(FetchError, match=busy) as raised:  # not the time limit's error
        fetch.fetch_url(f"http://feeds.example:{port}/f", settings)
    assert fetch.transient(raised.value)
    assert origin.seen == []


def test_a_lookup_waits_for_a_thread_busy_with_lookups_still_awaited(
    slow: SlowResolver,
) -> None:
    # Threads busy with lookups their callers still wait for are no reason to refuse:
    # a burst larger than the pool waits for a thread, within its deadline.
    answers: list[list[str]] = []

    def lookup(host: str) -> None:
        with transport.deadline(30):
            answers.append(transport.resolve(host, 443, slow))

    callers = [
        threading.Thread(target=lookup, args=(f"h{n}.example",))
        for n in range(RESOLVER_THREADS + 1)
    ]
    for caller in callers[:-1]:
        caller.start()
    wait_until(lambda: RESOLVERS.running == RESOLVER_THREADS, 10, "every thread resolving")
    callers[-1].start()
    # The last one waits for a thread, queued, not refused (its answer would be missing).
    wait_until(lambda: RESOLVERS.queued == 1, 10, "the last lookup queued")
    slow.release.set()
    for caller in callers:
        caller.join(30)
    assert answers == [[PUBLIC]] * (RESOLVER_THREADS + 1)
    assert sorted(slow.asked) == sorted(f"h{n}.example" for n in range(RESOLVER_THREADS + 1))
    assert RESOLVERS.stuck == 0


def test_a_jobs_lookup_ends_once_its_lease_is_lost(slow: SlowResolver) -> None:
    lost = threading.Event()

    def lose() -> None:
        wait_until(lambda: slow.asked, 10, "the lookup asked")
        lost.set()

    threading.Thread(target=lose, daemon=True).start()
    # LeaseLost, not the ResolveTimeout of the 30 s deadline.
    with abandon.watching(lost), transport.deadline(30), pytest.raises(LeaseLost):
        transport.resolve("feeds.example", 443, slow)
    assert RESOLVERS.stuck == 1  # left to finish, in its thread
    # A job whose lease is lost asks no lookup more (it would hold a thread for nothing).
    with abandon.watching(lost), transport.deadline(30), pytest.raises(LeaseLost):
        transport.resolve("other.example", 443, slow)
    assert slow.asked == ["feeds.example"]


def test_a_forked_child_resolves_on_threads_of_its_own(slow: SlowResolver) -> None:
    # Threads do not survive a fork: a child's lookups queued for its parent's threads
    # all ran out their deadline.
    slow.release.set()
    with transport.deadline(5):
        assert transport.resolve("parent.example", 443, slow) == [PUBLIC]
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only when it resolved the name
        code = 1
        try:
            with transport.deadline(5):
                code = 0 if transport.resolve("child.example", 443, slow) == [PUBLIC] else 1
        finally:
            os._exit(code)
    status: int | None = None
    try:
        # Bounded: a child that hangs (a lock held by a thread at the fork) fails the test.
        _, status = wait_until(lambda: reaped(pid), 60, "the forked child to exit")
    finally:
        if status is None:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def reaped(pid: int) -> tuple[int, int] | None:
    done = os.waitpid(pid, os.WNOHANG)
    return done if done != (0, 0) else None


# Run in a process of its own: the threads it cannot start are the process's. A stack of
# 1 GiB over an address space of 256 MiB more than the process holds: no thread starts.
NO_THREADS = """
import resource, threading
from service import fetch, transport
from service.errors import FetchError

def answer(host, port):
    return ["93.184.215.14"]

held = int(open("/proc/self/statm").read().split()[0]) * resource.getpagesize()
_, hard = resource.getrlimit(resource.RLIMIT_AS)
threading.stack_size(1 << 30)
resource.setrlimit(resource.RLIMIT_AS, (held + (256 << 20), hard))
try:
    with transport.deadline(5):
        fetch.resolve_checked("first.example", 443, answer)
    print("resolved with no thread")
except FetchError as exc:
    print("refused:", exc.detail, fetch.transient(exc))
finally:
    resource.setrlimit(resource.RLIMIT_AS, (hard, hard))
    threading.stack_size(0)
with transport.deadline(5):
    print("then:", fetch.resolve_checked("then.example", 443, answer))
"""


def test_resolver_threads_the_system_refuses_are_a_clear_error_and_started_later() -> None:
    # The pool was flagged started before its threads were: a RuntimeError ("can't start
    # new thread") escaped the fetch as a crash, and every lookup after, queued for no
    # thread, ran out its time limit for the life of the process.
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    done = subprocess.run(
        [sys.executable, "-c", NO_THREADS], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "refused: host 'first.example' not resolved: no resolver thread could be started "
        "(can't start new thread) True",
        "then: 93.184.215.14",
    ]
