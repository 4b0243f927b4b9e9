"""The direction of a change a number is written with: down ("fell by 12%", "a 12%
reduction", "12% lower", "-12%"), up ("rose 12%", "a 12% gain", "+12%"), slower or
faster ("10% slower", "2x faster", "a 1.5x speedup"), or none said; in German words too
("sinkt um 12 %", "12 % niedriger", "um 12 % gestiegen", "10 % schneller").

The check compares a figure written with words with one written with a sign ("drops
12%" for "-12%") and keeps them from being turned around ("rises 12%" for "-12%",
"10% faster" for "10% slower", unless the names are swapped: :mod:`service.check.turned`)."""

from __future__ import annotations

import re
from collections.abc import Callable

from service.numbers.number import QUANTITY, Number
from service.numbers.words import trie

DOWN, NONE, UP = -1, 0, 1
# A change of speed ("10% faster", "2x slower", "a 1.5x speedup"): a direction of its own,
# turned only by the other word of speed. "10% faster" may say "10% lower latency" (less
# time) or "10% higher throughput", so it is no UP nor DOWN, only not SLOWER (a check
# compares a figure's direction with the one opposite it: -FASTER is SLOWER).
SLOWER, FASTER = -2, 2

_DOWN_VERBS = (
    r"fell|falls?|falling|dropp(?:ed|ing)|drops?|declin(?:ed|es|e|ing)|decreas(?:ed|es|e|ing)"
    r"|reduc(?:ed|es|e|ing)|cuts?|cutting|shr[aiu]nk(?:s|ing)?|slash(?:ed|es|ing)?"
    r"|trimm(?:ed|ing)|trims?|sank|sinks?|plung(?:ed|es|e)|dipp(?:ed|ing)|dips?|sav(?:ed|es|e)"
    # German (an explainer of a feed set to "de"): "sinkt um 10 %", "wurde um 10 % gesenkt".
    r"|sinkt|sinken|gesunken|fällt|fallen|fiel|gefallen|senkt|senken|gesenkt"
    r"|reduziert|reduzieren|verringert|verringern|schrumpft|geschrumpft"
)
_UP_VERBS = (
    r"rose|rises?|rising|grew|grows?|growing|increas(?:ed|es|e|ing)|jump(?:ed|s|ing)?"
    r"|climb(?:ed|s|ing)?|gain(?:ed|s|ing)?|boost(?:ed|s|ing)?|rais(?:ed|es|e|ing)"
    r"|soar(?:ed|s|ing)?|surg(?:ed|es|e|ing)"
    r"|steigt|steigen|stieg|gestiegen|wächst|wachsen|wuchs|gewachsen|erhöht|erhöhen"
)
# "a 12% slow-down" as "a 12% slowdown" (it read no direction: "-12%" backed it not and
# "+12%" did); "a 12% slow down" reads "down" already.
_DOWN_NOUNS = r"reductions?|decreases?|drops?|declines?|cuts?|falls?|dips?|savings?|slow-?downs?"
_UP_NOUNS = r"increases?|rises?|gains?|growth|jumps?|boosts?|uplifts?"
# "12% lower", "12 percent less memory"; "12% more"/"higher" (not "or more": a hedge).
_DOWN_AFTER = (
    _DOWN_NOUNS + r"|less|fewer|lower|smaller|shorter|cheaper|down"
    r"|weniger|niedriger|geringer|kleiner|kürzer|günstiger"  # "10 % niedriger"
    r"|gesunken|gesenkt|reduziert|verringert|gefallen|geschrumpft"  # "um 10 % gesenkt"
)
_UP_AFTER = (
    _UP_NOUNS + r"|more|higher|larger|bigger|greater|longer|up"
    r"|mehr|höher|größer|länger|gestiegen|erhöht|gewachsen"
)

# A word that says which way a figure moved, not what it measures ("time to first token
# dropped 19%": the figure is of "time to first token").
CHANGE_WORD = re.compile(
    rf"(?:{_DOWN_VERBS}|{_UP_VERBS}|{_DOWN_AFTER}|{_UP_AFTER}|faster|slower|went|goes)"
)

# The text before a number: a verb before it, or with "by" ("fell by nearly 12%",
# "cut memory use by 40%"), or a noun with "of" ("a reduction of 12%"); "lower"/"down"
# only so ("lower by 12%", "down 12%": "the lower 12% of requests" is no change). A
# level is no change: "fell to 12%", "up to 12%" (a hedge) say nothing here.
_HEDGE = r"(?:\s+(?:about|around|roughly|nearly|almost|approximately|some|just|over|under|up\s+to|more\s+than|less\s+than|at\s+least|at\s+most|~))?"  # noqa: E501


