"""Per-process LLM request limits: the token bucket, the concurrency cap, sharing."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from service.engines.base import ExplainOptions
from service.engines.llm import LLMEngine, ModeMemory
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
