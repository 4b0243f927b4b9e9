"""What a count word of the source counts, against the explainer's noun: the step that
tells "across four recent models" from the source's "four design principles" (the same
word, other things counted), for :func:`~service.check.verbatim.match_word`. Kept apart
from :mod:`.setting` (the conditions a source figure is stated under): it reads only the
words right after one source count."""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

from service.check.index import SourceIndex
from service.check.match import Outcome
from service.check.names import STOP_WORDS
from service.check.scope import AFTER_NOUN, HEAD_WORDS, SINGULAR_S, noun_phrase
from service.check.unit import Hit, Unit
from service.models import CheckStatus
from service.numbers import Number
from service.numbers.number import QUANTITY, WORD

# Nouns that name no thing of their own: a count of them may be any count of the post's
# ("the post names four ways to ..." of "four design principles"; "three additions" told
# as "three changes"), neither side a different thing.
GENERIC_NOUNS = frozenset(
    "ways things kinds types sorts parts pieces aspects areas points categories forms "  # noqa: SIM905
    "ideas items elements stages steps changes components".split()
)


# A label of a sequence right before a figure ("Day two", "Step 3", "Phase two"): the
# figure is a place among the label's things, no count of them ("day two" of a summit of
# three days) nor of the word after it ("Day two closes with 3 talks": "closes" a verb).
_SEQUENCE_LABEL = re.compile(
    r"(?<![\w-])(day|week|month|step|phase|stage|part|round|chapter|season|episode"
    r"|lesson|session)[ \t]+$",
    re.I,
)


# Words before the label that make it a noun of its own and the figure a count after it:
# "each step two experts are routed", "in a day two models shipped".
_NOT_LABEL = frozenset("a an the each every per one that this last next same any".split())  # noqa: SIM905
_WORD_BEFORE = re.compile(r"(?<![A-Za-z])([A-Za-z]+)[ \t]+$")


def sequence_label(s: str, n: Number) -> str:
    """The plural of the sequence's label right before ``n`` in ``s`` ("days" of "Day
    two"), the things it is a place among; "" for none (:data:`_SEQUENCE_LABEL`)."""
    m = _SEQUENCE_LABEL.search(s, max(0, n.start - 12), n.start)
    if m is None:
        return ""
    before = _WORD_BEFORE.search(s, max(0, m.start() - 8), m.start())
    if before is not None and before.group(1).lower() in _NOT_LABEL:
        return ""
    return m.group(1).lower() + "s"


# The ordinal words of the places a label numbers ("the second day"), first to twentieth.
_ORDINALS = (  # noqa: SIM905
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth "
    "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth"
).split()


def placed(idx: SourceIndex, found: Sequence[Hit], value: Decimal, label: str) -> int | None:
    """The source unit that names the place an explainer's count word after a sequence's
    label gives ("Day two", ``label`` "days"), among the places of its value (``found``):
    first one after the same label ("day two", "Day 2"), then the ordinal before the
    label ("the second day", "2nd day"), then a count or a span of the label's things
    ("two days", "a two-day summit": the last of them is day two); None when the source
    names no such place (its "two" counts other things: "Two tracks run")."""
    for u, m in found:
        if sequence_label(idx.units[u].text, m) == label:
            return u
    if value == value.to_integral_value() and 1 <= value <= len(_ORDINALS):
        k = int(value)
        suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
        ordinal = re.compile(
            rf"(?<![\w-])(?:{_ORDINALS[k - 1]}|{k}{suffix})[ \t]+{re.escape(label[:-1])}s?(?![\w-])"
        )
        at = ordinal.search(idx.joined)
        if at is not None:
            return idx.unit_at(at.start())
    hyphened = re.compile(rf"-{re.escape(label[:-1])}s?(?![\w-])")  # "a two-day summit"
    for u, m in found:
        unit = idx.units[u]
        if m.unit == label[:-1] or counts_noun(unit, m, label) or hyphened.match(unit.text, m.end):
            return u  # "two days"
    return None


def at_place(idx: SourceIndex, s: str, n: Number, outcome: Outcome) -> Outcome:
    """The ``outcome`` of the explainer's digits after a sequence's label ("Day 2" in
    ``s``), read as the word's ("Day two", :func:`~.verbatim.match_word`): supported where
    the source names that place, as :func:`placed` finds one (its "day 2" or "day two",
    "the second day", "2nd day", "two days"), else as :func:`unplaced` says, not backed
    by a "2" of other things ("PyTorchCon has 2 stages" for "Day 2 of PyTorchCon"). A
    sentence the source backs them with that writes the label and the digits too is kept;
    digits of a value the source does not hold keep their verdict ("not in the source"),
    as does any other figure."""
    if n.kind != QUANTITY or n.unit or n.value is None:
        return outcome
    label = sequence_label(s, n)
    if not label:
        return outcome
    found = idx.singles.get(n.value, [])
    if outcome.status == CheckStatus.SUPPORTED and any(
        u == outcome.unit and sequence_label(idx.units[u].text, m) == label for u, m in found
    ):
        return outcome  # its own "Day 2"
    u = placed(idx, found, n.value, label)
    if u is not None:
        return Outcome(CheckStatus.SUPPORTED, u)
    if not found and outcome.status not in (CheckStatus.SUPPORTED, CheckStatus.DERIVED):
        return outcome
    return unplaced(idx, found, label, n.text)


# A word before a label that names one of its places ("the last day", "the 3rd round").
_PLACE_BEFORE = re.compile(
    rf"(?<![\w-])(?:{'|'.join(_ORDINALS)}|\d+(?:st|nd|rd|th)|last|final|opening|closing)"
    r"[ \t]+$"
)