# Words between a verb and its number without "by": its object ("drops decode latency
# 12%"), never a preposition ("fell to 12%" is a level, "rose from 12%" a start).
_OBJECT = r"(?:\s+(?!(?:to|from|at|of|in|on|for|with|than|as|by|into|onto)\b)[\w-]+){0,3}"


def _before(verbs: str, nouns: str, extra: str) -> re.Pattern[str]:
    return re.compile(
        rf"\b(?:(?:{verbs})(?:\s+[\w-]+){{0,4}}?\s+(?:by|um){_HEDGE}"
        rf"|(?:{verbs}){_OBJECT}{_HEDGE}|(?:{nouns})\s+of{_HEDGE}|{extra})\s*$",
        re.I,
    )


_DOWN_BEFORE = _before(_DOWN_VERBS, _DOWN_NOUNS, r"lower(?:ed|s)?\s+by|down(?:\s+by)?")
_UP_BEFORE = _before(_UP_VERBS, _UP_NOUNS, r"up")
_NOT_BETWEEN = r"(?!(?:of|in|on|at|to|for|and|or|the|a|an|is|was|are|were|than|as)\b)"
_AFTER = re.compile(
    rf"[\s-]*(?:{_NOT_BETWEEN}[a-z][\w-]*\s+)?(?:(?P<down>{_DOWN_AFTER})|(?P<up>{_UP_AFTER}))\b",
    re.I,
)


# The stems of the words each pattern before a number starts with: where no word near it
# starts with one, neither pattern can match (most figures: one quick scan of the text in
# lower case, where a search of either pattern, case-blind, costs tens of microseconds).
_STEMS = (
    "fell", "fall", "drop", "declin", "decreas", "reduc", "cut", "shr", "slash", "trim",
    "sank", "sink", "plung", "dip", "sav", "slowdown", "lower", "down", "rose", "rise",
    "rising", "grew", "grow", "increas", "jump", "climb", "gain", "boost", "rais", "soar",
    "surg", "sink", "gesunk", "fällt", "fallen", "fiel", "gefall", "senk", "gesenk",
    "reduz", "verring", "schrumpf", "geschrumpf", "steig", "stieg", "gestieg", "wächst",
    "wachs", "wuchs", "gewachs", "erhöh",
)  # fmt: skip
# The same for the words after a number (the first two: one may stand between).
_AFTER_STEMS = (
    "reduc", "decreas", "drop", "declin", "cut", "fall", "dip", "saving", "slowdown", "less",
    "fewer", "lower", "smaller", "shorter", "cheaper", "down", "increas", "rise", "gain",
    "growth", "jump", "boost", "uplift", "more", "higher", "larger", "bigger", "greater",
    "longer", "up", "wenig", "niedrig", "gering", "klein", "kürz", "günstig", "mehr", "höh",
    "größ", "läng", "gesunk", "gesenk", "reduz", "verring", "gefall", "geschrumpf", "gestieg",
    "erhöh", "gewachs",
)  # fmt: skip


_STEM = re.compile(r"\b(?:" + "|".join(_STEMS) + ")")
_AFTER_STEM = re.compile(r"[\s-]*(?:[a-z][\w-]*[\s-]+)?(?:" + "|".join(_AFTER_STEMS) + ")")


# Any stem, as a trie (the regex engine tries one branch per letter, not every stem).
_ANY_STEM = re.compile(r"(?<![a-z])(?:" + trie(sorted(set(_STEMS + _AFTER_STEMS))) + ")")
_SIGN = re.compile(r"(?<![\w.])[-+]\d")


def may_have_direction(s: str) -> bool:
    """Whether any number of the prepared text ``s`` can have a direction (a sign, or a
    word of one): one scan of a sentence instead of one look around each of its numbers."""
    if ("-" in s or "+" in s) and _SIGN.search(s) is not None:
        return True
    return _ANY_STEM.search(s.lower()) is not None


def _faster() -> int:
    return FASTER


def _slower() -> int:
    return SLOWER


