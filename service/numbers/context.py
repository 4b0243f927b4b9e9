"""The words around a number: hedges ("up to", "over", "~"), signs, ranges written with
words ("from 8 to 256", "between 8 and 256"), lists sharing a unit ("1.58 and 1.68
times") and versions named by what comes before them ("PyTorch 2.14")."""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence

from service.numbers.german import grouped
from service.numbers.keywords import keyword_side
from service.numbers.number import (
    APPROX,
    LOWER,
    NO_HEDGE,
    QUANTITY,
    RANGE,
    UPPER,
    VERSION,
    Hedge,
    Number,
    updated,
)
from service.numbers.tokens import identifier, merge_range
from service.numbers.units import CURRENCY

_HEDGES: dict[str, Hedge] = {}
for _phrases, _kind in (
    (
        "about|around|roughly|approximately|approx.|approx|circa|ca.|some|close to|"
        "on the order of|an estimated|estimated|~|≈",
        APPROX,
    ),
    (
        "up to|as much as|as many as|as high as|at most|no more than|less than|fewer than|"
        "under|below|just under|nearly|almost|peaking at|peaks at|peaked at|"
        "tops out at|topped out at|topping out at|capped at|south of|"
        "maximum of|a maximum of|max of|a max of|max.|max|<=|≤|<",
        UPPER,
    ),
    (
        "over|more than|at least|above|exceeding|exceeds|greater than|upwards of|upward of|"
        "beyond|no less than|just over|as low as|as little as|as few as|minimum of|"
        "in excess of|north of|"
        "a minimum of|a min of|>=|≥|>",
        LOWER,
    ),
):
    for _w in _phrases.split("|"):
        _HEDGES[_w] = _kind


def _reversed_trie(phrases: list[str]) -> str:
    """An alternation of the phrases reversed (words split by any run of spaces), grouped
    by first character: the regex engine tries one group instead of every phrase. The
    phrases keep their order within a group, and no text character matches two groups'
    first characters (distinct lower-case letters and symbols, even ignoring case), so
    the alternative that matches is the one the flat alternation would pick."""
    groups: dict[str, list[str]] = {}
    for phrase in phrases:
        rev = [part[::-1] for part in reversed(phrase.split())]
        rest = r"\s+".join([re.escape(rev[0][1:])] + [re.escape(p) for p in rev[1:]])
        groups.setdefault(rev[0][0], []).append(rest)
    return "|".join(f"{re.escape(k)}(?:{'|'.join(v)})" for k, v in groups.items())


# The text before a number, reversed, so that one anchored match finds a hedge.
_BY_LENGTH = sorted(_HEDGES, key=len, reverse=True)
_HEDGE_REVERSED = re.compile(
    r"\s*(?:na?\s+)?(?:(?P<w>"
    + _reversed_trie([w for w in _BY_LENGTH if w[0].isalpha()])
    + r")(?!\w)|(?P<s>"
    + _reversed_trie([w for w in _BY_LENGTH if not w[0].isalpha()])
    + r"))",
    re.I,
)
_HEDGE_AFTER = re.compile(
    r"\s+or\s+(?P<w>more|above|higher|greater|over|less|fewer|below|lower|under)\b", re.I
)
_LOWER_AFTER = {"more", "above", "higher", "greater", "over"}

