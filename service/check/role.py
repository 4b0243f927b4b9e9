"""A version in its role: the release a figure is said with must be the one the source
gives in that place ("2,995 commits ... since PyTorch 2.13"), not another release of the
product the source names elsewhere ("since PyTorch 2.12": PyTorch 2.12 is in the post,
for what it added). The version alone is matched verbatim (:mod:`.verbatim`), which a
version named anywhere passes; this reads it with the figure of its clause."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.check.index import SourceIndex
from service.check.marks import CLAUSE_MARK, COORDINATOR
from service.check.names import Name, content_words, find_noun, verbatim_pattern
from service.check.unit import Unit
from service.check.verbatim import locate
from service.numbers import Number
from service.numbers.number import VERSION

_WORD_BEFORE = re.compile(r"([a-z]+)\s+$")
_WORD_AFTER = re.compile(r"\s+([a-z][a-z-]*)")


def _role(s: str, start: int, end: int) -> tuple[str, str]:
    """The words right before a product's name and right after its version, lower case
    ("since" of "since PyTorch 2.13"; "support" of "Python 3.15 support"): the place the
    release stands in. "" where a mark or the sentence's edge stands instead."""
    before = _WORD_BEFORE.search(s[max(0, start - 30) : start])
    after = _WORD_AFTER.match(s, end)
    return (
        before.group(1).lower() if before else "",
        after.group(1).lower() if after else "",
    )


_NAME_BEFORE = re.compile(r"(?<![\w.-])([A-Z][\w+]*)[ \t]+$")


def product_of(idx: SourceIndex, s: str, version: Number) -> Name | None:
    """The name right before a version that the source knows, the sentence's first word
    too ("Python 3.14 support ...": a capitalised first word is no name for the binding,
    which may be any word, but a word right before a version names its product)."""
    m = _NAME_BEFORE.search(s, max(0, version.start - 40), version.start)
    known = idx.name(m.group(1)) if m else None
    return Name(m.start(1), m.end(1), *known) if m and known else None


def same_clause(s: str, a: Number, b: Number) -> bool:
    """Whether no clause mark stands between two numbers of an explainer sentence."""
    lo, hi = (a.end, b.start) if a.end <= b.start else (b.end, a.start)
    return CLAUSE_MARK.search(s, lo, hi) is None


def own_release(s: str, at: Number, other: Number, releases: Sequence[Number]) -> bool:
    """Whether ``at`` (a figure or version of an explainer clause) stands in another
    coordinated part than ``other`` (a coordinator between them) with a release of its
    part's own among ``releases`` (those of the product read): "PyTorch 2.14 uses CUDA
    12.6 and PyTorch 2.13 uses CUDA 12.4" says the 12.6 with 2.14, not 2.13; "PyTorch
    2.14 has 2,995 commits and PyTorch 2.13 has 3,100" the 2,995 of 2.14. Then the two
    are no figure and release of one claim."""
    lo, hi = (at.end, other.start) if at.end <= other.start else (other.end, at.start)
    if COORDINATOR.search(s, lo, hi) is None:
        return False
    for r in releases:
        a, b = (at.end, r.start) if at.end <= r.start else (r.end, at.start)
        if r.start != other.start and same_clause(s, at, r) and not COORDINATOR.search(s, a, b):
            return True
    return False


def moved_version(s: str, version: Number, product: Name, unit: Unit) -> str:
    """The release of ``product`` the source's clause ``unit`` (where a figure said with
    ``version`` stands) writes in the role the explainer gives ``version`` (a word before
    the product or after the version the same: "since PyTorch 2.13" for "since PyTorch
    2.12"), when the clause never writes ``version``; else "". A release in another role
    there leaves it open ("PyTorch 2.14 has 2,995 commits since PyTorch 2.13")."""
    text = unit.text
    mine = verbatim_pattern(version.key, True)
    if mine.search(text, unit.start, unit.end) is not None:
        return ""
    role: tuple[str, str] | None = None
    for m in unit.numbers:
        if m.kind != VERSION or mine.search(text, m.start, m.end) is not None:
            continue
        head = text[max(unit.start, m.start - 60) : m.start]
        names = list(product.pattern.finditer(head))
        if not names or head[names[-1].end() :].strip():
            continue  # not this product's release: no name, or words, between
        role = role or _role(s, product.start, version.end)
        theirs = _role(text, m.start - len(head) + names[-1].start(), m.end)
        if any(a and a == b for a, b in zip(role, theirs, strict=True)):
            # As the source writes it: the reason is shown to a reader ("PyTorch 2.13").
            shown = unit.cased if len(unit.cased) == len(text) else text
            return shown[m.start - len(head) + names[-1].start() : m.end]
    return ""


