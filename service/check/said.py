"""What the source says its figures of, read as the explainer's are: whether an
explainer's figure borrows a name the source gives another figure (or another table
column). (Two figures said of two names the other way round: service.check.swaps.)"""

from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Sequence

from service.check.bind import Binding, bind_numbers
from service.check.clauses import Clauses
from service.check.columns import column_unit
from service.check.gapped import distributed
from service.check.index import SourceIndex
from service.check.known_names import known_names
from service.check.names import Name
from service.check.paired import of_pair
from service.check.phrases import coordinated_lead, leading_phrases
from service.check.table import Row
from service.check.unit import Hit, Unit
from service.numbers import Number, extract_numbers
from service.numbers.context import LIST_GAP
from service.numbers.number import QUANTITY, RANGE


def said_of(unit: Unit, n: Number, names: Sequence[Name]) -> str | None:
    """Which of ``names`` a source number is said of, read as the explainer's are (from
    the few numbers around it: a long list sentence costs no more than a short one)."""
    nums = unit.numbers
    i = bisect.bisect_left(nums, n.start, key=lambda m: m.start)
    lo, hi = max(0, i - 3), min(len(nums), i + 4)
    start = nums[lo - 1].end if lo > 0 else unit.start
    end = nums[hi].start if hi < len(nums) else unit.end
    found = [
        Name(m.start(), m.end(), name.key, name.pattern)
        for name in names
        for m in name.pattern.finditer(unit.text, start, end)
    ]
    found.sort(key=lambda x: x.start)
    nearest = (
        bind_numbers(unit.text, nums[lo:hi], found, start, end).get(n.start, Binding()).nearest
    )
    return nearest.key if nearest else _lead_of(unit, n, names)


def _lead_of(unit: Unit, n: Number, names: Sequence[Name]) -> str | None:
    """Which of ``names`` a source number with none near it is said of by the phrase
    leading its clause, when that phrase names one of them alone ("On Blackwell, CUDA
    13.3+ is required, and on Hopper, CUDA 13.2+": Hopper's 13.2); else None."""
    for a, b, reach in leading_phrases(unit.text, unit.start, unit.end):
        if b <= n.start < reach:
            keys = {x.key for x in names if x.pattern.search(unit.text, a, b)}
            return keys.pop() if len(keys) == 1 else None
    return None


def source_names(idx: SourceIndex, u: int, measure: str) -> dict[int, tuple[Name, ...]]:
    """The names of each figure of source unit ``u`` with unit of measure ``measure``, by
    its start, read as the explainer's are (from the unit's own clause in its own case:
    names are told from ordinary words by their capitals). Only those figures are read: a
    count between two speedups ("1.10x for the 15-shape BF16 suite") is part of what the
    speedup is said of, not a figure with names of its own. Memoised per source: a check
    reads it only for the units its figures are found in."""
    own = idx.own_names.get((u, measure))
    if own is None:
        unit = idx.units[u]
        figures = [n for n in unit.numbers if n.kind in (QUANTITY, RANGE) and n.unit == measure]
        own = {}
        # (A text whose lower case has another length has no offsets in common with it.)
        if len(unit.cased) == len(unit.text):
            s, start, end = unit.cased, unit.start, unit.end
            names = known_names(s, unit.numbers, idx, start, end)
            bound = bind_numbers(s, figures, names, start, end)
            own = {
                n.start: tuple({x.key: x for x in bound[n.start].names}.values())
                for n in figures
                if n.start in bound
            }
        idx.own_names[(u, measure)] = own
    return own


def of_subject(idx: SourceIndex, u: int, m: Number, names: Sequence[Name]) -> bool:
    """Whether source unit ``u`` backs its figure ``m`` for the explainer's ``names``
    that it lacks, as figures of the post's subject: each of them is in the post's title
    (context for every figure of the post: "FP8 reached 7,027 tok/s" where the FP8
    post's clause says "5,996 -> 7,027 tok/s"), and the source says ``m`` of nothing
    the explainer does not name. A name the source gives the figure itself wins over
    the title: "FP8 reached 7,156 tok/s" for "7,156 BF16 baseline" in a post titled
    "FP8 training ..." stays misattached. (A heading's names need no such rule: a unit's
    context holds the headings of its section, and they count as the clause's do.)"""
    return subject_blockers(idx, u, m, names) == ()