# (German "1,17- bis 3,66-mal": the first end's hyphen stands for its word, "-mal".)
_RANGE_GAP = re.compile(r"\s*(?:-|to|through|thru|→|->|-?\s*bis)\s*", re.I)
_CHANGE_GAP = re.compile(r"\s*(?:→|->)\s*")
# "fell from 40 to 30", "cut its time from 7,290 μs to 1,170 μs": a change, whose two ends
# are measured values; "ranges from 8 to 256" is a span.
_CHANGE_BEFORE = re.compile(
    r"\b(?:fell|falls?|falling|dropped|drops?|dropping|rose|rises?|rising|grew|grows?|growing|"
    r"(?:in|de)creas(?:ed|es|e|ing)|reduc(?:ed|es|e|ing)|cuts?|cutting|improv(?:ed|es|e|ing)|"
    r"went|goes|going|jumped|jumps?|climbed|climbs?|shr[au]nk|shrinks?|compress(?:ed|es)?|"
    r"shortened|lengthened|raised|lowered|boosted|slashed|moved|changed|halved|doubled)"
    r"(?:\s+\S+){0,3}?\s+from\s+(?:an?\s+)?(?:about\s+|roughly\s+|~)?$",
    re.I,
)
_BETWEEN_GAP = re.compile(r"\s*and\s*", re.I)
_BETWEEN_BEFORE = re.compile(r"\bbetween\s*$", re.I)
# Numbers in a list ("1.58 and 1.68 times"); the check binds such a list as one figure.
# The "+" of a lower bound stays out of its number ("13.3+ and 13.2+"), in the gap.
LIST_GAP = re.compile(r"(?:\+(?!\d))?\s*(?:,|,?\s*(?:and|or|&))\s*", re.I)
# ... or the name before the first repeated before the next ("CUDA 13.3+ and CUDA 13.2+").
_NAMED_GAP = re.compile(LIST_GAP.pattern + r"(?P<w>[A-Z][\w.-]*)\s+", re.I)
_COMMA_GAP = re.compile(r"\s*,\s*")
_VERSION_WORD_BEFORE = re.compile(r"\b(?:version|versions|release|releases|ver\.?)\s+$", re.I)
# "stay on 3.14 or earlier" (the post: "stay on Python 3.14 or earlier"): a decimal that
# has releases before or after it is a version, its product named earlier in the sentence
# or not at all; no measured figure is "or later".
_VERSION_WORD_AFTER = re.compile(r"\s+(?:or|and)\s+(?:earlier|later|newer|older)\b", re.I)
_PRODUCT_BEFORE = re.compile(
    r"(?<![\w.])(?P<w>[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*|[A-Z]{2,}[A-Za-z0-9]*|[a-z]+[A-Z]\w*)"
    r"\s+$"
)
NOT_PRODUCTS = frozenset(
    "The This That These Those Then Than Thus Its It In On At Of For From To By With And "  # noqa: SIM905
    "Or But If When While As An Are Is Was Were Be About Around Over Under Up Only Also "
    "Each Every All Both Some Most Many Few Figure Table Section Step Stage Chapter Part "
    "Version Release Average Total Roughly Nearly Almost Approximately".split()
)


# "maximum of" after a word that makes it a thing's own value ("e4m3fnuz has a maximum
# of 240", "the format's maximum of 240"): that value, as "max of 240" is, not a bound on
# a measure ("uses a maximum of 8 GPUs"). "max of" and "a min of" read as "maximum of"
# and "a minimum of" do ("uses a max of 8 GPUs" is a bound, "has a max of 240" a value);
# "min of" without "a" is no hedge: "took 5 min of 8 GPUs" is minutes.
_EXTREMUM_OF = frozenset(
    {"maximum of", "a maximum of", "minimum of", "a minimum of", "max of", "a max of", "a min of"}
)
_PROPERTY_BEFORE = re.compile(
    r"(?:\b(?:has|have|had|its|their|the)|'s)\s+(?:an?\s+)?(?:max|min)(?:imum)?\s+of\s*$",
    re.I,
)


def read_hedge(s: str, n: Number) -> Number:
    """``n`` with the hedge written before it ("up to", "~") or after it ("+", "or more")."""
    hedge = NO_HEDGE
    m = _HEDGE_REVERSED.match(s[max(0, n.start - 32) : n.start][::-1])
    if m is not None:
        word = " ".join((m.group("w") or m.group("s"))[::-1].lower().split())
        hedge = _HEDGES.get(word, NO_HEDGE)
        if word in _EXTREMUM_OF and _PROPERTY_BEFORE.search(s, max(0, n.start - 40), n.start):
            hedge = NO_HEDGE
    elif s[n.end : n.end + 1] == "+":
        hedge = LOWER
    else:
        after = _HEDGE_AFTER.match(s, n.end)
        if after is not None:
            hedge = LOWER if after.group("w").lower() in _LOWER_AFTER else UPPER
    if hedge is NO_HEDGE:
        return n
    return updated(n, hedge=hedge)


# A maximum or minimum the source states before a value ("e4m3fnuz has a max of 240", "a
# maximum value of 240"); "max 240" and "at most 240" are hedges already. "min" right
# after a number is minutes: "took 5 min of 8 GPUs" states no minimum.
_STATED_EXTREMUM = re.compile(
    r"(?<![\w-])(?<!\d\s)(?P<w>max|min)(?:imum)?(?:\s+values?)?\s+of\s+$", re.I
)


