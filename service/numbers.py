"""Numbers in text: find every one, with its position, kind and normalised value.

A number is any token with a digit, plus the number words one to twenty (and a few
more). Kinds:

- ``quantity``: ``1.10x``, ``1.10 times``, ``96%``, ``96 percent``, ``1,362,998``,
  ``243.86 GiB``, ``34.1 ms``, ``$27M``; value, unit, precision and hedge.
- ``range``: ``1.17–3.66x``, ``8 to 256``, ``from 8 to 256``, ``between 8 and 256``.
- ``version``: ``0.14.2b``, ``v0.3.x``, ``2.14`` after a product name.
- ``identifier``: ``MI355X``, ``gfx950``, ``Llama-3.1-8B-Instruct``, ``TP=1``, ``A8W8``.
- ``word``: ``two``, ``dozen``, ``half``, ``twice``, ``double``.

The text is read through a one-to-one character map (dash styles, Unicode minus,
U+2011, U+2236, no-break spaces) and with link targets, URLs and emphasis markers
blanked out, so positions always point into the text as given.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from decimal import Decimal
from enum import StrEnum

__all__ = [
    "Hedge",
    "Kind",
    "Number",
    "extract_numbers",
    "fold",
    "identifier_key",
    "prepare",
]


class Kind(StrEnum):
    QUANTITY = "quantity"
    RANGE = "range"
    VERSION = "version"
    IDENTIFIER = "identifier"
    WORD = "word"


class Hedge(StrEnum):
    """What a hedge word says about the true value relative to the number written."""

    NONE = "none"
    APPROX = "approx"  # about, around, roughly, ~
    UPPER = "upper"  # up to, at most, peaking at, nearly, under: the value is a maximum
    LOWER = "lower"  # over, more than, at least, above: the value is a minimum


@dataclass(frozen=True, slots=True)
class Number:
    """One number found in a text. ``start``/``end`` index the text as given."""

    text: str  # as written, unit included, hedge word excluded
    start: int
    end: int
    kind: Kind
    value: Decimal | None = None  # quantity or word; the low end of a range
    high: Decimal | None = None  # the high end of a range
    exp: int = 0  # decimal exponent of the last digit written (1.10 -> -2, $27M -> 6)
    high_exp: int = 0
    unit: str = ""  # canonical: "x", "%", "ms", "GiB", "$", "bit", ... ("" when bare)
    hedge: Hedge = Hedge.NONE
    key: str = ""  # identifiers and versions: the folded form compared verbatim
    noun: str = ""  # a noun hyphenated to the number: "15-shape" -> "shape"
    change: bool = False  # a range that is a change ("from 5,996 to 7,027", "7,290→1,170")


# --- characters ----------------------------------------------------------------------------

# One character for one character, so that positions survive.
_CHAR_MAP = str.maketrans(
    {
        "\u2010": "-",
        "\u2011": "-",  # non-breaking hyphen
        "\u2012": "-",
        "\u2013": "-",  # en dash
        "\u2014": "-",  # em dash
        "\u2015": "-",
        "\u2212": "-",  # minus sign
        "\ufe63": "-",
        "\uff0d": "-",
        "\u2236": ":",  # ratio sign used as a colon
        "\u00a0": " ",
        "\u202f": " ",
        "\u2007": " ",
        "\u2009": " ",
        "\u200a": " ",
        "\uff05": "%",
        "\u2715": "×",
        "\u2a09": "×",
        "\u2019": "'",
        "\u03bc": "µ",  # Greek mu written for the micro sign
        "\u2192": "→",
    }
)

# Link targets, bare URLs, inline-code ticks and emphasis markers: blanked, not removed.
_SCRUB = re.compile(r"(?=[\]<h`*])(?:\]\([^()\s\[\]]*\)|<?https?://[^\s)>\]]+>?|[`*]+)")


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


# "8xMI300X", "8x MI325X": eight of a named thing, not a multiplier.
_COUNT_OF = re.compile(r"(?<![\d.])(\d+)[x×](?=\s?[A-Z][A-Za-z]*\d)")
_COUNT_HINT = re.compile(r"\d[x×](?=\s?[A-Z][A-Za-z]*\d)")


def _count_of(m: re.Match[str]) -> str:
    return m.group(1) + " "


_SPECIAL = re.compile("[" + "".join(chr(c) for c in _CHAR_MAP) + "]")


def _special(m: re.Match[str]) -> str:
    return str(_CHAR_MAP[ord(m.group(0))])


def prepare(text: str) -> str:
    """The text as the extractor reads it: same length, same positions."""
    # A regex finds the few special characters faster than str.translate walks them all.
    text = _SCRUB.sub(_blank, _SPECIAL.sub(_special, text))
    return _COUNT_OF.sub(_count_of, text) if _COUNT_HINT.search(text) else text


_SEPARATORS = re.compile(r"[\s_\-]+")


def fold(text: str) -> str:
    """Lower case with runs of spaces, hyphens and underscores folded to one NUL, so that
    ``Llama 3.1 8B``, ``llama-3.1-8b`` and ``Llama_3.1_8B`` compare equal."""
    return _SEPARATORS.sub("\x00", text.lower())


def identifier_key(text: str) -> str:
    """The verbatim-compare form of an identifier or version."""
    return _key(prepare(text).strip())


def _key(prepared: str) -> str:
    key = fold(prepared)
    if len(key) > 2 and key[-1] == "s" and key[-2].isdigit():
        key = key[:-1]  # H100s -> h100
    return key


# --- numerals and units --------------------------------------------------------------------

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"

# Units written onto the digits ("1.10x", "96%", "34.1ms", "27M", "70B").
_ATTACHED_UNITS: dict[str, tuple[str, int]] = {
    "x": ("x", 0),
    "X": ("x", 0),
    "×": ("x", 0),
    "%": ("%", 0),
    "ns": ("ns", 0),
    "us": ("µs", 0),
    "µs": ("µs", 0),
    "ms": ("ms", 0),
    "s": ("s", 0),
    "sec": ("s", 0),
    "min": ("min", 0),
    "h": ("h", 0),
    "hr": ("h", 0),
    "hrs": ("h", 0),
    "KB": ("KB", 0),
    "kB": ("KB", 0),
    "MB": ("MB", 0),
    "GB": ("GB", 0),
    "TB": ("TB", 0),
    "PB": ("PB", 0),
    "KiB": ("KiB", 0),
    "MiB": ("MiB", 0),
    "GiB": ("GiB", 0),
    "TiB": ("TiB", 0),
    "Kb": ("Kb", 0),
    "Mb": ("Mb", 0),
    "Gb": ("Gb", 0),
    "Hz": ("Hz", 0),
    "kHz": ("kHz", 0),
    "MHz": ("MHz", 0),
    "GHz": ("GHz", 0),
    "W": ("W", 0),
    "kW": ("kW", 0),
    "MW": ("MW", 0),
    "bit": ("bit", 0),
    "bits": ("bit", 0),
    "K": ("", 3),
    "k": ("", 3),
    "M": ("", 6),
    "B": ("", 9),
    "bn": ("", 9),
    "T": ("", 12),
}

# Units written after a space ("1.10 times", "96 percent", "243.86 GiB", "27 million").
_SPACED_UNITS: dict[str, tuple[str, int]] = {
    "times": ("x", 0),
    "fold": ("x", 0),
    "x": ("x", 0),
    "×": ("x", 0),
    "%": ("%", 0),
    "percent": ("%", 0),
    "per cent": ("%", 0),
    "percentage points": ("pp", 0),
    "percentage point": ("pp", 0),
    "pp": ("pp", 0),
    "ns": ("ns", 0),
    "nanosecond": ("ns", 0),
    "nanoseconds": ("ns", 0),
    "us": ("µs", 0),
    "µs": ("µs", 0),
    "microsecond": ("µs", 0),
    "microseconds": ("µs", 0),
    "ms": ("ms", 0),
    "millisecond": ("ms", 0),
    "milliseconds": ("ms", 0),
    "s": ("s", 0),
    "sec": ("s", 0),
    "secs": ("s", 0),
    "second": ("s", 0),
    "seconds": ("s", 0),
    "min": ("min", 0),
    "mins": ("min", 0),
    "minute": ("min", 0),
    "minutes": ("min", 0),
    "h": ("h", 0),
    "hr": ("h", 0),
    "hrs": ("h", 0),
    "hour": ("h", 0),
    "hours": ("h", 0),
    "day": ("day", 0),
    "days": ("day", 0),
    "week": ("week", 0),
    "weeks": ("week", 0),
    "KB": ("KB", 0),
    "kB": ("KB", 0),
    "MB": ("MB", 0),
    "GB": ("GB", 0),
    "TB": ("TB", 0),
    "PB": ("PB", 0),
    "KiB": ("KiB", 0),
    "MiB": ("MiB", 0),
    "GiB": ("GiB", 0),
    "TiB": ("TiB", 0),
    "Gb": ("Gb", 0),
    "Mb": ("Mb", 0),
    "GB/s": ("GB/s", 0),
    "TB/s": ("TB/s", 0),
    "MHz": ("MHz", 0),
    "GHz": ("GHz", 0),
    "W": ("W", 0),
    "kW": ("kW", 0),
    "bit": ("bit", 0),
    "bits": ("bit", 0),
    "byte": ("byte", 0),
    "bytes": ("byte", 0),
    "thousand": ("", 3),
    "million": ("", 6),
    "mn": ("", 6),
    "billion": ("", 9),
    "bn": ("", 9),
    "trillion": ("", 12),
}

# Nouns hyphenated to a number that are really units ("8-bit", "10-fold").
_HYPHEN_UNITS: dict[str, str] = {
    "bit": "bit",
    "fold": "x",
    "percent": "%",
    "second": "s",
    "millisecond": "ms",
    "minute": "min",
    "hour": "h",
    "day": "day",
    "week": "week",
    "byte": "byte",
}

_CURRENCY = {"$": "$", "€": "€", "£": "£"}


def _phrase(words: str) -> str:
    """A pattern for a phrase whose words may be split by any run of spaces."""
    return r"\s+".join(re.escape(w) for w in words.split())


_QUANTITY = re.compile(
    r"(?P<cur>[$€£])?(?P<num>"
    + _NUM
    + r")(?P<unit>"
    + "|".join(re.escape(u) for u in sorted(_ATTACHED_UNITS, key=len, reverse=True))
    + r")?"
)
_SPACED_UNIT = re.compile(
    r"[ \t]?(?P<u>"
    + "|".join(
        _phrase(u) for u in sorted(_SPACED_UNITS, key=len, reverse=True) if u not in ("x", "×")
    )
    + r")(?!\w)|[ \t]?(?P<m>[x×])(?![\w/])(?!\s*\d)"
)
# Rates: "21.6 tok/s", "2,000 requests per minute", "90 ms/step".
_RATE_NOUNS = {
    "token": "tok",
    "tokens": "tok",
    "tok": "tok",
    "request": "req",
    "requests": "req",
    "req": "req",
    "reqs": "req",
    "query": "query",
    "queries": "query",
    "sample": "sample",
    "samples": "sample",
    "image": "image",
    "images": "image",
    "frame": "frame",
    "frames": "frame",
    "step": "step",
    "steps": "step",
    "iteration": "it",
    "iterations": "it",
    "it": "it",
    "its": "it",
}
_RATE_TIMES = {
    "s": "s",
    "sec": "s",
    "second": "s",
    "min": "min",
    "minute": "min",
    "h": "h",
    "hr": "h",
    "hour": "h",
    "day": "day",
    "step": "step",
    "iteration": "it",
    "token": "tok",
    "request": "req",
    "layer": "layer",
    "call": "call",
}
_PER = re.compile(r"(?:[ \t]*/[ \t]*|[ \t]+per[ \t]+)(?P<d>[A-Za-z]+)(?!\w)")
_RATE = re.compile(
    r"[ \t]?(?P<n>"
    + "|".join(sorted(_RATE_NOUNS, key=len, reverse=True))
    + r")(?:[ \t]*/[ \t]*|[ \t]+per[ \t]+)(?P<d>[A-Za-z]+)(?!\w)",
    re.I,
)
_NOT_BASE_UNITS = frozenset({"", "x", "%", "pp", "$", "€", "£"})


def _per(word: str) -> str | None:
    word = word.lower()
    return _RATE_TIMES.get(word) or _RATE_TIMES.get(word.rstrip("s"))


_VERSION = re.compile(
    r"v\d+(?:\.\d+)*(?:\.[x*])?(?:[a-z]+\d*)?"
    r"|\d+(?:\.\d+){2,}(?:\.[x*])?(?:[a-z]+\d*)?"
    r"|\d+(?:\.\d+)*\.[x*]"
    r"|\d+(?:\.\d+)+[a-z]+\d*"
)
_DIMS = re.compile(r"\d+(?:[x×]\d+)+")
_SCIENTIFIC = re.compile(r"\d+(?:\.\d+)?[eE][+-]?\d+")
_ORDINAL = re.compile(r"\d+(?:st|nd|rd|th)")
_RATIO = re.compile(r"\d+(?::\d+)+")  # 3:1, 21:23 (compared verbatim)
_LOWER_WORD = re.compile(r"[a-z]+")

# A candidate token: a run of word characters with inner punctuation, holding a digit.
_TOKEN = re.compile(r"[$€£]?\w(?:\w|(?<=\d),(?=\d{3}(?!\d))|[.=+:/×-](?=\w))*[%×+]?")
_DIGITS = re.compile(r"\d+")
_INNER = frozenset(".=+:/×-,")
_NO_START_AFTER = frozenset("._$€£")


def _tokens(s: str) -> Iterator[tuple[int, str]]:
    """Tokens holding a digit: found from their digits (a regex run only at a digit, not
    at every position), each grown back to its start and matched once from there. The
    way back never passes the previous token, so the work stays linear."""
    end = 0
    for m in _DIGITS.finditer(s):
        pos = m.start()
        if pos < end:
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
        for start in (compound, word) if compound != word else (word,):
            if start > 0 and s[start - 1] in _CURRENCY:
                start -= 1
            token = _TOKEN.match(s, start)
            if token is not None and token.end() > pos:
                break
        else:
            continue
        end = token.end()
        if start > 0 and (s[start - 1].isalnum() or s[start - 1] in _NO_START_AFTER):
            continue
        yield start, token.group(0)


# --- hedges, ranges, lists -------------------------------------------------------------------

_HEDGES: dict[str, Hedge] = {}
for _phrases, _kind in (
    (
        "about|around|roughly|approximately|approx.|approx|circa|ca.|some|close to|"
        "on the order of|an estimated|estimated|~|≈",
        Hedge.APPROX,
    ),
    (
        "up to|as much as|as many as|as high as|at most|no more than|less than|fewer than|"
        "under|below|just under|nearly|almost|peaking at|peaks at|peaked at|"
        "maximum of|a maximum of|max.|max|<=|≤|<",
        Hedge.UPPER,
    ),
    (
        "over|more than|at least|above|exceeding|exceeds|greater than|upwards of|upward of|"
        "beyond|no less than|just over|as low as|as little as|as few as|minimum of|"
        "a minimum of|>=|≥|>",
        Hedge.LOWER,
    ),
):
    for _w in _phrases.split("|"):
        _HEDGES[_w] = _kind

# The text before a number, reversed, so that one anchored match finds a hedge.
_HEDGE_REVERSED = re.compile(
    r"\s*(?:na?\s+)?(?:(?P<w>"
    + "|".join(
        r"\s+".join(re.escape(part[::-1]) for part in reversed(w.split()))
        for w in sorted(_HEDGES, key=len, reverse=True)
        if w[0].isalpha()
    )
    + r")(?!\w)|(?P<s>"
    + "|".join(
        re.escape(w[::-1]) for w in sorted(_HEDGES, key=len, reverse=True) if not w[0].isalpha()
    )
    + r"))",
    re.I,
)
_HEDGE_AFTER = re.compile(
    r"\s+or\s+(?P<w>more|above|higher|greater|over|less|fewer|below|lower|under)\b", re.I
)
_LOWER_AFTER = {"more", "above", "higher", "greater", "over"}

_RANGE_GAP = re.compile(r"\s*(?:-|to|through|thru|→|->)\s*", re.I)
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
_LIST_GAP = re.compile(r"\s*(?:,|,?\s*(?:and|or|&))\s*", re.I)
_VERSION_WORD_BEFORE = re.compile(r"\b(?:version|versions|release|releases|ver\.?)\s+$", re.I)
_PRODUCT_BEFORE = re.compile(
    r"(?<![\w.])(?P<w>[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*|[A-Z]{2,}[A-Za-z0-9]*|[a-z]+[A-Z]\w*)"
    r"\s+$"
)
_NOT_PRODUCTS = frozenset(
    "The This That These Those Then Than Thus Its It In On At Of For From To By With And "  # noqa: SIM905
    "Or But If When While As An Are Is Was Were Be About Around Over Under Up Only Also "
    "Each Every All Both Some Most Many Few Figure Table Section Step Stage Chapter Part "
    "Version Release Average Total Roughly Nearly Almost Approximately".split()
)

# --- number words ------------------------------------------------------------------------------

_WORD_VALUES: dict[str, tuple[int | str, str]] = {
    w: (i + 1, "")
    for i, w in enumerate(
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "  # noqa: SIM905
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_WORD_VALUES.update(
    {
        "thirty": (30, ""),
        "forty": (40, ""),
        "fifty": (50, ""),
        "sixty": (60, ""),
        "seventy": (70, ""),
        "eighty": (80, ""),
        "ninety": (90, ""),
        "dozen": (12, ""),
        "half": ("0.5", ""),
        "twice": (2, "x"),
        "double": (2, "x"),
        "doubled": (2, "x"),
        "doubles": (2, "x"),
        "doubling": (2, "x"),
        "triple": (3, "x"),
        "tripled": (3, "x"),
        "triples": (3, "x"),
    }
)


def _trie(words: list[str]) -> str:
    """An alternation grouped by first letter (the regex engine tries far fewer branches)."""
    by_first: dict[str, list[str]] = {}
    for w in sorted(words, key=len, reverse=True):
        by_first.setdefault(w[0], []).append(re.escape(w[1:]))
    return "|".join(f"{k}(?:{'|'.join(v)})" for k, v in by_first.items())


_WORD = re.compile(r"(?<![\w-])(?:" + _trie(list(_WORD_VALUES)) + r")(?!\w)(?:-(?=[a-z]))?")
# "one" is a pronoun more often than a count; "double" an adjective ("double buffering").
_ONE_BEFORE = re.compile(r"\b(?:the|no|any|each|every|this|that|which|a|an|only)\s+$", re.I)
_ONE_AFTER = re.compile(
    r"\s+(?:of|another|or|and|by|to|is|was|that|which|who|can|could|would|should|may|might"
    r"|will|has|had|does|did)\b|\s*[-,.;:)]|\s*$",
    re.I,
)
_HYPHEN_IDIOMS = frozenset({"one-off", "one-time", "one-shot", "one-to-one", "one-way"})
_DOUBLE_OK_AFTER = re.compile(r"\s+(?:the|its|their|that|this)\b", re.I)
_DOUBLE_OK_BEFORE = re.compile(r"\b(?:to|will|would|can|could|may|might|nearly|almost)\s+$", re.I)


# --- extraction --------------------------------------------------------------------------------


def _decimal(num: str) -> tuple[Decimal, int]:
    digits = num.replace(",", "")
    value = Decimal(digits)
    exp = value.as_tuple().exponent
    return value, exp if isinstance(exp, int) else 0


def _quantity(text: str, start: int, core: str, *, noun: str = "") -> Number | None:
    m = _QUANTITY.fullmatch(core)
    if m is None:
        return None
    value, exp = _decimal(m.group("num"))
    unit, scale = _ATTACHED_UNITS.get(m.group("unit") or "", ("", 0))
    if m.group("cur"):
        unit = _CURRENCY[m.group("cur")]
    if noun in _HYPHEN_UNITS and not unit:
        unit = _HYPHEN_UNITS[noun]
    if scale:
        value = value.scaleb(scale)
        exp += scale
    end = start + len(core)
    return Number(
        text=text[start:end], start=start, end=end, kind=Kind.QUANTITY, value=value,
        exp=exp, unit=unit, noun=noun,
    )  # fmt: skip


def _identifier(text: str, start: int, core: str, kind: Kind = Kind.IDENTIFIER) -> Number:
    """``core`` is the prepared text of the identifier at ``start``."""
    end = start + len(core)
    key = _key(core)
    if kind == Kind.VERSION and key.startswith("v") and key[1:2].isdigit():
        key = key[1:]
    return Number(text=text[start:end], start=start, end=end, kind=kind, key=key)


def _single(text: str, s: str, start: int, core: str, noun: str) -> list[Number]:
    q = _quantity(text, start, core, noun=noun)
    if q is not None:
        return [q]
    if _SCIENTIFIC.fullmatch(core) or _ORDINAL.fullmatch(core):
        return [_identifier(text, start, core)]
    if _VERSION.fullmatch(core):
        return [_identifier(text, start, core, Kind.VERSION)]
    if _DIMS.fullmatch(core):  # 4096x4096: each side is a number, the x is no multiplier
        out: list[Number] = []
        for m in re.finditer(r"\d+", core):
            q = _quantity(text, start + m.start(), m.group(0))
            if q is not None:
                out.append(q)
        return out
    if any(c.isalpha() for c in core) or _RATIO.fullmatch(core):
        return [_identifier(text, start, core)]
    return []


def _classify(text: str, s: str, start: int, token: str) -> list[Number]:
    if "/" in token and not _QUANTITY.fullmatch(token):
        out: list[Number] = []
        offset = 0
        for part in token.split("/"):
            if any(c.isdigit() for c in part):
                out.extend(_classify(text, s, start + offset, part))
            offset += len(part) + 1
        return out
    if _SCIENTIFIC.fullmatch(token) or (start > 0 and s[start - 1] == "#"):
        return [_identifier(text, start, token)]  # 1e-5; #2736 (an issue or PR number)
    segments = token.split("-")
    # Nouns hyphenated after the number ("15-shape", "gfx950-based", "MI350-series").
    noun, scale = "", 0
    while len(segments) > 1 and _LOWER_WORD.fullmatch(segments[-1]):
        word = segments.pop()
        if _SPACED_UNITS.get(word, ("x", 0))[0] == "":  # 30-billion-parameter
            scale = _SPACED_UNITS[word][1]
        else:
            noun = word
    # A lower-case prefix before digits ("top-5") is context, not part of the number.
    lead = 0
    while len(segments) > 1 and _LOWER_WORD.fullmatch(segments[0]) and segments[1][:1].isdigit():
        lead += len(segments.pop(0)) + 1
    core = "-".join(segments)
    cstart = start + lead
    if len(segments) == 1:
        found = _single(text, s, cstart, core, noun)
        if scale and len(found) == 1 and found[0].kind == Kind.QUANTITY and found[0].value:
            q = found[0]
            assert q.value is not None
            return [_with(q, value=q.value.scaleb(scale), exp=q.exp + scale)]
        return found
    if len(segments) == 2:
        lo = _quantity(text, cstart, segments[0])
        hi = _quantity(text, cstart + len(segments[0]) + 1, segments[1])
        if lo is not None and hi is not None:
            merged = _merge_range(text, lo, hi)
            if merged is not None:
                return [merged]
    return [_identifier(text, cstart, core)]


def _merge_range(text: str, lo: Number, hi: Number) -> Number | None:
    if lo.kind != Kind.QUANTITY or hi.kind != Kind.QUANTITY:
        return None
    if lo.unit and hi.unit and lo.unit != hi.unit and not hi.unit.startswith(lo.unit + "/"):
        return None  # "5 ms to 2 s"; but "7,290μs → 1,170μs per layer" is one range
    assert lo.value is not None and hi.value is not None
    return Number(
        text=text[lo.start : hi.end],
        start=lo.start,
        end=hi.end,
        kind=Kind.RANGE,
        value=lo.value,
        high=hi.value,
        exp=lo.exp,
        high_exp=hi.exp,
        unit=hi.unit or lo.unit,
        hedge=lo.hedge,
        noun=hi.noun,
    )


def _with(n: Number, **changes: object) -> Number:
    return replace(n, **changes)  # type: ignore[arg-type]


def _rate(text: str, s: str, n: Number) -> Number:
    """``90 ms/step``, ``21.6 tok/s``, ``2,000 requests per minute``."""
    if n.kind not in (Kind.QUANTITY, Kind.RANGE) or n.noun:
        return n
    if n.unit not in _NOT_BASE_UNITS:
        m = _PER.match(s, n.end)
        per = _per(m.group("d")) if m else None
        if m is None or per is None:
            return n
        return _with(n, end=m.end(), text=text[n.start : m.end()], unit=f"{n.unit}/{per}")
    if n.unit:
        return n
    m = _RATE.match(s, n.end)
    per = _per(m.group("d")) if m else None
    if m is None or per is None:
        return n
    unit = f"{_RATE_NOUNS[m.group('n').lower()]}/{per}"
    return _with(n, end=m.end(), text=text[n.start : m.end()], unit=unit)


def _spaced_unit(text: str, s: str, n: Number) -> Number:
    currency = n.unit in _CURRENCY.values()
    if n.kind not in (Kind.QUANTITY, Kind.RANGE) or (n.unit and not currency) or n.noun:
        return _rate(text, s, n)
    m = _SPACED_UNIT.match(s, n.end)
    if m is None:
        return _rate(text, s, n)
    word = m.group("u") or m.group("m")
    unit, scale = _SPACED_UNITS.get(" ".join(word.split()), ("", 0))
    if (not unit and not scale) or (currency and unit):
        return n
    end = m.end()
    changes: dict[str, object] = {"end": end, "text": text[n.start : end], "unit": unit}
    if scale:
        assert n.value is not None
        changes["value"] = n.value.scaleb(scale)
        changes["exp"] = n.exp + scale
        if n.high is not None:
            changes["high"] = n.high.scaleb(scale)
            changes["high_exp"] = n.high_exp + scale
        if not unit:
            changes["unit"] = n.unit
    if n.start > 0 and s[n.start - 1] in _CURRENCY:  # "$27 million": the $ sits before
        changes["unit"] = _CURRENCY[s[n.start - 1]]
    return _rate(text, s, _with(n, **changes))


def _hedge(s: str, n: Number) -> Number:
    hedge = Hedge.NONE
    m = _HEDGE_REVERSED.match(s[max(0, n.start - 32) : n.start][::-1])
    if m is not None:
        word = " ".join((m.group("w") or m.group("s"))[::-1].lower().split())
        hedge = _HEDGES.get(word, Hedge.NONE)
    elif s[n.end : n.end + 1] == "+":
        hedge = Hedge.LOWER
    else:
        after = _HEDGE_AFTER.match(s, n.end)
        if after is not None:
            hedge = Hedge.LOWER if after.group("w").lower() in _LOWER_AFTER else Hedge.UPPER
    if hedge is Hedge.NONE:
        return n
    return _with(n, hedge=hedge)


def _sign(text: str, s: str, n: Number) -> Number:
    """A minus sign standing before a number (not a hyphen inside a word or range)."""
    if n.kind != Kind.QUANTITY or n.start == 0 or s[n.start - 1] not in "-+":
        return n
    if n.start >= 2 and not (s[n.start - 2].isspace() or s[n.start - 2] in "([{=:"):
        return n
    assert n.value is not None
    value = -n.value if s[n.start - 1] == "-" else n.value
    return _with(n, start=n.start - 1, text=text[n.start - 1 : n.end], value=value)


def _version_by_context(text: str, s: str, n: Number) -> Number:
    """``2.14`` after "version" or a product name ("PyTorch 2.14") is a version."""
    if n.kind != Kind.QUANTITY or n.unit or n.exp >= 0 or n.hedge is not Hedge.NONE:
        return n
    before = s[max(0, n.start - 40) : n.start]
    m = _PRODUCT_BEFORE.search(before)
    if _VERSION_WORD_BEFORE.search(before) or (m and m.group("w") not in _NOT_PRODUCTS):
        return _identifier(text, n.start, s[n.start : n.end], Kind.VERSION)
    return n


def _join_ranges(text: str, s: str, nums: list[Number]) -> list[Number]:
    """``8 to 256``, ``from 8 to 256``, ``between 8 and 256``, ``1.17 - 3.66`` -> ranges."""
    out: list[Number] = []
    i = 0
    while i < len(nums):
        a = nums[i]
        if i + 1 < len(nums) and a.kind == Kind.QUANTITY:
            b = nums[i + 1]
            gap = s[a.end : b.start]
            joined = None
            if (
                b.kind == Kind.QUANTITY
                and b.hedge is Hedge.NONE
                and (
                    _RANGE_GAP.fullmatch(gap)
                    or (
                        _BETWEEN_GAP.fullmatch(gap)
                        and _BETWEEN_BEFORE.search(s, max(0, a.start - 12), a.start)
                    )
                )
            ):
                joined = _merge_range(text, a, b)
                if joined is not None and (
                    _CHANGE_GAP.fullmatch(gap)
                    or (a.value is not None and b.value is not None and a.value > b.value)
                    or _CHANGE_BEFORE.search(s, max(0, a.start - 60), a.start)
                ):
                    joined = _with(joined, change=True)
            if joined is not None:
                out.append(joined)
                i += 2
                continue
        out.append(a)
        i += 1
    return out


def _distribute_units(text: str, s: str, nums: list[Number]) -> list[Number]:
    """``1.58 and 1.68 times``: a bare number in a list takes the unit of the next one."""
    out = list(nums)
    for i in range(len(out) - 2, -1, -1):
        a, b = out[i], out[i + 1]
        if (
            a.kind in (Kind.QUANTITY, Kind.RANGE)
            and not a.unit
            and b.kind in (Kind.QUANTITY, Kind.RANGE)
            and b.unit
            and b.unit not in _CURRENCY.values()
            and _LIST_GAP.fullmatch(s, a.end, b.start)
        ):
            out[i] = _with(a, unit=b.unit)
    return out


def _words(text: str, s: str) -> list[Number]:
    out: list[Number] = []
    lower = s.lower()
    if len(lower) != len(s):  # a character whose lower case is longer: keep positions
        lower = "".join(c if len(c.lower()) != 1 else c.lower() for c in s)
    for m in _WORD.finditer(lower):
        raw = m.group(0)
        word = raw.rstrip("-").lower()
        start, end = m.start(), m.start() + len(word)
        if raw.endswith("-"):
            compound = re.match(r"[\w-]+", s[start:])
            if word == "half" or (compound and compound.group(0).lower() in _HYPHEN_IDIOMS):
                continue
            if word.startswith("doubl"):
                continue
        if word == "one" and (
            _ONE_BEFORE.search(s, max(0, start - 8), start) or _ONE_AFTER.match(s, end)
        ):
            continue
        if word in ("double", "triple") and not (
            _DOUBLE_OK_AFTER.match(s, end) or _DOUBLE_OK_BEFORE.search(s, max(0, start - 10), start)
        ):
            continue
        value, unit = _WORD_VALUES[word]
        out.append(
            Number(
                text=text[start:end], start=start, end=end, kind=Kind.WORD,
                value=Decimal(value), unit=unit,
            )
        )  # fmt: skip
    return out


# Model names written with spaces: "Llama 3.1 8B Instruct", "Qwen3 32B", "DeepSeek-V3 671B".
_MODEL_PART = r"(?:\d+(?:\.\d+)+|\d+(?:\.\d+)?[BMKT])"
_MODEL = re.compile(
    r"(?<![\w.-])(?P<head>[A-Z][A-Za-z]+|[A-Za-z][\w.-]*\d[\w.]*)(?P<parts>(?: "
    + _MODEL_PART
    + r")+)(?P<tail> (?:Instruct|Chat|Base|Coder|Vision|Preview|Turbo|Mini|Pro|Max|Plus|Lite))?"
    r"(?![\w-])"
)


_MODEL_HINT = re.compile(r" " + _MODEL_PART + r"(?![\w-])")


def _join_models(text: str, s: str, nums: list[Number]) -> list[Number]:
    spans: list[tuple[int, int]] = []
    for hint in _MODEL_HINT.finditer(s):
        if spans and hint.start() < spans[-1][1]:
            continue
        window = _MODEL.finditer(s, max(0, hint.start() - 60), min(len(s), hint.end() + 60))
        m = next((m for m in window if m.start() <= hint.start() < m.end()), None)
        if m is None or (spans and m.start() < spans[-1][1]):
            continue
        parts = m.group("parts").split()
        if len(parts) < 2 and not any(c.isdigit() for c in m.group("head")):
            continue  # "PyTorch 2.14" stays a version after its product
        spans.append((m.start(), m.end()))
    if not spans:
        return nums
    starts = [a for a, _ in spans]

    def inside(n: Number) -> bool:
        i = bisect.bisect_right(starts, n.start) - 1
        return i >= 0 and n.start < spans[i][1]

    kept = [n for n in nums if not inside(n)]
    kept += [_identifier(text, a, s[a:b]) for a, b in spans]
    return sorted(kept, key=lambda n: n.start)


def extract_numbers(text: str, *, words: bool = True, prepared: str | None = None) -> list[Number]:
    """Every number of ``text`` in order of position (``prepared``: ``prepare(text)``, when
    the caller has it already)."""
    s = prepare(text) if prepared is None else prepared
    nums: list[Number] = []
    for start, token in _tokens(s):
        nums.extend(_classify(text, s, start, token.rstrip("+")))
    nums = _join_models(text, s, nums)
    nums = [_sign(text, s, n) for n in nums]
    nums = [_hedge(s, n) for n in nums]
    nums = [_spaced_unit(text, s, n) for n in nums]
    nums = _join_ranges(text, s, nums)
    nums = [_version_by_context(text, s, n) for n in nums]
    nums = _distribute_units(text, s, nums)
    if words:
        nums.extend(_words(text, s))
        nums.sort(key=lambda n: n.start)
    return nums
