"""Beyond a figure's six words: what else an explainer sentence says its figures of,
read once per figure for the check (:meth:`~service.check.bind.Binding.against`, through
:func:`~service.check.setting.said_elsewhere`): the names further off in its clause, a
name's kind ("Grouped GEMM"), the words of a figure with no name, the one noun a bare
count counts, and a title-cased count phrase read in lower case."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from service.check.bind import Binding
from service.check.index import SourceIndex
from service.check.marks import CLAUSE_MARK, split_gap
from service.check.names import (
    GERMAN_STOP_WORDS,
    STOP_WORDS,
    Name,
    content_words,
    name_pattern,
)
from service.check.phrases import coordinated_lead
from service.check.scope import AFTER_NOUN, HEAD_WORDS, PLAIN_WORDS, SINGULAR_S, noun_phrase
from service.check.word_counts import sequence_label
from service.numbers import Number
from service.numbers.direction import CHANGE_WORD
from service.numbers.number import QUANTITY


def far_names(
    s: str,
    nums: Sequence[Number],
    names: Sequence[Name],
    n: Number,
    binding: Binding,
    left: int,
) -> tuple[Name, ...]:
    """The names of a measured figure's clause that its binding does not hold, past its
    six words: "FlyDSL gives a 1.10x speedup over the faster of ATen and Triton on MXFP8
    GEMM". The clause runs from the last clause mark between ``left`` (the split from the
    figure before, or the sentence's start) and the figure (a sentence's first clause
    holds what leads up to it: "ExecuTorch: ..., Solo achieves 21.6 tok/s") to the next
    mark, or to the split from the next measured figure: a bare count between is part of
    the measure ("1.58x over ATen across the 17 shapes for MXFP4"). The source must name
    them where it gives the figure: in its sentence, the paragraph before it, its label
    or headings (:meth:`Binding.against`). (By bisection: a sentence of thousands of
    figures is read in linear time.)"""
    if not names or names[-1].start < left:
        return ()
    a = left
    for m in CLAUSE_MARK.finditer(s, left, n.start):
        a = m.end()
    mark = CLAUSE_MARK.search(s, n.end)
    b = mark.start() if mark else len(s)
    # A phrase leading the next coordinated clause ends this one at its coordinator:
    # "1.5x over ATen and with BF16, MI355X reaches 1.2x" (BF16 is the 1.2x's).
    lead = coordinated_lead(s, n.end, min(len(s), b + 2))
    b = lead[0] if lead else b
    lo = bisect.bisect_left(names, a, key=lambda x: x.start)
    hi = bisect.bisect_left(names, b, key=lambda x: x.start)
    if lo == hi:
        return ()
    k = bisect.bisect_left(nums, n.end, key=lambda m: m.start)
    after = next((m for m in nums[k:] if m.start >= b or m.unit), None)
    if after is not None and after.start < b:
        b = split_gap(s, n.end, after.start)[0]
        hi = bisect.bisect_left(names, b, key=lambda x: x.start)
    bound = {x.key for x in (*binding.names, *binding.inherited, *binding.others)}
    return tuple({x.key: x for x in names[lo:hi] if x.key not in bound}.values())


# The capitalised words right after a count ("512 Prompt Tokens"), up to four.
_TITLE_PHRASE = re.compile(r"(?:[ \t]+[A-Z][a-z]+(?![\w-])){1,4}")
_TITLE_WORD = re.compile(r"[A-Z][a-z]+")


def title_counts(idx: SourceIndex, s: str, nums: Sequence[Number]) -> str:
    """``s`` with the capitalised words right after a bare count in lower case, but for
    names the source never writes so ("Triton"): a title-cased heading or table cell
    ("512 Prompt Tokens") says what "512 prompt tokens" says, and its words are no names
    of the figure ("Tokens" is not in "512-token output"). The same length as ``s``."""
    for n in nums:
        if n.unit or n.noun or n.kind != QUANTITY or not s[n.end + 1 : n.end + 2].isupper():
            continue  # (most figures: one slice)
        m = _TITLE_PHRASE.match(s, n.end)
        if m is None:
            continue
        lowered = _TITLE_WORD.sub(
            lambda w: w.group(0).lower() if w.group(0).lower() in idx.cased else w.group(0),
            m.group(0),
        )
        s = s[: m.start()] + lowered + s[m.end() :]
    return s


# A cell of a table row (between "|" marks): its text, after its column's name in a row
# of the explainer's own table as rendered ("Setting: Output Tokens | Value: 512").
_CELL_TEXT = re.compile(r"[ \t]*(?:[^|:\n]*:[ \t]+)?(?P<text>[^|]*?)[ \t]*$")
_LABEL_WORDS = re.compile(r"[A-Za-z]+(?:[ \t-]+[A-Za-z]+){0,3}")
_LABEL_TITLE_WORD = re.compile(r"(?<![A-Za-z])[A-Z][a-z]+(?![A-Za-z])")  # not "Us" of "GPUs"


def _cell(s: str, a: int, b: int) -> tuple[int, int]:
    m = _CELL_TEXT.match(s, a, b)
    assert m is not None  # every part of it is optional
    return m.span("text")


def row_labels(idx: SourceIndex, s: str, nums: Sequence[Number]) -> tuple[str, dict[int, str]]:
    """A table row whose first cell is a label of words and a later cell a bare count
    alone ("| Output Tokens | 512 |", "Setting: Output Tokens | Value: 512"): ``s`` with
    the label's capitalised words in lower case, but for names the source never writes
    so (as :func:`title_counts` does; the same length), and per such count (by start) the
    label, which says what it counts: the row reads "512 output tokens", and "Tokens" is
    no name of the figure. A count with a unit, or a cell of more, is left as written
    ("| Triton | 1.95x |": the row's label is what its measure is said of)."""
    if "|" not in s:
        return s, {}
    out: dict[int, str] = {}
    for n in nums:
        if n.unit or n.noun or n.kind != QUANTITY:
            continue
        left, right = s.rfind("|", 0, n.start), s.find("|", n.end)
        if left < 0 or _cell(s, left + 1, len(s) if right < 0 else right) != (n.start, n.end):
            continue  # not alone in a cell
        first = s.find("|", 0, left + 1)
        begin = first + 1 if first >= 0 and not s[:first].strip() else 0
        end = s.find("|", begin)
        a, b = _cell(s, begin, end)
        if end < 0 or end > left or _LABEL_WORDS.fullmatch(s, a, b) is None:
            continue
        label = _LABEL_TITLE_WORD.sub(
            lambda w: w.group(0).lower() if w.group(0).lower() in idx.cased else w.group(0),
            s[a:b],
        )
        s = s[:a] + label + s[b:]
        out[n.start] = label
    return s, out


def about_words(s: str, n: Number, scope: tuple[int, int]) -> tuple[str, ...]:
    """The words a measured figure with no name is said of: the last three content words
    of its clause before it, but for words of which way it moved ("time to first token
    dropped about 19%": time, first, token). (Not those after it: a condition, "with
    deterministic algorithms disabled", is the opposite pairs' to judge.)"""
    words = content_words(s[scope[0] : n.start], last=True)
    return tuple(w for w in words if not CHANGE_WORD.fullmatch(w))


def paired_words(s: str, span: tuple[int, int]) -> tuple[str, ...]:
    """:func:`about_words` of a figure of a list that "respectively" pairs with one of a
    list of phrases ("time to first token and end-to-end latency dropped about 38% and
    19%, respectively": the 38%'s are time, first, token), at ``span``."""
    words = content_words(s[span[0] : span[1]], last=True)
    return tuple(w for w in words if not CHANGE_WORD.fullmatch(w))


def direct_noun(s: str, n: Number) -> str:
    """The noun right after a bare count, when the phrase there is that one word ("487
    commits from"): what it counts (a phrase of more words is
    :func:`~service.check.scope.counted_phrase`'s). A capitalised word counts too where
    it is a German noun spelt as the English one it is a cognate of
    (:data:`GERMAN_COUNTED`: "1,2 Millionen Parameter", "8 Experten"), or a name's plural
    ("512 GPUs", "8 LLMs"), returned as written: an abbreviation may stand for the
    source's words ("40 PRs" for "40 pull requests"), and counts only where the source
    writes it too (:func:`~service.check.setting.said_elsewhere`). The one word of its
    phrase, as a plain plural must be. None after a sequence's label ("Day two closes":
    :func:`~service.check.word_counts.sequence_label`)."""
    if sequence_label(s, n):
        return ""
    words = noun_phrase(s, n.end, STOP_WORDS, PLAIN_WORDS, AFTER_NOUN)
    if words:
        return words[0] if len(words) == 1 and words[0].endswith("s") else ""
    m = _CAPITALISED.match(s, n.end)
    if m is None:
        return ""
    word = m.group(1)
    lower = word.lower()
    if not (_NAME_PLURAL.fullmatch(word) or lower in GERMAN_COUNTED):
        return ""
    # The phrase is that word alone: a word after it (but a stop word, English or
    # German) makes it a phrase of more ("512 GPUs Llama", "8 Experten pro Schicht").
    after = noun_phrase(s, m.end(), _STOP_BOTH, HEAD_WORDS, AFTER_NOUN)
    if after:
        return ""
    return lower if lower in GERMAN_COUNTED else word


def counted_words(s: str, n: Number) -> tuple[str, tuple[str, ...]]:
    """What a count word counts where the source writes the word too ("four recent
    models"), and the words of its phrase: :func:`direct_noun`'s one noun, else the first
    plural of a phrase of plain words (read as :func:`~service.check.scope.counted_phrase`
    reads a figure's); ("", ()) where it counts none ("two of them", "the four differ").
    A name's plural ("GPUs") is none here: it may abbreviate the source's words ("eight
    LLMs" for "eight open models"), which no letters compare."""
    direct = direct_noun(s, n)
    if direct:
        return ("", ()) if direct != direct.lower() else (direct, (direct,))
    label = sequence_label(s, n)
    if label:  # "Day two closes": said of days (where the source counts none, or numbers them)
        return label, (label,)
    words = noun_phrase(s, n.end, STOP_WORDS, PLAIN_WORDS, AFTER_NOUN)
    head = next((w for w in words if w.endswith("s") and not w.endswith(SINGULAR_S)), "")
    return (head, tuple(words)) if head else ("", ())


# A capitalised word right after a count, up to a word's end (no hyphen or digit joined).
_CAPITALISED = re.compile(r"\s+([A-ZÄÖÜ][A-Za-zÄÖÜäöüß]*)(?![\w-])")
# A plural of a name of capitals: "GPUs", "TPUs", "LLMs" (not "H100s": a model's name).
_NAME_PLURAL = re.compile(r"[A-Z][A-Z]+s")
# German nouns a count counts that are spelt as the English ones are (the stem the
# source's word is matched by: "parameter" finds "parameters", "experten" "experts",
# "modelle" "models"), capitalised as German writes every noun. Only cognates: a German
# noun of another spelling ("Nutzer" for "users", "Schichten" for "layers") cannot be
# compared by its letters, and stays what it was, a noun of the figure the source must
# have near it (a false alarm where it has the English word).
GERMAN_COUNTED = frozenset(
    "parameter token tokens experten modelle layer threads requests commits samples "  # noqa: SIM905
    "batches kernels".split()
)
_STOP_BOTH = STOP_WORDS | GERMAN_STOP_WORDS


def kinds_of(idx: SourceIndex, s: str, *groups: Sequence[Name]) -> tuple[Name, ...]:
    """The names of a figure with the word the explainer writes right before them, where
    the source writes the name after that word and after others too ("Grouped GEMM"
    where the post has "dense GEMM", "grouped GEMM" and "scaled GEMM"): one kind of the
    thing, which the source must say the figure of (a 1.10x under "## Dense GEMM" is no
    grouped GEMM's). Found with string tests (most names have no such word)."""
    out: list[Name] = []
    for x in (x for names in groups for x in names):
        j = x.start - 1
        if j < 3 or s[j] not in " -":
            continue
        i = max(s.rfind(" ", 0, j), s.rfind("(", 0, j)) + 1
        word = s[i:j].lower()
        if len(word) < 3 or not word.isalpha() or word in STOP_WORDS:
            continue
        kinds = idx.qualifiers(x.key, x.pattern)
        if word in kinds and len(kinds) > 1:
            key = word + "\x00" + x.key
            out.append(Name(i, x.end, key, name_pattern(key)))
    return tuple(out)