def stated_extreme(s: str, n: Number) -> Hedge:
    """The side a value with no hedge is stated as a thing's extreme (found in ``s``):
    UPPER for a maximum ("has a max of 240", "a maximum value of 240", "max=240"), LOWER
    for a minimum, else no hedge."""
    if n.hedge is not NO_HEDGE or n.kind != QUANTITY:
        return NO_HEDGE
    before = s[n.start - 3 : n.start]
    if before != "of ":  # (most numbers: string tests, no call)
        # "max=128", "max_tokens: 4096": code states it so.
        return keyword_side(s, n) if "=" in before or ":" in before else NO_HEDGE
    m = _STATED_EXTREMUM.search(s, max(0, n.start - 32), n.start)
    if m is None:
        return NO_HEDGE
    return UPPER if m.group("w").lower() == "max" else LOWER


def stated_bounds(s: str, nums: list[Number]) -> list[Number]:
    """A source's numbers (found in ``s``), each value stated as a thing's maximum an
    upper bound, and each minimum a lower one: "up to 240" and "at most 240" restate
    "has a max of 240", as they restate "up to 240" (a hedge keeps its direction:
    "at least 240" does not). Read so on the source's side only: an explainer's "has a
    maximum of 240" is the value itself (:func:`read_hedge`), which a plain source 240
    backs, but of its side (:func:`stated_extreme`; the check keeps it from a source's
    minimum)."""
    out = nums
    for i, n in enumerate(nums):
        side = stated_extreme(s, n)
        if side is not NO_HEDGE:
            if out is nums:
                out = list(nums)  # copied only when one changes: most sources have none
            out[i] = updated(n, hedge=side)
    return out


def read_sign(text: str, s: str, n: Number) -> Number:
    """A minus sign standing before a number (not a hyphen inside a word or range)."""
    if n.kind != QUANTITY or n.start == 0 or s[n.start - 1] not in "-+":
        return n
    if n.start >= 2 and not (s[n.start - 2].isspace() or s[n.start - 2] in "([{=:"):
        return n
    assert n.value is not None
    value = -n.value if s[n.start - 1] == "-" else n.value
    return updated(n, start=n.start - 1, text=text[n.start - 1 : n.end], value=value)


def version_by_context(text: str, s: str, n: Number, listed: Number | None = None) -> Number:
    """``2.14`` after "version" or a product name ("PyTorch 2.14"), or before "or later"
    or "or earlier" ("3.14 or earlier"), is a version, as is a decimal listed after a
    version (``listed``: "CUDA 13.3 and 13.2", :func:`versions_by_context`); German
    thousands ("1.362.998", "1.362,5") only after "version" (service.numbers.german)."""
    if (
        n.kind != QUANTITY
        or n.unit
        or (n.exp >= 0 and "." not in n.text)
        or n.hedge is not NO_HEDGE
    ):
        return n
    before = s[max(0, n.start - 40) : n.start]
    if (n.exp >= 0 or "," in n.text) and grouped(n.text):
        # Not after any capitalised word: a German text capitalises its nouns.
        if _VERSION_WORD_BEFORE.search(before):
            return identifier(text, n.start, s[n.start : n.end], VERSION)
        return n
    if n.exp >= 0:
        return n  # "1.5K": a figure scaled past its point is none
    m = _PRODUCT_BEFORE.search(before)
    if (
        listed is not None
        or _VERSION_WORD_BEFORE.search(before)
        or (m and m.group("w") not in NOT_PRODUCTS)
        or _VERSION_WORD_AFTER.match(s, n.end)
    ):
        return identifier(text, n.start, s[n.start : n.end], VERSION)
    return n


def versions_by_context(text: str, s: str, nums: list[Number]) -> list[Number]:
    """:func:`version_by_context` of each number, a version passing its reading along a
    list ("CUDA 13.3 and 13.2", "CUDA 12.4, 12.6 and 13.0"); a comma alone lists them
    only where the list goes on ("PyTorch 2.14, 1.8 of the runs" is no list)."""
    out: list[Number] = []
    for i, n in enumerate(nums):
        a = out[-1] if out and out[-1].kind == VERSION else None
        listed = (
            a is not None
            and LIST_GAP.fullmatch(s, a.end, n.start) is not None
            and not (
                _COMMA_GAP.fullmatch(s, a.end, n.start)
                and not (i + 1 < len(nums) and LIST_GAP.fullmatch(s, n.end, nums[i + 1].start))
            )
        )
        out.append(version_by_context(text, s, n, a if listed else None))
    return out


