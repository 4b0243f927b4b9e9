"""The post's own sections: split at its top heading level, boilerplate sections (references,
thanks, author bios) dropped, each given a role, and headings reworded plainly."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Literal

from service.engines.extractive.inline import clean_inline
from service.engines.extractive.style import Voice, third_person
from service.engines.extractive.words import CaseTable, sentence_case
from service.text import Block

Role = Literal["intro", "body", "usage", "next", "conclusion"]


@dataclass(slots=True)
class SourceSection:
    """A section of the post: its heading (``None`` for the intro), role and blocks."""

    heading: str | None
    role: Role
    blocks: list[Block]


_SKIP_SECTION = re.compile(
    r"^(references?|bibliography|acknowledge?ments?|thanks|about the authors?|authors?|"
    r"contributors|related (posts|reading|links|work)|further reading|additional resources|"
    r"resources|citations?|cite this|footnotes|disclaimers?|appendix.*|featured projects|"
    r"share this|read more|subscribe.*|tags?)\s*:?$",
    re.IGNORECASE,
)
_NEXT = re.compile(
    r"(what[’']?s next|what comes next|next steps?|future work|future directions|roadmap|"
    r"looking ahead|outlook|coming soon|availability|get involved|call to action|"
    r"what is next|where we go from here|limitations and future)",
    re.IGNORECASE,
)
_USAGE = re.compile(
    r"^(try it|try .* out|getting started|get started|quick ?start|how to (use|get|try|run|"
    r"install)|installation|install(ing)?|usage|setup|set up|using |hands-on|tutorial)",
    re.IGNORECASE,
)
_CONCLUSION = re.compile(
    r"^(conclusions?|summary|in summary|wrap(ping)? up|final thoughts|closing thoughts|"
    r"takeaways?|key takeaways|tl;?dr)\b",
    re.IGNORECASE,
)
_BOILER_BLOCK = re.compile(
    r"^(source:\s*https?://\S+|the post .* appeared first on .*|.*originally published (on|at) .*|"
    r"tl;?dr:?|featured projects|read more.*|share this.*|follow us.*|subscribe.*|"
    r"(view|see) the (full )?(schedule|agenda|program).*|register (now|today|for) .*|"
    r"this (version|post) has been adapted.*)$",
    re.IGNORECASE,
)
# "Ada Lovelace is a Senior Research Engineer at ...", "... is the Executive Director of ...":
# the name is cased, the title either way.
BIO = re.compile(
    r"^[A-Z][\w.\-’' ]{1,60} (is|was) (an?|the) ([\w\-]+ ){0,5}(?i:engineer|scientist|"
    r"researcher|manager|developer|lead|architect|director|professor|student|intern|member|"
    r"founder|head|advocate|maintainer|officer|president|chair|fellow)\b"
)
_THANKS = re.compile(
    r"^(we('d| would)? (like to )?(sincerely )?thank|thanks to|special thanks|many thanks|"
    r"we are grateful|we're grateful|acknowledg)",
    re.IGNORECASE,
)


def _is_boilerplate(block: Block, plain: str) -> bool:
    if block.kind == "heading":
        return bool(_SKIP_SECTION.match(plain)) or bool(re.match(r"^tl;?dr:?$", plain, re.I))
    if block.kind in ("paragraph", "list_item"):
        if plain.startswith("(") and plain.rstrip(".").endswith(")"):
            return True  # a credit line: "(PR #184240 by ...)"
        return bool(
            _BOILER_BLOCK.match(plain) or BIO.match(plain) or _THANKS.match(plain)
        ) or not any(c.isalnum() for c in plain)
    return False


def _role(heading: str) -> Role:
    if _NEXT.search(heading):
        return "next"
    if _USAGE.match(heading):
        return "usage"
    if _CONCLUSION.match(heading):
        return "conclusion"
    return "body"


def source_sections(blocks: list[Block]) -> list[SourceSection]:
    """The post's sections at its top heading level; boilerplate sections dropped."""
    # A leading H1 is the post's title, not a section.
    if blocks and blocks[0].kind == "heading" and blocks[0].level == 1:
        blocks = blocks[1:]
    levels = [b.level for b in blocks if b.kind == "heading"]
    # Headings that are alone at their level with nothing under them ("### Featured projects"
    # above the intro) do not set the section level.
    counts = Counter(levels)
    # An article's own sections start at H2; H1s inside its body are usually stray lines
    # ("# CPU" comments of an unfenced shell snippet), so they only count when alone.
    usable = [lv for lv in counts if counts[lv] > 1 and (lv > 1 or not any(v > 1 for v in counts))]
    top = min(usable, default=min(levels, default=2))
    sections: list[SourceSection] = [SourceSection(None, "intro", [])]
    skipping = False
    for b in blocks:
        plain = clean_inline(b.text)[0] if b.kind != "code" else b.text
        if b.kind == "heading":
            if _is_boilerplate(b, plain):
                if b.level <= top:
                    skipping = True
                continue
            if b.level < top:
                # A stray H1 (see above): neither a section nor the end of one.
                continue
            if b.level == top:
                skipping = False
                sections.append(SourceSection(plain, _role(plain), []))
                continue
            if skipping:
                continue
            sections[-1].blocks.append(b)
            continue
        if skipping or _is_boilerplate(b, plain):
            continue
        sections[-1].blocks.append(b)
    return [s for s in sections if any(b.kind != "heading" for b in s.blocks)]


