"""The explainer's outline: which of the post's sections it keeps (three to seven), how many
words each gets, which candidate sentences fill them, and how they group into paragraphs."""

from __future__ import annotations

import itertools
import math
import re
from dataclasses import dataclass

from service.engines.extractive.sections import Role, SourceSection, plain_heading
from service.engines.extractive.sentences import Cand, Draft
from service.engines.extractive.words import CaseTable

MAX_SECTIONS = 7
MIN_SECTIONS = 3
MAX_PARAGRAPHS = 4


@dataclass(slots=True)
class Plan:
    """One section of the explainer: its heading and the source sections it draws from."""

    heading: str
    role: Role
    sections: list[int]  # source sections it draws from
    budget: int = 0
    made: bool = True  # a heading the engine made up, not the post's own as written


def plan(draft: Draft, case: CaseTable) -> list[Plan]:
    """The sections the explainer has: the intro, the weightiest body sections, usage and next."""
    secs = draft.sections
    intro = [i for i, s in enumerate(secs) if s.role == "intro"]
    body = [i for i, s in enumerate(secs) if s.role == "body"]
    usage = [i for i, s in enumerate(secs) if s.role == "usage"]
    nxt = [i for i, s in enumerate(secs) if s.role == "next"]
    concl = [i for i, s in enumerate(secs) if s.role == "conclusion"]
    # The explainer ends with what comes next (README, "The explainer"); a post without
    # such a section ends with its conclusion instead, where the wrap-up and any outlook
    # stand.
    tail = usage[:1] + (nxt[:1] or concl[-1:])
    room = MAX_SECTIONS - len(intro) - len(tail)
    if len(body) > room:
        ranked = sorted(body, key=lambda i: (-draft.mass(i), i))
        body = sorted(ranked[:room])
    chosen = intro + body + tail
    if len(chosen) < MIN_SECTIONS:
        chosen = sorted(set(chosen + usage[1:] + nxt[1:] + concl))[:MAX_SECTIONS]
        tail = [i for i in chosen if secs[i].role in ("usage", "next", "conclusion")]
        chosen = [i for i in chosen if i not in tail] + tail
    plans = []
    for i in chosen:
        s = secs[i]
        if s.heading is None:
            plans.append(Plan("What is new", s.role, [i]))
            continue
        heading = plain_heading(s.heading, case, draft.voice)
        # Its own words, only recased ("Background"): not the engine's to translate.
        own = heading.casefold() == s.heading.strip().rstrip("?:!. ").casefold()
        plans.append(Plan(heading, s.role, [i], made=not own))
    if len(plans) < MIN_SECTIONS:
        plans = _split(draft, plans)
    return plans


def _split(draft: Draft, plans: list[Plan]) -> list[Plan]:
    """Too few sections: split the post's text into parts with generic headings."""
    cands = [c for c in draft.cands if c.base > -50]
    if len(cands) < 6:
        return plans
    # Split at block boundaries into up to three runs of similar length.
    sections = sorted({c.section for c in cands})
    if len(sections) >= MIN_SECTIONS:
        return plans
    blocks = sorted({(c.section, c.block) for c in cands})
    parts = min(MIN_SECTIONS, len(blocks))
    if parts < 2:
        return plans
    size = math.ceil(len(blocks) / parts)
    groups = [blocks[i : i + size] for i in range(0, len(blocks), size)]
    names = ["What is new", "What the post reports", "Other points in the post"]
    new_sections: list[SourceSection] = []
    remap: dict[tuple[int, int], int] = {}
    for gi, group in enumerate(groups):
        role: Role = "intro" if gi == 0 else "body"
        new_sections.append(SourceSection(names[min(gi, 2)], role, []))
        for key in group:
            remap[key] = gi
    for c in draft.cands:
        c.section = remap.get((c.section, c.block), -1)
    draft.cands = [c for c in draft.cands if c.section >= 0]
    draft.codes = {}
    draft.sections = new_sections
    return [Plan(s.heading or "", s.role, [i]) for i, s in enumerate(new_sections)]


