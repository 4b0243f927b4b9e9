"""The extractor: tokens classified, then refined by what stands around them."""

from __future__ import annotations

import bisect
import re
from operator import attrgetter

from service.numbers.compared import share_compared_unit
from service.numbers.context import (
    NOT_PRODUCTS,
    distribute_units,
    join_ranges,
    read_hedge,
    read_sign,
    version_by_context,
    versions_by_context,
)
from service.numbers.normalise import prepare
from service.numbers.number import QUANTITY, RANGE, Number
from service.numbers.tokens import classify, identifier, tokens
from service.numbers.units import spaced_unit, unit_after
from service.numbers.words import number_words

# Model names written with spaces: "Llama 3.1 8B Instruct", "Qwen3 32B", "DeepSeek-V3 671B",
# "Llama 3 8B" (a bare generation only before a size: "Llama 3" alone is no name here).
_MODEL_PART = r"(?:\d+(?:\.\d+)+|\d+(?:\.\d+)?[BMKT]|\d{1,2}(?= \d+(?:\.\d+)?[BMKT]))"
_MODEL = re.compile(
    r"(?<![\w.-])(?P<head>[A-Z][A-Za-z]+|[A-Za-z][\w.-]*\d[\w.]*)(?P<parts>(?: "
    + _MODEL_PART
    + r")+)(?P<tail> (?:Instruct|Chat|Base|Coder|Vision|Preview|Turbo|Mini|Pro|Max|Plus|Lite))?"
    r"(?![\w-])"
)
_DIGIT = re.compile(r"\d")
# In ASCII text \d is [0-9], which the regex engine scans for by a table look-up rather
# than a Unicode category test per character.
_ASCII_DIGIT = re.compile(r"[0-9]")
_START = attrgetter("start")
_MODEL_HINT = re.compile(r" " + _MODEL_PART + r"(?![\w-])")
# A figure's or table's number is its label ("Figure 13", "Table 2", "Fig. 3"), no
# quantity: a check found the post's "Figure 13" before its "1.13x".
_LABEL_ENDS = ("figure", "figures", "fig.", "table", "tables")


def _labelled(s: str, start: int) -> bool:
    """Whether the number at ``start`` follows "Figure", "Fig." or "Table" as a word of
    its own (not "subtable 3"): string tests, cheaper than a search per number."""
    lo = max(0, start - 12)
    head = s[lo:start].rstrip().lower()
    if not head.endswith(_LABEL_ENDS):  # most numbers: one test in C
        return False
    word = next(w for w in _LABEL_ENDS if head.endswith(w))
    k = len(head) - len(word)
    return (k == 0 and lo == 0) or (k > 0 and not head[k - 1].isalnum())


def _named(head: str) -> bool:
    """Whether a word before a bare generation and a size names a model family ("Llama 3
    8B"), not a sentence's first word ("With 2 8B models", "Running 4 70B replicas")."""
    return head not in NOT_PRODUCTS and not head.endswith(("ing", "ed"))


def _join_models(text: str, s: str, starts: list[int], nums: list[Number]) -> list[Number]:
    """A model name written with spaces becomes one identifier, in place of its parts.

    ``starts``: where the tokens of ``s`` start. A hint (a space, then a model part) is
    looked for only before a token: the digit after a hint's space always starts a token
    (tokens hold no space), so these are all the hints a scan of ``s`` would find."""
    spans: list[tuple[int, int]] = []
    for start in starts:
        if start == 0 or s[start - 1] != " ":
            continue
        hint = _MODEL_HINT.match(s, start - 1)
        if hint is None or (spans and hint.start() < spans[-1][1]):
            continue
        window = _MODEL.finditer(s, max(0, hint.start() - 60), min(len(s), hint.end() + 60))
        m = next((m for m in window if m.start() <= hint.start() < m.end()), None)
        if m is None or (spans and m.start() < spans[-1][1]):
            continue
        parts = m.group("parts").split()
        if len(parts) < 2 and not any(c.isdigit() for c in m.group("head")):
            continue  # "PyTorch 2.14" stays a version after its product
        if parts[0].isdigit() and not _named(m.group("head")):
            continue  # "With 2 8B models": a count of models, no name
        if parts[-1][-1].isdigit() and unit_after(s, m.end()):
            continue  # "MXFP4 1.68 times": a figure after a name, with its unit
        spans.append((m.start(), m.end()))
    if not spans:
        return nums
    starts = [a for a, _ in spans]

    def inside(n: Number) -> bool:
        i = bisect.bisect_right(starts, n.start) - 1
        return i >= 0 and n.start < spans[i][1]

    kept = [n for n in nums if not inside(n)]
    kept += [identifier(text, a, s[a:b]) for a, b in spans]
    return sorted(kept, key=lambda n: n.start)


def _hedged(s: str, found: list[Number]) -> list[Number]:
    """Number words, a multiplier or share among them ("nearly twice", "more than three
    times faster", "about ninety percent") with its hedge read as a quantity's is (most
    words have no unit: the list as it is)."""
    if not any(w.unit for w in found):
        return found
    return [read_hedge(s, w) if w.unit else w for w in found]


def extract_numbers(text: str, *, words: bool = True, prepared: str | None = None) -> list[Number]:
    """Every number of ``text`` in order of position (``prepared``: ``prepare(text)``, when
    the caller has it already)."""
    s = prepare(text) if prepared is None else prepared
    # Most prose blocks hold no digit, so no token, and every pass is a no-op (a digit with
    # no token, "_5", leaves them no-ops too). The search is cheaper than the token scan.
    digit = (_ASCII_DIGIT if s.isascii() else _DIGIT).search(s)
    found = list(tokens(s)) if digit else []
    if not found:
        return _hedged(s, number_words(text, s)) if words else []
    nums: list[Number] = []
    for start, token in found:
        nums.extend(classify(text, s, start, token.rstrip("+")))
    nums = _join_models(text, s, [start for start, _ in found], nums)
    # Sign, hedge and unit are read number by number: one loop, not a list per pass. A
    # sign or unit is read only where one can be (the functions return any other number
    # as it is): a quantity, or a range for units, half of the numbers being names. The
    # hedge is read after the unit: one written after the number follows its unit ("10 ms
    # or more", "500 requests per second or more").
    refined = []
    for n in nums:
        if n.kind == QUANTITY:
            n = read_hedge(s, spaced_unit(text, s, read_sign(text, s, n)))
        elif n.kind == RANGE:
            n = read_hedge(s, spaced_unit(text, s, n))
        else:
            n = read_hedge(s, n)
        refined.append(n)
    if len(refined) > 1:  # a range or a list takes two numbers
        nums = join_ranges(text, s, refined)
        nums = versions_by_context(text, s, nums)
        nums = share_compared_unit(s, distribute_units(s, nums))
    else:
        nums = [version_by_context(text, s, n) for n in refined]
    # A label's word, looked for with "in" (C, no method call: this runs for every text
    # the check reads, six finds cost 0.4M instructions a cold check); then per number.
    if "igure" in s or "ig." in s or "able" in s or "IG" in s or "ABLE" in s:
        # (A number with a unit or a count's "times" after it is no label: "reads the
        # table 5 times" counts readings; a label's text is its digits alone.)
        nums = [
            n
            for n in nums
            if n.kind != QUANTITY or n.unit or not n.text[-1].isdigit() or not _labelled(s, n.start)
        ]
    if words:
        nums.extend(_hedged(s, number_words(text, s)))
        nums.sort(key=_START)
    return nums