def moved_versions(
    s: str,
    versions: Sequence[tuple[int, Number, Name]],
    figures: Sequence[tuple[Number, Unit]],
) -> list[tuple[int, str]]:
    """For each supported version of a sentence (verdict index, version, its product),
    the release the source writes in its role with a supported figure of its clause
    (the figure and the source unit backing it), when there is one: (verdict index,
    that release as the source writes it)."""
    out = []
    for i, version, product in versions:
        releases = [v for _, v, p in versions if p.key == product.key]
        for n, unit in figures:
            if not same_clause(s, version, n) or own_release(s, n, version, releases):
                continue
            other = moved_version(s, version, product, unit)
            if other:
                out.append((i, other))
                break
    return out


# A setting written with its value ("USE_HW_AGNOSTIC=1", "TP=1"): its name and value.
_SETTING = re.compile(r"([A-Za-z_][\w.-]*)=([\w.-]+)")


def other_value(idx: SourceIndex, s: str, n: Number) -> str:
    """Another value of a setting the explainer writes with its value ("USE_HW_AGNOSTIC=0
    enables the new layers"), when the source says it in the explainer's words: a
    sentence writing only that value holds two more of the content words of the
    explainer's clause than any writing the explainer's ("can be enabled by setting
    USE_HW_AGNOSTIC=1 ... layers": setting, enables, layers; "using USE_HW_AGNOSTIC=0
    vs. USE_HW_AGNOSTIC=1": none). =0 and =1 mostly say opposite things; where the
    source's sentences say no more of either, it stays open. "" when none."""
    m = _SETTING.fullmatch(n.text)
    if m is None:
        return ""
    name, value = m.group(1).lower(), m.group(2).lower()
    lo = max((c.end() for c in CLAUSE_MARK.finditer(s, 0, n.start)), default=0)
    hi = next((c.start() for c in CLAUSE_MARK.finditer(s, n.end)), len(s))
    words = content_words(s[lo : n.start] + " " + s[n.end : hi], limit=8)
    if len(words) < 2:
        return ""
    found = re.compile(r"(?<![\w.-])" + re.escape(name) + r"=([\w.-]*\w)")
    own, best, other = 0, 0, ""
    seen: set[tuple[int, tuple[int, int]]] = set()
    for unit in idx.units:
        a, b = unit.sentence if unit.sentence != (0, 0) else (unit.start, unit.end)
        if (unit.block, (a, b)) in seen or name + "=" not in unit.text[a:b]:
            continue
        seen.add((unit.block, (a, b)))
        sentence = unit.text[a:b]
        values = list(found.finditer(sentence))
        held = sum(1 for w in words if find_noun(w, sentence))
        if any(v.group(1) == value for v in values):
            own = max(own, held)
        elif values and held > best:
            # As the source writes it (its own case, where its text has the same length).
            cased = unit.cased if len(unit.cased) == len(unit.text) else unit.text
            best, other = held, cased[a + values[0].start() : a + values[0].end()]
    return other if other and best >= own + 2 else ""


def moved_beside(
    idx: SourceIndex, s: str, versions: Sequence[tuple[int, Number, Name]]
) -> list[tuple[int, str]]:
    """:func:`moved_versions` with another product's supported version of the clause in
    place of a figure ("Python 3.14 support in PyTorch 2.14 is eager-only" for "Python
    3.15 support in 2.14 is eager-only"): read in each source clause that writes that
    other version, and only where none of them writes the explainer's (a clause that
    holds both, "PyTorch 2.14 adds Python 3.15 support", backs it)."""
    out = []
    for i, version, product in versions:
        for _, other, theirs in versions:
            if theirs.key == product.key or not same_clause(s, version, other):
                continue
            releases = [v for _, v, p in versions if p.key == theirs.key]
            if own_release(s, version, other, releases):
                continue  # said with its own part's release of that product
            found = ""
            for u in locate(idx, other.key, version=True):
                moved = moved_version(s, version, product, idx.units[u])
                if not moved and verbatim_pattern(version.key, True).search(
                    idx.units[u].text, idx.units[u].start, idx.units[u].end
                ):
                    found = ""
                    break
                found = found or moved
            if found:
                out.append((i, found))
                break
    return out
