"""What an explainer sentence comparing two rows of a source table says of them: the
column it compares ("twice the TPS/GPU of PP2-256"), for speed which row it says is the
faster ("PP2-512 is twice as fast as PP2-256"), read where the column's meaning is clear
(a throughput: more is faster; a time: less is faster), and of an amount which row has
more ("PP2-512 has twice the global TPS of PP2-256")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from service.check.table import norm_words

if TYPE_CHECKING:
    from service.check.derive import Derived
    from service.check.index import SourceIndex
    from service.numbers import Number

# A claim of speed between two things, in a sentence's normalised words (table.norm_words):
# the thing before it is the faster ("A is 2x faster than B"), or, of "slower", the thing
# after it ("B is 2x slower than A").
_SPEED = re.compile(
    r" (?:(faster|quicker|speedup|speed up|as fast as|as quick(?:ly)? as)|(slower|as slow as)) "
)
# "faster than", not "as fast as": a percent change says its base (the row after it).
_THAN = frozenset({"faster", "quicker", "slower"})

# A column of throughput: more is faster ("Global TPS", "Throughput (tok/s)", "TFLOPs/GPU").
_THROUGHPUT = re.compile(r"\b(?:tps|qps|rps|throughput|flops|tflops|speed|per second)\b|/s\b")
# A column of time: less is faster ("Latency (ms)", "Step time", "Runtime (s)").
_TIME = re.compile(r"\b(?:latency|time|runtime|duration)\b")
_TIME_UNITS = frozenset({"ns", "µs", "ms", "s", "min", "h", "day"})


@lru_cache(maxsize=256)
def column_sense(header: str, unit: str) -> int:
    """1 for a column of throughput (its larger cell is the faster row), -1 for one of
    time (the smaller), 0 when its header and unit say neither (GPUs, memory)."""
    h = header.lower()
    if unit.endswith("/s") or _THROUGHPUT.search(h):
        return 1
    if unit in _TIME_UNITS or _TIME.search(h):
        return -1
    return 0


def named_columns(words: str, headers: Sequence[str]) -> set[int]:
    """The columns (past the first, of labels) whose header, its unit in brackets aside
    ("Step time (ms)": "step time"), sentence ``words`` names as a measure, not as a
    cell's unit after a figure ("twice the TPS/GPU", not "on 512 GPUs"); where it names
    none, those of a measure per thing its "per" phrase names ("faster per GPU")."""
    named = {j for j, header in enumerate(headers) if j and column_place(words, header) >= 0}
    if named:
        return named
    return {
        j for j, header in enumerate(headers) if j and column_place(words, header, per=True) >= 0
    }


def column_place(words: str, header: str, *, per: bool = False) -> int:
    """Where sentence ``words`` names a column by its ``header`` as a measure (unit in
    brackets aside, not after a figure: :func:`named_columns`); -1 for nowhere. A header
    of a measure per thing ("TPS/GPU") is named in words too ("TPS per GPU"), and
    (``per``: where no column is named so) by its "per" phrase alone ("2x faster per
    GPU": no ratio of Global TPS)."""
    bare = _BRACKETED.sub(" ", header)
    forms = [norm_words(bare)]
    if len(forms[0]) <= 3:
        return -1
    if "/" in bare:
        measure, _, thing = bare.rpartition("/")
        forms = [*forms, norm_words(f"{measure} per {thing}")]
        forms = [norm_words(f"per {thing}")] if per else forms
    for h in forms:
        at = words.find(h)
        while at >= 0:
            before = words[:at].split()
            if not (before and before[-1][:1].isdigit()):
                return at
            at = words.find(h, at + 1)
    return -1


_BRACKETED = re.compile(r"[(\[][^()\[\]]*[)\]]")


def speed_claim(words: str) -> tuple[int, bool, bool] | None:
    """Where sentence ``words`` claims speed, whether the thing before that is the faster
    (not for "slower"), and whether the claim is "... than" (it names a percent change's
    base after it); None for no such claim."""
    m = _SPEED.search(words)
    if m is None:
        return None
    return m.start(), m.group(1) is not None, (m.group(1) or m.group(2)) in _THAN


# A claim of amount right after a figure: the thing before it has more ("twice the global
# TPS of PP2-256", "98% more ... than", "twice as many") or less ("49% less ... than").
_MORE = frozenset({"more", "higher", "larger", "bigger", "greater"})
_LESS = frozenset({"less", "lower", "fewer", "smaller"})
_AS_MORE = frozenset({"many", "much", "large", "big", "high"})
_PACE = frozenset({"speed", "pace", "rate", "performance"})


def amount_claim(words: str, figure: str, how: str) -> tuple[int, bool, bool] | None:
    """Where sentence ``words`` claim an amount by ``figure`` (its words, normalised as
    ``words`` are; a value computed ``how``), in :func:`speed_claim`'s terms, the thing
    before it had more: of a ratio, "more", "the", "as many" ("twice the GPUs of"), or
    "less"; of a percent change ("than"), "more" or "less"; of a percentage, "of" ("51%
    of PP2-512's": the thing before it is the part, True); None for no such claim."""
    at = words.find(figure)
    after = words[at + len(figure) :].split(maxsplit=2)[:2] if at >= 0 else []
    word = after[0] if after else ""
    if word == "as" and len(after) > 1 and after[1] in _AS_MORE:
        word = "the"  # "twice as many GPUs as", not "twice as long as" (of a throughput)
    elif word == "the" and len(after) > 1 and after[1] in _PACE:
        return None  # "twice the speed of": of a time column, the less time
    if (how == "ratio" and word in _MORE | {"the"}) or (how == "percent change" and word in _MORE):
        return at, True, how == "percent change"
    if how in ("ratio", "percent change") and word in _LESS:
        return at, False, how == "percent change"
    if how == "percentage" and word == "of":
        return at, True, False
    return None


def way_round(claim: tuple[int, bool, bool], at: tuple[int, int], faster: int, base: int) -> bool:
    """Whether a value of two rows named at ``at`` (their places in the sentence's words,
    -1 for not found) fits the speed ``claim`` (or :func:`amount_claim`'s, "faster" read
    as "more"): the row it says is the faster is row ``faster`` (0 or 1) by the table,
    and of a percent change said with "than", its base (row ``base``; -1 for none) is
    the row after the claim. A sentence that does not put one row before the claim and
    the other after it is not read (True)."""
    where, before_faster, than = claim
    if min(at) < 0 or (at[0] < where) == (at[1] < where):
        return True
    before = 0 if at[0] < where else 1
    if (before if before_faster else 1 - before) != faster:
        return False
    return base < 0 or not than or base == 1 - before


def in_row_claimed(
    words: str,
    figure: str,
    how: str,
    headers: tuple[str, str],
    senses: tuple[int, int],
    larger: int,
) -> bool:
    """Whether sentence ``words`` asks for a value computed ``how`` from two cells of one
    table row, in the columns of ``headers`` (their :func:`column_sense`; cell ``larger``,
    0 or 1, the larger): it names both columns ("FP8 is 1.5x faster than BF16" of "FP8
    TFLOPS" and "BF16 TFLOPS", by the words that tell the two apart), or one, the other
    read as the base a claim of speed or amount leaves unsaid ("FlyDSL is 2x faster" of
    "ATen (ms)" and "FlyDSL (ms)"), the right way round. Two cells of a row are two
    measures: "PP2-256 is 98% faster" is no ratio of its TPS/GPU and DP cells."""
    at = [column_place(words, h) for h in headers]
    for i, h in enumerate(headers):
        if at[i] < 0:  # by the words only this column's header has ("fp8" of "FP8 TFLOPS")
            own = set(norm_words(_BRACKETED.sub(" ", h)).split())
            own -= set(norm_words(_BRACKETED.sub(" ", headers[1 - i])).split())
            places = [words.find(f" {w} ") for w in own if len(w) > 1]
            if places and min(places) >= 0:
                at[i] = min(places) + 1
    if max(at) < 0:
        return False
    claim = speed_claim(words)
    if claim is not None:
        way = senses[0] if senses[0] == senses[1] else 0
        if not way:
            return False  # "faster" of two measures of no one sense (a time, a count)
        faster = larger if way > 0 else 1 - larger
        base = 1 if how == "percent change" and way > 0 else -1
    else:
        claim = amount_claim(words, figure, how)
        if claim is None:
            return min(at) >= 0  # both named: "the FP8 and BF16 TFLOPS differ by 150"
        faster = 0 if how == "percentage" else larger
        base = 1
    if min(at) < 0:  # the one unnamed: the base the claim leaves unsaid, across it
        named = max(at)
        at = [a if a >= 0 else (len(words) if named < claim[0] else 0) for a in at]
    return way_round(claim, (at[0], at[1]), faster, base)


def in_row_asked(idx: SourceIndex, d: Derived, s: str, q: Number) -> bool:
    """Whether sentence ``s`` asks for value ``d`` of two cells of one table row, in two
    of its columns (:func:`in_row_claimed`), of any columns the two figures stand in."""
    unit, row = idx.units[d.unit], idx.row_of[d.unit]
    headers = idx.units[row.header_unit].display.split(" | ")
    columns: dict[str, list[int]] = {d.a_text: [], d.b_text: []}
    j, pos = 0, unit.start
    for n in unit.numbers:  # the separators before each counted once
        j += unit.text.count(" | ", pos, n.start)
        pos = max(pos, n.start)
        if n.text in columns and j < len(headers):
            columns[n.text].append(j)
    words, figure = norm_words(s), norm_words(q.text)
    larger = 0 if d.a > d.b else 1
    return any(
        in_row_claimed(
            words,
            figure,
            d.how,
            (headers[ja], headers[jb]),
            (column_sense(headers[ja], row.units[ja]), column_sense(headers[jb], row.units[jb])),
            larger,
        )
        for ja in columns[d.a_text]
        for jb in columns[d.b_text]
        if ja != jb
    )
