"""Units: what a number measures, written onto its digits ("1.10x", "34.1ms", "$27M"),
after a space ("96 percent", "27 million") or as a rate ("21.6 tok/s", "90 ms/step")."""

from __future__ import annotations

import re
from decimal import Decimal

from service.numbers.events import COUNTABLE, counts_times
from service.numbers.german import english_numeral
from service.numbers.number import (
    NO_HEDGE,
    QUANTITY,
    RANGE,
    Number,
    updated,
)
from service.numbers.plural import plural_name

_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"

# Bytes, written onto the digits or after a space alike.
_BYTE_SIZES: dict[str, tuple[str, int]] = {
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
}

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
    **_BYTE_SIZES,
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
    # German "2,5fach", "2,5fache" (-fold), "2,5mal"; the comma read as a point (prepare).
    "mal": ("x", 0),
    "fach": ("x", 0),
    "fache": ("x", 0),
    "facher": ("x", 0),
    "fachen": ("x", 0),
    "faches": ("x", 0),
    "fachem": ("x", 0),
    "K": ("", 3),
    "k": ("", 3),
    "M": ("", 6),
    "B": ("", 9),
    "bn": ("", 9),
    "T": ("", 12),
}

# Units written after a space ("1.10 times", "96 percent", "243.86 GiB", "27 million").
SPACED_UNITS: dict[str, tuple[str, int]] = {
    "times": ("x", 0),
    "fold": ("x", 0),
    "mal": ("x", 0),  # German: "2,5 mal schneller"
    "Mal": ("x", 0),  # German: "3 Mal schneller" (Duden: "3-mal" or "3 Mal")
    "x": ("x", 0),
    "×": ("x", 0),
    "%": ("%", 0),
    "percent": ("%", 0),
    "per cent": ("%", 0),
    "Prozent": ("%", 0),  # German
    "Prozentpunkt": ("pp", 0),
    "Prozentpunkte": ("pp", 0),
    "Prozentpunkten": ("pp", 0),
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
    **_BYTE_SIZES,
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
    # German times and scales, capitalised nouns ("12,5 Sekunden", "1,2 Mio."): the
    # source's "12.5 seconds", "1.2 million". A German "Milliarde" is 10^9, "Billion"
    # 10^12: only its plural and abbreviation, as an English title's "3 Billion" is 10^9.
    "Nanosekunde": ("ns", 0),
    "Nanosekunden": ("ns", 0),
    "Mikrosekunde": ("µs", 0),
    "Mikrosekunden": ("µs", 0),
    "Millisekunde": ("ms", 0),
    "Millisekunden": ("ms", 0),
    "Sekunde": ("s", 0),
    "Sekunden": ("s", 0),
    "Sek.": ("s", 0),
    "Minute": ("min", 0),
    "Minuten": ("min", 0),
    "Stunde": ("h", 0),
    "Stunden": ("h", 0),
    "Std.": ("h", 0),
    "Tag": ("day", 0),
    "Tage": ("day", 0),
    "Tagen": ("day", 0),
    "Woche": ("week", 0),
    "Wochen": ("week", 0),
    "Tausend": ("", 3),
    "Tsd.": ("", 3),
    "Million": ("", 6),
    "Millionen": ("", 6),
    "Mio.": ("", 6),
    "Milliarde": ("", 9),
    "Milliarden": ("", 9),
    "Mrd.": ("", 9),
    "Billionen": ("", 12),
    "Bio.": ("", 12),
}

# Nouns hyphenated to a number that are really units ("8-bit", "10-fold").
_HYPHEN_UNITS: dict[str, str] = {
    "bit": "bit",
    "fold": "x",
    # German "2,5-mal", "2,5-fach", "ein 10-facher Gewinn" (times, -fold).
    "mal": "x",
    "fach": "x",
    "fache": "x",
    "facher": "x",
    "fachen": "x",
    "faches": "x",
    "fachem": "x",
    "percent": "%",
    "second": "s",
    "millisecond": "ms",
    "minute": "min",
    "hour": "h",
    "day": "day",
    "week": "week",
    "byte": "byte",
}

CURRENCY = {"$": "$", "€": "€", "£": "£"}


def _phrase(words: str) -> str:
    """A pattern for a phrase whose words may be split by any run of spaces."""
    return r"\s+".join(re.escape(w) for w in words.split())


def _grouped(phrases: list[str]) -> str:
    """An alternation of the phrases grouped by first character, in their order within a
    group. The regex engine tries one group instead of every phrase (with IGNORECASE it
    cannot skip a phrase by its first character); no character matches two groups' first
    characters, so the phrase that matches is the one the flat alternation would pick."""
    groups: dict[str, list[str]] = {}
    for p in phrases:
        assert not p[1:2].isspace()
        groups.setdefault(p[0], []).append(_phrase(p[1:]))
    return "|".join(f"{re.escape(k)}(?:{'|'.join(v)})" for k, v in groups.items())


QUANTITY_TOKEN = re.compile(
    r"(?P<cur>[$€£])?(?P<num>"
    + _NUM
    + r")(?P<unit>"
    + "|".join(re.escape(u) for u in sorted(_ATTACHED_UNITS, key=len, reverse=True))
    + r")?"
)
_SPACED_UNIT = re.compile(
    r"[ \t]?(?P<u>"
    + _grouped([u for u in sorted(SPACED_UNITS, key=len, reverse=True) if u not in ("x", "×")])
    + r")(?!\w)|[ \t]?(?P<m>[x×])(?![\w/])(?!\s*\d)"
)


