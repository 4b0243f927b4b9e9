"""A source figure said of what the sentence before it names: "FlexAttention on AMD's
RDNA3 GPUs gets tuned tile configs. The result is roughly 2-8x lower latency." The
figure's own clause opens with a word that points back ("The result", "This", "It",
"These kernels"), and names nothing of its own but a baseline ("than SDPA"): its
subject is the nearest sentence before it in the paragraph that names anything, so an
explainer's "FlexAttention has roughly 2-8x lower latency" is the source's. A clause
that names another thing ("SDPA is roughly 2-8x faster") says the figure of that,
however its paragraph opens; and a subject of plain words ("The baseline is 2x
slower") is no pointer back."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.check.bind import Binding
from service.check.condition import same_pair
from service.check.index import SourceIndex
from service.check.known_names import known_names
from service.check.marks import CLAUSE_MARK
from service.check.names import HARDWARE_NOUNS, Name
from service.check.products import counts_kind
from service.check.scope import Clause, marked_words
from service.check.unit import Hit, Unit
from service.numbers import Number, extract_numbers
from service.text import split_sentences

# The nouns of another thing than the one named before ("Its baseline is 2x slower",
# "This competitor ...", "These older kernels"): no pointer to it.
_OTHERS = (
    r"(?:other|old|new|baseline|competitor|rival|alternative|predecessor|successor|default"
    r"|reference|counterpart|previous|prior|original|older|legacy|naive|unoptimi[sz]ed"
    r"|untuned|rest|remaining)"
)
# A clause's opening that points back, before its figure: a pronoun, a demonstrative or
# possessive ("This", "These kernels", "Its latency"; not of another thing: "Its
# baseline"), or the result of what came before ("The result", "The net effect"; not
# "The result of the baseline run"), after a leading phrase ("On average, this gives
# ...": its names, as the clause's, are read apart).
_POINTER = re.compile(
    r"\s*(?:[^,;:]*,\s*)?"
    r"(?:it|this|that|these|those|they|both|together|its|their"
    r"|the\s+(?:net\s+|overall\s+|end\s+|combined\s+)?"
    r"(?:results?|outcomes?|effects?|gains?|improvements?|speed-?ups?|payoffs?|benefits?"
    r"|impacts?|changes?|differences?))\b"
    r"(?!\s+(?:of|for|from|on|in|with)\b)(?!\s+" + _OTHERS + ")",
    re.IGNORECASE,
)

# What the baseline of a comparison follows ("2x faster than SDPA", "a 1.5x speedup
# over SDPA"): a name right after it (an article or two words between) is no subject.
_THAN = re.compile(
    r"\b(?:than|over|against|vs\b\.?|versus|compared\s+(?:to|with)|relative\s+to)"
    r"(?:\s+[\w-]+){0,2}?\s+$",
    re.IGNORECASE,
)


def said_before(
    idx: SourceIndex, hits: Sequence[Hit], binding: Binding
) -> tuple[int | None, int, str] | None:
    """The first hit whose unit backs the explainer's names as the subject its clause
    points back to: the clause opens with a pointer (:data:`_POINTER`), names nothing the
    explainer does not but baselines and plain hardware nouns, and the names the unit
    lacks all stand in the nearest sentence before it in its paragraph that names
    anything (the clauses of its own sentence before it first); and neither the clause
    (:meth:`Binding.against`) nor that sentence (:func:`_said_otherwise`) says anything
    against the figure: (that unit, the first hit's unit, ""). Else, where a sentence
    pointed back to holds the names but says the opposite condition, (None, its
    figure's unit, why); None when none holds (most figures: their clause names their
    subject, or no name is missing)."""
    if not binding.names:
        return None
    keys = {x.key for x in binding.names}
    opposite: tuple[int | None, int, str] | None = None
    for u, m in hits:
        unit = idx.units[u]
        a, b = unit.sentence
        if a == b or len(unit.cased) != len(unit.text) or not unit.start <= m.start < unit.end:
            continue  # a line or a table row: no sentence before to point to
        start = max(unit.start, _clause_start(unit, m))
        if _POINTER.match(unit.text, start, m.start) is None:
            continue  # (most clauses name their subject)
        missing = [x for x in binding.names if not _held(binding, unit, m, x)]
        if not missing or _own_subject(idx, unit, m, start, keys):
            continue
        before = _antecedent(idx, unit, start)
        if not all(x.pattern.search(before) for x in missing) or binding.against(unit, m):
            continue
        word = _said_otherwise(binding.clause, before)
        if not word:
            return u, hits[0][0], ""
        if opposite is None:
            opposite = (None, u, f'the source gives it for the opposite ("{word}")')
    return opposite


def _said_otherwise(clause: Clause | None, before: str) -> str:
    """The word of the sentence pointed back to (``before``) that says only the other side
    of a pair the explainer's ``clause`` says one side of ("forward" of "FlexAttention
    gets tuned tiles for the forward pass. The result is 2x faster." for "2x faster in
    the backward pass"), as :func:`~service.check.scope.opposed` reads a figure's own
    clause; "" when none does."""
    mine = clause.marks if clause is not None else frozenset()
    if not mine:
        return ""
    theirs = marked_words(before, 0, len(before))
    for pair in {p for p, _ in mine}:
        sides = {side for p, side in mine if p == pair}
        said = {side for _, (p, side) in theirs if same_pair(p, pair)}
        if said and not sides & said:
            at = next(at for at, (p, side) in theirs if same_pair(p, pair) and side in said)
            return before[at:].split(maxsplit=1)[0].strip(".,;:!?()")
    return ""


def _held(binding: Binding, unit: Unit, m: Number, x: Name) -> bool:
    """Whether the unit holds name ``x`` as :meth:`Binding.names_hold` reads it."""
    return (
        unit.mentions(x)
        or (x in binding.setting and unit.mentions(x, paragraph=True))
        or counts_kind(unit, m, x.key)
    )


def _clause_start(unit: Unit, m: Number) -> int:
    """Where the figure's clause starts in its unit: after the last clause mark before it
    that is no comma of a leading phrase nor a parenthesis (a semicolon, a colon, a
    dash: "The result (on average) is 2x" is one clause)."""
    start, text = unit.start, unit.text
    if all(text.find(c, start, m.start) < 0 for c in ":;-"):
        return start  # (most clauses: a find in C, no pattern)
    for mark in CLAUSE_MARK.finditer(text, start, m.start):
        if text[mark.start()] not in ",()[]":
            start = mark.end()
    return start


def _own_subject(idx: SourceIndex, unit: Unit, m: Number, start: int, keys: set[str]) -> bool:
    """Whether the figure's clause (from ``start`` to its unit's end) names a thing of
    its own that the explainer does not (``keys``): a subject, a setting, what it is
    measured on; not a baseline after "than" or "over", nor a plain hardware noun."""
    text = unit.cased
    nums = [n for n in unit.numbers if start <= n.start < unit.end]
    for x in known_names(text, nums, idx, start, unit.end):
        if x.key in keys or x.key in HARDWARE_NOUNS:
            continue
        if x.start > m.end and _THAN.search(text, m.end, x.start):
            continue  # the baseline of the comparison: no subject
        return True
    return False


def _antecedent(idx: SourceIndex, unit: Unit, start: int) -> str:
    """The lower-case text a pointer at ``start`` points back to: its sentence's clauses
    before it, else the nearest sentence before in its paragraph that names anything
    ("" when none does)."""
    a = unit.sentence[0]
    text, cased = unit.text, unit.cased
    if start > a and _names(idx, cased[a:start]):
        return text[a:start]
    for sentence in reversed(split_sentences(cased[:a], code=True) if a else []):
        if _names(idx, sentence):
            return sentence.lower()
    return ""


def _names(idx: SourceIndex, text: str) -> bool:
    return bool(known_names(text, extract_numbers(text), idx))