def join_ranges(text: str, s: str, nums: list[Number]) -> list[Number]:
    """``8 to 256``, ``from 8 to 256``, ``between 8 and 256``, ``1.17 - 3.66`` -> ranges."""
    out: list[Number] = []
    i = 0
    while i < len(nums):
        a = nums[i]
        if i + 1 < len(nums) and a.kind == QUANTITY:
            b = nums[i + 1]
            gap = s[a.end : b.start]
            joined = None
            if (
                b.kind == QUANTITY
                and b.hedge is NO_HEDGE
                and (
                    _RANGE_GAP.fullmatch(gap)
                    or (
                        _BETWEEN_GAP.fullmatch(gap)
                        and _BETWEEN_BEFORE.search(s, max(0, a.start - 12), a.start)
                    )
                )
            ):
                joined = merge_range(text, a, b)
                if joined is not None and (
                    _CHANGE_GAP.fullmatch(gap)
                    or (a.value is not None and b.value is not None and a.value > b.value)
                    or _CHANGE_BEFORE.search(s, max(0, a.start - 60), a.start)
                ):
                    joined = updated(joined, change=True)
            elif b.kind == QUANTITY and b.hedge is NO_HEDGE and not (a.unit or b.unit):
                joined = _counted_change(text, s, a, b, b.start)
            elif b.kind == QUANTITY and b.hedge is APPROX:
                joined = _approximate_change(text, s, a, b)
            if joined is not None:
                out.append(joined)
                i += 2
                continue
        out.append(a)
        i += 1
    return out


# "from 1,500 tokens to 6,000 tokens": the noun each end counts, written after both, or
# after the first where the clause ends with the second ("from 1,500 tokens to 6,000.").
_NOUN_TO_GAP = re.compile(r"\s+(?P<noun>[a-z]{3,})\s+to\s+")
_CLAUSE_END = re.compile(r"\s*(?:[.,;:!?)]|$)")


def _counted_change(text: str, s: str, a: Number, b: Number, gap_end: int) -> Number | None:
    """A change whose two ends count the same noun, written after each ("grew the prompt
    from 1,500 tokens to 6,000 tokens", or after the first where the clause ends with
    the second): one range, a change, as "from 1,500 to 6,000 tokens" is, so that the
    source must give its ends in that order (``gap_end``: where the words between them
    end, before a hedge of ``b``)."""
    m = _NOUN_TO_GAP.fullmatch(s, a.end, gap_end)
    if m is None or not _CHANGE_BEFORE.search(s, max(0, a.start - 60), a.start):
        return None
    noun, after = m.group("noun"), s[b.end : b.end + len(m.group("noun")) + 8]
    if not (re.match(r"\s+" + re.escape(noun) + r"(?![\w-])", after) or _CLAUSE_END.match(after)):
        return None
    joined = merge_range(text, a, b)
    return updated(joined, change=True) if joined is not None else None


# An approximation hedge right before a number ("to roughly 6,000").
_APPROX_BEFORE = re.compile(
    r"(?<!\w)(?:" + "|".join(re.escape(w) for w in _BY_LENGTH if _HEDGES[w] is APPROX) + r")\s*$",
    re.I,
)


def _approximate_change(text: str, s: str, a: Number, b: Number) -> Number | None:
    """A change written with words whose later end is hedged as an approximation ("grew
    from about 1,500 tokens to roughly 6,000 tokens", "from 1,500 to about 6,000"): one
    range, a change, as it is unhedged, so that the source must give its ends in that
    order (a bound, "to over 6,000", says no end)."""
    m = _APPROX_BEFORE.search(s, a.end, b.start)
    if m is None or not _CHANGE_BEFORE.search(s, max(0, a.start - 60), a.start):
        return None
    if _RANGE_GAP.fullmatch(s, a.end, m.start()):
        joined = merge_range(text, a, b)
        return updated(joined, change=True) if joined is not None else None
    if a.unit or b.unit:
        return None
    return _counted_change(text, s, a, b, m.start())