def unit_after(s: str, end: int) -> bool:
    """Whether a unit of measure is written right after ``end`` ("1.68 times", "2.5 ms")."""
    m = _SPACED_UNIT.match(s, end)
    if m is None:
        return False
    return bool(SPACED_UNITS.get(" ".join((m.group("u") or m.group("m")).split()), ("", 0))[0])


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
    # German (token, iteration read by the English words: the match ignores case).
    "anfrage": "req",
    "anfragen": "req",
    "abfrage": "query",
    "abfragen": "query",
    "bild": "image",
    "bilder": "image",
    "schritt": "step",
    "schritte": "step",
    "iterationen": "it",
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
    # German, read lower case ("pro Sekunde", "je Schritt", "pro Aufruf").
    "sekunde": "s",
    "stunde": "h",
    "tag": "day",
    "schritt": "step",
    "anfrage": "req",
    "schicht": "layer",
    "aufruf": "call",
}
# German "pro" and "je" too ("12,5 ms pro Schritt", "3 Token je Sekunde"): no English
# text writes either between a figure and a word of time (_RATE_TIMES).
_PER_TAIL = r"(?:[ \t]*/[ \t]*|[ \t]+(?:per|pro|je)[ \t]+)(?P<d>[A-Za-z]+)(?!\w)"
_PER = re.compile(_PER_TAIL)
_RATE = re.compile(
    r"[ \t]?(?P<n>" + _grouped(sorted(_RATE_NOUNS, key=len, reverse=True)) + r")" + _PER_TAIL,
    re.I,
)
_NOT_BASE_UNITS = frozenset({"", "x", "%", "pp", "$", "€", "£"})


def _per(word: str) -> str | None:
    word = word.lower()
    return _RATE_TIMES.get(word) or _RATE_TIMES.get(word.rstrip("s"))


def _decimal(num: str) -> tuple[Decimal, int]:
    """The value of a numeral and the exponent of its last digit: the number of digits
    after the point (what Decimal(...).as_tuple() says, without building the tuple)."""
    digits = num.replace(",", "") if "," in num else num
    point = digits.find(".")
    return Decimal(digits), (point + 1 - len(digits) if point >= 0 else 0)


def quantity(text: str, start: int, core: str, *, noun: str = "") -> Number | None:
    """A quantity when ``core`` is a numeral with an attached unit or currency, or bare;
    the identifier of a model's plural or a decade that digits and an "s" end
    (:mod:`.plural`)."""
    m = QUANTITY_TOKEN.fullmatch(core)
    if m is None:
        # German thousands ("1.362.998", "1.362,5 ms" read as "1.362.5"): tried only
        # where a point is, on the characters as written (service.numbers.german).
        english = english_numeral(text[start : start + len(core)], core) if "." in core else None
        m = QUANTITY_TOKEN.fullmatch(english) if english is not None else None
        if m is None:
            return None
    cur, num, attached = m.groups()
    if attached:
        # Seconds, or a name's plural ("RTX 4090s", "the 1990s"): told here, where only a
        # figure with its unit on its digits is asked.
        if attached == "s":
            named = plural_name(text, start, core)
            if named is not None:
                return named
        unit, scale = _ATTACHED_UNITS[attached]
    else:
        unit, scale = "", 0
    value, exp = _decimal(num)
    if cur:
        unit = CURRENCY[cur]
    if noun in _HYPHEN_UNITS and not unit:
        unit = _HYPHEN_UNITS[noun]
    if scale:
        value = value.scaleb(scale)
        exp += scale
    end = start + len(core)
    return Number(
        text[start:end], start, end, QUANTITY, value, None, exp, 0, unit, NO_HEDGE, "", noun
    )


def _rate(text: str, s: str, n: Number) -> Number:
    """``90 ms/step``, ``21.6 tok/s``, ``2,000 requests per minute``."""
    if n.kind not in (QUANTITY, RANGE) or n.noun:
        return n
    if n.unit not in _NOT_BASE_UNITS:
        m = _PER.match(s, n.end)
        per = _per(m.group("d")) if m else None
        if m is None or per is None:
            return n
        return updated(n, end=m.end(), text=text[n.start : m.end()], unit=f"{n.unit}/{per}")
    if n.unit:
        return n
    m = _RATE.match(s, n.end)
    per = _per(m.group("d")) if m else None
    if m is None or per is None:
        return n
    unit = f"{_RATE_NOUNS[m.group('n').lower()]}/{per}"
    return updated(n, end=m.end(), text=text[n.start : m.end()], unit=unit)


def spaced_unit(text: str, s: str, n: Number) -> Number:
    """``n`` with the unit or scale word written after it, and a rate's denominator."""
    currency = n.unit in CURRENCY.values()
    if n.kind not in (QUANTITY, RANGE) or (n.unit and not currency) or n.noun:
        return _rate(text, s, n)
    m = _SPACED_UNIT.match(s, n.end)
    if m is None:
        return _rate(text, s, n)
    word = m.group("u") or m.group("m")
    unit, scale = SPACED_UNITS.get(" ".join(word.split()), ("", 0))
    if (not unit and not scale) or (currency and unit):
        return n
    end = m.end()
    if word in COUNTABLE and counts_times(s, n, end):
        unit = ""  # "runs 3 times": a count, written with its word ("3 times")
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
    if n.start > 0 and s[n.start - 1] in CURRENCY:  # "$27 million": the $ sits before
        changes["unit"] = CURRENCY[s[n.start - 1]]
    return _rate(text, s, updated(n, **changes))
