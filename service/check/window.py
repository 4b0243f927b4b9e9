"""A figure's word window: the words before and after a number that may name what it
measures (six runs of non-space characters each way, the names' window stopping where a
clause starts)."""

from __future__ import annotations

import re
from functools import lru_cache

from service.numbers import Number

NEAR = 6  # words
_NONSPACE = re.compile(r"\S+")


def window_start(s: str, left: int, pos: int) -> int:
    """Where the sixth-last run of non-space characters of ``s[left:pos]`` starts, when
    it has more than six (else ``left``). Six words fit in a few hundred characters:
    never look further back than that (a run cut there counts as one)."""
    lo = max(left, pos - 300)
    seg = s[lo:pos]
    # The runs are what str.split() splits off (\S is what str.isspace() is not); from
    # the right, the seventh-last run and all before it stay one head, which keeps its
    # leading white space: the sixth-last run is the first part after the head, found
    # after the head's end (white space stands between them; the run starts with none).
    parts = seg.rsplit(None, NEAR)
    if len(parts) <= NEAR:
        return left
    return lo + seg.find(parts[1], len(parts[0]))


# The words after a number stop describing it at a relative clause or a verb in -ing
# ("a 30-billion-parameter model running on NVIDIA GPUs").
_CLAUSE_START = re.compile(
    r"(?:which|that|who|whom|whose|when|where|while|whereas|because|although|if|unless)"
    r"|[a-z]{3,}ing",
    re.I,
)
_ING_NOUNS = frozenset(
    "training serving thing decoding scaling string setting settings padding embedding "  # noqa: SIM905
    "batching checkpointing encoding sampling pooling caching routing tuning autotuning "
    "learning reasoning computing processing spending funding pricing ranking building "
    "morning evening timing ceiling".split()
)


# The first ``NEAR`` runs of non-space characters from a position: one match finds where
# the last of them ends (a run cut by the match's end position counts, as a scan of the
# runs up to there counts it).
_FIRST_RUNS = re.compile(r"\s*+\S++(?:\s++\S++){" + str(NEAR - 1) + "}")
_FIRST_RUN = re.compile(r"\s*+\S++")
# What a word starting a clause holds (ASCII text, any case): a window without one needs
# no word-by-word look (most windows).
# (Its first letter as a set of both cases and those that match them ignoring case, each
# word then told by it: a pattern that starts with a set is skipped ahead in C, where an
# alternation of words ignoring case is tried at every position.)
_CLAUSE_HINT = re.compile(
    r"[aAbBiIİıtTuUwW](?i:(?<=w)h|(?<=t)hat|(?<=i)f|(?<=u)nless|(?<=b)ecause|(?<=a)lthough"
    r"|(?<=i)ng)"
)


def window_end(s: str, pos: int, right: int) -> int:
    """Where the sixth run of non-space characters of ``s[pos:right]`` ends, when it has
    six (else ``right``)."""
    m = _FIRST_RUNS.match(s, pos, right)
    return m.end() if m is not None else right


@lru_cache(maxsize=4096)
def starts_clause(run: str) -> bool:
    word = run.strip(".,;:()\"'").lower()
    return _CLAUSE_START.fullmatch(word) is not None and word not in _ING_NOUNS


def window_ends(s: str, pos: int, right: int) -> tuple[int, int]:
    """The names' window after a figure, and the nouns': :func:`_window_end`, the names'
    stopping before the first word after the first that starts a clause."""
    end = window_end(s, pos, right)
    first = _FIRST_RUN.match(s, pos, end)
    if first is None:
        return end, end
    a = first.end()
    if s.isascii() and _CLAUSE_HINT.search(s, a, end) is None:
        return end, end
    for m in _NONSPACE.finditer(s, a, end):
        if starts_clause(m.group(0)):
            return m.start(), end
    return end, end


def item_mark(s: str, n: Number) -> bool:
    """Whether a figure is an item's mark, alone in parentheses ("In case (3), ...",
    "(2) the kernel"): it names the third case, it counts nothing, so it backs no count
    of a noun ("3 design principles" in a post of four)."""
    return n.start > 0 and n.end < len(s) and s[n.start - 1] == "(" and s[n.end] == ")"
