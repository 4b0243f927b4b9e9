"""Number words: "two", "dozen", "half", "twice", "double" (and when they are no count:
"one" as a pronoun, "double buffering"), and their German: "zwei" to "zwanzig",
"Dutzend", "halb", "zweimal"/"dreimal", "doppelt so"."""

from __future__ import annotations

import re
from decimal import Decimal

from service.numbers.events import uncompared
from service.numbers.number import WORD, Number
from service.numbers.units import SPACED_UNITS

_WORD_VALUES: dict[str, tuple[int | str, str]] = {
    w: (i + 1, "")
    for i, w in enumerate(
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "  # noqa: SIM905
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_COUNTS = {w: int(v) for w, (v, _) in _WORD_VALUES.items()}  # one to twenty: numerators
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
# German: a feed set to "de" writes them (the extractor is never told the language; an
# English text writes few of these words, and those as names: "ELF", the binary format,
# and a capitalised one, read below: :func:`_german_count`). "ein",
# "eine", "eins" are left out, as an article more often than a count (as "one" is read
# only where it counts). The multipliers are read as "twice" is (below).
_GERMAN_COUNTS = (
    "zwei drei vier fünf sechs sieben acht neun zehn elf zwölf dreizehn vierzehn "  # noqa: SIM905
    "fünfzehn sechzehn siebzehn achtzehn neunzehn zwanzig".split()
)
_GERMAN_TIMES = {w + "mal": i + 2 for i, w in enumerate(_GERMAN_COUNTS[:9])}  # zweimal..zehnmal
_GERMAN_OTHERS: dict[str, tuple[int | str, str]] = {
    "dreißig": (30, ""),
    "vierzig": (40, ""),
    "fünfzig": (50, ""),
    "sechzig": (60, ""),
    "siebzig": (70, ""),
    "achtzig": (80, ""),
    "neunzig": (90, ""),
    "dutzend": (12, ""),
    "halb": ("0.5", ""),
    "doppelt": (2, "x"),
    "verdoppelt": (2, "x"),
    "verdreifacht": (3, "x"),
}
_WORD_VALUES.update({w: (i + 2, "") for i, w in enumerate(_GERMAN_COUNTS)})
_WORD_VALUES.update({w: (v, "x") for w, v in _GERMAN_TIMES.items()})
_WORD_VALUES.update(_GERMAN_OTHERS)
# The German words read as counts only where written as counts are (:func:`_german_count`);
# "Dutzend" is a noun, capitalised wherever it stands.
_GERMAN = (frozenset(_GERMAN_COUNTS) | _GERMAN_TIMES.keys() | _GERMAN_OTHERS.keys()) - {"dutzend"}


def trie(words: list[str]) -> str:
    """An alternation of ``words`` as a trie: grouped by first letter, each group's rest
    grouped again (the regex engine tries one branch per letter, not every word that
    shares a first letter). Which word matches cannot depend on the order: each match
    must end before a non-word character (``(?!\\w)``), which only the word that is the
    whole run of letters does."""
    by_first: dict[str, list[str]] = {}
    for w in sorted(words, key=len, reverse=True):
        by_first.setdefault(w[0], []).append(w[1:])
    branches = []
    for first, rests in by_first.items():
        longer = [r for r in rests if r]
        rest = trie(longer) if longer else ""
        if rest and len(longer) < len(rests):  # a word ends here too: the rest is optional
            rest = f"(?:{rest})?"
        elif len({r[0] for r in longer}) > 1:  # an alternation (one branch needs no group)
            rest = f"(?:{rest})"
        branches.append(re.escape(first) + rest)
    return "|".join(branches)


_WORDS = "(?:" + trie(list(_WORD_VALUES)) + r")(?!\w)(?:-(?=[a-z]))?"
_WORD = re.compile(r"(?<![\w-])" + _WORDS)
# The same for ASCII text, read with one space before it: the character before the word
# is matched (from the ASCII characters that are neither \w nor "-") instead of looked
# behind at. A pattern that starts with a set of characters lets the regex engine skip
# in C every position whose character is not in it (most of a text: letters), where a
# look-behind is tried at every position. A match at p of the padded text is a match of
# _WORD at p of the text; none is lost to the character the previous match consumed, as
# the last character of a match (a letter or "-") is never the one before a word.
_ASCII_NOT_WORD = "".join(re.escape(chr(c)) for c in range(128) if not re.match(r"[\w-]", chr(c)))
_WORD_PADDED = re.compile(f"[{_ASCII_NOT_WORD}]" + _WORDS)
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
# "two-thirds", "three quarters": a fraction, not a count (it backed any 2 of the source).
_FRACTION_AFTER = re.compile(
    r"[- ](?P<d>half|thirds?|quarters?|fourths?|fifths?|sixths?|sevenths?|eighths?|ninths?"
    r"|tenths?)(?!\w)",
    re.I,
)
_DENOMINATORS = {
    "half": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6,
    "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
}  # fmt: skip
# "zwei Drittel", "drei Viertel": the German, written apart (a noun, capitalised).
_GERMAN_DENOMINATORS = {
    "drittel": 3, "viertel": 4, "fünftel": 5, "sechstel": 6, "siebtel": 7, "achtel": 8,
    "neuntel": 9, "zehntel": 10,
}  # fmt: skip
_GERMAN_FRACTION_AFTER = re.compile(" (?P<d>" + "|".join(_GERMAN_DENOMINATORS) + r")(?!\w)", re.I)
_GERMAN_FRACTION_LEADS = frozenset("dvfsanz")
_GERMAN_NUMERATORS = frozenset(_GERMAN_COUNTS[:9])  # zwei .. zehn
_TENS = frozenset("twenty thirty forty fifty sixty seventy eighty ninety".split())  # noqa: SIM905
_ONES_AFTER = re.compile(r"-(one|two|three|four|five|six|seven|eight|nine)(?!\w)", re.I)
_FRACTION_LEADS = frozenset("htqfsen")  # the first letters of the fraction words
_PERCENT_AFTER = re.compile(r"[ \t](?:percent|per[ \t]cent|prozent)(?!\w)|[ \t]?%", re.I)
_SERVES_AS = re.compile(r"\s+as\s+an?\s+(?!result\b)", re.I)
# A unit of time after a count word: "twelve hours", "zwölf Stunden" are 12 h, as "12
# hours" is (a bare 12 was backed by the source's "12 minutes"); the words of
# units.SPACED_UNITS, in full (no "s", "h": "two s" is no time).
_TIME_AFTER = re.compile(
    r"[ \t](?P<u>(?:milli|micro|nano)?seconds?|minutes?|hours?|days?|weeks?"
    r"|(?:Milli|Mikro|Nano)?[Ss]ekunden?|Minuten?|Stunden?|Tagen?|Tag|Wochen?)(?!\w)"
)
_TIME_LEADS = frozenset("smhdwnt")  # their first letters, lower case (most words: none)
# "six times faster", "three times the throughput", "five-fold more": a count word made a
# multiplier, as "6 times" is (unit x; the words joined, as the digits' unit is). Only
# before a comparison: "ran three times." counts runs.
_COMPARISON = (
    r"(?=\s+(?:as|the|more|less|fewer|over|faster|slower|larger|smaller|bigger|higher"
    r"|lower|greater|longer|shorter|better|quicker|cheaper|wider)\b)"
)
_TIMES_AFTER = re.compile(r"(?:[ \t]times|-fold)" + _COMPARISON, re.I)
# "twice as fast", "twice the throughput" are multiples; "runs twice" counts runs.
_TWICE_COMPARES = re.compile(_COMPARISON, re.I)
# The German: "zweimal so schnell", "dreimal schneller", "doppelt so hoch" are multiples;
# "zweimal aufgerufen" counts calls, and "doppelt" elsewhere ("doppelt gepuffert") is no
# figure, as "double buffering" is none.
_GERMAN_COMPARES = re.compile(
    r"\s+(?:so|mehr|weniger|schneller|langsamer|höher|niedriger|größer|kleiner|besser"
    r"|schlechter|länger|kürzer|geringer|günstiger|teurer|breiter)(?!\w)",
    re.I,
)

# "drei Mal so schnell": Duden's other spelling of "dreimal", a multiplier so too.
_GERMAN_MAL = re.compile(r"[ \t]mal(?=" + _GERMAN_COMPARES.pattern + ")", re.I)
# "ran three times", "drei Mal aufgerufen" with no comparison: a count of runs, written
# with its word as the digits' "runs 3 times" is (events.uncompared decides), so that a
# source's multiplier ("3x faster") backs it no more than it backs "ran 3 times".
_TIMES_COUNTED = re.compile(r"[ \t]times(?!\w)", re.I)
_GERMAN_MAL_COUNTED = re.compile(r"[ \t]mal(?!\w)", re.I)
# What starts a sentence, a heading, a table cell or a list item, before a word.
_OPENERS = frozenset('.!?:;|#*-(\n"\u201e\u201c')
_NOUN_AFTER = re.compile(r"\s+[A-ZÄÖÜ]")  # a German noun after a count: "elf Modelle"


def _german_count(text: str, s: str, start: int, end: int, word: str) -> bool:
    """Whether the German number word at ``start`` counts. German writes a count in lower
    case: a capital inside a sentence (not where one starts: a heading, a cell, an
    item) makes it a noun or a name ("außer Acht lassen": attention; "die Elf": a team;
    "the Sieben scheduler"). "elf" is the binary format in English text in any case
    ("firmware.elf", "elf binary", "Elf headers", "ELF"): eleven only before a German
    noun ("elf Modelle")."""
    written = text[start:end]
    if not written.islower():
        i = start
        while i and s[i - 1] in " \t":
            i -= 1
        if i and s[i - 1] not in _OPENERS:
            return False
    if word == "elf":
        return written != "ELF" and s[start - 1 : start] != "." and bool(_NOUN_AFTER.match(s, end))
    return True


def number_words(text: str, s: str) -> list[Number]:
    """The number words of the prepared text ``s`` that count something."""
    out: list[Number] = []
    if s.isascii():
        found = [(m.start(), m.group(0)[1:]) for m in _WORD_PADDED.finditer(" " + s.lower())]
    else:
        lower = s.lower()
        if len(lower) != len(s):  # a character whose lower case is longer: keep positions
            lower = "".join(c if len(c.lower()) != 1 else c.lower() for c in s)
        found = [(m.start(), m.group(0)) for m in _WORD.finditer(lower)]
    taken = 0  # where the last fraction ends: "half" in "one half" is part of it
    for start, raw in found:
        if start < taken:
            continue
        word = raw.rstrip("-").lower()
        end = start + len(word)
        if word in _GERMAN and not _german_count(text, s, start, end, word):
            continue
        # What can follow a word made more than a count starts with one of these (each
        # pattern is tried only then: most words are followed by a space and a noun).
        after, lead = s[end : end + 1], s[end + 1 : end + 2].lower()
        fraction = (
            _FRACTION_AFTER.match(s, end)
            if after in ("-", " ") and lead in _FRACTION_LEADS and word in _COUNTS
            else _GERMAN_FRACTION_AFTER.match(s, end)
            if word in _GERMAN_NUMERATORS and after == " " and lead in _GERMAN_FRACTION_LEADS
            else None
        )
        if fraction is not None:
            # Its value as a Decimal quotient: the same words in the source give the same.
            d = fraction.group("d").lower()
            denominator = _DENOMINATORS.get(d.rstrip("s")) or _GERMAN_DENOMINATORS[d]
            quotient = Decimal(int(_WORD_VALUES[word][0])) / denominator
            end = taken = fraction.end()
            out.append(
                Number(text=text[start:end], start=start, end=end, kind=WORD, value=quotient)
            )
            continue
        ones = _ONES_AFTER.match(s, end) if after == "-" and word in _TENS else None
        if ones is not None:  # "ninety-six": one number, not ninety (and no six)
            end = ones.end()
            after, lead = s[end : end + 1], s[end + 1 : end + 2].lower()
        elif raw.endswith("-"):
            compound = re.match(r"[\w-]+", s[start:])
            if word in ("half", "halb") or (
                compound and compound.group(0).lower() in _HYPHEN_IDIOMS
            ):
                continue
            if word.startswith("doubl"):
                continue
        if word == "one" and (
            _ONE_BEFORE.search(s, max(0, start - 8), start) or _ONE_AFTER.match(s, end)
        ):
            continue
        if word.startswith(("doubl", "tripl")) and _SERVES_AS.match(s, end):
            continue  # "doubles as a stress test": serves as, no multiple
        if word == "doppelt" and not _GERMAN_COMPARES.match(s, end):
            continue
        if word in ("double", "triple") and not (
            _DOUBLE_OK_AFTER.match(s, end) or _DOUBLE_OK_BEFORE.search(s, max(0, start - 10), start)
        ):
            continue
        value, unit = _WORD_VALUES[word]
        if word == "twice" and not _TWICE_COMPARES.match(s, end):
            unit = ""
        elif word in _GERMAN_TIMES and not _GERMAN_COMPARES.match(s, end):
            unit = ""  # "zweimal aufgerufen": a count of calls
        if ones is not None:
            value = int(value) + _COUNTS[ones.group(1).lower()]
        count = not unit and isinstance(value, int)
        times = _TIMES_AFTER.match(s, end) if count and lead in ("t", "f") else None
        if times is None and lead == "m" and count and word in _GERMAN:
            times = _GERMAN_MAL.match(s, end)  # "drei Mal so schnell": "dreimal"
        if times is not None:
            unit, end = "x", times.end()
        percent = (
            _PERCENT_AFTER.match(s, end)
            if count and not unit and (after == "%" or lead in ("p", "%"))
            else None
        )
        if percent is not None:  # "twenty percent": a share, as "20 percent" is
            unit, end = "%", percent.end()
        timed = (
            _TIME_AFTER.match(s, end)
            if count and not unit and after == " " and lead in _TIME_LEADS
            else None
        )
        if timed is not None and timed.group("u") in SPACED_UNITS:
            unit, end = SPACED_UNITS[timed.group("u")][0], timed.end()
        elif count and not unit and times is None and after == " " and lead in ("t", "m"):
            counted = (_GERMAN_MAL_COUNTED if word in _GERMAN else _TIMES_COUNTED).match(s, end)
            if counted is not None and uncompared(s, start, counted.end()):
                end = counted.end()  # its text ends in its word: words.counts_events
        out.append(
            Number(
                text=text[start:end], start=start, end=end, kind=WORD,
                value=Decimal(value), unit=unit,
            )
        )  # fmt: skip
    return out


def stated_multiple(n: Number) -> bool:
    """Whether ``n`` is a count word made a multiplier before a comparison ("six times
    faster") or a share ("twenty percent"): a claim as "6 times faster" is, whether or not
    the source has the value ("twice", "doubled" are claims only where it has: "called
    twice" counts calls); "dreimal schneller" is one, "zweimal" is read as "twice" (and
    "drei Mal", "zwei Mal" as the words joined)."""
    word = "".join(n.text.lower().split())
    if n.kind == WORD and n.unit == "x" and word in _GERMAN_TIMES:
        return word != "zweimal"  # "dreimal so schnell" is "three times as fast"
    return n.kind == WORD and n.unit in ("x", "%") and word not in _WORD_VALUES


_TIMES_WRITTEN = ("times", "mal", "Mal")  # a bare figure's text ends so only as a count


def counts_events(n: Number) -> bool:
    """Whether ``n`` counts events with a multiplier's word and no comparison ("called
    twice", "zweimal aufgerufen", "runs 3 times", "3 Mal aufgerufen": the digits' "times"
    is read so by units.spaced_unit): a count of calls or runs, which a source's
    multiplier ("2x faster") does not back though it has the value."""
    if n.unit:
        return False
    if n.kind == WORD:
        word = n.text.lower()
        return word == "twice" or word in _GERMAN_TIMES or word.endswith(("times", "mal"))
    return n.text.endswith(_TIMES_WRITTEN)
