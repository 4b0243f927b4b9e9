"""Digits with a plural "s" that are names, not seconds: a model's plural ("8 RTX 4090s",
"GTX 1080s") and a decade ("the 1990s", "the 2010s", "the '90s"); and a round power of
ten that counts ("100s of GPUs"), no number at all.

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
  and so is a bare "1800s";
- a decade of two digits, 00 to 90 in tens, its key "90s": after an apostrophe ("'90s",
  "the ’00s"), after "early", "late" or "mid" ("the mid-90s", "the early 10s"), after
  "the" where the phrase ends with it ("Back in the 90s, nobody", "in the 80s and 90s.",
  "GPUs won in the 10s."), or after "in the" (or "during", "since", "until", "through",
  "throughout") and before a word a clause starts with, no noun ("In the 90s nobody",
  "during the 80s most", "in the 90s we": :data:`_CLAUSE_WORDS`). A duration after
  "the" is followed by what it times ("the 30s timeout", "in the 90s window", "the 10s
  budget", "the 90s it took"). Read as a decade, a duration would back no explainer's
  seconds (a false alarm); read as seconds, a decade backed them (a made-up figure
  passed);
- the next of a list ("RTX 4090s and 3090s", "the 1980s, 1990s and 2000s", "the 1980s
  and 90s"): after ", ", "and" or "or", digits and an "s" whose sibling before is a model's
  plural (as many digits: a model of the same line, its key the line's and its digits,
  "rtx 3090", the key of the "RTX 3090" the list names, which the source's index files
  under it: :attr:`~service.check.index.SourceIndex.listed`) or a decade (a decade's
  shape: a decade);
- the model of a clause or a sentence opened as the clause of a model's plural just
  before was (its sentence or the one before; the same preposition, "on", "with",
  "across", "for" or none, before both; "the" allowed): "RTX 4090s reach 50 tokens/s and
  3090s reach 30", "On RTX 4090s, we saw 50. On 3090s, we saw 30": "3090s" is "RTX 3090"
  as in a list (:func:`_opening`), so a figure is told to be of the one or the other.
  Not where a duration goes on ("and 1200s later", "1200s of it"), nor after a measure
  ("TTFT 1200s. On 3090s,"), nor opened otherwise ("We ran RTX 4090s for 5 hours and
  1200s passed", "In 1200s, it finished").

A round power of ten with an "s", then "of" and a plural ("100s of GPUs", "10s of
thousands", "1,000s of users", "10s of ms", "10s to 100s of GPUs", and the ranges
"10s-100s of GPUs", "10s–100s of milliseconds", "10-100s of GPUs": :func:`counted_range`,
asked for a token of two parts) is a count of
hundreds, thousands, tens: no exact figure, as the words "hundreds of GPUs" are none
(:mod:`.words` reads no number in them): both spellings read alike, and an explainer's
"100 GPUs" or "100 seconds" is not backed by it. Not before a word that is no plural:
"100s of training" is a run's first minutes and a half; nor after "first", "last",
"initial", "final" or "next" ("the first 10s of requests": a span of seconds).

Left as they were (seconds): "the 90s nobody" with no preposition before "the" ("The
90s it took" is a duration), "the 90s people" (a noun after it), "10s-100s" with no
"of" and a plural after it ("latency of 10s-100s"), a line in capitals ("THE 1990s"
reads as a model "the 1990").
"""

from __future__ import annotations

import re

from service.numbers.normalise import fold, identifier_key
from service.numbers.number import IDENTIFIER, Number

