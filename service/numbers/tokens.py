"""Tokens holding a digit, and what each one is: a quantity, a range written as one token
("1.17-3.66x"), a version, an identifier, or the sides of dimensions ("4096x4096")."""

from __future__ import annotations

import re
from collections.abc import Iterator

from service.numbers.keywords import keyword_value
from service.numbers.normalise import key_of
from service.numbers.number import (
    IDENTIFIER,
    NO_HEDGE,
    QUANTITY,
    RANGE,
    VERSION,
    Kind,
    Number,
    updated,
)
from service.numbers.plural import counted_plural, counted_range
from service.numbers.units import CURRENCY, QUANTITY_TOKEN, SPACED_UNITS, quantity

_VERSION = re.compile(
    r"v\d+(?:\.\d+)*(?:\.[x*])?(?:[a-z]+\d*)?"
    r"|\d+(?:\.\d+){2,}(?:\.[x*])?(?:[a-z]+\d*)?"
    r"|\d+(?:\.\d+)*\.[x*]"
    r"|\d+(?:\.\d+)+[a-z]+\d*"
)
_DIMS = re.compile(r"\d+(?:[x×]\d+)+")
_SCIENTIFIC = re.compile(r"\d+(?:\.\d+)?[eE][+-]?\d+")
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)")
_ORDINAL_ENDS = frozenset({"st", "nd", "rd", "th"})
_RATIO = re.compile(r"\d+(?::\d+)+")  # 3:1, 21:23 (compared verbatim)
_LOWER_WORD = re.compile(r"[a-z]+")
_COUNTED_ACRONYM = re.compile(r"[CGNT]PUs?")

# A candidate token: a run of word characters with inner punctuation, holding a digit.
# A comma between digits is inner before three digits, after no run of four: a lead of
# thousands has one to three ("1,362,998"); "in 2024,100% of users" is a clause's comma
# with its space left out, 2024 and 100% (one token, "2024,100%", was no number at all).
_BODY = r"(?:\w|(?<=\d),(?=\d{3}(?!\d))(?<!\d{4},)|[.=+:/×-](?=\w))*[%×+]?"
_TOKEN = re.compile(r"[$€£]?\w" + _BODY)
# A token from its first digit on. Each step of _BODY looks at the characters around it,
# not at where the match began, so a token that reaches its first digit ends where the
# token from that digit ends: one scan finds every token's digit and end.
_TAIL = re.compile(r"\d" + _BODY)
# The same for ASCII text (most texts), where \d and \w hold the same characters: the
# regex engine tests them by a table look-up, not by calls into the Unicode database for
# each character it scans.
_TAIL_ASCII = re.compile(_TAIL.pattern, re.ASCII)
_DIGITS = re.compile(r"\d+")
_INNER = frozenset(".=+:/×-,")
_NO_START_AFTER = frozenset("._$€£")


def _currency_before(s: str, start: int) -> int:
    return start - 1 if start > 0 and s[start - 1] in CURRENCY else start


def tokens(s: str) -> Iterator[tuple[int, str]]:
    """Tokens holding a digit: found from their digits (a regex run only at a digit, not
    at every position), each grown back to its start. The way back never passes the
    previous token, so the work stays linear."""
    end = 0
    for tail in (_TAIL_ASCII if s.isascii() else _TAIL).finditer(s):
        pos = tail.start()
        if pos and s[pos - 1] == " ":
            # Most tokens: a space before the digit, which grows nothing back (no word,
            # compound, currency sign or point before it) and lets the token start.
            end = tail.end()
            yield pos, s[pos:end]
            continue
        word = pos  # the start of the word holding the digit
        while word > end and (s[word - 1].isalnum() or s[word - 1] == "_"):
            word -= 1
        compound = word  # the start of a compound it may continue ("Llama-3.1")
        while (
            compound > end + 1
            and s[compound - 1] in _INNER
            and (s[compound - 2].isalnum() or s[compound - 2] == "_")
        ):
            compound -= 1
            while compound > end and (s[compound - 1].isalnum() or s[compound - 1] == "_"):
                compound -= 1
        # From the word, the token always reaches the digit (word characters all the way);
        # from a compound only when its punctuation is the token's ("a,5" is no token).
        start = _currency_before(s, word)
        if compound != word:
            token = _TOKEN.match(s, _currency_before(s, compound))
            if token is not None and token.end() > pos:
                start = token.start()
        end = tail.end()
        if start == pos and start and s[start - 1] == "." and _leading_point(s, start):
            start = _currency_before(s, start - 1)  # ".5x", "$.99": a fraction, point first
        if start > 0 and (s[start - 1].isalnum() or s[start - 1] in _NO_START_AFTER):
            continue
        yield start, s[start:end]


def _leading_point(s: str, start: int) -> bool:
    """Whether the digits at ``start`` follow a point that starts a number (".5x slowdown"),
    not one inside a word or after one ("v1.5", "e.g.5", "...5"): a token after a point
    was dropped, and the figure went unchecked."""
    if start == 0 or s[start - 1] != ".":
        return False
    return start == 1 or not (s[start - 2].isalnum() or s[start - 2] in "._")


def identifier(text: str, start: int, core: str, kind: Kind = IDENTIFIER) -> Number:
    """``core`` is the prepared text of the identifier at ``start``."""
    end = start + len(core)
    key = key_of(core)
    if kind == VERSION and key.startswith("v") and key[1:2].isdigit():
        key = key[1:]
    return Number(text[start:end], start, end, kind, None, None, 0, 0, "", NO_HEDGE, key)


