"""Digits before "times" (or German "Mal"): a multiplier, or a count of events ("runs 3
times"), told by the words around them (asked by units.spaced_unit)."""

from __future__ import annotations

import re

from service.numbers.number import Number, updated

# "times" after digits is a multiplier where a comparison or a measure follows it ("3
# times faster", "3 times as fast", "3 times the speed", "3 times over", "a 3 times
# speedup", "2 times throughput"), or a word of change or of a bound stands before it
# ("speeds up 3 times", "improved 3 times", "reduced by 3 times", "the speedup was 3
# times", "values above 1 times", ">100 times"), as the count words' "three times" is
# (words._COMPARISON); else a whole number of times counts events ("runs 3 times",
# "retried 3 times per step", "3 times a day"): no multiplier the source states, so it
# backs no "3x faster" and "3x faster" backs no count. German "3 Mal" / "3 mal" the same
# ("3 Mal aufgerufen" counts calls). A fraction ("1.68 times") can count nothing: always
# a multiplier. The corpus writes only fractions so; a faithful copy of it with each
# "Nx" written "N times" (test_check_perturbation_faithful) writes the rest.
COUNTABLE = frozenset({"times", "mal", "Mal"})
_COMPARED_AFTER = re.compile(
    r"\s+(?:as|the|more|less|fewer|over|faster|slower|larger|smaller|bigger|higher|lower"
    r"|greater|longer|shorter|better|quicker|cheaper|wider|speed-?ups?|improvements?"
    r"|increases?|gains?|boosts?|reductions?|throughput|speed|bandwidth|performance"
    r"|efficiency|capacity|latency|memory|compute|so|mehr|weniger|schneller|langsamer"
    r"|höher|niedriger|größer|kleiner|besser|schlechter|länger|kürzer|geringer|günstiger"
    r"|teurer|breiter)(?!\w)",
    re.I,
)
_COMPARED_BEFORE = re.compile(
    r"(?:\b(?:speeds?|sped|speeded)\s+up|\bimprov(?:es|ed|ing)|\bincreas(?:es|ed|ing)"
    r"|\bgr(?:ows|ew|own|owing)|\bboost(?:s|ed|ing)?|\baccelerat(?:es|ed|ing)|\bby|\babove"
    r"|\bbelow|\bthan|[<>≤≥]"
    r"|\b(?:speed-?ups?|gains?|improvements?|increases?|reductions?|ratios?)\b(?:\s+[\w-]+){0,2})"
    r"(?:\s+(?:about|around|roughly|nearly|almost|approximately|over|some|up\s+to"
    r"|more\s+than))?\s*$",
    re.I,
)


def counts_times(s: str, n: Number, end: int) -> bool:
    """Whether ``n`` with "times" written after it (ending at ``end``) counts events: a
    whole number with no comparison after it and no word of change before it."""
    whole = n.exp >= 0 and (n.high is None or n.high_exp >= 0)
    return whole and uncompared(s, n.start, end)


def uncompared(s: str, start: int, end: int) -> bool:
    """Whether a whole number of times from ``start`` to ``end`` of ``s`` (digits, or a
    count word: "ran three times") has no comparison after it and no word of change
    before it: a count of events."""
    return (
        _COMPARED_AFTER.match(s, end) is None
        and _COMPARED_BEFORE.search(s, max(0, start - 40), start) is None
    )


# A count of runs: digits or a count word with "runs", "trials", "iterations" or
# "repetitions" right after it ("the median of 3 runs", "three trials"). It says how often
# a thing ran, as "ran 3 times" does, which a source's multiplier ("3x faster") does not
# back though it has the value.
_RUNS = re.compile(r"\s+(?:run|trial|iteration|repetition)s?\b", re.I)


def with_runs(s: str, nums: list[Number]) -> list[Number]:
    """The figures ``nums`` of ``s``, each bare one with its noun of runs right after it
    marked a count of runs (``Number.runs``: read once, where the explainer's figure is
    read, and carried with it); ``nums`` itself when none is, as in most sentences. (A
    match at each bare figure: a search of the sentence for the nouns costs more.)"""
    out, runs = nums, _RUNS.match
    for i, n in enumerate(nums):
        if not n.unit and runs(s, n.end) is not None:
            if out is nums:
                out = list(nums)  # the caller's list is left as it was
            out[i] = updated(n, runs=True)
    return out