# The text as written is read (the caller, units.quantity, has no prepared text): a space
# is any that prepare reads as one, a hyphen also U+2010 or U+2011.
_SPACES = " \u00a0\u202f\u2007\u2009\u200a"
_S = "[" + _SPACES + "]"
# A word of capitals right before the digits, one space apart, standing as a word of its
# own ("RTX 4090s", "NVIDIA RTX 4090s"; not the "B" of "B.RTX", nor a hyphenated tail).
_CAPS_BEFORE = re.compile(r"(?<![\w.\-\u2010\u2011])[A-Z]{2,5}" + _S + "$")
# Measures a duration is written after ("TTFT 12s", "SLO 1500s", "ETA 3600s"), and the
# processors a time is spent on ("CPU 1200s" of a profile): no model's line.
_MEASURES = frozenset(
    "TTFT TPOT ITL TTL RTT SLA SLO ETA JCT MTTR MTBF RTO AVG MAX MIN MEAN "  # noqa: SIM905
    "CPU GPU TPU NPU".split()
)
# The words a round century is a span of time after ("the 1900s", "the early 2000s",
# "mid-1800s"), in any case ("The 1900s").
_CENTURY_BEFORE = re.compile(
    r"(?i:(?<![\w-])(?:the" + _S + r"|(?:early|late|mid)[" + _SPACES + r"\-\u2010\u2011]))$"
)
_APOSTROPHES = "'\u2019\u2018"
# Before two digits of a decade: "early", "late", "mid" ("the mid-90s", "late 80s").
_PART_BEFORE = re.compile(r"(?i:(?<![\w-])(?:early|late|mid)[" + _SPACES + r"\-\u2010\u2011])$")
_THE_BEFORE = re.compile(r"(?i:(?<![\w-])the" + _S + ")$")
# "in the", "during the": a time's preposition and "the" before a decade's two digits.
_ERA_BEFORE = re.compile(
    r"(?i:(?<![\w-])(?:in|during|since|until|through|throughout)" + _S + "the" + _S + ")$"
)
# The word after them: one of the words a clause starts with, no noun ("nobody", "we",
# "most"; not "and" or "or", a list's: "in the 30s and 60s timeouts").
_CLAUSE_AFTER = re.compile(_S + r"([A-Za-z]+)(?![\w'\u2019-])")
_CLAUSE_WORDS = frozenset(
    "nobody none nothing everyone everybody everything someone somebody anyone no we "  # noqa: SIM905
    "they he she i you it there most many few when while but though although because if".split()
)
_LIST = r"(?:,?" + _S + "(?:and|or)" + _S + "|," + _S + ")"
# After "the 80s": more decades of two digits, then the phrase's end (a mark or the text's).
_PHRASE_ENDS = re.compile(r"(?:" + _LIST + r"['\u2019]?[0-9]0s)*(?:$|[,.;:!?)\]\u2013\u2014])")
# A sibling before: digits and an "s" standing as a word (an apostrophe before allowed),
# then a list's separator.
_SIBLING = re.compile(r"(?<![\w.])(\d{2,4})s" + _LIST + "$")
# What opens a clause or a sentence a model's plural may open too, with a preposition
# (its group: none, "On", "with"): the text's start, a sentence's end or a semicolon, or
# a coordinating word ("and 3090s reach", ". On 3090s,", ", while with 3090s").
_OPENER = re.compile(
    r"(?:^|[.!?;]"
    + _S
    + "+|,?"
    + _S
    + "(?:and|but|while|whereas)"
    + _S
    + r")(?:((?i:on|with|across|for))"
    + _S
    + ")?(?:(?i:the)"
    + _S
    + ")?$"
)
# A model's plural, its line in capitals or not ("RTX 4090s", "3090s"; its digits).
_MODEL = re.compile(r"(?<![\w.\-\u2010\u2011])(?:[A-Z]{2,5}" + _S + r")?(\d{3,4})s(?![\w'\u2019])")
_SENTENCE_END = re.compile(r"[.!?]" + _S)
# After a model's plural that opens a clause: a comma or a colon ("On 3090s, we saw"), a
# word ("3090s reach"), not one a duration goes on with ("1200s later", "1200s of it"), or
# its figure ("and with 3090s 30").
_AFTER_OPENING = re.compile(r"(?:[,:]|" + _S + r"(?:([a-z]+)\b|(?=\d)))")
_NO_MODEL_AFTER = frozenset("of later earlier ago per each to".split())  # noqa: SIM905
# A round power of ten ("10", "100", "1,000") with its "s", then "of" and a plural, maybe
# after a second power ("10s to 100s of GPUs").
_ROUND = re.compile(r"10{1,4}|1,000|10,000")
_COUNTED = re.compile(
    r"(?:(?:"
    + _S
    + r"(?:to|or|and)"
    + _S
    + r"|"
    + _S
    + r"?[\-\u2010\u2011\u2013\u2014]"
    + _S
    + r"?)1(?:0|,000)+s)?"
    + _S
    + "of"
    + _S
    + r"+"
    r"(?P<w>[A-Za-z][A-Za-z-]*[a-z]s|[A-Z]+s|ms|ns|us|µs)(?![\w'])"
)
# A span's words before: "the first 10s of requests" are its first ten seconds.
_SPAN_BEFORE = re.compile(r"(?i:(?<![\w-])(?:first|last|initial|final|next)" + _S + ")$")
_TIMES = frozenset(("ms", "ns", "us", "µs"))
# Words that end as a plural does and are none ("100s of this"; "class", "status" and
# "analysis" by their endings).
_NO_PLURALS = frozenset(
    "this its his hers ours yours theirs was has does thus yes".split()  # noqa: SIM905
)