def budgets(draft: Draft, plans: list[Plan]) -> int:
    """Set each plan's word budget; the total for the whole explainer."""
    src_words = sum(
        len(b.text.split())
        for s in draft.sections
        for b in s.blocks
        if b.kind in ("paragraph", "list_item", "table")
    )
    total = int(min(780, max(320, 0.2 * src_words + 150)))
    # Sentences bring attribution and definitions with them: leave room.
    whole_budget = total = int(total * 0.85)
    # Sections share most of it; the rest goes to the best figures left (``_fill``).
    total = int(total * 0.8)
    masses = [sum(draft.mass(i) ** 0.75 for i in p.sections) for p in plans]
    whole = sum(masses) or 1.0
    cap = max(240, int(1.3 * total / max(1, len(plans))), int(0.6 * total))
    for p, m in zip(plans, masses, strict=True):
        share = total * m / whole
        p.budget = int(min(cap, max(45, share)))
    return whole_budget


def _best(draft: Draft, pool: list[Cand], covered: dict[str, float]) -> Cand:
    return max(pool, key=lambda c: (draft.gain(c, covered), -c.section, -c.index))


def _cover(covered: dict[str, float], c: Cand) -> None:
    # A figure in a long sentence is only half carried: its context is diluted.
    share = 0.5 if c.words > 35 else 1.0
    for f in c.figures:
        covered[f] = min(1.0, covered.get(f, 0.0) + share)


# A status update's stamp ("Sep 29, 14:28 UTC Update - "): when it was said, not what.
_STAMP = re.compile(
    r"^(?:[A-Z][a-z]{2,8}\.? \d{1,2}, )?\d{1,2}[:∶]\d{2}\s*(?:UTC|GMT|[A-Z]{1,2}T)?\s+"
    r"[A-Z][a-z]+\s+[-–—]\s+"
)


def repeat_key(c: Cand) -> str:
    """What a sentence says, for telling a repeat: its words and figures, a status
    update's stamp left out ("Sep 29, 14:28 UTC Update - The team is investigating
    elevated error rates ..." said again at 14:21); "" for a table row or a short one."""
    if c.kind == "table":
        return ""
    key = " ".join(_STAMP.sub("", c.text).lower().split()).rstrip(".!")
    return key if len(key.split()) >= 4 else ""


def _unsaid(pool: list[Cand], said: set[str]) -> list[Cand]:
    """``pool`` without the sentences that say again what a kept one says: each would be
    found best and turned away one at a time, the pool searched again for each (a post
    of one sentence 2,000 times: 6 s for 100 KB, growing as its square)."""
    return [c for c in pool if not _said([c], said)]


def _said(group: list[Cand], said: set[str]) -> bool:
    """Whether a sentence of ``group`` says again what a kept one says."""
    return any(k and k in said for k in map(repeat_key, group))


def select(draft: Draft, plans: list[Plan], total_budget: int) -> list[list[Cand]]:
    """The sentences of each planned section, in the post's order, none said twice (the
    first taken stays)."""
    covered: dict[str, float] = {}
    said: set[str] = set()
    chosen: list[list[Cand]] = []
    for p in plans:
        pool = [c for c in draft.cands if c.section in p.sections and c.base > -50]
        picked: list[Cand] = []
        words = 0
        while pool and words < p.budget:
            best = _best(draft, pool, covered)
            gain = draft.gain(best, covered)
            if gain < -1.5 or (gain < 0.4 and words >= 0.8 * p.budget):
                break
            pool.remove(best)
            group = _with_antecedent(draft, best, picked)
            size = sum(c.words for c in group)
            if not group or (words + size > p.budget * 1.25 and picked) or _said(group, said):
                continue
            for c in group:
                if c in pool:
                    pool.remove(c)
                picked.append(c)
                words += c.words
                _cover(covered, c)
                said.add(repeat_key(c))
            pool = _unsaid(pool, said)
            draft.subs_seen.setdefault(best.section, set()).add(best.sub)
        chosen.append(picked)
    _fill(draft, plans, chosen, covered, total_budget, said)
    for picked in chosen:
        picked.sort(key=lambda c: (c.section, c.index))
    return chosen