def _single(text: str, start: int, core: str, noun: str) -> list[Number]:
    first = core[0]
    if first.isalpha() and first != "v":
        # "BF16", "MI355X": a quantity, a scientific number, an ordinal, dimensions and a
        # ratio all start with a digit or a currency sign, a version with one or "v".
        return [identifier(text, start, core)]
    if core[-1] == "s" and counted_plural(text, start, core):
        return []  # "100s of GPUs": hundreds, no figure (as the words "hundreds of" are)
    q = quantity(text, start, core, noun=noun)
    if q is not None:
        return [q]
    # Each pattern is tried only when the core holds what it needs (an e; an ordinal
    # suffix; a dot or a leading v; an x): most cores are names like "BF16" or "MI355X".
    if (("e" in core or "E" in core) and _SCIENTIFIC.fullmatch(core)) or (
        core[-2:] in _ORDINAL_ENDS and _ORDINAL.fullmatch(core)
    ):
        return [identifier(text, start, core)]
    if ("." in core or core[0] == "v") and _VERSION.fullmatch(core):
        return [identifier(text, start, core, VERSION)]
    if ("x" in core or "×" in core) and _DIMS.fullmatch(core):
        # 4096x4096: each side is a number, the x is no multiplier.
        out: list[Number] = []
        for m in _DIGITS.finditer(core):
            q = quantity(text, start + m.start(), m.group(0))
            if q is not None:
                out.append(q)
        return out
    if any(c.isalpha() for c in core) or _RATIO.fullmatch(core):
        return [identifier(text, start, core)]
    return []


def classify(text: str, s: str, start: int, token: str) -> list[Number]:
    """The numbers of one token of the prepared text ``s`` (none, one, or several)."""
    if "/" in token and not QUANTITY_TOKEN.fullmatch(token):
        out: list[Number] = []
        offset = 0
        for part in token.split("/"):
            if any(c.isdigit() for c in part):
                out.extend(classify(text, s, start + offset, part))
            offset += len(part) + 1
        return out
    if (start > 0 and s[start - 1] == "#") or (
        ("e" in token or "E" in token) and _SCIENTIFIC.fullmatch(token)
    ):
        return [identifier(text, start, token)]  # #2736 (an issue or PR number); 1e-5
    at = keyword_value(token) if "=" in token else 0
    if at:
        # "min=2": the value is the figure, where it is a quantity or a range ("eps=1e-5",
        # "dtype=..." stay the identifiers they were).
        value = classify(text, s, start + at, token[at:])
        if value and all(n.kind in (QUANTITY, RANGE) for n in value):
            return value
    if "-" not in token:  # one segment: no noun, no prefix, no range (most tokens)
        return _single(text, start, token, "")
    segments = token.split("-")
    # Nouns hyphenated after the number ("15-shape", "gfx950-based", "MI350-series").
    noun, scale = "", 0
    # A count of an acronym ("a 256-GPU run", "8-GPU nodes") is the count alone: the
    # acronym is a name the check binds it to, as in "256 GPUs" (not the name "256-GPU").
    if len(segments) == 2 and _COUNTED_ACRONYM.fullmatch(segments[1]) and segments[0].isdigit():
        return _single(text, start, segments[0], "")
    while len(segments) > 1 and _LOWER_WORD.fullmatch(segments[-1]):
        word = segments.pop()
        if SPACED_UNITS.get(word, ("x", 0))[0] == "":  # 30-billion-parameter
            scale = SPACED_UNITS[word][1]
        else:
            noun = word
    # A lower-case prefix before digits ("top-5") is context, not part of the number.
    lead = 0
    while len(segments) > 1 and _LOWER_WORD.fullmatch(segments[0]) and segments[1][:1].isdigit():
        lead += len(segments.pop(0)) + 1
    core = "-".join(segments)
    cstart = start + lead
    if len(segments) == 1:
        found = _single(text, cstart, core, noun)
        if scale and len(found) == 1 and found[0].kind == QUANTITY and found[0].value:
            q = found[0]
            assert q.value is not None
            return [updated(q, value=q.value.scaleb(scale), exp=q.exp + scale)]
        return found
    if len(segments) == 2:
        if segments[1][-1:] == "s" and counted_range(text, cstart, *segments):
            return []  # "10s-100s of GPUs": tens to hundreds, no figure
        lo = quantity(text, cstart, segments[0])
        hi = quantity(text, cstart + len(segments[0]) + 1, segments[1])
        if lo is not None and hi is not None:
            merged = merge_range(text, lo, hi)
            if merged is not None:
                return [merged]
    return [identifier(text, cstart, core)]


def merge_range(text: str, lo: Number, hi: Number) -> Number | None:
    """One range of two quantities, when their units allow it."""
    if lo.kind != QUANTITY or hi.kind != QUANTITY:
        return None
    if lo.unit and hi.unit and lo.unit != hi.unit and not hi.unit.startswith(lo.unit + "/"):
        return None  # "5 ms to 2 s"; but "7,290μs → 1,170μs per layer" is one range
    assert lo.value is not None and hi.value is not None
    return Number(
        text=text[lo.start : hi.end],
        start=lo.start,
        end=hi.end,
        kind=RANGE,
        value=lo.value,
        high=hi.value,
        exp=lo.exp,
        high_exp=hi.exp,
        unit=hi.unit or lo.unit,
        hedge=lo.hedge,
        noun=hi.noun,
    )
