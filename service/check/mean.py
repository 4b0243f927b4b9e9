"""A value the explainer states as a mean ("On H100 the mean is 1.57x"): an end of a
source range is no mean ("on H100 the mean is roughly flat, with individual shapes
ranging from 0.66x to 1.57x": 1.57x is the best shape's), unless the source says the
range is one of means ("mean speedups range from 1.2x to 1.5x")."""

from __future__ import annotations

import re
from collections.abc import Callable

from service.check.index import SourceIndex
from service.check.match import Outcome
from service.check.unit import Hit
from service.models import CheckStatus
from service.numbers import Number
from service.numbers.number import RANGE

_MEAN = r"(?:mean|average|avg|median|geomean)"
# Before the value, in its clause: "the mean is", "a mean speedup on H100 of", "averages".
_STATED_BEFORE = re.compile(
    rf"(?<![\w-])(?:{_MEAN}(?:[\s-]+[\w.]+){{0,5}}?\s+(?:is|was|are|were|of|at|comes to|came to)"
    r"|averag(?:es|ed))\s+(?:(?:about|roughly|around|approximately|nearly|~)\s*)?$",
    re.I,
)
# After it: "1.57x over ATen on average", "a 1.57x mean speedup".
_STATED_AFTER = re.compile(
    rf"\s*(?:(?:[\w.-]+\s+){{0,3}}?on\s+average\b|(?:geometric[\s-]+)?{_MEAN}\b)", re.I
)
_SAID_OF_MEANS = re.compile(rf"\b{_MEAN}s?\b|\bon\s+average\b|\baveraged?\b", re.I)
_CLAUSE_MARK = re.compile(r"[,;:()\x00]|\.(?!\d)")


def stated_mean(s: str, n: Number) -> bool:
    """Whether the explainer's ``n`` (in ``s``) is stated as a mean."""
    return (
        _STATED_BEFORE.search(s, max(0, n.start - 64), n.start) is not None
        or _STATED_AFTER.match(s, n.end) is not None
    )


def _of_means(idx: SourceIndex, h: Hit) -> bool:
    """Whether source range ``h`` is said of means in its own phrase: from the clause
    mark before it to the one after ("mean speedups range from 1.2x to 1.5x", "1.2x to
    1.5x on average"), not a mean the sentence gives elsewhere ("the mean is roughly
    flat, with individual shapes ranging from 0.66x to 1.57x")."""
    text, n = idx.units[h[0]].text, h[1]
    head = text[max(0, n.start - 60) : n.start]
    marks = list(_CLAUSE_MARK.finditer(head))
    head = head[marks[-1].end() :] if marks else head
    tail = text[n.end : n.end + 40]
    mark = _CLAUSE_MARK.search(tail)
    tail = tail[: mark.start()] if mark else tail
    return _SAID_OF_MEANS.search(head) is not None or _SAID_OF_MEANS.search(tail) is not None


def match_mean(
    idx: SourceIndex,
    q: Number,
    outcome: Outcome,
    again: Callable[[Callable[[Hit], bool]], Outcome],
) -> Outcome:
    """``outcome`` of ``q``, stated as a mean, unless it derives ``q`` from a source
    range's end not said of means: then the outcome of ``again`` (the match run again,
    keeping the source figures a keep function keeps) without such ends, else
    unsupported."""
    if outcome.status != CheckStatus.DERIVED or not (outcome.reason or "").endswith(
        "end of a source range"
    ):
        return outcome

    def keep(h: Hit) -> bool:
        return h[1].kind != RANGE or _of_means(idx, h)

    rerun = again(keep)
    if rerun.status != CheckStatus.UNSUPPORTED:
        return rerun
    assert q.value is not None
    ends = (*idx.range_highs.get(q.value, ()), *idx.range_lows.get(q.value, ()))
    shown = next((h[1].text for h in ends if not keep(h)), q.text)
    reason = f"the source has it as an end of a range ({shown}), not a mean"
    return Outcome(CheckStatus.UNSUPPORTED, None, reason)
