"""Definitions placed in the explainer's text: after a term's first use where they read
well, else at the end of that sentence, never between a figure and what it is said of."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from service.engines.extractive.glossary import MAX_DEFINITIONS, GlossaryEntry
from service.engines.extractive.phrases import AFTERS
from service.engines.extractive.words import STOPWORDS, wordset
from service.text import split_sentences


def define(
    text: str, glossary: Sequence[GlossaryEntry], defined: set[str], most: int = MAX_DEFINITIONS
) -> str:
    """A plain definition after the first use of a glossary term that reads well with
    one: where the term ends its phrase, at most one definition per sentence. Terms
    defined go into ``defined``, so that each is defined once per explainer, and no more
    than ``most`` of them."""
    hits: list[tuple[int, int, GlossaryEntry]] = []
    for e in glossary:
        if e.term in defined:
            continue
        for m in e.uses(text):
            hits.append((m.start(), m.end(), e))
    if not hits:
        return text
    spans = _sentence_spans(text)
    ordered = sorted(hits, key=lambda h: (h[0], -h[1]))
    placed_in: dict[int, list[int]] = {}  # sentence -> where its definitions go
    taken: list[tuple[int, int]] = []
    inserts: list[tuple[int, str]] = []
    labels: dict[int, str] = {}  # where a definition in parentheses goes -> "term: ..."
    ends: dict[int, list[str]] = {}  # a sentence's end -> the "term: ..." said there
    first: dict[str, int] = {}  # term -> the sentence the reader first meets it in

    def sentence_of(start: int) -> int:
        return next((i for i, (a, b) in enumerate(spans) if a <= start < b), -1)

    def in_place(start: int, end: int, e: GlossaryEntry, sent: int, last: bool = False) -> bool:
        nonlocal inserts
        placed = _definition_insert(text, start, end, e, text[start:end])
        stop = spans[sent][1] if sent >= 0 else len(text)
        if placed is not None and _before_a_figure(text, placed[0], stop):
            placed = _short_aside(text, end, e, placed)
        if placed is None or placed[0] in ends:
            return False
        others = placed_in.get(sent, [])
        label = _label(e, placed[1])
        if not _room_for(text, placed[0], others):
            if not (label and len(others) == 1 and others[0] in labels):
                return False
            if not _shared(text, others[0], placed[0], end, last):
                return False
            # One noun phrase ("the kernel launches and HBM round-trips"): the two share
            # the later parenthesis, one aside, where two would read as a list of them.
            inserts = [x for x in inserts if x[0] != others[0]]
            placed = (placed[0], f" ({labels.pop(others[0])}; {label})")
            label = ""
        if label:
            labels[placed[0]] = label
        inserts.append(placed)
        placed_in.setdefault(sent, []).append(placed[0])
        return True

    def at_end(start: int, end: int, e: GlossaryEntry, sent: int, near: int) -> bool:
        pos = _sentence_end(text, end, spans[sent][1] if sent >= 0 else len(text), near)
        if pos is None:
            return False
        if pos in labels or any(x[0] == pos for x in inserts):
            return False  # a definition of the term that ends the sentence is there
        said = ends.get(pos)
        if said is not None:
            # A second term of the sentence shares its end's parenthesis: one aside.
            if len(said) >= _AT_END:
                return False
            said.append(f"{e.term}: {e.definition}")
            return True
        if not _room_for(text, pos, placed_in.get(sent, []), near > _NEAR_END):
            return False
        ends[pos] = [f"{e.term}: {e.definition}"]
        placed_in.setdefault(sent, []).append(pos)
        return True

    def before(start: int, e: GlossaryEntry, sent: int) -> bool:
        nonlocal inserts
        # The nearest definition in parentheses before the term in its sentence takes it
        # too, named ("(A/B test: ...; MXFP8: ...)"): defined before it is met, not after.
        earlier = [p for p in placed_in.get(sent, []) if p < start and p in labels]
        if not earlier or len(text[max(earlier) : start].split()) > _APART:
            return False  # further back, the reader has it before knowing what it is of
        pos = max(earlier)
        inserts = [x for x in inserts if x[0] != pos]
        inserts.append((pos, f" ({labels.pop(pos)}; {e.term}: {e.definition})"))
        return True

    # Where the reader first meets a term: after it, else at the end of that sentence
    # (named again), else beside a definition before it in that sentence. Given a later
    # use instead, the reader met MXFP8 bare in the results and had it defined in the
    # how-to, two sections on.
    def define(where: Callable[[int, int, GlossaryEntry, int], bool]) -> None:
        """One pass over the uses still open: each term defined at the first use
        ``where`` places it."""
        for start, end, e in ordered:
            if len(defined) >= most or e.term in defined or any(a <= start < b for a, b in taken):
                continue
            if where(start, end, e, sentence_of(start)):
                defined.add(e.term)
                taken.append((start, end))

    define(
        lambda start, end, e, sent: (
            first.setdefault(e.term, sent) == sent and in_place(start, end, e, sent)
        )
    )
    define(
        lambda start, end, e, sent: (
            first[e.term] == sent
            and (at_end(start, end, e, sent, _FIRST_NEAR_END) or before(start, e, sent))
        )
    )
    # Past its first sentence, only where nothing else would define it (every use there
    # near a figure, say: "1.20x geometric mean over Triton across all 24 cases").
    define(
        lambda start, end, e, sent: (
            in_place(start, end, e, sent, True) or at_end(start, end, e, sent, _NEAR_END)
        )
    )
    inserts += [(pos, f" ({'; '.join(said)})") for pos, said in ends.items()]
    for pos, piece in sorted(inserts, reverse=True):
        text = text[:pos] + piece + text[pos:]
    return text


def _label(entry: GlossaryEntry, piece: str) -> str:
    """A definition in parentheses as it reads beside another's ("kernel: code ..."); ""
    for one set apart by commas inside parentheses, which shares no parenthesis."""
    if not piece.startswith(" ("):
        return ""
    inner = piece[2:-1]
    return inner if inner.startswith(f"{entry.term}: ") else f"{entry.term}: {inner}"


_SHARED = 4  # words: two definitions this close, in one noun phrase, share a parenthesis


def _shared(text: str, first: int, pos: int, end: int, last: bool) -> bool:
    """Whether a definition at ``pos``, of a term ending at ``end``, can join the one at
    ``first`` before it: the words between join two nouns of one phrase ("launches and
    HBM round-trips"), a few, no figure, no punctuation that parts a clause or a
    parenthesis; or both are at the end of a phrase whose head noun is the term ("ROCm
    PyTorch nightly"), not one it modifies too ("Triton quantization kernels"), and
    ``last``, where nothing else would define it: in the first sentence, "kernel" took
    the parenthesis FP8, the subject of the FP8 explainer, was defined in beside Triton."""
    between = text[first:pos]
    if pos == first:
        return pos == end and last
    return (
        pos - first > 0
        and len(between.split()) <= _SHARED
        and re.search(r"\b(?:and|or)\b", between) is not None
        and re.search(r"[,;:()\d—]", between) is None
    )


_NEAR_END = 8  # words: further from its term, a definition at a sentence's end is lost
# At the end of the sentence the reader first meets a term in, further: there the term
# is still fresh, and a definition later on comes after the reader needed it.
_FIRST_NEAR_END = 16
_AT_END = 2  # terms sharing a sentence end's parenthesis, at most


def _sentence_end(text: str, end: int, stop: int, near: int = _NEAR_END) -> int | None:
    """Where a definition goes at the end of the sentence whose term ends at ``end`` (the
    sentence ends at ``stop``): before its final stop, after no parenthesis (two in a row
    do not read), not inside one, near enough to the term."""
    if text.rfind("(", 0, end) > text.rfind(")", 0, end):
        return None
    body = text[:stop].rstrip()
    pos = len(body) - 1 if body[-1:] in ".!?" else len(body)
    if pos <= end or body[pos - 1 : pos] in (")", ":", ",", "”", '"'):
        return None
    if body[:pos].rsplit(None, 1)[-1].lstrip(_OPENERS)[:1].isdigit():
        return None  # after "cutting costs by 96%" it reads as said of the figure
    if body[:pos].endswith(AFTERS):
        return None  # the attribution closes the sentence; a definition after it is lost
    between = text[end:pos].split()
    if len(between) > _NEAR_END and any(w.lstrip(_OPENERS)[:1].isdigit() for w in between):
        return None  # further off, past a figure, it reads as said of what the figure is
    return pos if len(between) <= near else None


# Two definitions in a sentence only this many words apart, at most: closer, or more,
# they read as a list of asides. With one a sentence, a term whose every placeable use
# shared its sentence with another's definition was never defined ("BF16", "MoE").
_APART = 12  # words


def _room_for(text: str, pos: int, others: Sequence[int], first: bool = False) -> bool:
    """Whether a sentence with definitions at ``others`` takes one more at ``pos`` (a
    third at its end, where the reader ``first`` meets the term)."""
    if not others:
        return True
    if len(others) > (2 if first else 1):
        return False
    a, b = sorted((pos, others[0]))
    return len(text[a:b].split()) >= _APART


_FIGURE_AHEAD = 8  # words


def _before_a_figure(text: str, pos: int, end: int) -> bool:
    """Whether a figure follows within a few words of ``pos`` in its sentence: a definition
    there would stand between the figure and the name it is said of ("the Helion backend
    (...) can reduce latency by up to 50%"). A figure is a word that starts with a digit
    once its opening marks are off ("50%", "(1.5x", "~85.6%", "$5"); a name with digits in
    it ("MXFP8", "H100") is none, and a definition before it parts nothing."""
    ahead = re.split(r"[,;]\s|\s—", text[pos:end], maxsplit=1)[0]
    # Past a comma the figure is said of what follows it: the definition parts nothing
    # ("over BF16 (...), with peak memory nearly identical (~39 GB)").
    return any(w.lstrip(_OPENERS)[:1].isdigit() for w in ahead.split()[:_FIGURE_AHEAD])


# Words: a gloss this short right after its term parts no figure from the name it is said
# of ("time-to-first-token (the wait for the first output) dropped about 19%"). Refused
# there, the Shopify explainer left latency, throughput and time-to-first-token undefined:
# each was first said right before its figure, and every use after was too.
_SHORT_ASIDE = 7


def _short_aside(
    text: str, end: int, entry: GlossaryEntry, placed: tuple[int, str]
) -> tuple[int, str] | None:
    """The definition of a term that a figure follows closely: its short gloss, in
    parentheses right after the term (not after a noun it modifies, not inside
    parentheses), else none."""
    short = entry.short
    if short is None or len(short.split()) > _SHORT_ASIDE or placed[0] != end:
        return None
    if not placed[1].startswith(" (") or not _names_its_figure(text, end):
        return None
    return end, f" ({short})"


# Words that lead to a figure without naming what it is of ("dropped about 19%").
# Not "on", "with", "for": they lead to a condition ("throughput on 8×MI300X GPU").
_TO_A_FIGURE = wordset(
    "about up nearly roughly approximately around almost only just some more less fewer "
    "than by to a an the is are was were be been has have had can could may might will "
    "would"
)
_ANOTHER_PHRASE = wordset("and or but while whereas")


def _names_its_figure(text: str, end: int) -> bool:
    """Whether the term ending at ``end`` is the name the figure after it is said of: only
    verbs and small words between ("time-to-first-token dropped about 19%", "raises
    throughput: about 16%"), or another phrase starts before the figure with a name of
    its own ("reducing latency and cutting costs by 96%"). Not "the Helion backend can
    cut latency by up to 50%", where the figure is said of latency: an aside after
    "backend" parts the claim."""
    for word in text[end:].split()[:_FIGURE_AHEAD]:
        bare = word.strip(_OPENERS + ".,:;)!?").lower()
        if not bare or bare in _TO_A_FIGURE:
            continue
        if bare[:1].isdigit() or bare in _ANOTHER_PHRASE:
            return True
        if _VERB.match(f" {bare}") is None:
            return False  # a noun of its own comes first: the figure is said of that
    return False


_OPENERS = "([{\"'“‘~≈<>$€£¥+-−±"


def _sentence_spans(text: str) -> list[tuple[int, int]]:
    spans = []
    pos = 0
    for s in split_sentences(text):
        i = text.find(s, pos)
        if i < 0:
            continue
        spans.append((i, i + len(s)))
        pos = i + len(s)
    return spans or [(0, len(text))]


_PHRASE_END = re.compile(
    r"\s(?:for|to|of|and|or|in|on|at|by|with|from|into|that|which|who|is|are|was|were|can|"
    r"could|will|would|may|might|must|should|has|have|had|does|do|did|as|than|when|while|"
    r"because|so|but|across|over|under|per|through|via|without|within|between|like|around)\b"
)


# A term followed by its verb ends its noun phrase ("FlyDSL provides ..."), while one
# followed by another noun modifies it ("BF16 dense GEMM") and takes no definition there.
_VERB = re.compile(
    r"\s(?:provides|delivers|reaches|makes|uses|runs|supports|adds|achieves|improves|shows|"
    r"offers|enables|lets|gives|keeps|takes|turns|becomes|remains|stays|helps|needs|requires|"
    r"allows|handles|computes|selects|chooses|accepts|returns|produces|reduces|increases|"
    r"expresses|lowers|targets|includes|contains|covers|works|scales|exceeds|outperforms|"
    r"depends|means|applies|brings|builds|lands|moves|ships|wins|beats|cuts|sits|lives|"
    r"relies|matters|grows|dropped|improved|reduced|reached|delivered|achieved|showed|ran|"
    r"used|added|became|remained|made|gave|took|cut)\b"
)


def _definition_insert(
    text: str, start: int, end: int, entry: GlossaryEntry, form: str
) -> tuple[int, str] | None:
    """Where and how a definition goes after a term, or ``None`` when it would not read
    well there. Inside parentheses it is set apart by commas; after a term that modifies
    a following noun ("per MoE layer"), it goes after that noun and names the term."""
    definition = entry.definition_for(form)
    if text.rfind("(", 0, start) > text.rfind(")", 0, start):
        return _inside_parentheses(text, end, definition)
    pos = end
    # Keep an abbreviation that follows the term with it: "mixture-of-experts (MoE)".
    m = re.match(r"\s*\([^()]{1,15}\)", text[pos:])
    if m:
        pos += m.end()
    after = text[pos:]
    # In parentheses wherever it goes: after a bare comma at a sentence's end it read as
    # one more item of a list ("1,500 learned gist tokens, small pieces of text, ...").
    if _ends_phrase(after):
        return pos, f" ({definition})"
    if m:
        return None
    noun = _modified_noun(after)
    if noun is None or any(w.lstrip(_OPENERS)[:1].isdigit() for w in text[:start].split()[-2:]):
        return None  # "a 13.4% throughput gain (...) over BF16" parts a result from its baseline
    # Every use of a term was often a modifier ("MoE layer", "BF16 dense GEMM"): the
    # term went undefined. After the noun phrase, named again, it parts nothing.
    return pos + noun, f" ({entry.term}: {entry.definition})"


def _ends_phrase(after: str) -> bool:
    """Whether the text ``after`` a term starts where its noun phrase ends."""
    return (
        not after
        or re.match(r"[.!?](\s|$)", after) is not None
        or after[0] in ",;:"
        or after.startswith(" —")
        or _PHRASE_END.match(after) is not None
        or _VERB.match(after) is not None
    )


# Past participles not in "-ed": after a term they start a clause, no noun it modifies
# ("the baseline built to get in front of users quickly").
_PARTICIPLES = wordset(
    "built kept written shown made done seen given taken grown held known sent spent told "
    "brought bought thought caught taught paid laid lost led met won begun chosen driven "
    "drawn broken spoken frozen hidden risen stolen torn worn woven fallen beaten bitten "
    "eaten forgotten gotten proven"
)
# These are nouns as often ("a BF16 run", "the optimized kernel set to MI450"): a
# participle only where "by" follows ("the baseline set by ATen").
_NOUN_OR_PARTICIPLE = wordset(
    "run set cut split cost hit cast spread read put let left found shut quit"
)
# A plain word ("A/B" too), or a code of capitals and digits that names a variant ("FP8
# E4M3": the term modifies it as it would a noun; a figure starts with a digit, and is none).
_NOUN_WORD = re.compile(
    r"\s(?:[A-Za-z][A-Za-z\-]*(?:/[A-Za-z]+)?|[A-Z][A-Z0-9]*[0-9][A-Z0-9]*)(?=[\s.,;:!?]|$)"
)
# Nouns in "-ly", which reads as an adverb's ending ("a ROCm PyTorch nightly for ...").
_LY_NOUNS = wordset("nightly weekly monthly daily family assembly supply anomaly rally")
_MODIFIED_WORDS = 3  # a longer run after a term is no noun phrase it modifies


def _modified_noun(after: str) -> int | None:
    """The length of the noun (one to three plain words) that a term modifies, from the
    start of ``after``, when its noun phrase ends there; ``None`` otherwise (a figure, a
    name with digits or a parenthesis comes first, or the phrase runs on)."""
    at = 0
    for _ in range(_MODIFIED_WORDS):
        m = _NOUN_WORD.match(after, at)
        if m is None or _PHRASE_END.match(after, at) or _VERB.match(after, at):
            return None
        word = m.group(0).strip()
        # Not a noun: "the coding agent your team already uses", "the baseline built to".
        low = word.lower()
        adverb = re.search(r"[a-z](ly|ed)$", word) is not None and low not in _LY_NOUNS
        if low in STOPWORDS or low in _PARTICIPLES or adverb:
            return None
        at = m.end()
        if low in _NOUN_OR_PARTICIPLE and after.startswith(" by ", at):
            return None
        if _ends_phrase(after[at:]):
            return at
    return None


def _inside_parentheses(text: str, end: int, definition: str) -> tuple[int, str] | None:
    """A definition for a term inside parentheses, set apart by commas ("(geometric mean,
    an average ..., across three models)"): parentheses within parentheses do not read.
    Not a definition with a comma of its own, which would blur where it ends."""
    if "," in definition:
        return None
    after = text[end:]
    if after.startswith(")"):
        return end, f", {definition}"
    if _PHRASE_END.match(after):  # not "(7,156 BF16 baseline": the term modifies a noun
        return end, f", {definition},"
    return None