def way_of(s: str, n: Number, directional: bool) -> Callable[[], int] | None:
    """The direction of figure ``n`` of the prepared text ``s``, read when needed: a
    :class:`Way` where ``directional`` (:func:`may_have_direction` of its sentence), else
    its word of speed ("2x faster"), else None. (A word of speed is no stem of that
    scan: most figures "faster" stands with are none, and each would be read.)"""
    if directional:
        return Way(s, n)
    m = _SPEED.match(s, n.end, n.end + 20)  # (_speed_word's, inline: most figures have none)
    return None if m is None else _slower if m.group("slower") else _faster


class Way:
    """The direction ``n`` is written with in ``s``, read on the first call (most figures
    are matched without it)."""

    __slots__ = ("_n", "_s", "_way")

    def __init__(self, s: str, n: Number) -> None:
        self._s, self._n, self._way = s, n, -2

    def __call__(self) -> int:
        if self._way == -2:
            self._way = direction(self._s, self._n)
        return self._way


def direction(s: str, n: Number) -> int:
    """The direction of the change ``n`` is written with in the prepared text ``s`` (a
    minus or plus sign first, then the words around it): DOWN, UP, SLOWER, FASTER or NONE."""
    if n.kind != QUANTITY or n.value is None or not n.value:
        return NONE
    if n.value < 0:
        return DOWN
    if n.text[:1] == "+":
        return UP
    # A word of speed right after it says all ("up to 2x faster": no change up).
    way = _speed_word(s, n, slowdown=False)
    if way != NONE:
        return way
    before = s[max(0, n.start - 80) : n.start]
    # Within its sentence: "performance gains\n\n1. More" says nothing of the 1.
    before = before[max(before.rfind("\n"), before.rfind(". ")) + 1 :]
    low = before.lower()
    if _STEM.search(low, max(0, len(low) - 60)) or f" {low}".rstrip().endswith(" up"):
        if _DOWN_BEFORE.search(before):
            return DOWN
        if _UP_BEFORE.search(before):
            return UP
    if not _AFTER_STEM.match(s[n.end : n.end + 40].lower()):
        return NONE
    m = _AFTER.match(s, n.end, min(len(s), n.end + 40))
    if m is not None:
        return DOWN if m.group("down") else UP
    return NONE


# "10% faster", "2x slower", "a 1.5x speedup" ("slowdown" is a DOWN noun, as it was).
_SPEED = re.compile(
    r"[\s-]*(?:(?P<slower>slower|langsamer)|faster|quicker|schneller|speedups?|speed-ups?)\b",
    re.I,
)


# "10% faster", "a 10% speedup": a gain, which a writer may state for a multiplier (1.10x).
# (German "10 % schneller": an explainer of a feed set to "de".)
_GAIN_AFTER = re.compile(
    r"[\s-]*(?:faster|quicker|schneller|speedups?|speed-ups?|improvements?|better)\b", re.I
)


def states_gain(s: str, n: Number, way: Callable[[], int]) -> bool:
    """Whether ``n``, written with the direction ``way()``, is written as a gain: a change
    up, or "faster", "a speedup"."""
    return _GAIN_AFTER.match(s, n.end, n.end + 20) is not None or way() == UP


# A source's word of speed, "a 10% slowdown" too: the other word to "a 10% speedup"
# ("a 10% speedup" for "a 10% slowdown" passed). (Its direction stays DOWN, for the
# figures written with a sign: "a 12% slowdown" of "-12%".) "a 10% slow-down" and the
# two words "a 10% slow down" too.
_SLOWDOWN = re.compile(r"[\s-]*slow(?:-|\s+)?downs?\b", re.I)


def _speed_word(s: str, n: Number, slowdown: bool) -> int:
    """SLOWER or FASTER for the word of speed right after ``n`` in ``s``, else NONE;
    ``slowdown``: "a 10% slowdown" is one too (not for :func:`direction`, where it
    stays a change down)."""
    m = _SPEED.match(s, n.end, n.end + 20)
    if m is not None:
        return SLOWER if m.group("slower") else FASTER
    if slowdown and _SLOWDOWN.match(s, n.end, n.end + 20):
        return SLOWER
    return NONE


def speed(s: str, n: Number) -> int:
    """SLOWER or FASTER for the word of speed right after ``n`` in ``s`` ("10% slower",
    "a 10% slowdown"), else NONE: all of a source figure's direction that a change of
    speed is turned by (one match, where :func:`direction` reads the words before it too)."""
    return _speed_word(s, n, slowdown=True)