def of_title(
    idx: SourceIndex, hits: Sequence[Hit], binding: Binding
) -> tuple[int | None, tuple[int, str] | None]:
    """The first hit whose unit backs the explainer's names as the post's subject's
    (:func:`of_subject`) and says nothing against the figure (:meth:`Binding.against`);
    else None, and the first unit where the source's own name for the figure held the
    title's off, with a reason naming it ("the source gives it for BF16")."""
    blocked: tuple[int, str] | None = None
    if not binding.names:
        return None, None
    # (Names the source pairs with the figure by a "respectively" of its own, first.)
    paired, blocked = of_pair(idx, hits, binding)
    if paired is not None or not idx.title:
        return paired, blocked
    for u, m in hits:
        blockers = subject_blockers(idx, u, m, binding.names)
        if blockers == () and not binding.against(idx.units[u], m):
            return u, None
        if blockers and blocked is None:
            blocked = (u, f"the source gives it for {', '.join(blockers)}")
    return None, blocked


def subject_blockers(
    idx: SourceIndex, u: int, m: Number, names: Sequence[Name]
) -> tuple[str, ...] | None:
    """:func:`of_subject`, told: None when the title does not hold the names the unit
    lacks (or the unit has them all); else the source's names, as it writes them, that
    keep the title's off the figure (the figure's own, else one of its kind in the
    heading or the sentence before: "BF16" for "FP8 reached 7,156 tok/s"), () when none
    does."""
    title = idx.title
    if not title or not names:
        return None
    unit = idx.units[u]
    missing = [x for x in names if not unit.mentions(x)]
    if not missing or not all(x.pattern.search(title) for x in missing):
        return None
    keys = {x.key for x in names}
    theirs = [x for x in _figure_names(idx, u, m) if x.key not in keys]
    if theirs:
        return tuple(dict.fromkeys(unit.cased[x.start : x.end] for x in theirs))
    # Nor does a heading over the figure, or the sentence before it, name another thing
    # of the kind of a title name ("## Against BF16" over "The baseline reached 7,156"):
    # of the kind as the key is written (FP8 and BF16 are letters then a number; a
    # heading's "Triton" or "MoE" is no format).
    kinds = {_KIND.sub(_kind_mark, x.key) for x in missing}
    around = [idx.sections.get(unit.block, "")]
    if unit.before is not None and unit.before[1] > unit.before[0]:
        b0, b1 = unit.before
        around.append(unit.cased[b0:b1])
    for text in around:
        if not text:
            continue
        for x in known_names(text, extract_numbers(text), idx):
            if x.key not in keys and _KIND.sub(_kind_mark, x.key) in kinds:
                return (text[x.start : x.end],)
    return ()


# What tells a name's kind: its runs of letters, of digits, and its separators.
_KIND = re.compile(r"[a-z]+|[0-9]+|[^a-z0-9]+")


def _kind_mark(m: re.Match[str]) -> str:
    c = m.group(0)[0]
    return "a" if "a" <= c <= "z" else "9" if c.isdigit() else "-"


def _figure_names(idx: SourceIndex, u: int, m: Number) -> tuple[Name, ...]:
    """The names source unit ``u`` says its figure ``m`` of, read as the explainer's are:
    its own (near it), else those of its clause before it."""
    if m.kind in (QUANTITY, RANGE):
        own = source_names(idx, u, m.unit).get(m.start, ())
        if own:
            return own
    unit = idx.units[u]
    if len(unit.cased) != len(unit.text):
        return ()
    before = [n for n in unit.numbers if n.start < m.start]
    names = known_names(unit.cased, before, idx, unit.start, m.start)
    return Clauses(unit.cased, names).names_before(m.start)


