"""check: "N times" is a multiplier only where a comparison or a measure follows it or a
word of change or a bound stands before it ("3 times faster", "3 times the speed", "2
times throughput", "speeds up 3 times", "above 1 times"); with neither it counts events
("runs 3 times", "called 3 times", "3 Mal aufgerufen"), as "ran three times" and "called
twice" do. A count is backed by a count of the same value and by no multiplier ("3x
faster" backs no "ran 3 times", "runs 3 times" no "3 times as fast"); a multiplier is
backed as before. (Both were strict xfails of test_check_known_wrong.)"""

from __future__ import annotations

import pytest

from service.numbers import extract_numbers
from service.numbers.events import with_runs
from tests.check_helpers import S, U, status, verdict


def _read(text: str) -> tuple[str, str]:
    (n,) = extract_numbers(text)
    return n.text, n.unit


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("The kernel is 3 times faster.", "3 times"),
        ("The kernel is 3 times as fast.", "3 times"),
        ("It reaches 3 times the speed of ATen.", "3 times"),
        ("It uses 4 times more memory.", "4 times"),
        ("A 3 times larger batch fits.", "3 times"),
        ("It beats Triton 3 times over.", "3 times"),
        ("It gives a 3 times speedup.", "3 times"),
        ("The decode speeds up 3 times.", "3 times"),
        ("Throughput improved 3 times.", "3 times"),  # a change: read as its multiple
        ("The cost was reduced by 5 times.", "5 times"),
        ("It shows a speedup of about 3 times.", "3 times"),
        ("It is 2-3 times faster.", "2-3 times"),
        ("It shows approximately 2 times throughput.", "2 times"),
        ("Values above 1 times favor FlyDSL.", "1 times"),
        ("The submitter measured >100 times on small matrices.", "100 times"),
        ("The speedup was 3 times.", "3 times"),
        ("Der Kernel ist 3 Mal schneller.", "3 Mal"),
        ("The speedup was 4.02 times.", "4.02 times"),  # a fraction counts nothing
        ("It reads 1.5 times.", "1.5 times"),
    ],
)
def test_times_with_a_comparison_is_a_multiplier(text: str, written: str) -> None:
    assert _read(text) == (written, "x")


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("The job runs 3 times.", "3 times"),
        ("The kernel was called 3 times.", "3 times"),
        ("Each step is retried 3 times per step.", "3 times"),
        ("The cron job fires 3 times a day.", "3 times"),
        ("The loop ran 10 times before it converged.", "10 times"),
        ("We measured each run 5 times and took the median.", "5 times"),
        ("The test failed 2 times in a row.", "2 times"),
        ("It restarts 4 times, then gives up.", "4 times"),
        ("Each lookup scans the table 3 times.", "3 times"),
        ("The job runs 2-3 times an hour.", "2-3 times"),
        ("Der Kernel wurde 3 Mal aufgerufen.", "3 Mal"),
        ("The model was sampled 8 times per prompt.", "8 times"),
    ],
)
def test_whole_times_with_no_comparison_counts(text: str, written: str) -> None:
    assert _read(text) == (written, "")


@pytest.mark.parametrize(
    ("text", "written", "unit"),
    [
        # A count word of runs is read with its word, as the digits are.
        ("The kernel ran three times.", "three times", ""),
        ("The cron job fires three times a day.", "three times", ""),
        ("The test failed twenty-one times in a row.", "twenty-one times", ""),
        ("Der Kernel lief drei Mal.", "drei Mal", ""),
        # A multiplier as before: before a comparison, after a word of change.
        ("The kernel is three times as fast.", "three times", "x"),
        ("The kernel is three times faster.", "three times", "x"),
        ("The decode speeds up three times.", "three", ""),
        ("It gives a three times speedup.", "three", ""),
        ("Das Modell ist drei Mal so schnell.", "drei Mal", "x"),
    ],
)
def test_a_count_word_of_times_is_read_as_the_digits_are(
    text: str, written: str, unit: str
) -> None:
    assert _read(text) == (written, unit)


@pytest.mark.parametrize(
    ("explainer", "written"),
    [
        ("The kernel is 3 times as fast.", "3 times"),
        ("The kernel is three times as fast.", "three times"),
        ("The kernel is 3x faster.", "3x"),
        ("The kernel is 3 times faster.", "3 times"),
        ("The kernel speeds up 3 times.", "3 times"),
    ],
)
def test_a_count_of_runs_backs_no_multiplier(explainer: str, written: str) -> None:
    assert status(explainer, "The kernel runs 3 times.", written) == U


@pytest.mark.parametrize(
    ("explainer", "written", "source"),
    [
        ("Der Kernel wurde zweimal aufgerufen.", "zweimal", "The kernel is 2x faster."),
        ("The kernel was called twice.", "twice", "The kernel is 2x faster."),
        ("The kernel was called twice.", "twice", "The kernel is twice as fast."),
        ("The kernel was called 2 times.", "2 times", "The kernel is 2x faster."),
        ("The kernel ran 3 times.", "3 times", "The kernel is 3x faster."),
        ("The kernel ran 3 times.", "3 times", "The kernel is 3 times faster."),
        ("The job ran 2-3 times.", "2-3 times", "The job is 2-3 times faster."),
        ("Der Kernel wurde 3 Mal aufgerufen.", "3 Mal", "The kernel is 3x faster."),
        # A count word of runs the same (passed: a bare three, which any 3 backed).
        ("The kernel ran three times.", "three times", "The kernel is 3x faster."),
        ("The kernel ran three times.", "three times", "The kernel is three times as fast."),
        ("The kernel ran three times.", "three times", "The kernel is 3 times faster."),
        ("Each step is retried five times.", "five times", "Decode is 5x faster."),
        ("Three times a day the job runs.", "Three times", "The job is 3x faster."),
        ("Der Kernel lief drei Mal.", "drei Mal", "Der Kernel ist 3x schneller."),
    ],
)
def test_a_multiplier_backs_no_count_of_calls(explainer: str, written: str, source: str) -> None:
    assert status(explainer, source, written) == U


