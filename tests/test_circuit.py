"""The circuit breaker of the model endpoint, on a fake clock."""

from __future__ import annotations

import threading

from service.circuit import Circuit


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def opened(clock: Clock) -> Circuit:
    c = Circuit(threshold=2, cooldown=10, clock=clock)
    c.failure()
    assert c.state == "closed" and c.allow()
    c.failure()
    assert c.state == "open" and not c.allow()
    return c


def test_opens_after_consecutive_failures_and_closes_on_a_successful_trial() -> None:
    clock = Clock()
    c = opened(clock)
    clock.now = 10
    assert c.state == "half-open"
    assert c.allow()  # the one trial
    assert not c.allow()
    c.success()
    assert c.state == "closed" and c.allow()


def test_a_failed_trial_opens_it_again_for_a_full_cooldown() -> None:
    clock = Clock()
    c = opened(clock)
    clock.now = 10
    assert c.allow()
    c.failure()
    clock.now = 19
    assert c.state == "open" and not c.allow()
    clock.now = 20
    assert c.allow()


def test_a_trial_that_made_no_call_is_given_back() -> None:
    clock = Clock()
    c = opened(clock)
    clock.now = 10
    assert c.allow()
    c.abandon()  # no item was ready
    assert c.allow()


def test_only_the_trial_holder_can_give_it_back() -> None:
    clock = Clock()
    c = opened(clock)
    clock.now = 10
    assert c.allow()
    other = threading.Thread(target=c.abandon)
    other.start()
    other.join()
    assert not c.allow()


def test_a_trial_that_never_reports_expires_after_a_cooldown() -> None:
    clock = Clock()
    c = opened(clock)
    clock.now = 10
    assert c.allow()
    clock.now = 19
    assert not c.allow()
    clock.now = 20
    assert c.allow()
