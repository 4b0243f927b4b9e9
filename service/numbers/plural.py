"""Digits with a plural "s" that are names, not seconds: a model's plural ("8 RTX 4090s",
"GTX 1080s") and a decade ("the 1990s", "the 2010s").

An "s" on digits is read as seconds (units: "It took 12s to load"), and was read so
here too: "RTX 4090s" was 4090 seconds, matched by an explainer's "4090 seconds", and
"the 1990s" a duration. These are names, compared verbatim as "H100s" is:

- a model's plural: three or four digits after a word of two to five capitals ("RTX",
  "GTX", "MI"), one space between; its key the name's without the "s" ("rtx 4090",
  folded), the key of "RTX-4090s" and of "RTX 4090" as the check reads it, so each form
  backs the other. Not after a measure that a duration follows ("TTFT 12s" is twelve
  seconds; :data:`_MEASURES`), nor after any other word ("on 4090s", "NVIDIA 4090s"
  stay seconds: no model's line is named);
- a decade: 1800 to 2090 in tens, its key "1990s" (the "s" kept: the check finds a key
  in the source with an "s" or none, so a key "1990" would let a source's year, "in
  1990", back an explainer's decade). A round century ("1900s", "2000s") is a
  span of time only after "the", "early", "late" or "mid": "after 1800s" is half an hour,
  and so is a bare "1800s".

Left as they were (seconds): "100s of GPUs" (hundreds of them, no figure: the "100s of
training" a run's first minutes are written the same way), two-digit decades ("the 90s",
"in 30s": the same digits as a duration), the second of a list ("RTX 4090s and 3090s",
"the 1980s and 1990s"), a line in capitals ("THE 1990s" reads as a model "the 1990").
"""

from __future__ import annotations

import re

from service.numbers.normalise import fold, identifier_key
from service.numbers.number import IDENTIFIER, Number

# The text as written is read (the caller, units.quantity, has no prepared text): a space
# is any that prepare reads as one, a hyphen also U+2010 or U+2011.
_SPACES = " \u00a0\u202f\u2007\u2009\u200a"
# A word of capitals right before the digits, one space apart, standing as a word of its
# own ("RTX 4090s", "NVIDIA RTX 4090s"; not the "B" of "B.RTX", nor a hyphenated tail).
_CAPS_BEFORE = re.compile(r"(?<![\w.\-\u2010\u2011])[A-Z]{2,5}[" + _SPACES + "]$")
# Measures a duration is written after ("TTFT 12s", "SLO 1500s", "ETA 3600s"), and the
# processors a time is spent on ("CPU 1200s" of a profile): no model's line.
_MEASURES = frozenset(
    "TTFT TPOT ITL TTL RTT SLA SLO ETA JCT MTTR MTBF RTO AVG MAX MIN MEAN "  # noqa: SIM905
    "CPU GPU TPU NPU".split()
)
# The words a round century is a span of time after ("the 1900s", "the early 2000s",
# "mid-1800s"), in any case ("The 1900s").
_CENTURY_BEFORE = re.compile(
    r"(?i:(?<![\w-])(?:the[" + _SPACES + r"]|(?:early|late|mid)[" + _SPACES + r"\-\u2010\u2011]))$"
)


def plural_name(text: str, start: int, core: str) -> Number | None:
    """The name that ``core`` (digits and an "s", at ``start`` of ``text``) ends: a
    model's plural or a decade; None when it is seconds or no number of digits (the
    caller reads it as before)."""
    digits = core[:-1]
    if not (3 <= len(digits) <= 4 and digits.isdigit() and digits.isascii()):
        return None  # "12s", "1.5s", "$100s": as before
    end = start + len(core)
    if start > 2 and text[start - 1] in _SPACES and text[start - 2].isupper():
        m = _CAPS_BEFORE.search(text, max(0, start - 7), start)
        if m is not None and text[m.start() : start - 1] not in _MEASURES:
            a = m.start()
            return Number(text[a:end], a, end, IDENTIFIER, key=identifier_key(text[a:end]))
    if len(digits) != 4 or digits[-1] != "0" or not "1800" <= digits <= "2090":
        return None
    if digits[-2] == "0" and not _CENTURY_BEFORE.search(text, max(0, start - 6), start):
        return None  # "2000s" alone: as many seconds
    return Number(text[start:end], start, end, IDENTIFIER, key=fold(core))