def borrowed(
    idx: SourceIndex, u: int, m: Number, names: Sequence[Name], listed: bool = False
) -> tuple[str, ...]:
    """What source unit ``u`` says its number ``m`` of, when the explainer's ``names`` for
    it borrow a name the unit gives a like figure (same unit of measure) and not ``m``,
    and name none of the names ``m`` alone has there ("MXFP4 gained 1.58x" for "MXFP8
    shows 1.58x and MXFP4 1.68x"); else nothing.

    A name ``m`` shares with the other figure does not tell them apart, so a figure of a
    coordinated subject keeps it ("TopK is 1.5x faster than Triton" for "TopK is 4.82x
    faster than ATen and 1.5x faster than Triton": Triton is 1.5x's alone); nor does an
    explainer that names both ("1.58 and 1.68 times for MXFP8 and MXFP4, respectively").
    Where it names one ``m`` alone has, or ``m`` has none, a name the unit gives only to
    a like figure before ``m`` in a list is borrowed all the same (:func:`_lent_in_list`:
    "FlyDSL is 1.20x faster than Triton on BF16"), but for figures of the explainer
    ``listed`` together."""
    row = idx.row_of.get(u)
    if row is not None:
        header = idx.units[row.header_unit].display.split(" | ")
        column = _other_column(idx.units[u], row, header, m, names)
        if column:
            return column
    if not m.unit:
        # A bare count ("across 24 cases") is mostly what several figures of the sentence
        # share ("1.20x over Triton across all 24 grouped-GEMM cases" holds for the 1.95x
        # over ATen as well): the nearest names do not tell whose it is.
        return ()
    like = (
        n.unit for n in idx.units[u].numbers if n.start != m.start and n.kind in (QUANTITY, RANGE)
    )
    if m.unit not in like:
        return ()  # no other figure of its unit of measure to borrow from (most units)
    own = source_names(idx, u, m.unit)
    if m.start not in own:
        return ()
    mine = own[m.start]
    keys = {x.key for x in names}
    if not mine:
        return _contrasted(idx.units[u], m, own, keys)
    said = {x.key for x in mine}
    others = {x.key for start, xs in own.items() if start != m.start for x in xs}
    alone = said - others
    if not alone or keys & alone:
        # (Not for a list of the explainer's figures said of their names together: "1.58
        # and 1.68 times for MXFP8 and MXFP4, respectively" names both.)
        return () if listed else _lent_in_list(idx.units[u], m, own, keys - said)
    if not (keys & others) - said:
        return ()
    # As the source writes them (the unit's text in its own case).
    cased = idx.units[u].cased
    return tuple(cased[x.start : x.end] for x in mine if x.key in alone)


def _lent_in_list(
    unit: Unit, m: Number, own: dict[int, tuple[Name, ...]], lacking: set[str]
) -> tuple[str, ...]:
    """An explainer's name (of ``lacking``: not the figure's) that the unit gives only to
    like figures before ``m``, and after the first of them: the item of a list sentence
    that came before ("1.10x for the 15-shape BF16 dense-GEMM suite ..., 1.20x
    geometric mean over Triton across all 24 grouped-GEMM cases": BF16 is not the
    1.20x's), or the names of a later item's own (:func:`_told_apart`: "..., and
    1.17x-3.66x over ATen across the 22 RMSNorm cases": RMSNorm is not the 1.20x's), as
    "other things than <name>"; else nothing. A name before the first figure (the
    sentence's subject: "FlyDSL provides a 1.10x ..., 1.20x ...") is every figure's, and
    another of a later figure may be a condition said once for all of them, at the end
    ("1.58x for MXFP8 and 1.68x for MXFP4 on MI355X"), and a later item written from its
    figure on takes the phrases it does not say again (:func:`~.gapped.distributed`:
    "1.5x over BF16 on MI355X and 1.3x on MI300X": the 1.3x is over BF16 too)."""
    first = min(own)
    told = _told_apart(unit, m, own)
    figures = [n for n in unit.numbers if n.start in own]
    lent: dict[str, Name] = {}
    for start, xs in own.items():
        for x in xs:
            if x.key not in lacking:
                continue
            if x.start >= first and x in told.get(start, ()):
                lent.setdefault(x.key, x)
            elif (
                start > m.start
                or x.start < first
                or (start < m.start and distributed(unit.text, figures, m, x, unit.end))
            ):
                lacking = lacking - {x.key}
                lent.pop(x.key, None)
            elif start != m.start:
                lent.setdefault(x.key, x)
    for key, x in lent.items():
        if key in lacking:
            return (f"other things than {unit.cased[x.start : x.end]}",)
    return ()


# The word that starts the phrase of a name of a list item ("across the 22 RMSNorm cases").
_PREPOSITION = re.compile(
    r"\b(?:for|on|over|across|in|with|at|against|versus|vs|from|under|per|than|of|by)\b"
)


