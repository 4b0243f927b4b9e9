"""Per-process LLM request limits: the token bucket, the concurrency cap, sharing."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from service import abandon
from service.engines.base import ExplainOptions
from service.engines.llm import LLMEngine, ModeMemory
from service.errors import LeaseLost
from service.models import Article
from service.ratelimit import RateLimiter, TokenBucket, limiter_for
from tests.stub_llm import StubLLM, settings_for


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_bucket_allows_a_burst_then_holds_to_the_rate() -> None:
    clock = FakeClock()
    bucket = TokenBucket(60, capacity=2, clock=clock, sleep=clock.sleep)  # one a second
    assert bucket.try_acquire() == 0.0
    assert bucket.try_acquire() == 0.0
    assert bucket.try_acquire() == pytest.approx(1.0)
    clock.now += 0.5
    assert bucket.try_acquire() == pytest.approx(0.5)
    clock.now += 0.5
    assert bucket.try_acquire() == 0.0
    # acquire() sleeps until a token is due and says how long it waited.
    assert bucket.acquire() == pytest.approx(1.0)
    assert clock.now == pytest.approx(102.0)


def test_bucket_never_holds_more_than_its_capacity() -> None:
    clock = FakeClock()
    bucket = TokenBucket(600, capacity=3, clock=clock, sleep=clock.sleep)
    clock.now += 3600
    assert [bucket.try_acquire() for _ in range(3)] == [0.0, 0.0, 0.0]
    assert bucket.try_acquire() > 0.0


def test_default_burst_is_ten_seconds_of_requests() -> None:
    assert TokenBucket(600).capacity == 100
    assert TokenBucket(3).capacity == 1.0


def test_bad_limits_are_refused() -> None:
    with pytest.raises(ValueError):
        TokenBucket(0)
    with pytest.raises(ValueError):
        RateLimiter(0, 60)


def test_concurrency_cap_holds_across_threads() -> None:
    limiter = RateLimiter(3, 60_000)
    entered = threading.Semaphore(0)
    gate = threading.Event()

    def work() -> None:
        with limiter.slot():
            entered.release()
            gate.wait(10)

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for _ in range(3):
        assert entered.acquire(timeout=10)
    assert limiter.in_flight == 3
    gate.set()
    for t in threads:
        t.join(10)
    assert limiter.peak_in_flight == 3
    assert limiter.in_flight == 0


def test_limiter_is_shared_per_endpoint() -> None:
    a = limiter_for("http://a/v1", 4, 60)
    assert limiter_for("http://a/v1", 4, 60) is a
    assert limiter_for("http://b/v1", 4, 60) is not a


def test_engine_requests_go_through_the_limiter() -> None:
    limiter = RateLimiter(2, 60_000)
    with StubLLM(delay=0.2) as stub:
        engine = LLMEngine(settings_for(stub), modes=ModeMemory(), limiter=limiter)
        articles = [Article(title=f"Post {i}", text=f"Body {i}.") for i in range(6)]
        with ThreadPoolExecutor(6) as pool:
            results = list(pool.map(lambda a: engine.explain(a, ExplainOptions()), articles))
        assert len(stub.calls) == 6
    assert len(results) == 6
    assert limiter.peak_in_flight == 2


def _hold_the_only_slot(limiter: RateLimiter) -> tuple[threading.Event, threading.Thread]:
    """Another worker's call: it holds the limiter's one slot until the event is set."""
    held, done = threading.Event(), threading.Event()

    def call() -> None:
        with limiter.slot():
            held.set()
            done.wait(30)

    holder = threading.Thread(target=call, daemon=True)
    holder.start()
    assert held.wait(10)
    return done, holder


def test_a_jobs_wait_for_a_slot_ends_when_its_lease_is_lost() -> None:
    limiter = RateLimiter(1, 60_000)
    done, holder = _hold_the_only_slot(limiter)
    lost = threading.Event()
    threading.Timer(0.3, lost.set).start()  # the heartbeat finds the lease lost
    start = time.monotonic()
    try:
        with (
            abandon.watching(lost),
            pytest.raises(LeaseLost, match="waiting for a slot"),
            limiter.slot(),
        ):
            pytest.fail("a slot was given to a job whose lease is lost")
        assert time.monotonic() - start < 5  # not until the other call ends
        assert limiter.in_flight == 1  # the holder's; the job took none
    finally:
        done.set()
        holder.join(10)
    with limiter.slot():  # the slot the job waited for was not taken, nor lost
        assert limiter.in_flight == 1


def test_a_jobs_wait_for_the_rate_ends_when_its_lease_is_lost() -> None:
    limiter = RateLimiter(2, 1)  # one request a minute, a burst of one
    with limiter.slot():
        pass
    lost = threading.Event()
    threading.Timer(0.3, lost.set).start()
    start = time.monotonic()
    with (
        abandon.watching(lost),
        pytest.raises(LeaseLost, match="waiting for the rate"),
        limiter.slot(),
    ):
        pytest.fail("a token was given to a job whose lease is lost")
    assert time.monotonic() - start < 5  # not the minute the rate asks for
    assert limiter.in_flight == 0
    # Its slot was given back: both are free for the next calls.
    assert limiter._slots.acquire(timeout=0) and limiter._slots.acquire(timeout=0)


def test_outside_a_job_a_wait_for_a_slot_lasts_until_one_is_free() -> None:
    limiter = RateLimiter(1, 60_000)
    done, holder = _hold_the_only_slot(limiter)
    lost = threading.Event()
    lost.set()  # another job's lease, not the waiter's: it runs in no job
    got = threading.Event()

    def wait_for_slot() -> None:
        with limiter.slot():
            got.set()

    waiter = threading.Thread(target=wait_for_slot, daemon=True)
    waiter.start()
    assert not got.wait(0.6)  # still waiting, past a few of a job's looks
    done.set()
    assert got.wait(10)
    holder.join(10)
    waiter.join(10)


def test_an_explain_waiting_for_a_slot_makes_no_call_once_its_lease_is_lost() -> None:
    limiter = RateLimiter(1, 60_000)
    with StubLLM() as stub:
        engine = LLMEngine(settings_for(stub), modes=ModeMemory(), limiter=limiter)
        done, holder = _hold_the_only_slot(limiter)
        lost = threading.Event()
        threading.Timer(0.3, lost.set).start()
        try:
            with abandon.watching(lost), pytest.raises(LeaseLost) as raised:
                engine.explain(Article(title="Post", text="Body."), ExplainOptions())
        finally:
            done.set()
            holder.join(10)
        assert stub.calls == []
    assert raised.value.extra["usage"].calls == 0  # nothing spent, nothing to count