def plural_name(text: str, start: int, core: str, depth: int = 0) -> Number | None:
    """The name that ``core`` (digits and an "s", at ``start`` of ``text``) ends: a
    model's plural or a decade; None when it is seconds or no number of digits (the
    caller reads it as before). ``depth``: siblings already read (a list's)."""
    digits = core[:-1]
    if not (2 <= len(digits) <= 4 and digits.isdigit() and digits.isascii()):
        return None  # "5s", "1.5s", "$100s": as before
    end = start + len(core)
    if len(digits) == 2:
        if digits[1] == "0" and _short_decade(text, start, digits):
            return Number(text[start:end], start, end, IDENTIFIER, key=fold(core))
        return _listed(text, start, core, depth)
    if start > 2 and text[start - 1] in _SPACES and text[start - 2].isupper():
        m = _CAPS_BEFORE.search(text, max(0, start - 7), start)
        if m is not None and text[m.start() : start - 1] not in _MEASURES:
            a = m.start()
            return Number(text[a:end], a, end, IDENTIFIER, key=identifier_key(text[a:end]))
    # The next of a list first: "RTX 3090s and 2080s" names two models, no decade; then
    # the model of a clause opened as its line's was ("On RTX 4090s, ... On 3090s, ...").
    listed = _listed(text, start, core, depth) or _opening(text, start, core, depth)
    if listed is not None or not _decade(digits):
        return listed
    if digits[-2] == "0" and not _CENTURY_BEFORE.search(text, max(0, start - 6), start):
        return None  # "2000s" alone: as many seconds
    return Number(text[start:end], start, end, IDENTIFIER, key=fold(core))


def _decade(digits: str) -> bool:
    return len(digits) == 4 and digits[-1] == "0" and "1800" <= digits <= "2090"


def _short_decade(text: str, start: int, digits: str) -> bool:
    """Whether two digits in tens (and an "s") at ``start`` are a decade by the words
    around them ("'90s", "mid-90s", "in the 90s,")."""
    after = start + len(digits) + 1
    if start and text[start - 1] in _APOSTROPHES and (start == 1 or not text[start - 2].isalnum()):
        # "'90s", not a quoted "'30s'" (a setting's value)
        return after == len(text) or text[after] not in _APOSTROPHES
    if _PART_BEFORE.search(text, max(0, start - 6), start):
        return True
    if not _THE_BEFORE.search(text, max(0, start - 5), start):
        return False
    if _PHRASE_ENDS.match(text, after):
        return True
    # "In the 90s nobody", "during the 80s most": a time's preposition before "the", and
    # a word after that starts a clause (no noun a duration is of: "in the 90s window").
    m = _CLAUSE_AFTER.match(text, after)
    return (
        m is not None
        and m.group(1).lower() in _CLAUSE_WORDS
        and _ERA_BEFORE.search(text, max(0, start - 16), start) is not None
    )


