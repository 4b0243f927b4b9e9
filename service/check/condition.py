"""Conditions said with a preposition: "with CUDA graphs" and "without CUDA graphs" (or
"not using them") are opposite conditions of a figure, as "enabled" and "disabled" are
(:mod:`.scope`); and a negation a word or two before a word of a condition turns it
("not enabled", "have not been enabled", "without enabling")."""

from __future__ import annotations

import re

from service.ascii import ascii_twin

# What the word "with" (or "using") is said of: the first word of its object, five
# letters of it. A pronoun ("without them") is said of the object of the "with" before it
# in its sentence; with none, or no object, of whatever the other clause names.
WILD = "with:"
_WITH = re.compile(r"(?<![\w-])(?:with|without|using)(?!\w)", re.I)
_WITH_ASCII = ascii_twin(_WITH)  # for ASCII text (most): see service.ascii
_OBJECT_WORD = re.compile(r"\s+(\w[\w.+-]*)")
_SKIP = frozenset("the a an all any its their our and or with without using".split())  # noqa: SIM905
_NONE = frozenset(("no", "zero"))  # "with no CUDA graphs" is "without"
_PRONOUNS = frozenset("them it this that these those they one".split())  # noqa: SIM905
# A state said after the object turns "with" into "without": "with deterministic
# algorithms disabled" (or "off", "turned off", "not enabled") is without them; "with
# them enabled" stays with. A few words of the object may stand between, no comma.
_OFF_AFTER = re.compile(
    r"(?:\s+[\w.+-]+){0,3}?\s+(?:(?:turned|switched|left)\s+)?"
    r"(?:disabled|off|not\s+enabled)(?![\w-])",
    re.I,
)

# A negation before a word, right before it or with one word of these between ("not
# been enabled"): "not always enabled" is no "disabled".
_NEGATION = re.compile(
    r"(?:\bnot|\bno|\bnever|n't|\bwithout)\s+(?:(?:be|been|being|yet|ever|currently)\s+)?$",
    re.I,
)
_NEGATION_ASCII = ascii_twin(_NEGATION)


def negated(s: str, start: int, at: int) -> bool:
    """Whether a negation stands before the word at ``at`` of ``s[start:]``."""
    negation = _NEGATION_ASCII if s.isascii() else _NEGATION
    return negation.search(s, max(start, at - 24), at) is not None


def _object(s: str, pos: int, end: int) -> tuple[str, int]:
    """What a "with" ending at ``pos`` is said of (five letters of the first word of its
    object; "" for none, :data:`_PRONOUN` for a pronoun), and 1 when its object turns it
    ("with no CUDA graphs", "with them disabled"), else 0."""
    flips = 0
    for _ in range(4):
        w = _OBJECT_WORD.match(s, pos, end)
        if w is None:
            break
        word, pos = w.group(1).lower().rstrip(".+-"), w.end()
        if word in _NONE:
            flips ^= 1
        elif word not in _SKIP:
            if _OFF_AFTER.match(s, pos, end):
                flips ^= 1
            return (_PRONOUN if word in _PRONOUNS else word[:5]), flips
    return "", flips


_PRONOUN = "?"
_BACK = 160  # how far back a pronoun's "with" may stand (within its sentence)


def _antecedent(s: str, at: int) -> str:
    """What the "with" before ``at`` in its sentence is said of: the thing of "with them"
    ("4.82x with deterministic algorithms disabled, and 4.02x with them enabled"); ""
    (whatever) when there is none."""
    lo = max(0, at - _BACK)
    lo = max(lo, s.rfind(". ", lo, at) + 1)
    thing = ""
    for m in (_WITH_ASCII if s.isascii() else _WITH).finditer(s, lo, at):
        found = _object(s, m.end(), at)[0]
        if found and found != _PRONOUN:
            thing = found
    return thing


def with_marks(s: str, start: int, end: int) -> list[tuple[int, tuple[str, int]]]:
    """Where each "with", "without" or "using" of ``s[start:end]`` stands, with its mark:
    ("with:" and what it is said of, side), side 0 for with, 1 for without; a negation
    before ("not using"), "no" after ("with no CUDA graphs") or a state of "off" after
    its object ("with deterministic algorithms disabled") turns it. A pronoun ("with
    them enabled") is said of what the "with" before it in the sentence is."""
    out: list[tuple[int, tuple[str, int]]] = []
    for m in (_WITH_ASCII if s.isascii() else _WITH).finditer(s, start, end):
        side = 1 if m.group(0).lower() == "without" else 0
        if negated(s, start, m.start()):
            side = 1 - side
        thing, flips = _object(s, m.end(), end)
        if thing == _PRONOUN:
            thing = _antecedent(s, m.start())
        out.append((m.start(), (WILD + thing, side ^ flips)))
    return out


def same_pair(a: int | str, b: int | str) -> bool:
    """Whether two marks' pairs are one: the same, or "with" of one thing and "with" of
    whatever (:data:`WILD`)."""
    if a == b:
        return True
    # (Only of "with": a length's pair, "len:input", is no "with" of whatever.)
    return (
        isinstance(a, str)
        and isinstance(b, str)
        and WILD in (a, b)
        and a.startswith(WILD)
        and b.startswith(WILD)
    )
