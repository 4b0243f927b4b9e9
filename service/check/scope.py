"""Scope: the words of a sentence that go with one of its figures, and what they must
agree on between the explainer and the source beyond names. A figure's clause (up to a
comma, parenthesis or the split from its neighbouring figure) says the conditions it was
measured under ("4.02x with them enabled") and, for a hyphenated count, what it counts
("512-token output"); a parenthesis of figures ("(5,996 -> 7,027 tok/s on MI325X)")
holds names of its own figures, not of the sentence's others."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from service.ascii import ascii_twin
from service.check.condition import negated, same_pair, with_marks
from service.check.length import length_marks
from service.check.marks import CLAUSE_MARK, split_gap
from service.check.names import Name, noun_pattern
from service.check.unit import Unit
from service.check.window import item_mark
from service.numbers import Number
from service.numbers.context import list_runs
from service.numbers.number import NO_HEDGE, QUANTITY, RANGE, WORD


def figure_scope(
    s: str, nums: Sequence[Number], n: Number, start: int = 0, end: int | None = None
) -> tuple[int, int]:
    """Where the clause of figure ``n`` of ``s[start:end]`` lies: from the split from the
    figure before (the start, for the first) to the clause mark after it (or the split
    from the figure after). A list of figures ("1.58x and 1.68x") shares one."""
    end = len(s) if end is None else end
    seq = [m for m in nums if m.kind in (QUANTITY, RANGE, WORD) and start <= m.start < end]
    groups = list_runs(s, seq)
    g = next((i for i, grp in enumerate(groups) if any(m.start == n.start for m in grp)), -1)
    if g < 0:
        return start, end
    first, last = groups[g][0], groups[g][-1]
    # The first figure's clause takes in what leads up to it ("With them enabled, the
    # speedup was 4.02x"): no other figure's words stand there.
    left = split_gap(s, groups[g - 1][-1].end, first.start)[1] if g > 0 else start
    if g + 1 < len(groups):
        right = split_gap(s, last.end, groups[g + 1][0].start)[0]
    else:
        mark = CLAUSE_MARK.search(s, last.end, end)
        right = mark.start() if mark else end
    return left, right


# Opposites: words that say under which of two conditions a figure was measured (or
# which of two things it is of). A figure the explainer says with one, where the source's
# clause of it says only the other, is another figure ("4.02x ... with deterministic
# algorithms disabled" for "4.82x with them disabled, and 4.02x with them enabled").
# Only pairs whose words are no prepositions ("on"/"off", "before"/"after" say where and
# when more often than which), but for "with"/"without" said of the same thing
# (condition.with_marks: "with X disabled" says "without X" only of "X").
PAIRS: tuple[tuple[str, ...], ...] = (
    ("enable enables enabled enabling", "disable disables disabled disabling"),
    ("forward fwd", "backward backwards bwd"),
    # A prompt is the input, a reply or a response the output (of a model's request).
    ("input inputs prompt prompts", "output outputs reply replies response responses"),
    ("prefill prefills", "decode decodes decoding"),
    ("aligned", "unaligned misaligned"),
    ("dense", "sparse"),
    # A scaling's granularity: a scale per row, per column, per tensor or per tile, each
    # the opposite of the others ("Rowwise FP8 ... 13.4%", "the colwise scales kernel ...
    # 6.2x"; "tensorwise" for a blockwise figure is as wrong as "rowwise"). A negation
    # of one ("not rowwise") says none of the other three: no side.
    ("rowwise row-wise", "colwise columnwise column-wise", "tensorwise tensor-wise", "blockwise"),
    ("cold", "warm"),
    ("static", "dynamic"),
    ("synchronous sync", "asynchronous async"),
    ("minimum", "maximum"),  # not "min": minutes; "max" is a hedge too
    ("best", "worst"),
    ("highest", "lowest"),
    ("fastest", "slowest"),
    ("largest", "smallest"),
    ("small smaller", "large larger"),  # ">100x on small batched matrices and 2–9x on larger"
)
_SIDE: dict[str, tuple[int, int]] = {
    word: (pair, side)
    for pair, words in enumerate(PAIRS)
    for side, forms in enumerate(words)
    for word in forms.split()
}
_BY_FIRST: dict[str, list[str]] = {}
for _word in sorted(_SIDE, key=len, reverse=True):
    _BY_FIRST.setdefault(_word[0], []).append(re.escape(_word[1:]))
# Grouped by first letter: the engine tries one group, not every word (twice as fast).
_OPPOSITE = re.compile(
    r"(?<![\w-])(?:"
    + "|".join(c + "(?:" + "|".join(rest) + ")" for c, rest in sorted(_BY_FIRST.items()))
    + r")(?!\w)",
    re.I,
)
_OPPOSITE_ASCII = ascii_twin(_OPPOSITE)  # for ASCII text (most): see service.ascii
# The words of the pairs no other word of them stands inside ("enable", not "enabled"):
# every match holds one. ASCII text that holds none (lower-cased: the pattern ignores
# case) has no word of a pair, found by `in` in C, where the pattern is tried at each
# position (some 700 instructions a character; 2 of 5 clauses a check reads have none).
_STEMS = tuple(sorted(w for w in _SIDE if not any(o != w and o in w for o in _SIDE)))
# The granularity words all hold "wise": one find for the eight (each costs one turn of
# the loop over the stems, in every clause read), the pattern telling "otherwise" apart.
_STEMS = (*(w for w in _STEMS if "wise" not in w), "wise")
# A negation before the word turns it ("not enabled" is "disabled"): condition.negated.
# A pair is an index of PAIRS, or "with:" and what "with" or "without" is said of.
Marks = frozenset[tuple[int | str, int]]


def opposite_marks(s: str, start: int, end: int) -> Marks:
    """The (pair, side) of each word of an opposite pair in ``s[start:end]``."""
    return frozenset(mark for _, mark in _marked(s, start, end))


def pair_marks(s: str, start: int, end: int) -> Marks:
    """:func:`opposite_marks` of :data:`PAIRS` alone (no "with"/"without", no lengths)."""
    return frozenset(mark for _, mark in _marked(s, start, end, with_too=False))


def marked_words(s: str, start: int, end: int) -> list[tuple[int, tuple[int | str, int]]]:
    """Where each word of an opposite pair in ``s[start:end]`` stands, with its mark."""
    return _marked(s, start, end)


def _marked(
    s: str, start: int, end: int, *, with_too: bool = True
) -> list[tuple[int, tuple[int | str, int]]]:
    """Where each word of an opposite pair in ``s[start:end]`` stands, with its (pair,
    side): of :data:`PAIRS`, "with"/"without" something (:func:`with_marks`) and the
    length of a noun ("short prompts": :func:`length_marks`)."""
    out: list[tuple[int, tuple[int | str, int]]] = []
    # (Outside ASCII the case-blind pattern matches more than lower case tells: "ſ".)
    seg = s[start:end].lower() if s.isascii() else None
    if seg is None or any(w in seg for w in _STEMS):
        for m in (_OPPOSITE_ASCII if seg is not None else _OPPOSITE).finditer(s, start, end):
            pair, side = _SIDE[m.group(0).lower()]
            if negated(s, start, m.start()):
                if len(PAIRS[pair]) > 2:
                    continue
                side = 1 - side
            out.append((m.start(), (pair, side)))
    if with_too and (seg is None or "with" in seg or "using" in seg):
        out.extend(with_marks(s, start, end))
    if with_too and (seg is None or "short" in seg or "long" in seg):
        out.extend(length_marks(s, start, end))  # "short prompts", "long prompts"
    return out


class Sentence:
    """An explainer sentence's opposite-pair words, read on first use (once: only a
    source clause with a word of a pair asks for them, and most never do)."""

    __slots__ = ("_s", "_words")

    def __init__(self, s: str) -> None:
        self._s = s
        self._words: list[tuple[int, tuple[int | str, int]]] | None = None

    @property
    def text(self) -> str:
        return self._s

    def marks(self, start: int, end: int) -> Marks:
        """:func:`opposite_marks` of ``s[start:end]`` (a figure's clause)."""
        if self._words is None:
            self._words = _marked(self._s, 0, len(self._s))
        return frozenset(mark for at, mark in self._words if start <= at < end)


class Clause:
    """The clause of a figure of an explainer :class:`Sentence` (where it lies, as
    :func:`figure_scope` finds it), its marks read once."""

    __slots__ = ("_marks", "_span", "sentence")

    def __init__(self, sentence: Sentence, span: tuple[int, int]) -> None:
        self.sentence, self._span = sentence, span
        self._marks: Marks | None = None

    @property
    def span(self) -> tuple[int, int]:
        return self._span

    @property
    def marks(self) -> Marks:
        if self._marks is None:
            self._marks = self.sentence.marks(*self._span)
        return self._marks


def opposed(clause: Clause, unit: Unit, m: Number | None) -> str:
    """The source's word for a condition of its figure ``m`` that its clause says only the
    opposite of the explainer's ``clause`` says ("enabled" where the explainer says
    "disabled"); else "". A clause that says both, or neither, leaves it open. (No
    figure, for a value derived from several: the unit's whole clause.)"""
    marks = clause.marks
    if not marks or not unit_marks(unit, None):
        return ""  # most explainer clauses, and most source clauses: no word of a pair
    theirs = unit_marks(unit, m)
    if not theirs:
        return ""
    for pair in {p for p, _ in marks}:
        mine = {side for p, side in marks if p == pair}
        said = {side for p, side in theirs if same_pair(p, pair)}
        if said and not mine & said:
            a, b = (
                (unit.start, unit.end)
                if m is None
                else figure_scope(unit.text, unit.numbers, m, unit.start, unit.end)
            )
            for at, (p, side) in _marked(unit.text, a, b):  # the word, as the source has it
                if same_pair(p, pair) and side in said:
                    word = _WORD.match(unit.text, at)
                    return word.group(0) if word else ""
    return ""


_WORD = re.compile(r"\w+")


def unit_marks(unit: Unit, m: Number | None) -> Marks:
    """:func:`opposite_marks` of the clause of source figure ``m`` (None: of the unit's
    whole clause), memoised on the unit: a source is checked again and again."""
    key = -1 if m is None else m.start
    if unit.marks is None:
        unit.marks = {}
    found = unit.marks.get(key)
    if found is None:
        if m is None:
            found = opposite_marks(unit.text, unit.start, unit.end)
        else:
            found = opposite_marks(
                unit.text, *figure_scope(unit.text, unit.numbers, m, unit.start, unit.end)
            )
        unit.marks[key] = found
    return found


# The words of a noun phrase right after a count ("512-token prompt", "512 prompt
# tokens"): what the count measures, up to a stop word, a mark or three words.
HEAD_WORDS = re.compile(r"\s+([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*)")
PLAIN_WORDS = re.compile(r"\s+([a-z]+(?:-[a-z]+)*)(?![\w-])")  # no name, no figure
_JOINED_NOUN = re.compile(r"(?:-[A-Za-z]+)+")


def noun_phrase(
    s: str,
    pos: int,
    stop: frozenset[str],
    words: re.Pattern[str],
    after: frozenset[str] = frozenset(),
) -> list[str]:
    """The words of the noun phrase at ``pos``: up to three, up to a stop word (or one of
    ``after``), lower case; an adjective of amount (:data:`_AMOUNT`) or a superlative
    compound ("most-downloaded") goes on past."""
    out: list[str] = []
    superlative = False
    for _ in range(5):
        m = words.match(s, pos)
        if m is None:
            break
        word = m.group(1).lower()
        pos = m.end()
        if word in _AMOUNT:
            continue
        if word.startswith(_SUPERLATIVE):
            superlative = True
            continue
        if superlative and len(word) == 2 and word not in stop:
            continue  # "most-downloaded HF embedding models" (a text read in lower case)
        if word in stop or len(word) < 3 or word in after:
            break
        out.append(word)
        if len(out) == 3:
            break
    return out


# Words inside a counted phrase that say "in addition", not what is counted: "256 new
# output tokens" counts output tokens (a stop word there ended the phrase, and any noun
# near the figure backed it: the "256 x 256 output tile").
_AMOUNT = frozenset({"new", "more", "additional", "extra", "further", "fresh"})
# A superlative compound picks which ones, as "most popular" does (a stop word ends the
# phrase there): "the 10,000 most-downloaded HF embedding models" counts models, not
# "most-downloaded" (the day-one enablement post).
_SUPERLATIVE = ("most-", "least-")


def compound_head(s: str, n: Number, stop: frozenset[str]) -> tuple[str, ...]:
    """The words after a hyphenated count (its noun joined to it: "512-token") that say
    what it counts tokens of ("prompt"), or before the noun a plain count counts ("512
    prompt tokens": :func:`counted_phrase`), lower case; () when the count has none, or a
    unit of measure ("8-bit inference": a measure, not a count of the words after it)."""
    if n.unit:
        return ()
    if not n.noun:
        return counted_phrase(s, n, stop, HEAD_WORDS)[1]
    joined = _JOINED_NOUN.match(s, n.end)  # the number's end is before its noun
    words = noun_phrase(s, joined.end() if joined else n.end, stop, HEAD_WORDS)
    # "open-weight model": each part a word of it
    return tuple(part for word in words for part in word.split("-"))


# Words that end a noun phrase after a count besides the stop words: prepositions, and
# words that say how a counted noun measures ("256 tokens long", "512 threads total").
AFTER_NOUN = frozenset(
    "long wide deep high tall old apart total overall ago later earlier each apiece "  # noqa: SIM905
    "combined altogether only along through toward towards via inside beyond behind past "
    "onto upon alongside throughout until since like despite versus except near".split()
)
SINGULAR_S = ("ss", "us", "is")
_OF_PHRASE = re.compile(r"\s+([A-Za-z]+s)\s+of\s+[A-Za-z]")


def counted_phrase(
    s: str, n: Number, stop: frozenset[str], words: re.Pattern[str] = PLAIN_WORDS
) -> tuple[str, tuple[str, ...]]:
    """What a plain count (no unit, no noun joined to it) followed by a noun phrase of
    two words or more counts ("tokens" of "512 prompt tokens"), and the words before that
    noun, which say of what ("prompt"): read as "a 512-token prompt" is. The counted
    noun is the phrase's first plural ("8-16 candidate configurations brought": not
    "brought"). ("", ()) for a count of one noun or none ("512 tokens": its nouns bind
    it, any one). An explainer's phrase is of lower-case words only (a name stops it); a
    source's, lower-cased, of any."""
    if n.unit or n.noun or n.kind not in (QUANTITY, RANGE):
        return "", ()
    found = noun_phrase(s, n.end, stop, words, AFTER_NOUN)
    k = next((i for i, w in enumerate(found) if w.endswith("s") and not w.endswith(SINGULAR_S)), 0)
    if k == 0:
        # "256 tokens of output" counts tokens, as "256 output tokens" does (the noun must
        # stand near the source's figure: not "256 x 256 output tile"); what of is left
        # to the opposite pairs ("of output" for "256-token input"): "tokens of context"
        # for "learned gist tokens" says the same in looser words.
        of = _OF_PHRASE.match(s, n.end) if len(found) == 1 else None
        return (found[0], ()) if of is not None and of.group(1).lower() == found[0] else ("", ())
    return found[k], tuple(part for word in found[:k] for part in word.split("-"))


def names_things(s: str, n: Number, stop: frozenset[str]) -> bool:
    """Whether a source figure is followed by a word of its own that says what it counts
    ("256 x 256 output tile"): a count of other things where the explainer's noun is not
    near it. (A figure at the end of its clause, "ranges from 8 to 256", says none.)"""
    if n.noun or _SHAPE_SIDE.match(s, n.end) or item_mark(s, n):
        return True  # a side of a shape, an item's mark: no count of the explainer's noun
    return bool(noun_phrase(s, n.end, stop, HEAD_WORDS, AFTER_NOUN)[:1])


_SHAPE_SIDE = re.compile(r"\s*[x×]\s*\d")


# Words that say the same thing as another: what a count of a model's request counts.
_SAME = {
    "prompt": "input",
    "reply": "output",
    "response": "output",
    "completion": "output",
    "generated": "output",
}
_PLURAL = re.compile(r"(?:e?s)$")


def _same(word: str) -> str:
    return _SAME.get(word, _SAME.get(_PLURAL.sub("", word), word))


def heads_agree(head: tuple[str, ...], theirs: tuple[str, ...]) -> bool:
    """Whether two counts' head words name the same thing: some word of one has the stem
    of some word of the other ("prompts" and "prompt"; "suite" and "BF16 suite"), or is
    a word of the same (:data:`_SAME`: a prompt is the input, a reply the output). A
    source count with no head says nothing against the explainer's."""
    if not head or not theirs:
        return True
    if any(noun_pattern(a).match(b) or noun_pattern(b).match(a) for a in head for b in theirs):
        return True
    return bool({_same(a) for a in head} & {_same(b) for b in theirs})


# A parenthesis with a digit in it: figures of their own, and the names said of them.
_DATA_ASIDE = re.compile(r"\([^()]*\d[^()]*\)")


def aside_only(unit: Unit, m: Number, name: Name) -> bool:
    """Whether the source's clause has ``name`` only in parentheses of figures that are
    not about its figure ``m``: a parenthesis of figures ("recovered 89% of the overhead
    (5,996 -> 7,027 tok/s on 8xMI325X GPU), and the colwise kernel delivered 6.2x")
    gives its names to its own figures and to the figure it follows, not to a figure
    after it. A name also outside such parentheses, or in the clause's label or heading,
    goes with every figure as before."""
    text, start, end = unit.text, unit.start, unit.end
    if text.find("(", start, end) < 0:
        return False
    asides = [x.span() for x in _DATA_ASIDE.finditer(text, start, end)]
    if not asides:
        return False
    figures = [x.start for x in unit.numbers if x.kind in (QUANTITY, RANGE)]
    found = False
    for hit in name.pattern.finditer(text, start, end):
        found = True
        span = next((a for a in asides if a[0] <= hit.start() < a[1]), None)
        if span is None or span[0] <= m.start < span[1]:
            return False  # in the clause proper, or in m's own parenthesis
        # The figure the parenthesis follows (none: it follows a noun, and elaborates it).
        k = bisect.bisect_left(figures, span[0]) - 1
        before = [f for f in figures[: k + 1] if not any(a <= f < b for a, b in asides)]
        if not before or before[-1] == m.start:
            return False
    if not found:
        return False  # in the label or a heading: context for every figure
    return not name.pattern.search(unit.context, max(0, end - start))


# "over" before a count reads "more than" or "across" ("over 24 cases"); a source that
# writes its count after "across" or "over" tells which.
_OVER = re.compile(
    r"(?<!\bon)(?<!\bin)(?<!\bat)(?<!\bto)(?<!\bof)(?<!\bby)(?<!\bis)(?<!\bbe)(?<!\bfor)"
    r"(?<!\bwith)(?<!\bthan)(?<!\bfrom)(?<!\bare)(?<!\bwas)(?<!\bwere)(?<!\bhas)(?<!\bhave)"
    r"(?<!\bhad)\s+over\s+$",
    re.I,
)
_ACROSS = re.compile(r"\b(?:across|over)\s+(?:all\s+|the\s+|all\s+the\s+)?$")


def over_count(s: str, nums: Sequence[Number], n: Number) -> bool:
    """Whether explainer figure ``n`` is a bare count right after "over" that says what
    a measured figure before it in its sentence spans ("1.95x faster than ATen over 24
    cases"); not after a preposition or a verb of being or having, where "over" says
    "more than" ("tested on over 24 cases", "has over 24")."""
    if n.unit or _OVER.search(s, max(0, n.start - 20), n.start) is None:
        return False
    return any(m.unit and m.end <= n.start for m in nums if m.kind in (QUANTITY, RANGE))


def after_across(unit: Unit, m: Number) -> bool:
    """Whether a source figure is an unhedged count right after "across" or "over" ("across
    all 24 grouped-GEMM cases")."""
    return (
        not m.unit
        and m.hedge is NO_HEDGE
        and _ACROSS.search(unit.text, max(0, m.start - 20), m.start) is not None
    )