def _listed(text: str, start: int, core: str, depth: int) -> Number | None:
    """A model's plural or a decade as the next of a list after its sibling ("RTX 4090s
    and 3090s", "the 1980s and 90s"); None when the one before is none."""
    if depth > 8 or start < 4 or text[start - 1] not in _SPACES:
        return None
    m = _SIBLING.search(text, max(0, start - 16), start)
    if m is None:
        return None
    sibling = plural_name(text, m.start(), m.group(1) + "s", depth + 1)
    if sibling is None:
        return None
    digits, end = core[:-1], start + len(core)
    if sibling.key.endswith("s"):  # a decade
        if not (_decade(digits) or (len(digits) == 2 and digits[1] == "0")):
            return None
        return Number(text[start:end], start, end, IDENTIFIER, key=fold(core))
    if len(digits) != len(m.group(1)):
        return None  # "RTX 4090s and 300s"
    # The sibling's line is this one's too: "3090s" after "RTX 4090s and" is "RTX 3090".
    line = sibling.key.rpartition("\x00")[0]
    key = line + "\x00" + digits if line else identifier_key(core)
    return Number(text[start:end], start, end, IDENTIFIER, key=key)


def _opening(text: str, start: int, core: str, depth: int) -> Number | None:
    """A model's plural that opens a clause or a sentence as its line's plural opened one
    just before, the same preposition before both ("RTX 4090s reach 50 tokens/s and
    3090s reach 30", "On RTX 4090s, ... . On 3090s, ..."): the line's model, "rtx 3090";
    None when it is not so (seconds, as before)."""
    lead = _OPENER.search(text, max(0, start - 20), start)
    after = _AFTER_OPENING.match(text, start + len(core))
    if depth > 8 or lead is None or after is None or after.group(1) in _NO_MODEL_AFTER:
        return None
    digits = core[:-1]
    sibling = None
    for m in _MODEL.finditer(text, max(0, start - 240), lead.start()):
        sibling = m  # the last model's plural before: the one the clause answers
    if sibling is None or len(sibling.group(1)) != len(digits):
        return None
    if len(_SENTENCE_END.findall(text, sibling.end(), start)) > 1:
        return None  # in its sentence or the one before, not further back
    theirs = _OPENER.search(text, max(0, sibling.start() - 20), sibling.start())
    if theirs is None or (theirs.group(1) or "").lower() != (lead.group(1) or "").lower():
        return None  # "We ran RTX 4090s for 50 hours and 3090s ...": not said alike
    # The one before is a model ("RTX 4090s", or "3090s" read so in its turn), not a
    # measure's seconds ("TTFT 1200s") nor a decade.
    model = plural_name(text, sibling.start(1), sibling.group(1) + "s", depth + 1)
    if model is None or model.start != sibling.start() or "\x00" not in model.key:
        return None
    end = start + len(core)
    return Number(
        text[start:end],
        start,
        end,
        IDENTIFIER,
        key=model.key.rpartition("\x00")[0] + "\x00" + digits,
    )


def counted_plural(text: str, start: int, core: str) -> bool:
    """Whether ``core`` at ``start`` is a round power of ten with an "s" that counts ("100s
    of GPUs"): hundreds, no figure."""
    if not (core[-1:] == "s" and core[:1] == "1" and _ROUND.fullmatch(core, 0, len(core) - 1)):
        return False
    m = _COUNTED.match(text, start + len(core))
    if m is None or _SPAN_BEFORE.search(text, max(0, start - 9), start):
        return False
    word = m.group("w")
    if word in _TIMES:
        return True  # "10s of ms": tens of milliseconds
    return word not in _NO_PLURALS and not (word.islower() and word.endswith(("ss", "us", "is")))


def counted_range(text: str, start: int, low: str, high: str) -> bool:
    """Whether the token ``low``-``high`` at ``start`` is a range of round powers of ten
    that counts ("10s-100s of GPUs", "10-100s of GPUs"): tens to hundreds, no figure
    (not a span's: "the first 10s-100s of requests")."""
    if not _ROUND.fullmatch(low.removesuffix("s")) or _SPAN_BEFORE.search(
        text, max(0, start - 9), start
    ):
        return False
    return counted_plural(text, start + len(low) + 1, high)