@pytest.mark.parametrize(
    ("explainer", "written", "source"),
    [
        ("The kernel ran 3 times.", "3 times", "The kernel runs three times."),
        ("The kernel ran three times.", "three times", "The kernel runs 3 times."),
        ("The kernel ran three times.", "three times", "The kernel runs three times."),
        ("The kernel ran three times.", "three times", "The kernel ran 3 times a day."),
        ("Der Kernel lief drei Mal.", "drei Mal", "Der Kernel wurde 3 Mal aufgerufen."),
        # A count word that is a multiplier, as before ("speeds up three times" is read
        # as a bare three, which any 3 backs).
        ("The kernel speeds up three times.", "three", "The kernel is 3x faster."),
        ("The kernel is three times faster.", "three times", "The kernel is 3x faster."),
        ("The kernel ran 3 times.", "3 times", "The kernel runs 3 times a day."),
        ("The kernel was called twice.", "twice", "The kernel was called 2 times."),
        ("The kernel was called twice.", "twice", "The kernel was called twice."),
        ("Der Kernel wurde zweimal aufgerufen.", "zweimal", "The kernel was called twice."),
        ("Der Kernel wurde 3 Mal aufgerufen.", "3 Mal", "The kernel was called 3 times."),
        ("The job is retried 3 times.", "3 times", "The job is retried 3 times per step."),
        # A multiplier is backed as before, however written.
        ("The kernel is 3 times faster.", "3 times", "The kernel is 3x faster."),
        ("The kernel is 3x faster.", "3x", "The kernel is 3 times as fast."),
        ("The kernel is 3x faster.", "3x", "The kernel speeds up 3 times."),
        ("The kernel is three times as fast.", "three times", "The kernel is 3x faster."),
        ("The kernel is twice as fast.", "twice", "The kernel is 2x faster."),
    ],
)
def test_a_count_backs_a_count_and_a_multiplier_a_multiplier(
    explainer: str, written: str, source: str
) -> None:
    assert status(explainer, source, written) == S


@pytest.mark.parametrize(
    ("explainer", "written", "source"),
    [
        # A count of runs (its noun right after it) counts how often a thing ran, as "ran 3
        # times" does (passed: a bare 3 takes any unit).
        ("The kernel took 3 runs.", "3", "The kernel is 3x faster."),
        ("The kernel took three runs.", "three", "The kernel is 3x faster."),
        ("We report the median of 3 runs.", "3", "The kernel is 3x faster."),
        ("The kernel took 3 runs.", "3", "The kernel is 3 times faster."),
        ("The kernel took three runs.", "three", "The kernel is three times as fast."),
        ("The kernel took 3 trials.", "3", "The kernel is 3x faster."),
        ("The kernel took three iterations.", "three", "The kernel is 3x faster."),
        ("The kernel took three repetitions.", "three", "The kernel is 3x faster."),
        ("The kernel took 2-3 runs.", "2-3", "The kernel is 2-3x faster."),
    ],
)
def test_a_multiplier_backs_no_count_of_runs(explainer: str, written: str, source: str) -> None:
    assert status(explainer, source, written) == U


def test_a_count_of_runs_against_a_multiplier_says_so() -> None:
    v = verdict("The kernel took 3 runs.", "The kernel is 3x faster.", "3")
    assert v.reason == "the source writes 3x, a multiplier"


@pytest.mark.parametrize(
    ("explainer", "written", "source"),
    [
        ("The kernel took 3 runs.", "3", "The kernel took 3 runs."),
        ("The kernel took 3 runs.", "3", "The kernel is faster over 3 runs."),
        ("The kernel took three runs.", "three", "The kernel is faster over 3 runs."),
        ("The kernel took three runs.", "three", "Timings are averaged over 3 runs."),
        ("The kernel took 3 trials.", "3", "The kernel is 3x faster over 3 trials."),
        # A multiplier as before.
        ("The kernel is 3x faster.", "3x", "The kernel is 3x faster."),
        ("The kernel is three times faster.", "three times", "The kernel is 3x faster."),
        ("The kernel is 3x faster in 3 runs.", "3x", "The kernel is 3x faster."),
    ],
)
def test_a_count_of_runs_is_backed_by_a_count(explainer: str, written: str, source: str) -> None:
    assert status(explainer, source, written) == S


def test_a_count_of_runs_is_read_once_into_the_figure() -> None:
    # The reading travels with the figure (Number.runs), as its unit does: made where the
    # explainer's figure is read, not threaded through the match beside it.
    s = "The median of 3 runs is 3x, over three trials."
    nums = extract_numbers(s)
    read = with_runs(s, nums)
    assert [(n.text, n.runs) for n in read] == [("3", True), ("3x", False), ("three", True)]
    assert not any(n.runs for n in nums)  # the extractor's list is left as it was
    plain = "It is 3x faster on 8 GPUs."
    nums = extract_numbers(plain)
    assert with_runs(plain, nums) is nums