def unplaced(idx: SourceIndex, found: Sequence[Hit], label: str, written: str) -> Outcome:
    """The verdict of a place after a sequence's label the source does not name ("Day
    two", "Day 2": ``written`` "two", "2", of ``label`` "days"; ``found``: the source's
    places of its value). Where the source names other places of the label's things or
    counts them (its "Day 3", "the last day", "three days"), misattached: to a place of
    the value that counts other things, saying what ("the source counts tracks there, not
    \"days\""), else to the source's other place ("the source names no day two"). Where
    it names no such thing anywhere, unsupported with no source sentence ('the source has
    no "day two"'): any sentence of the value (an "8.5x slowdown", a "2-series") is
    unrelated to it."""
    other = _other_place(idx, label)
    if other is None:
        return Outcome(CheckStatus.UNSUPPORTED, None, f'the source has no "{label[:-1]} {written}"')
    for u, m in found:
        why = word_counts_other(idx.units[u], m, label, (label,), place=True)
        if why:
            return Outcome(CheckStatus.MISATTACHED, u, why)
    return Outcome(CheckStatus.MISATTACHED, other, f"the source names no {label[:-1]} {written}")


# The word a hyphen joins to the label ("three" of "a three-day summit").
_HYPHENED = re.compile(r"(?<![\w-])(\w+)-$")


def _other_place(idx: SourceIndex, label: str) -> int | None:
    """The first source unit that names a place among ``label``'s things (a figure after
    the label, "Day 3"; an ordinal or "last" before it, "the third day") or counts them
    ("three days", "a 3-day summit", "three-day"); None where the source has none. Read only for a
    place :func:`placed` found none of (few)."""
    word = label[:-1]
    for at in re.finditer(rf"(?<!\w){re.escape(word)}s?(?![\w-])", idx.joined):  # "3-day"
        u = idx.unit_at(at.start())
        if u is None:
            continue
        if _PLACE_BEFORE.search(idx.joined, max(0, at.start() - 16), at.start()):
            return u
        unit = idx.units[u]
        hyphened = _HYPHENED.search(idx.joined, max(0, at.start() - 24), at.start())
        counted = hyphened.group(1) if hyphened else ""  # "three-day"
        for m in unit.numbers:
            if m.kind in (QUANTITY, WORD) and (
                m.unit == word
                or m.text.lower() == counted
                or sequence_label(unit.text, m) == label
                or counts_noun(unit, m, label)
            ):
                return u
    return None


def word_counts_other(
    unit: Unit, number: Number, noun: str, phrase: Sequence[str], place: bool = False
) -> str:
    """Why the source's count word ``number`` in ``unit`` counts other things than the
    explainer's ``noun`` (the head of its ``phrase``: "four recent models"), the word
    counting the same: the source's words right after it name a plural of their own
    ("four design principles"), no form of the noun among them and no word of the
    explainer's phrase their head ("four expert layers" of "four experts": the same
    experts); "" when it counts the noun, or no clear noun ("one of the", "the four
    differ": a word is a pronoun as often as a count), or either noun is a generic one
    (:data:`GENERIC_NOUNS`). ``place``: ``noun`` is the label of a place the explainer
    names ("Step 2": steps), no count of it: a count of any things, generic ones too
    ("2 stages"), is of other things."""
    if noun in GENERIC_NOUNS and not place:
        return ""
    label = sequence_label(unit.text, number)
    if label:  # ("day two": a place among days, of no word after it)
        return "" if _form_of(noun, [label]) else f'the source numbers {label} there, not "{noun}"'
    theirs = noun_phrase(unit.text, number.end, STOP_WORDS, HEAD_WORDS, AFTER_NOUN)
    theirs += [number.noun.lower()] if number.noun else []
    head = next((w for w in theirs if w.endswith("s") and not w.endswith(SINGULAR_S)), "")
    if not head or (head in GENERIC_NOUNS and theirs[0] == head and not place):
        return ""  # (a generic noun said of what, "entry points", is no generic one)
    # A hyphenated compound holds its parts: "four decoder-only models" counts models.
    said = [part for w in theirs for part in w.split("-")]
    if _form_of(noun, said) or any(_form_of(w, head.split("-")) for w in phrase):
        return ""
    # Up to its head: "three additions give more control" counts additions.
    return f'the source counts {" ".join(theirs[: theirs.index(head) + 1])} there, not "{noun}"'


def counts_noun(unit: Unit, number: Number, noun: str) -> bool:
    """Whether the source's count ``number`` in ``unit`` counts ``noun``: a form of it
    among the words of its phrase ("three recent models", "3 models"); a place in a
    sequence counts none ("day two" of a summit of three days)."""
    if sequence_label(unit.text, number):
        return False
    theirs = noun_phrase(unit.text, number.end, STOP_WORDS, HEAD_WORDS, AFTER_NOUN)
    return _form_of(noun, [part for w in theirs for part in w.split("-")])


def _form_of(noun: str, words: Sequence[str]) -> bool:
    """Whether a word of ``words`` is a form of ``noun`` as
    :func:`~service.check.names.find_noun` finds one (its five-letter stem starting the
    word, or the word a shortening of it: "params"), by string tests: the few words of a
    count's phrase, for which no pattern is worth compiling (each new word a
    compilation)."""
    stem = noun[:5]
    return any(w.startswith(stem) or (len(w) >= 3 and noun.startswith(w)) for w in words)
