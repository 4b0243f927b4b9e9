"""Binding: the names and nouns each number of an explainer sentence is said of, and
whether a source unit says the number of the same things (or of two names the other
way round). The names it binds are those the source knows (:mod:`.known_names`)."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass

from service.check.marks import CLAUSE_MARK, split_gap
from service.check.names import STOP_WORDS, Name, content_words, find_noun
from service.check.phrases import leading_phrases, trailing_names
from service.check.products import counts_kind
from service.check.respectively import list_marker, paired_names, paired_phrases
from service.check.scope import (
    Clause,
    aside_only,
    compound_head,
    heads_agree,
    names_things,
    opposed,
)
from service.check.setting import said_elsewhere
from service.check.unit import Unit
from service.check.window import NEAR, window_end, window_ends, window_start
from service.frozen import slot_init
from service.numbers import Number
from service.numbers.context import list_runs
from service.numbers.number import QUANTITY, RANGE, WORD

# A figure said of another thing than the sentence's names: "the 1,362,998 of the other
# run", "the 80 ms of another model".
_OF_OTHER = re.compile(r"\s+of\s+(?:the\s+other|another)\b", re.IGNORECASE)


def said_of_other(s: str, n: Number) -> bool:
    """Whether ``n`` is said of "the other" thing or "another" right after it: no name of
    its sentence is what it is said of, so none is carried to it."""
    return _OF_OTHER.match(s, n.end) is not None


@slot_init
@dataclass(frozen=True, slots=True)
class Binding:
    """What a number of the explainer is said of: its names, else its nouns, else the
    names carried from the sentence before."""

    names: tuple[Name, ...] = ()
    nouns: tuple[str, ...] = ()
    inherited: tuple[Name, ...] = ()
    nearest: Name | None = None  # the name this number is said of, for swap detection
    span: tuple[int, int] | None = None  # where its clause lies in the sentence
    clause: Clause | None = None  # that clause, for its opposite-pair words (scope.opposed)
    counted: str = ""  # the noun joined to a bare count: "token" of "512-token prompt"
    head: tuple[str, ...] = ()  # what it counts those of: "prompt"
    plain: bool = False  # counted read from a phrase after the count ("512 prompt tokens")
    # The figures of a phrase leading its clause ("At 2,000 requests per minute, TTFT fell
    # 19%"): the conditions it is measured under, which the source must say of it too.
    conditions: tuple[Number, ...] = ()
    # The names of its clause beyond its six words ("1.10x ... over the faster of ATen
    # and Triton on MXFP8 GEMM"): said of it too, looser (:meth:`against`).
    far: tuple[Name, ...] = ()
    listed: bool = False  # one of a list of figures said of their names together
    # Its names with the word the explainer qualifies them by, where the source writes
    # several ("Grouped GEMM"; :func:`~service.check.setting.said_of_kind`).
    kinds: tuple[Name, ...] = ()
    about: tuple[str, ...] = ()  # a measured figure's words, with no name: "latency"
    direct: str = ""  # the one noun right after a bare count ("487 commits"); a name's as written
    # The names a "respectively" pairs with the other figures of its list: not its own;
    # with no names, where the plain words it pairs it with stand.
    others: tuple[Name, ...] = ()
    phrase: tuple[int, int] | None = None
    # A measured figure's words before it in its clause, where it has no name: of what
    # kind of a thing ("a frontier model would cost", :mod:`~service.check.qualified`).
    qualified: str = ""
    # A measured figure's plain-word subject ("uniform groups" of "Uniform groups reach
    # 1.23x"), names or none (:func:`~service.check.qualified.other_subject`).
    subject: str = ""
    # Its names of plain hardware before it ("on RDNA 3 GPUs, ... 2-8x"): where it ran,
    # which a post may state once, earlier in the paragraph (not "8x MI325X GPUs": a
    # count of them).
    setting: tuple[Name, ...] = ()
    # The names of a phrase leading its clause or ending the sentence, a bare figure's
    # too ("On Blackwell, CUDA 13.2+ is required"): what tells it from another figure
    # said of the same names near it (:func:`~service.check.swaps.told_apart`).
    lead: tuple[Name, ...] = ()

    def holds(self, unit: Unit, number: Number | None = None, *, paragraph: bool = False) -> bool:
        """Whether ``unit`` says the number of the same things (``paragraph``: names
        carried from an earlier sentence may stand anywhere before it in the paragraph),
        and, given the source's ``number``, says nothing against it (:meth:`against`)."""
        held, window = self._held(unit, number, paragraph)
        if not held:
            return False
        if number is None:  # a value derived from several: their clause
            return self.clause is None or not opposed(self.clause, unit, None)
        return not self.against(unit, number, window)

    def names_hold(
        self, unit: Unit, number: Number | None = None, *, paragraph: bool = False
    ) -> bool:
        """:meth:`holds` by names and nouns alone."""
        return self._held(unit, number, paragraph)[0]

    def _held(self, unit: Unit, number: Number | None, paragraph: bool) -> tuple[bool, str]:
        """:meth:`names_hold`, and the window of the nouns when it read one."""
        # A source count of a model's name is a count of its kind: "8 H100s" names no
        # GPUs, but counts them (:mod:`~service.check.products`).
        if self.names:
            return all(
                unit.mentions(n)
                or (n in self.setting and unit.mentions(n, paragraph=True))
                or counts_kind(unit, number, n.key)
                for n in self.names
            ), ""
        if self.nouns:
            text = self._noun_window(unit, number)
            return any(find_noun(s, text) or counts_kind(unit, number, s) for s in self.nouns), text
        if self.inherited:  # the topic of the sentence before: so may the source's be
            held = all(unit.mentions(n, near=True, paragraph=paragraph) for n in self.inherited)
            return held, ""
        return True, ""

    def refuted(self, unit: Unit, number: Number) -> str:
        """:meth:`against`, when the names and nouns hold there; else ""."""
        return self.against(unit, number) if self.names_hold(unit, number) else ""

    def against(self, unit: Unit, number: Number, window: str = "") -> str:
        """Why the source's figure ``number`` in ``unit`` is another figure than the
        explainer's, though the names may all be there; "" when nothing says so: its
        clause says the opposite condition ("with them enabled" for the explainer's
        "disabled"), it counts something else ("512-token output" for "512-token
        prompt"; a "256-token input" is no "256 x 256 output tile": the noun joined to a
        bare count is what it counts, and must stand near the source's figure too), or a
        name of the explainer's stands there only in a parenthesis of other figures
        (:func:`aside_only`). ``window``: the nouns' window, when read already."""
        if self.clause is not None:
            word = opposed(self.clause, unit, number)
            if word:
                return f'the source gives it for the opposite ("{word}")'
        why = said_elsewhere(self, unit, number)  # the names, words and conditions beyond
        if why:
            return why
        if (
            self.counted
            and not find_noun(self.counted, window or self._noun_window(unit, number))
            and (not self.plain or names_things(unit.text, number, STOP_WORDS))
        ):
            # (A plain phrase's noun may be missing where the source's figure ends its
            # clause: "8-256 concurrent requests" for "concurrency ranges from 8 to 256".)
            return f'the source counts other things there, not "{self.counted}"'
        if self.head:
            theirs = compound_head(unit.text, number, STOP_WORDS)
            if not heads_agree(self.head, theirs):
                return f'the source counts it of "{" ".join(theirs)}", not "{" ".join(self.head)}"'
        for x in self.names:
            if aside_only(unit, number, x):
                key = x.key.replace("\x00", "-")
                return f"the source names {key} there only for other figures"
        return ""

    def _noun_window(self, unit: Unit, number: Number | None) -> str:
        """Where a noun must stand: near the number in the source too, when we know
        where."""
        if number is None:
            return unit.context
        start = window_start(unit.text, unit.start, number.start)
        end = window_end(unit.text, number.end, unit.end)
        # A table row's cell is said of its row's label and its column's header, however
        # many cells stand between ("683,961 of learned routing": the "Learned" row).
        cell = unit.cell_words(number.start)
        return f"{unit.text[start:end]}\x00{cell}" if cell else unit.text[start:end]

    def nouns_near(self, unit: Unit, number: Number, *, strict: bool = True) -> int:
        """How surely ``unit`` says ``number`` of the same things, by its nouns: the
        letters each noun shares with the word that matches it near the number, summed
        (a binding by nouns holds with one match). More nouns, or longer shared stems,
        win: "1 measurement per combination" is "one measured run per cell", not "one
        partial per wave" that merely combines. (``strict``: 0 when the source says
        something against it, :meth:`against`.)"""
        text = self._noun_window(unit, number)
        if strict and self.against(unit, number, text):
            return 0
        shared = 0
        for noun in dict.fromkeys(self.nouns):
            m = find_noun(noun, text)
            if m is not None:
                word = text[m.start() : m.start() + len(noun)].lower()
                if noun.startswith(word):  # the whole word is the noun's (most matches)
                    shared += len(word)
                else:
                    i, k = 0, min(len(noun), len(word))
                    while i < k and noun[i] == word[i]:
                        i += 1
                    shared += i
        return shared

    def missing(self, context: str) -> list[str]:
        names = self.names or self.inherited
        if self.names or not self.nouns:
            return [n.key.replace("\x00", "-") for n in names if not n.pattern.search(context)]
        return list(self.nouns)


