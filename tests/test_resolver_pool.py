"""Host names resolved within a deadline share a small pool of threads
(service.resolving). A lookup that outlasts its deadline is left to finish in its thread:
a thread per lookup piled up threads while a name server did not answer, one more per
fetch, page and event (for ever with a resolver that never returns). Now a lookup asked
while every thread is held by one its caller gave up on is refused at once, saying why,
and the threads serve again once the resolver answers. Through the real guard and
transport (fetch.check_url, fetch.fetch_url to a loopback server)."""

from __future__ import annotations

import os
import threading
import time
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
    assert len(resolver.asked) == RESOLVER_THREADS  # a lookup given up unasked is no thread's


def test_a_lookup_is_refused_at_once_while_every_resolver_thread_is_stuck(
    tmp_path: Path, slow: SlowResolver
) -> None:
    hold_every_thread(slow)
    threads = threading.active_count()
    settings = make_settings(
        f"sqlite:///{tmp_path / 'r.db'}", fetch_timeout=5.0, allow_private_urls=False
    )
    began = time.monotonic()
    with pytest.raises(FetchError) as raised:
        fetch.check_url("https://hub.example/", settings, slow)
    assert time.monotonic() - began < 2  # at once, not after the 5 s time limit
    assert raised.value.detail == (
        "host 'hub.example' not resolved: every resolver thread is still waiting on an "
        "earlier lookup that a name server has not answered"
    )
    assert fetch.transient(raised.value)  # tried again later, when names resolve
    assert "hub.example" not in slow.asked
    assert threading.active_count() == threads  # no thread started for it

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
    began = time.monotonic()
    busy = f"all {RESOLVER_THREADS} resolver threads are still waiting"
    with pytest.raises(FetchError, match=busy) as raised:
        fetch.fetch_url(f"http://feeds.example:{port}/f", settings)
    assert time.monotonic() - began < 2
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
    began = time.monotonic()
    with abandon.watching(lost), transport.deadline(30), pytest.raises(LeaseLost):
        transport.resolve("feeds.example", 443, slow)
    assert time.monotonic() - began < 5  # not the 30 s deadline
    assert RESOLVERS.stuck == 1  # left to finish, in its thread


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
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