def _named_gap(s: str, a: Number, b: Number) -> bool:
    g = _NAMED_GAP.fullmatch(s, a.end, b.start)
    m = _PRODUCT_BEFORE.search(s, max(0, a.start - 40), a.start) if g else None
    return bool(g and m and m.group("w") == g.group("w") and m.group("w") not in NOT_PRODUCTS)


def list_runs(s: str, nums: Sequence[Number]) -> list[list[Number]]:
    """The numbers of ``s`` grouped into lists ("1.58 and 1.68", "12.6, 13.0, 13.2",
    "CUDA 13.3+ and CUDA 13.2+"); two numbers split by a comma alone are no list ("North
    America 2026, 7.5x faster")."""
    runs: list[list[Number]] = []
    for n in nums:
        a = runs[-1][-1] if runs else None
        if a and (LIST_GAP.fullmatch(s, a.end, n.start) or _named_gap(s, a, n)):
            runs[-1].append(n)
        else:
            runs.append([n])
    out: list[list[Number]] = []
    for run in runs:
        if len(run) == 2 and _COMMA_GAP.fullmatch(s, run[0].end, run[1].start):
            out.extend([[run[0]], [run[1]]])
        else:
            out.append(run)
    return out


# A later item of a list written from its figure on, the phrases of the item before
# setting the two apart ("9,000 tok/s on MI355X and 7,000 on MI300X"): the phrases of
# a word and a name between the figures, then what joins the items; after the later
# figure, a phrase of one of those words ("on MI300X").
_PHRASE_WORD = r"(?:for|on|over|across|in|with|at|against|versus|vs\.?|under|by)"
_ITEM_GAP = re.compile(
    r"(?:\s+(?<![\w.])(" + _PHRASE_WORD + r")\s+(?:the\s+)?[\w./+-]+"
    r"(?:\s+[\w./+-]*\d[\w./+-]*){0,2})+(?:\s*,\s*and|\s*,|\s+and)\s+",
    re.I,
)
_PHRASE_START = re.compile(r"\s+(" + _PHRASE_WORD + r")\s+(?:the\s+)?[\w./+-]*[A-Za-z0-9]", re.I)
_WORD_OF_GAP = re.compile(r"(?<![\w.])(" + _PHRASE_WORD + r")\s", re.I)


def _gapped_units(s: str, nums: list[Number]) -> list[Number]:
    """A bare figure of a later item of a list written from its figure on takes the unit
    of the figure before ("9,000 tok/s on MI355X and 7,000 on MI300X": 7,000 tok/s),
    where phrases of a word and a name alone set the items apart and a phrase of one of
    those words follows the later figure (no noun of its own: "7,000 users on MI300X").
    Not a currency's: "$9,000 on MI355X and 7,000 on MI300X" may count anything."""
    out = list(nums)
    figures = [i for i, n in enumerate(out) if n.kind in (QUANTITY, RANGE)]
    for i, j in itertools.pairwise(figures):
        a, b = out[i], out[j]
        if not a.unit or b.unit or b.noun or a.unit in CURRENCY.values():
            continue
        if not _ITEM_GAP.fullmatch(s, a.end, b.start):
            continue
        after = _PHRASE_START.match(s, b.end)
        words = {w.lower() for w in _WORD_OF_GAP.findall(s, a.end, b.start)}
        if after is not None and after.group(1).lower() in words:
            out[j] = updated(b, unit=a.unit)
    return out


def distribute_units(s: str, nums: list[Number]) -> list[Number]:
    """``1.58 and 1.68 times``: a bare number in a list takes the unit of the next one;
    a later item's bare figure, written from its figure on, the unit of the one before
    (:func:`_gapped_units`)."""
    if any(n.unit for n in nums) and (" and " in s or "," in s):
        nums = _gapped_units(s, nums)
    runs = list_runs(s, nums)
    if len(runs) == len(nums):  # no list: every number stands alone, as it is
        return list(nums)
    out: list[Number] = []
    for run in runs:
        for i in range(len(run) - 2, -1, -1):
            a, b = run[i], run[i + 1]
            if (
                a.kind in (QUANTITY, RANGE)
                and not a.unit
                and b.kind in (QUANTITY, RANGE)
                and b.unit
                and b.unit not in CURRENCY.values()
            ):
                run[i] = updated(a, unit=b.unit)
        out.extend(run)
    return out