def _leading_names(
    seq: Sequence[Number],
    names: Sequence[Name],
    name_starts: Sequence[int],
    phrases: Sequence[tuple[int, int, int]],
) -> list[tuple[tuple[Name, ...], int, int]]:
    """The names of each phrase leading a clause of the sentence (:func:`leading_phrases`),
    and from where to where its figures stand: what the measured figures there are of
    ("On MI325X GPUs, the kernel reaches 6.2x"). None for a phrase that holds a figure
    (it is that figure's clause: :func:`_leading_figures`) or no name."""
    out = []
    for a, b, reach in phrases if names else ():
        own = names[bisect.bisect_left(name_starts, a) : bisect.bisect_left(name_starts, b)]
        if own and not any(a <= n.start < b for n in seq):
            out.append((tuple(own), b, reach))
    return out


def _leading_figures(
    seq: Sequence[Number], phrases: Sequence[tuple[int, int, int]]
) -> list[tuple[tuple[Number, ...], int, int]]:
    """The figures of each phrase leading a clause that holds some, and from where to
    where the figures they condition stand: "At 2,000 requests per minute, time to first
    token fell 19%" says the 19% was measured at 2,000 requests per minute, a claim the
    source must make too (its 19% is measured at 350)."""
    out = []
    for a, b, reach in phrases:
        own = tuple(n for n in seq if a <= n.start < b and n.kind != WORD)
        if own:
            out.append((own, b, reach))
    return out