def _fill(
    draft: Draft,
    plans: list[Plan],
    chosen: list[list[Cand]],
    covered: dict[str, float],
    total_budget: int,
    said: set[str],
) -> None:
    """Budget left over: the post's remaining figure-bearing sentences, best first,
    wherever they are."""
    used = sum(c.words for picked in chosen for c in picked)
    taken = {id(c) for picked in chosen for c in picked}
    where = {si: k for k, p in enumerate(plans) for si in p.sections}
    pool = [c for c in draft.cands if c.base > -50 and id(c) not in taken and c.section in where]
    pool = _unsaid(pool, said)
    while pool and used < total_budget:
        best = _best(draft, pool, covered)
        # Figures first; plain sentences only while the explainer is still short.
        if draft.gain(best, covered) < (1.0 if used >= 0.75 * total_budget else 0.0):
            break
        pool.remove(best)
        picked = chosen[where[best.section]]
        group = _with_antecedent(draft, best, picked)
        size = sum(c.words for c in group)
        if not group or used + size > total_budget * 1.1 or _said(group, said):
            continue
        for c in group:
            if c in pool:
                pool.remove(c)
            picked.append(c)
            used += c.words
            said.add(repeat_key(c))
            _cover(covered, c)
        pool = _unsaid(pool, said)


def _with_antecedent(draft: Draft, c: Cand, picked: list[Cand]) -> list[Cand]:
    """What taking ``c`` takes: a sentence whose pronoun stands for what the sentence
    before it named comes with that sentence (or not at all: "They report 5–40% ..."
    after another session's sentence would credit the figure to the wrong one)."""
    if not c.leans:
        return [c]
    before = next((x for x in draft.cands if c.follows(x)), None)
    if before is None or before.base <= -50:
        return []
    return [c] if before in picked else [before, c]


def _joins(a: Cand, b: Cand) -> bool:
    """Whether ``b`` may follow ``a`` in one paragraph: a sentence whose figures take their
    subject from the sentence before must follow its own sentence before."""
    return not (b.bare or b.leans) or b.follows(a)


def paragraphs(picked: list[Cand]) -> list[list[Cand]]:
    """Picked sentences grouped into at most ``MAX_PARAGRAPHS`` paragraphs."""
    paras: list[list[Cand]] = []
    for c in picked:
        cur = paras[-1] if paras else None
        same_run = cur is not None and (
            cur[-1].block == c.block
            or (cur[-1].kind == c.kind == "item" and c.block - cur[-1].block <= 1)
            or (cur[-1].kind == c.kind == "table" and cur[-1].block == c.block)
        )
        short = cur is not None and sum(x.words for x in cur) < 25
        if cur is not None and (c.leans and c.follows(cur[-1])):
            cur.append(c)  # a pronoun stays with what it stands for
        elif cur is not None and (same_run or short) and len(cur) < 4 and _joins(cur[-1], c):
            cur.append(c)
        else:
            paras.append([c])
    while len(paras) > MAX_PARAGRAPHS:
        pairs = [
            (sum(x.words for x in a) + sum(x.words for x in b), k)
            for k, (a, b) in enumerate(itertools.pairwise(paras))
            if _joins(a[-1], b[0])
        ]
        if pairs:
            k = min(pairs)[1]
            paras[k : k + 2] = [paras[k] + paras[k + 1]]
        else:
            # No two paragraphs join without changing what a figure is said of: the
            # least informative paragraph goes.
            paras.remove(min(paras, key=lambda p: (sum(max(0.0, c.base) for c in p), -len(p))))
    return paras
