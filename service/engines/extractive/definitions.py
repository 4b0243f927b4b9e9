"""Definitions placed in the explainer's text, in the sentence where the reader first
meets the term: after it where they read well, else at the end of that sentence or
beside another definition of it, else after that sentence; never before the term, never
between a figure and what it is said of."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from service.engines.extractive.definition_figures import before_a_figure, short_aside
from service.engines.extractive.glossary import MAX_DEFINITIONS, GlossaryEntry
from service.engines.extractive.phrases import AFTERS
from service.engines.extractive.term_phrase import OPENERS, definition_insert
from service.text import split_sentences

# A sentence carries at most this many definitions in itself: more ("(geometric mean:
# ...; ATen: ...)", "(a Python language ...)", "(baseline: ...)" in the FlyDSL
# explainer's second sentence) read as a glossary the sentence is lost in.
IN_SENTENCE = 3
_NOTES = 2  # notes after a sentence, of _AT_END each, at most: past them it is lost
_MOVES = 40  # rounds of moving a definition on, at most (each moves one term one use)

# A placed definition: the term, where the reader met it, its sentence, and whether it is
# in a note after that sentence rather than in it.
Placed = tuple[str, int, int, bool]


def define(
    text: str,
    glossary: Sequence[GlossaryEntry],
    defined: set[str],
    most: int = MAX_DEFINITIONS,
    later: str = "",
) -> str:
    """A plain definition of each glossary term ``text`` uses, in the sentence of its
    first use: where the term ends its phrase if that reads well. Terms defined go into
    ``defined``, so that each is defined once per explainer, and no more than ``most``
    of them. A sentence that would carry more than ``IN_SENTENCE`` keeps those the reader
    meets first; the others go to the notes after the sentence (two of two at most), and
    past them to the term's next use, in ``text`` or in ``later`` (the explainer's text
    after it, where ``define`` meets it again), else to a note all the same."""
    spans = _sentence_spans(text)
    skip: dict[str, set[int]] = {}  # term -> the sentences where it is not defined
    noted: dict[str, int] = {}  # term -> the sentence after which a note defines it
    trial = set(defined)
    out = text
    for _ in range(_MOVES):
        trial = set(defined)
        out, placed = _place(text, glossary, trial, most, spans, skip, noted)
        if not _move_on(text, glossary, placed, spans, skip, noted, later):
            break
    defined.update(trial)
    return out


def _move_on(
    text: str,
    glossary: Sequence[GlossaryEntry],
    placed: Sequence[Placed],
    spans: Sequence[tuple[int, int]],
    skip: dict[str, set[int]],
    noted: dict[str, int],
    later: str,
) -> bool:
    """Whether a sentence carries more than ``IN_SENTENCE`` definitions: then those past
    them move to the notes after it (``noted``), or where its two notes have two each,
    to their next use (their sentence goes into ``skip``)."""
    entries = {e.term: e for e in glossary}
    by_sentence: dict[int, list[tuple[int, str]]] = {}
    notes: dict[int, int] = {}  # sentence -> the terms of the note after it
    for term, start, sent, note in placed:
        if note:
            notes[sent] = notes.get(sent, 0) + 1
        else:
            by_sentence.setdefault(sent, []).append((start, term))
    for sent, terms in sorted(by_sentence.items()):
        if len(terms) <= IN_SENTENCE:
            continue
        # Those the reader meets first stay; the others go to the notes right after it,
        # where the reader has them in mind, and the rest to their next use, if any: left
        # for it, FlyDSL's RMSNorm and TopK were defined a section and a paragraph on.
        stop = spans[sent][1] if 0 <= sent < len(spans) else len(text)
        room = _NOTES * _AT_END - notes.get(sent, 0)
        for _, term in sorted(terms)[IN_SENTENCE:]:
            room -= 1
            if room < 0 and (
                any(m.start() >= stop for m in entries[term].uses(text))
                or any(True for _ in entries[term].uses(later))
            ):
                skip.setdefault(term, set()).add(sent)
            else:
                noted[term] = sent
        return True
    return False


def _place(
    text: str,
    glossary: Sequence[GlossaryEntry],
    defined: set[str],
    most: int,
    spans: list[tuple[int, int]],
    skip: dict[str, set[int]],
    noted: dict[str, int],
) -> tuple[str, list[Placed]]:
    """``text`` with its definitions (``define``) but at a sentence in ``skip`` and for a
    term ``noted``, and where each went."""

    def sentence_of(start: int) -> int:
        return next((i for i, (a, b) in enumerate(spans) if a <= start < b), -1)

    hits: list[tuple[int, int, GlossaryEntry]] = []
    moved_ends: set[int] = set()  # where a term defined elsewhere is said: "and TopK | ."
    met: dict[str, int] = {}  # term -> where the reader first meets it
    for e in glossary:
        if e.term in defined:
            continue
        for m in e.uses(text):
            met.setdefault(e.term, m.start())
            if e.term in noted or sentence_of(m.start()) in skip.get(e.term, ()):
                moved_ends.add(m.end())
            else:
                hits.append((m.start(), m.end(), e))
    placed: list[Placed] = []
    if not hits and not noted:
        return text, placed
    ordered = sorted(hits, key=lambda h: (h[0], -h[1]))
    placed_in: dict[int, list[int]] = {}  # sentence -> where its definitions go
    taken: list[tuple[int, int]] = []
    inserts: list[tuple[int, str]] = []
    labels: dict[int, str] = {}  # where a definition in parentheses goes -> "term: ..."
    # A sentence's end -> where each term said there is met, and its "term: ...".
    ends: dict[int, list[tuple[int, str]]] = {}
    first: dict[str, int] = {}  # term -> the sentence the reader first meets it in
    asides: dict[int, list[str]] = {}  # after a sentence -> the "term: ..." said there

    # Each term's first use: one that ends a sentence keeps that sentence's end for its
    # own definition.
    first_use = {e.term: a for a, _, e in reversed(ordered)}

    def _ends_there(pos: int, e: GlossaryEntry) -> bool:
        """Whether another term, met first right at ``pos`` and not yet defined, ends the
        sentence there: a parenthesis of other terms after it reads as its definition
        ("and TopK (API: ...; MXFP8: ...)"), and TopK's own went to a note after it."""
        return pos in moved_ends or any(
            b == pos and x.term != e.term and x.term not in defined and first_use[x.term] == a
            for a, b, x in ordered
        )

    def in_place(start: int, end: int, e: GlossaryEntry, sent: int, last: bool = False) -> bool:
        nonlocal inserts
        placed = definition_insert(text, start, end, e, text[start:end])
        stop = spans[sent][1] if sent >= 0 else len(text)
        if placed is not None and before_a_figure(text, placed[0], stop):
            placed = short_aside(text, end, e, placed)
        if placed is None or placed[0] in ends:
            return False
        others = placed_in.get(sent, [])
        label = _label(e, placed[1])
        if not _room_for(text, placed[0], others):
            if not (label and len(others) == 1 and not _full(labels.get(others[0]))):
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
        if pos is None or _ends_there(pos, e):
            return False
        if pos in labels or any(x[0] == pos for x in inserts):
            return False  # a definition of the term that ends the sentence is there
        said = ends.get(pos)
        if said is not None:
            # A second term of the sentence shares its end's parenthesis: one aside.
            if len(said) >= _AT_END:
                return False
            said.append((start, f"{e.term}: {e.definition}"))
            return True
        if not _room_for(text, pos, placed_in.get(sent, []), near > _NEAR_END):
            return False
        ends[pos] = [(start, f"{e.term}: {e.definition}")]
        placed_in.setdefault(sent, []).append(pos)
        return True

    def beside(start: int, end: int, e: GlossaryEntry, sent: int) -> bool:
        """The term defined beside another's definition in its sentence, once both are
        met: in the parenthesis of a term a few words on ("2.04x for MXFP8, and 3.01x for
        MXFP4 (MXFP8: ...; MXFP4: ...)"), or both at the term's own place where an earlier
        one's is in the same phrase ("FP8 E4M3 or packed FP4 E2M1 operands (FP8: ...;
        FP4: ...)"). Joined to a parenthesis before it, FP4 was defined before the reader
        met it."""
        nonlocal inserts
        mine = placed_in.get(sent, [])
        later = [p for p in mine if p >= end and (p in labels or p in ends)]
        stop = spans[sent][1] if sent >= 0 else len(text)
        if later and len(text[end : min(later)].split()) <= _APART:
            pos = min(later)
            if before_a_figure(text, pos, stop):
                return False  # a short gloss there parts nothing; a longer aside would
            if pos in ends:
                if len(ends[pos]) >= _AT_END:
                    return False
                ends[pos].append((start, f"{e.term}: {e.definition}"))
                return True
            if _full(labels[pos]):
                return False
            inserts = [x for x in inserts if x[0] != pos]
            # In the order the reader meets the terms ("MXFP8/MXFP4 scaled GEMM (MXFP8:
            # ...; MXFP4: ...)"), the second's placed first.
            named = [labels[pos], f"{e.term}: {e.definition}"]
            named.sort(key=lambda x: first_use.get(x.split(": ", 1)[0], start))
            labels[pos] = "; ".join(named)
            inserts.append((pos, f" ({labels[pos]})"))
            return True
        earlier = [p for p in mine if p < start and p in labels]
        placed = definition_insert(text, start, end, e, text[start:end])
        if not earlier or placed is None or not placed[1].startswith(" ("):
            return False
        was, pos = max(earlier), placed[0]
        between = text[was:pos]
        if (
            pos in ends
            or any(x[0] == pos for x in inserts)
            or _full(labels[was])
            or not re.match(r"\s+(?:and|or)\s", text[was:start])
            or len(between.split()) > _APART
            or re.search(r"[,;:()—]", between)
            or any(w.lstrip(OPENERS)[:1].isdigit() for w in between.split())
        ):
            return False  # not one phrase: the earlier one is lost, moved away from its term
        inserts = [x for x in inserts if x[0] != was]
        label = f"{labels.pop(was)}; {e.term}: {e.definition}"
        labels[pos] = label
        inserts.append((pos, f" ({label})"))
        placed_in[sent] = [pos if p == was else p for p in mine]
        return True

    def anyway(start: int, end: int, e: GlossaryEntry, sent: int) -> bool:
        """The term defined in the sentence the reader first meets it in, where no rule
        above found it a place that reads well: after it, else at the sentence's end,
        named, else in an aside after the sentence. Left for a later sentence, "A/B test"
        of the FlyDSL explainer went undefined: its later uses were none."""
        nonlocal inserts
        if beside(start, end, e, sent):
            return True  # one placed by this pass before it, in the same phrase
        stop = spans[sent][1] if sent >= 0 else len(text)
        placed = definition_insert(text, start, end, e, text[start:end])
        if placed is not None and before_a_figure(text, placed[0], stop):
            placed = short_aside(text, end, e, placed)
        at = {x[0] for x in inserts}
        if placed is not None and placed[0] not in ends and placed[0] not in at:
            if label := _label(e, placed[1]):
                labels[placed[0]] = label
            inserts.append(placed)
            placed_in.setdefault(sent, []).append(placed[0])
            return True
        body = text[:stop].rstrip()
        pos = len(body) - 1 if body[-1:] in ".!?" else len(body)
        named = f"{e.term}: {e.definition}"
        if _ends_there(pos, e):
            asides.setdefault(len(body), []).append(named)
        elif pos in ends and len(ends[pos]) < _AT_END:
            ends[pos].append((start, named))
        elif pos in labels and not _full(labels[pos]):
            inserts = [x for x in inserts if x[0] != pos]
            labels[pos] = f"{labels[pos]}; {named}"
            inserts.append((pos, f" ({labels[pos]})"))
        elif (
            pos > end
            and pos not in at
            and pos not in ends
            and (
                _sentence_end(text, end, stop, len(text)) == pos
                # The note after the sentence has its two: named at the sentence's end, past
                # a figure too, it is said of no figure ("(speedup: ...; geometric mean: ...;
                # BF16: ...; baseline: ....)" came after the FlyDSL explainer's second).
                or (len(asides.get(len(body), ())) >= _AT_END and body[pos - 1 : pos] not in ')"”')
            )
        ):
            ends[pos] = [(start, named)]
            placed_in.setdefault(sent, []).append(pos)
        else:
            asides.setdefault(len(body), []).append(named)
        return True

    # Where the reader first meets a term: after it, else at the end of that sentence
    # (named again), else beside another definition of that sentence, after both; and
    # if none of these reads well, there all the same (``anyway``). Given a later use
    # instead, the reader met MXFP8 bare in the results and had it defined in the
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
                placed.append((e.term, start, sentence_of(start), False))

    define(
        lambda start, end, e, sent: (
            first.setdefault(e.term, sent) == sent and in_place(start, end, e, sent)
        )
    )
    define(
        lambda start, end, e, sent: (
            first.get(e.term) == sent
            and (
                at_end(start, end, e, sent, _FIRST_NEAR_END)
                or in_place(start, end, e, sent, True)
                or beside(start, end, e, sent)
            )
        )
    )
    define(lambda start, end, e, sent: first.get(e.term) == sent and anyway(start, end, e, sent))
    for e in glossary:
        if e.term in noted and e.term not in defined and len(defined) < most:
            # Moved out of a sentence that carries its share, with no use after it.
            sent = noted[e.term]
            body = text[: spans[sent][1] if 0 <= sent < len(spans) else len(text)].rstrip()
            asides.setdefault(len(body), []).append(f"{e.term}: {e.definition}")
            defined.add(e.term)
            placed.append((e.term, spans[sent][0] if 0 <= sent < len(spans) else 0, sent, True))
    in_notes = {x.split(": ", 1)[0] for said in asides.values() for x in said}
    placed = [(t, a, sent, t in in_notes) for t, a, sent, _ in placed]
    # In the order the reader meets the terms.
    inserts += [(pos, f" ({'; '.join(x for _, x in sorted(said))})") for pos, said in ends.items()]
    # A note after a sentence holds two at most, as a parenthesis in it does: past them
    # ("(kernel: ...; MoE: ...; speedup: ....)"), a second note follows; in reading order.
    for said in asides.values():
        said.sort(key=lambda x: met.get(x.split(": ", 1)[0], len(text)))
    inserts += [
        (
            pos,
            "".join(
                f" ({'; '.join(said[i : i + _AT_END])}.)" for i in range(0, len(said), _AT_END)
            ),
        )
        for pos, said in asides.items()
    ]
    for pos, piece in sorted(inserts, reverse=True):
        text = text[:pos] + piece + text[pos:]
    return text, placed


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


def _full(label: str | None) -> bool:
    """Whether the parenthesis of ``label`` ("term: ...; term: ...") takes no more
    definitions. Three in one ("speedup: ...; geometric mean:
    ...; baseline: ...") read as a glossary dropped into the sentence, not an aside."""
    return label is None or label.count("; ") + 1 >= _AT_END


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
    if body[:pos].rsplit(None, 1)[-1].lstrip(OPENERS)[:1].isdigit():
        return None  # after "cutting costs by 96%" it reads as said of the figure
    if body[:pos].endswith(AFTERS):
        return None  # the attribution closes the sentence; a definition after it is lost
    between = text[end:pos].split()
    if len(between) > _NEAR_END and any(w.lstrip(OPENERS)[:1].isdigit() for w in between):
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
