"""Host names resolved within a request's deadline, on a small bounded pool of threads.

getaddrinfo takes no timeout and cannot be interrupted: a lookup that outlasts its
caller's deadline is left to finish in the thread asking it. A thread per lookup piled up
threads while a name server did not answer (one per fetch, page and event, for as long as
getaddrinfo's own retries last, for ever with a resolver that never returns); here the
lookups share :data:`RESOLVER_THREADS` threads, and a lookup asked while every one of them
is held by a lookup its caller gave up on is refused at once (:class:`ResolveBusy`).
"""

from __future__ import annotations

import os
import queue
import socket
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future

import httpcore

from service import abandon
from service.errors import LeaseLost

# A host name's addresses to connect to on a port, best first: the system resolver's
# (getaddrinfo) unless a caller gives another (a test's slow one, a deployment's own).
Resolver = Callable[[str, int], Sequence[str]]

# Threads that resolve names for requests with a deadline, per process. Each worker,
# sender thread and API request asks one lookup at a time and a working resolver answers
# in milliseconds, so a few threads serve them all (a lookup finding every thread busy
# with live lookups waits for one within its deadline). Only a lookup the name server
# leaves unanswered holds a thread past its caller's deadline: with all 8 so held, name
# resolution is down, and a new lookup is refused rather than queued behind them.
RESOLVER_THREADS = 8


def system_resolver(host: str, port: int) -> list[str]:
    """The addresses getaddrinfo gives ``host`` for a TCP connection, in its order."""
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


class ResolveTimeout(httpcore.ConnectTimeout):
    """The deadline passed while the host name was being resolved."""


class ResolveBusy(httpcore.ConnectError):
    """No resolver thread can take the lookup: every one is held by a lookup its caller
    gave up on (a name server not answering), or none could be started (the system out
    of threads or memory). The lookup was not asked. A connect error, tried again later;
    ``why`` says which."""

    def __init__(self, host: str, why: str) -> None:
        super().__init__(f"cannot resolve {host}: {why}")
        self.why = why


class _Lookup:
    """One name to resolve; ``abandoned`` once its caller stopped waiting while it ran."""

    __slots__ = ("abandoned", "answer", "host", "port", "resolver")

    def __init__(self, resolver: Resolver, host: str, port: int) -> None:
        self.resolver, self.host, self.port = resolver, host, port
        self.answer: Future[list[str]] = Future()
        self.abandoned = False


class ResolverPool:
    """``size`` daemon threads (started with the first lookup) that resolve names for
    callers waiting with a deadline. Daemon threads: a lookup that never returns must not
    hold the process at exit, as a ThreadPoolExecutor's threads would."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._empty()
        # A child forked after the threads started has none of them: it starts its own
        # (its lookups queued for threads that are not there would all time out).
        os.register_at_fork(after_in_child=self._empty)

    def _empty(self) -> None:
        self._lock = threading.Lock()
        self._lookups: queue.SimpleQueue[_Lookup] = queue.SimpleQueue()
        self._threads = 0  # started (all with the first lookup, unless the system refused)
        self._running = 0  # lookups being resolved now
        self._stuck = 0  # of those, the ones whose caller gave up waiting

    @property
    def stuck(self) -> int:
        """Threads held by a lookup whose caller gave up on it."""
        with self._lock:
            return self._stuck

    @property
    def running(self) -> int:
        """Threads resolving a name now."""
        with self._lock:
            return self._running

    @property
    def queued(self) -> int:
        """Lookups waiting for a thread (those given up meanwhile among them, until a
        thread takes them off the queue)."""
        return self._lookups.qsize()

    def resolve(self, resolver: Resolver, host: str, port: int, left: float) -> list[str]:
        """``resolver``'s addresses for ``host``, within ``left`` seconds; raises
        :class:`ResolveTimeout` past them, :class:`ResolveBusy` at once when every thread
        is stuck (or none can be started), LeaseLost once the running job's lease is lost
        (service.abandon), and the resolver's own errors as they are."""
        lost = abandon.current()
        if lost is not None and lost.is_set():
            raise LeaseLost(f"lease lost: resolving {host} not started")
        lookup = _Lookup(resolver, host, port)
        with self._lock:
            self._start_threads(host)
            if self._stuck >= self._threads:
                raise ResolveBusy(
                    host,
                    f"all {self._threads} resolver threads are still waiting on earlier "
                    "lookups that a name server has not answered",
                )
        self._lookups.put(lookup)
        end = time.monotonic() + left
        while True:
            wait = end - time.monotonic()
            if lost is not None:
                wait = min(wait, abandon.LOOK_SECONDS)
            try:
                return lookup.answer.result(timeout=max(0.0, wait))
            except TimeoutError:
                pass
            gone = lost is not None and lost.is_set()
            if gone:
                self._give_up(lookup)
                raise LeaseLost(f"lease lost: resolving {host} abandoned")
            if time.monotonic() >= end and not self._give_up(lookup):
                raise ResolveTimeout(f"the request's time limit passed while resolving {host}")

    def _start_threads(self, host: str) -> None:
        """Start the threads not running yet (the lock held). One the system refuses
        (RuntimeError: out of threads or memory) is started by a later lookup: flagged
        started before, it never was, and with none a lookup queued for no thread ran out
        its deadline, every one after too, for the life of the process. With none running
        the lookup is refused (ResolveBusy), not a crash of the fetch."""
        while self._threads < self.size:
            try:
                threading.Thread(
                    target=self._serve, name=f"resolver-{self._threads}", daemon=True
                ).start()
            except RuntimeError as exc:
                if self._threads == 0:
                    raise ResolveBusy(host, f"no resolver thread could be started ({exc})") from exc
                return
            self._threads += 1

    def _give_up(self, lookup: _Lookup) -> bool:
        """Stop waiting for ``lookup``; True when it was answered meanwhile."""
        with self._lock:
            if lookup.answer.done():
                return True
            if not lookup.answer.cancel():  # running: its thread is held until it returns
                lookup.abandoned = True
                self._stuck += 1
            return False

    def _serve(self) -> None:
        while True:
            lookup = self._lookups.get()
            with self._lock:
                if not lookup.answer.set_running_or_notify_cancel():
                    continue  # its caller gave up while it waited for a thread
                self._running += 1
            try:
                result: list[str] | BaseException = list(lookup.resolver(lookup.host, lookup.port))
            except BaseException as exc:  # handed to the caller, who raises it
                result = exc
            with self._lock:
                self._running -= 1
                if lookup.abandoned:
                    self._stuck -= 1
                if isinstance(result, BaseException):
                    lookup.answer.set_exception(result)
                else:
                    lookup.answer.set_result(result)


# The process's lookups with a deadline (see RESOLVER_THREADS).
RESOLVERS = ResolverPool(RESOLVER_THREADS)
