"""Workers: threads that claim jobs from the database queue and run them through the
pipeline. ``plainfeed serve`` runs N of them beside the API; ``plainfeed worker`` runs
them alone on any machine that reaches the same PostgreSQL."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from service import abandon, metrics, queue
from service.pipeline import Pipeline, renew_lease
from service.store.db import transaction

log = logging.getLogger(__name__)

# The shortest wait of an idle worker between two looks at an empty queue. A poll
# interval of 0 means "look for deliveries and outbound events before every item"; taken
# as the idle wait too, it had each idle worker claim in a loop, thousands of queries a
# second against the shared database.
IDLE_FLOOR = 0.05


class Heartbeat:
    """Renews the lease of the job its worker is running, every third of the lease.

    One thread per worker for the worker's whole life: a thread per job would cost a
    thread start and a join, two waits on the scheduler, on every item.
    """

    def __init__(
        self, renew: Callable[[queue.QueueSpec, int, int | None], bool], every: float
    ) -> None:
        self._renew = renew
        self._every = every
        # The running job: its queue, its id, and its claim's attempts (None: not known),
        # which tell this worker's own finish from another's that took the job over.
        self._job: tuple[queue.QueueSpec, int, int | None] | None = None
        # Set once the running job's lease is known lost: the job stops at its next paid
        # step (service.abandon) instead of paying for a result that will be refused.
        self._lost = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    @contextmanager
    def beating(
        self, spec: queue.QueueSpec, job_id: int, attempts: int | None = None
    ) -> Iterator[threading.Event]:
        """Keep the lease of ``job_id`` (claimed with ``attempts``) alive while the block
        runs; the event yielded is set when the lease is lost."""
        with self._lock:
            # Closed (Worker.run_once refuses to claim then), no thread is started again
            # (a job claimed as the pool's shutdown closed it is handed back at once:
            # Worker._one).
            if self._thread is None and not self._stop.is_set():
                self._thread = threading.Thread(target=self._run, daemon=True, name="heartbeat")
                self._thread.start()
        lost = self._lost = threading.Event()
        self._job = (spec, job_id, attempts)
        try:
            yield lost
        finally:
            self._job = None

    @property
    def closed(self) -> bool:
        return self._stop.is_set()

    @property
    def alive(self) -> bool:
        """Whether the renewing thread runs (it starts with the first job)."""
        thread = self._thread
        return thread is not None and thread.is_alive()

    def close(self, timeout: float = 10.0) -> None:
        """Stop renewing and wait (up to ``timeout`` seconds) for the thread to end.

        Waiting matters: a renewal in flight when its owner's database goes away (a test's
        database dropped, the process's engine disposed) logged "lease renewal failed"
        from a thread nobody waited for, after the log it wrote to was closed.
        """
        with self._lock:
            self._stop.set()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)

    def _run(self) -> None:
        # The first renewal of a job comes within `every` of its start, whatever the phase.
        while not self._stop.wait(self._every):
            job, lost = self._job, self._lost
            if job is None:
                continue
            try:
                if not self._renew(*job) and self._job == job:
                    log.warning("%s %s: lease lost", job[0].table.__tablename__, job[1])
                    lost.set()
            except Exception:  # a blip in the database: try again next beat
                log.warning("lease renewal failed", exc_info=True)


class Worker:
    """One worker thread's loop: deliveries first (cheap, unblock items), then items.

    :meth:`run` closes the worker when it stops; a caller that drives :meth:`run_once`
    itself closes it (``with Worker(...) as worker:`` or :meth:`close`), which ends the
    heartbeat thread the first job started.
    """

    def __init__(
        self,
        pipeline: Pipeline,
        *,
        stop: threading.Event,
        wake: threading.Event | None = None,
        name: str | None = None,
        extra_jobs: list[Callable[[str], bool]] | None = None,
        items: bool = True,
    ) -> None:
        self.pipeline = pipeline
        # False: a thread of the extra jobs alone (the outbound sender), never an item.
        self.items = items
        self.settings = pipeline.settings
        self.stop = stop
        self.wake = wake or threading.Event()
        self.name = name or f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.extra_jobs = extra_jobs or []
        self.current: tuple[queue.QueueSpec, int] | None = None
        # Set by release_current (the pool's shutdown, past its grace): a claim made
        # after is given back, not run. Guarded with ``current``: one or the other.
        self._released = False
        self._guard = threading.Lock()
        self._deliveries_due = 0.0  # monotonic time of the next look at the deliveries
        self._extras_due = 0.0  # and at the extra jobs, while items keep the worker busy
        lease = self.settings.lease_seconds
        self.heartbeat = Heartbeat(
            lambda spec, job_id, attempts: renew_lease(
                pipeline.sessions, spec, job_id, self.name, lease, attempts
            ),
            every=max(0.5, lease / 3),
        )

    def run(self) -> None:
        log.info("worker %s started", self.name)
        while not self.stop.is_set():
            try:
                worked = self.run_once()
            except Exception:
                if self.heartbeat.closed:
                    break  # closed by the pool's shutdown between two jobs
                log.exception("worker %s: unexpected error", self.name)
                worked = False
            if not worked:
                self.wake.wait(max(self.settings.poll_interval, IDLE_FLOOR))
                self.wake.clear()
                self._deliveries_due = 0.0
        self.close()
        log.info("worker %s stopped", self.name)

    def close(self) -> None:
        """Stop the heartbeat thread and wait for it; the worker takes no job after.

        Safe to call more than once, and from another thread while a job runs (the pool's
        shutdown, after it handed that job back): its lease is no longer renewed."""
        self.heartbeat.close()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def run_once(self) -> bool:
        """Do at most one job; False when there was nothing to do."""
        if self.heartbeat.closed:
            # Refused before a claim: a job claimed now would run with no lease renewal.
            raise RuntimeError(f"worker {self.name} is closed")
        if not self.items:
            return any(job(self.name) for job in self.extra_jobs)
        now = time.monotonic()
        if now >= self._deliveries_due:
            if self._one(queue.DELIVERIES):
                return True
            # While items flow, look for deliveries once per poll interval, not before
            # every item: an empty claim costs as many round trips as a full one.
            self._deliveries_due = now + self.settings.poll_interval
        if self.extra_jobs and now >= self._extras_due:
            # While items flow, the extra jobs (outbound events) get a turn once per poll
            # interval, so they never wait for a backlog of items to drain.
            self._extras_due = now + self.settings.poll_interval
            if any(job(self.name) for job in self.extra_jobs):
                return True
        circuit = self.pipeline.circuit
        if circuit.allow():
            worked = self._one(queue.ITEMS)
            # A half-open trial that reported nothing (no item was ready, a stored result
            # was reused, the job crashed) proves nothing: let the next one through.
            circuit.abandon()
            if worked:
                return True
        return any(job(self.name) for job in self.extra_jobs)

    def _one(self, spec: queue.QueueSpec) -> bool:
        lease = self.settings.lease_seconds
        with transaction(self.pipeline.sessions) as s:
            claims = queue.claim(s, spec, self.name, lease)
        if not claims:
            return False
        claim = claims[0]
        if claim.expired:
            metrics.LEASE_EXPIRIES.labels(spec.table.__tablename__).inc()
            log.info("%s %s: took over an expired lease", spec.table.__tablename__, claim.id)
        with self._guard:
            handed_back = self._released
            if not handed_back:
                self.current = (spec, claim.id)
        if handed_back:
            # The pool's shutdown handed back this worker's job while the claim was made
            # and saw none: the job ran on, unrenewed, in a process about to exit, and
            # another worker took it only once its lease ran out. Given back at once.
            with transaction(self.pipeline.sessions) as s:
                queue.release(s, spec, claim.id, self.name)
            log.warning("%s %s: released at shutdown", spec.table.__tablename__, claim.id)
            return True
        try:
            beat = self.heartbeat.beating(spec, claim.id, claim.attempts)
            with beat as lost, abandon.watching(lost):
                if spec is queue.DELIVERIES:
                    self.pipeline.process_delivery(claim, self.name)
                else:
                    self.pipeline.process_item(claim, self.name)
        except queue.LeaseLost:
            log.warning("%s %s: lease lost, result discarded", spec.table.__tablename__, claim.id)
        finally:
            self.current = None
        return True

    def release_current(self) -> None:
        """Hand the running job back to the queue (shutdown past the grace period): a
        delivery or an item, or what an extra job (the outbound sender) is doing."""
        for job in self.extra_jobs:
            release = getattr(job, "release", None)
            if release is not None:
                release(self.name)
        with self._guard:
            self._released = True
            current = self.current
        if current is None:
            return
        spec, job_id = current
        with transaction(self.pipeline.sessions) as s:
            queue.release(s, spec, job_id, self.name)
        log.warning("%s %s: released at shutdown", spec.table.__tablename__, job_id)


class WorkerPool:
    """N worker threads with a shared stop flag and graceful shutdown.

    With ``extra_threads``, that many more threads run the ``extra_jobs`` (the outbound
    sender) alone, and the N workers run items only: an event goes out while every
    worker waits minutes on the model, and a slow receiver holds no item worker.
    Without, the workers take the extra jobs between items.
    """

    def __init__(
        self,
        pipeline: Pipeline,
        n: int,
        *,
        extra_jobs: list[Callable[[str], bool]] | None = None,
        extra_threads: int = 0,
    ) -> None:
        self.stop = threading.Event()
        self.wake = threading.Event()
        jobs = extra_jobs or []
        shared = [] if extra_threads > 0 else jobs
        self.workers = [
            Worker(pipeline, stop=self.stop, wake=self.wake, extra_jobs=shared)
            for _ in range(max(0, n))
        ]
        if n > 0 and jobs:
            self.workers += [
                Worker(pipeline, stop=self.stop, wake=self.wake, extra_jobs=jobs, items=False)
                for _ in range(extra_threads)
            ]
        self.threads = [
            threading.Thread(
                target=w.run, name=f"worker-{i}" if w.items else f"sender-{i}", daemon=True
            )
            for i, w in enumerate(self.workers)
        ]

    @property
    def item_workers(self) -> int:
        """Threads that take items (the senders not counted)."""
        return sum(1 for w in self.workers if w.items)

    def start(self) -> None:
        for th in self.threads:
            th.start()

    def notify(self) -> None:
        self.wake.set()

    def shutdown(self, grace: float) -> bool:
        """Stop claiming; wait up to ``grace`` seconds for running jobs. True if all ended.

        A job still running after the grace period is handed back to the queue (another
        worker takes it at once, not after its lease expires), a claim made meanwhile
        too; the thread's writes after are refused, fenced by the lease owner.
        """
        self.stop.set()
        self.wake.set()
        running = sum(1 for w in self.workers if w.current is not None)
        # Said once no job can be claimed any more: why a process takes its time to end.
        log.info("stopping: no new jobs; up to %gs for the %d running", grace, running)
        deadline = time.monotonic() + grace
        for th in self.threads:
            th.join(timeout=max(0.0, deadline - time.monotonic()))
        stuck = [w for w, th in zip(self.workers, self.threads, strict=True) if th.is_alive()]
        for w in stuck:
            # Its result will be refused (fenced by lease owner); another worker redoes it.
            try:
                w.release_current()
            except Exception:
                log.warning("could not release %s's job", w.name, exc_info=True)
            # The lease was handed back: renewing it would only log "lease lost".
            w.close()
        return not stuck