def _clause_start(s: str, after: int, at: int, left: int) -> int:
    """Where the clause of a figure at ``at`` starts, after the figure ending at
    ``after``: past the last semicolon or colon between them, else at ``left``."""
    mark = max(s.rfind("; ", after, at + 1), s.rfind(": ", after, at + 1))
    return mark + 1 if mark >= 0 else left


def bind_numbers(
    s: str,
    nums: Sequence[Number],
    names: Sequence[Name],
    start: int = 0,
    end: int | None = None,
    *,
    leading: bool = False,
) -> dict[int, Binding]:
    """Names and nouns of each quantity, range and number word of a sentence (of
    ``s[start:end]``), by start. ``leading``: a measured figure is said of the names of
    a phrase leading the sentence, or its clause after a semicolon or colon, too
    (:func:`_leading_names`; an explainer's: a source
    clause holds such names as context for all its figures, and giving them to each
    would hide which figure a name of its own is borrowed from)."""
    end = len(s) if end is None else end
    marks = [m.start() for m in CLAUSE_MARK.finditer(s, start, end)]
    name_starts = [x.start for x in names]  # names come sorted by position
    said_respectively = list_marker(s, start, end) >= 0  # or "in that order"
    seq = [n for n in nums if n.kind in (QUANTITY, RANGE, WORD)]
    groups = list_runs(s, seq)
    phrases = leading_phrases(s, start, end) if leading and (names or len(seq) > 1) else []
    leads = _leading_names(seq, names, name_starts, phrases)
    if leading and names:  # a phrase ending it: its names go back, as a lead's go on
        leads += trailing_names(s, start, end, seq, names, name_starts)
    conditions = _leading_figures(seq, phrases)
    out: dict[int, Binding] = {}
    chained: tuple[Name, ...] = ()
    for g, group in enumerate(groups):
        first, last = group[0], group[-1]
        noun_left = -1
        inherit: tuple[Name, ...] = ()
        if g > 0:
            prev = groups[g - 1][-1]
            left = split_gap(s, prev.end, first.start)[1]
            if left == prev.end:  # "8 bits instead of 16": the unit word describes both
                # (From after a number word: "twice" of "about twice the 1,362,998 of the
                # other run" is the figure before, no noun of this one.)
                noun_left = prev.end if prev.kind == WORD else prev.start
                if len(s[prev.end : first.start].split()) <= NEAR:
                    # "4.82x over ATen across 10 cases": one phrase, one measurement
                    inherit = chained
        else:
            k = bisect.bisect_left(marks, first.start)
            left = marks[k - 1] + 1 if k else start
        if g + 1 < len(groups):
            right = split_gap(s, last.end, groups[g + 1][0].start)[0]
        else:
            k = bisect.bisect_left(marks, last.end)
            right = marks[k] if k < len(marks) else end
        # Its clause, for what it says beyond names (the first figure's from the start:
        # "With them enabled, the speedup was 4.02x"; a later one's from a semicolon or
        # colon before it: "...; with them enabled, 4.02x").
        span = (_clause_start(s, prev.end, first.start, left) if g > 0 else start, right)
        # Names count when near: within a few words on either side.
        left = max(left, window_start(s, left, first.start))
        names_right, right = window_ends(s, last.end, right)
        own = [
            *names[
                bisect.bisect_left(name_starts, left) : bisect.bisect_left(name_starts, first.start)
            ],
            *names[
                bisect.bisect_left(name_starts, last.end) : bisect.bisect_left(
                    name_starts, names_right
                )
            ],
        ]
        bound = tuple(dict.fromkeys([*inherit, *own]))
        around: tuple[Name, ...] = ()
        for lead, b, reach in leads:
            if b <= first.start < reach:
                around = tuple(dict.fromkeys([*lead, *around]))
                if any(n.unit for n in group):
                    bound = tuple(dict.fromkeys([*lead, *bound]))  # a measured figure's
        chained = bound
        # A measured figure after a leading phrase's figures is measured under them.
        conds = (
            next((c for c, b, reach in conditions if b <= first.start < reach), ())
            if conditions
            else ()
        )
        nouns: list[str] = []
        if not bound:  # nouns bind only a number without names
            # A few words either side, across commas ("a very low value, around 0.2").
            next_start = groups[g + 1][0].start if g + 1 < len(groups) else end
            prev_end = groups[g - 1][-1].end if g > 0 else 0
            noun_left = noun_left if noun_left >= 0 else prev_end
            noun_left = max(noun_left, window_start(s, noun_left, first.start))
            noun_right = window_end(s, last.end, next_start)
            nouns = [n.noun for n in group if n.noun] + content_words(s[last.end : noun_right])
            nouns += content_words(s[noun_left : first.start], last=True)
        following = [x for x in own if x.start >= last.end]
        preceding = [x for x in own if x.start < first.start]
        # "1.58x and 1.68x for MXFP8 and MXFP4, respectively": each figure is said of its
        # own name of the list, not of the others (:func:`paired_names`).
        paired: list[Name] = []
        others: list[Name]
        listed: list[tuple[int, int]] = []  # the plain-word phrases paired, with no names
        if said_respectively and len(group) > 1:
            paired = paired_names(s, group, names, (preceding, following), start, end)
            listed = [] if paired or bound else paired_phrases(s, group, span[0])
        for i, n in enumerate(group):
            mine, others = bound, []
            if paired:
                nearest: Name | None = paired[i]
                others = [x for x in paired[: len(group)] if x.key != paired[i].key]
                keys = {x.key for x in (*others, paired[i])}
                mine = (*(x for x in bound if x.key not in keys), paired[i])
                mine = tuple(sorted(mine, key=lambda x: x.start))
            else:
                nearest = following[0] if following else (preceding[-1] if preceding else None)
            out[n.start] = Binding(
                names=mine,
                others=tuple(others),
                nouns=tuple(nouns),
                nearest=nearest,
                span=span,
                listed=len(group) > 1,
                conditions=conds if n.unit else (),
                phrase=listed[i] if listed else None,
                lead=around,
            )
    return out