_HEADING_REWRITES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"^(what[’']?s|what is) next\b.*$", re.I), "What comes next"),
    (
        re.compile(r"^(next steps?|future work|future directions|looking ahead|roadmap)$", re.I),
        "What comes next",
    ),
    (re.compile(r"^summary and next steps?$", re.I), "Where the work stands and what comes next"),
    (
        re.compile(r"^(conclusions?|summary|in summary|wrap(ping)? up|final thoughts)$", re.I),
        "What it adds up to",
    ),
    (re.compile(r"^(quick ?start|getting started|get started)$", re.I), "How to get started"),
    (re.compile(r"^try it\b\s*(.*)$", re.I), r"How to try it \1"),
    (re.compile(r"^(installation|install|setup)$", re.I), "How to install it"),
    (re.compile(r"^(performance|results|benchmarks?|evaluation)$", re.I), "What was measured"),
    (re.compile(r"^under the hood$", re.I), "How it works"),
    (re.compile(r"^how (do|does|did) ", re.I), "How "),
    (re.compile(r"^(introduction|overview|background)$", re.I), "Background"),
]


_WH_AUX = re.compile(
    r"^(how|what|why|where|when|who)\s+(will|can|could|should|would|is|are|was|were|does|do|did)"
    r"\s+(it|they|we|this|that|these|those|you)\s+(.+)$",
    re.I,
)
_WHAT_IS = re.compile(r"^what\s+(is|are)\s+(the|their|our)\s+(.+?)(\s+here)?$", re.I)


def plain_heading(heading: str, table: CaseTable, voice: Voice = "authors") -> str:
    """A source heading as a plain statement in sentence case, in the third person."""
    h = heading.strip().rstrip("?:!. ").strip()
    h = re.sub(r"^(part|step|chapter)?\s*\d+[.:)]\s+", "", h, flags=re.I) or h
    h = re.sub(r"^(so|but|and|now|ok|okay|well)\s*,?\s+", "", h, flags=re.I)
    m = _WHAT_IS.match(h)
    if m:
        h = f"The {m.group(3)}"
    else:
        m = _WH_AUX.match(h)
        if m:
            wh, aux, pron, rest = m.groups()
            aux = "" if aux.lower() in ("do", "does", "did") else f" {aux}"
            h = f"{wh} {pron}{aux} {rest}"
    for pat, repl in _HEADING_REWRITES:
        if pat.search(h):
            h = pat.sub(repl, h).strip()
            break
    return sentence_case(third_person(h, voice), table)