def _told_apart(
    unit: Unit, m: Number, own: dict[int, tuple[Name, ...]]
) -> dict[int, tuple[Name, ...]]:
    """Per like figure after ``m`` (by start), but for one in a bare list with it
    ("1.58x and 1.68x over ATen": what follows the list is said of all of it), the names
    of its item's own that no other figure of the unit has: its first (what tells it
    apart), and each in a phrase whose word ``m``'s item starts a phrase with too, as
    items of a list say the same things ("1.20x over Triton across all 24 grouped-GEMM
    cases, and 1.17x-3.66x over ATen across the 22 RMSNorm cases"); not a name that
    stands in ``m``'s item too, past its six words ("1.10x ... over the faster
    ATen/Triton baseline, ..., 1.20x over Triton")."""
    figures = [n for n in unit.numbers if n.start in own]
    k = next((i for i, n in enumerate(figures) if n.start == m.start), len(figures))
    while k + 1 < len(figures) and LIST_GAP.fullmatch(
        unit.text, figures[k].end, figures[k + 1].start
    ):
        k += 1  # a figure listed with m shares what follows the list
    if k + 1 >= len(figures):
        return {}
    # (Up to a phrase leading the next item's clause: "1.5x over ATen and with BF16,
    # MI355X reaches 1.2x" names BF16 for the 1.2x, not in the 1.5x's item.)
    lead = coordinated_lead(unit.text, figures[k].end, figures[k + 1].start)
    item = unit.text[m.start : lead[0] if lead else figures[k + 1].start]
    words = set(_PREPOSITION.findall(item))
    counts = Counter(key for xs in own.values() for key in {x.key for x in xs})
    out = {}
    for j in range(k + 1, len(figures)):
        n = figures[j]
        alone = sorted(
            (x for x in own[n.start] if counts[x.key] == 1 and not x.pattern.search(item)),
            key=lambda x: x.start,
        )
        out[n.start] = tuple(
            x
            for i, x in enumerate(alone)
            if i == 0 or _phrase_word(unit.text, figures[j - 1], n, x) in words
        )
    return out


def _phrase_word(text: str, before: Number, n: Number, x: Name) -> str:
    """The word that starts the phrase of name ``x`` of figure ``n`` (the last
    preposition between the figure and it, or between the figure ``before`` and it when
    it comes first; "" for none)."""
    lo = n.end if x.start > n.start else before.end
    found = _PREPOSITION.findall(text, lo, x.start)
    return found[-1] if found else ""


# Words that set two figures against each other: what one is said of, the other is not.
_CONTRAST = re.compile(r"\b(?:vs\.?|versus|compared\s+(?:with|to)|against|whereas)(?!\w)")


def _contrasted(
    unit: Unit, m: Number, own: dict[int, tuple[Name, ...]], keys: set[str]
) -> tuple[str, ...]:
    """For a figure with no names of its own in its clause: the explainer's name that the
    unit gives a figure it sets against this one ("7,027 tok/s vs 7,156 BF16 baseline":
    BF16 is not 7,027's), as "other things than <name>"; else nothing. A figure that only
    leaves its names out shares them ("4.82x over ATen with them disabled, and 4.02x
    with them enabled": 4.02x is over ATen too)."""
    for start, xs in own.items():
        lent = [x for x in xs if x.key in keys] if start != m.start else []
        if not lent:
            continue
        a, b = (m.end, start) if start > m.start else (start, m.start)
        if _CONTRAST.search(unit.text, a, b):
            return (f"other things than {unit.cased[lent[0].start : lent[0].end]}",)
    return ()


def _other_column(
    unit: Unit, row: Row, header: Sequence[str], m: Number, names: Sequence[Name]
) -> tuple[str, ...]:
    """The header (as ``header`` writes it) of the column of a table row's figure ``m``,
    when the explainer's
    ``names`` name another column's header and not its own ("Llama-3.1-8B gains 1.90x
    with MXFP8" where 1.90x stands under MXFP4): every header is in a row's context, so
    each column's name held for every figure of the row. Else nothing."""
    column = unit.text.count(" | ", unit.start, m.start)
    if column == 0 or column >= len(row.headers):
        return ()  # the label's column, or a cell past the header
    own = row.headers[column]
    # Only the columns holding a like figure (same unit of measure) in this row: in
    # "| ATen (ms) | FlyDSL (ms) | Speedup |" a speedup over ATen is FlyDSL's.
    cells = row.cell_numbers
    others = [
        h
        for j, h in enumerate(row.headers)
        if j not in (0, column)
        and h
        and j < len(cells)
        and any(
            c.kind in (QUANTITY, RANGE)
            and (c.unit or (column_unit(header[j]) if j < len(header) else "")) == m.unit
            for c in cells[j]
        )
    ]
    for name in names:
        if (
            any(name.pattern.search(h) for h in others)
            and not name.pattern.search(own)
            and not name.pattern.search(row.label)
        ):
            return (header[column] if column < len(header) else own.strip(),)
    return ()
