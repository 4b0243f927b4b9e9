"""Candidate sentences: every whole sentence, list item and table-row sentence of the post's
sections, scored for how informative and readable it is alone, with the filters that
rule out hype, first person, code, credits and calls to action."""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from service.engines.extractive.blocks import MAX_WORDS, short_code, table_sentences
from service.engines.extractive.figures import figures
from service.engines.extractive.fragments import has_no_finite_verb, is_noun_phrase
from service.engines.extractive.inline import clean_inline
from service.engines.extractive.phrases import ENGLISH, Wording
from service.engines.extractive.programme import session_sentence
from service.engines.extractive.sections import BIO, SourceSection
from service.engines.extractive.style import Voice, dehype
from service.engines.extractive.words import (
    CaseTable,
    content_words,
    lower_first,
    subject_case,
)
from service.text import split_sentences

try:  # textstat counts syllables offline (pyphen); see service.readability
    from textstat import textstat as _textstat

    def _syllables(text: str) -> int:
        return int(_textstat.syllable_count(text))
except ImportError:  # pragma: no cover - textstat is a declared dependency

    def _syllables(text: str) -> int:
        return sum(max(1, len(re.findall(r"[aeiouy]+", w))) for w in text.lower().split())


@dataclass(slots=True)
class Cand:
    """A whole sentence (or list item, or table-row sentence) that may be kept."""

    text: str
    section: int
    block: int
    index: int  # position within its source section
    kind: Literal["prose", "item", "table"]
    bold: bool = False
    first_in_block: bool = False
    figures: dict[str, float] = field(default_factory=dict)
    words: int = 0
    base: float = 0.0  # score without the figure-coverage part
    long: bool = False  # too long for a paragraph, still fine to take a title phrase from
    caption: str = ""  # what a caption's block is of: "figure", "table", "chart", "image"
    sub: int = 0  # which sub-section (under the n-th sub-heading) of its section
    sub_index: int = 0  # position within that sub-section
    # Its figures take their subject from the sentence before: they name nothing ("this
    # added ~90 ms/step"), or a pronoun stands for what the sentence before named ("They
    # report 5–40% ..."). Such a sentence follows that sentence or opens a paragraph.
    bare: bool = False
    leans: bool = False
    # What the figures are of, when the post says it only in a sub-heading ("RMSNorm:
    # Gains Across Hidden Dimensions") or a bold lead-in ("**MXFP8 A8W8.** With ATen
    # ..."), not in the sentence: "RMSNorm", "MXFP8 A8W8".
    subject: str = ""
    # The last sentence of a paragraph that a list or table follows: often its lead-in
    # ("Several eager-mode hot paths got cheaper."), saying little without it.
    lead: bool = False

    def follows(self, other: Cand) -> bool:
        """Whether ``other`` is the sentence right before this one in the post."""
        return (other.section, other.block, other.index) == (
            self.section,
            self.block,
            self.index - 1,
        )


@dataclass(slots=True)
class Draft:
    """The post's sections and candidates, and what selection has covered so far."""

    sections: list[SourceSection]
    cands: list[Cand]
    codes: dict[int, str]  # a usage section's code block, by section
    headline: set[str]  # figures of the intro and of bold spans
    subs_seen: dict[int, set[int]] = field(default_factory=dict)  # sub-sections taken from
    voice: Voice = "authors"  # who the post's "we" is (style.voice_of)

    def gain(self, c: Cand, covered: dict[str, float]) -> float:
        """What taking ``c`` adds, given how much of each figure is ``covered``."""
        g = c.base
        for f, w in c.figures.items():
            left = 1.0 - covered.get(f, 0.0)
            if left <= 0:
                continue
            g += w * left
            if f in self.headline and w >= 1.0:
                g += 1.5 * left
        if c.sub not in self.subs_seen.get(c.section, set()):
            g += 0.5  # a sub-section not yet represented
        return g

    def mass(self, si: int) -> float:
        """How much section ``si`` has to say: its best gains."""
        scores = sorted((self.gain(c, {}) for c in self.cands if c.section == si), reverse=True)
        return 1.0 + sum(max(0.0, x) for x in scores[:8])


# Captions often carry the measured figures: their label goes, their text stays.
_CAPTION = re.compile(r"^(figure|fig\.|table|image|chart)\s*\d*[a-z]?\s*[:.]\s+", re.IGNORECASE)
_HYPE = re.compile(
    r"\b(revolutionary|revolutioniz\w*|game[- ]chang\w*|groundbreaking|unprecedented|"
    r"blazing(ly)?|mind-blowing|incredibl[ey]|amazing|awesome|best-in-class|world-class|"
    r"cutting-edge|state-of-the-art|speed of light|supercharg\w*|unleash\w*|magic(al)?|"
    r"seamless(ly)?|effortless(ly)?|stunning|excited|thrilled|delighted|proud to|"
    r"breakthrough|lightning[- ]fast|insanely)\b",
    re.IGNORECASE,
)
_POINTER = re.compile(
    r"\b(figure|fig\.|table|chart|graph|diagram)\s*\d|\b(shown|see|illustrated) (below|above|"
    r"in figure|in the figure|in table)|\bclick\b|\bhere:|\blearn more\b|\bcheck out\b|"
    r"https?://|\bthe following\b|\bbelow\b|\babove\b|\bmore information\b|"
    r"\bcan be found (?:at|in|on)\b|\bfor (?:more|further|full) details\b",
    re.IGNORECASE,
)
_DANGLING = re.compile(
    r"^(this|these|that|those|it|its|they|their|such|both|however|instead|here|then|also|"
    r"but|and|so|thus|hence|therefore|meanwhile|in addition|additionally|moreover|likewise|"
    r"similarly|as a result|in contrast|on the other hand|again|still|yet|otherwise)\b",
    re.IGNORECASE,
)
# "The fix closes ...", "The result is ...": the one the sentence before described. Read
# as leaning on it only without a figure: one with a figure says something alone.
_BACK_REFERENCE = re.compile(
    r"^(?:the (?:fix|result|change|problem|issue|approach|solution|answer|difference|"
    r"payoff|catch|trick|downside|upside|benefit|tradeoff|trade-off|outcome|rest|"
    r"other half)|with the above)\b",
    re.IGNORECASE,
)
_CONDITION = re.compile(
    r"\b(over|across|versus|vs\.?|compared|baseline|relative|on|under|with|per|at|for|when|"
    r"using|from|to)\b",
    re.IGNORECASE,
)
_RESULT = re.compile(
    r"\b(speed-?ups?|faster|slower|improv\w*|gains?|reduc\w*|increas\w*|decreas\w*|cut|cuts|"
    r"deliver\w*|achiev\w*|reach\w*|outperform\w*|throughput|latency|recover\w*|lower|higher|"
    r"drop\w*|rais\w*|saves?|saving|within|accuracy|score\w*|pass\w*)\b",
    re.IGNORECASE,
)
_CODE_TOKEN = re.compile(
    r"\w_\w|\w\([^()]*\)|\w\.\w+\(|==|!=|->|::|\{[^{}]*\}|[{}]|\w=\S|^\$|--\w|\b[a-z]+\.[a-z_]+\.[a-z_]"
)
# Credit lines of release notes: "API Unstable (PR #189284 by ...)", "See #180247, #184407",
# "Report correct MI300X peak FLOPS ...: TorchTitan #920".
_CREDITS = re.compile(
    r"^(api (un)?stable\b|see #\d)|\(prs? #|#\d+(?:,| and) #?\d+|\bby @\w|:\s+\w+ #\d+\.?$",
    re.IGNORECASE,
)
_PANEL = re.compile(r"^\([A-Za-z0-9]\)\s+")
_CALL_TO_ACTION = re.compile(
    r"\b(let us know|join us|contact us|reach out|feel free|stay tuned|sign up|follow us)\b",
    re.IGNORECASE,
)
# A sentence that only leads into a list: with its colon made a full stop ("Speakers
# include.") it is no sentence.
_LIST_LEAD = re.compile(
    r"\b(include|includes|including|are|is|were|was|following|follows|these|as|such as|"
    r"below)\s*:$",
    re.IGNORECASE,
)
# A sentence that tells the reader to do something ("View the full schedule", "Explore
# practical SFT ..."): the explainer says what the post reports, except how to use it.
# ("Join us ... October 20-21" is a call to action, already marked down, and often where
# an event post gives its dates.)
_IMPERATIVE = re.compile(
    r"(view|register|explore|read|learn|check|visit|download|watch|subscribe|follow|"
    r"click|see|submit|become|connect|discover|meet|don[’']t miss|save|share|review|"
    r"apply|grab|tell)\b",
    re.IGNORECASE,
)
# What the work does next ("a work-in-progress", "will land", "plans to"): in the closing
# section, the sentences an explainer's last section ("what comes next") is made of.
_OUTLOOK = re.compile(
    r"\b(will|plans?|planned|planning|next|future|upcoming|roadmap|work[- ]in[- ]progress|"
    r"in progress|ongoing|going forward|aims? to|intends? to|coming (weeks|months|releases?))\b",
    re.IGNORECASE,
)
_FIRST_PERSON_SINGULAR = re.compile(r"\b(I|I'm|I’m|I've|I’ve|I'd|I’d|my|me|mine)\b")
_LETS = re.compile(r"\blet[’']s\b", re.IGNORECASE)
_FIRST_PERSON_PLURAL = re.compile(r"\b(?:we|we[’'](?:re|ve|ll|d)|our|ours|us)\b", re.IGNORECASE)


def collect(sections: list[SourceSection], title_words: set[str]) -> Draft:
    """Every candidate of ``sections``, scored (``title_words`` count for relevance); when
    none is usable, every plain sentence is."""
    cands: list[Cand] = []
    codes: dict[int, str] = {}
    for si, sec in enumerate(sections):
        index = 0
        sub = 0
        sub_index = 0
        heading_subject = ""
        for bi, b in enumerate(sec.blocks):
            first = len(cands)
            if b.kind == "heading":
                sub += 1
                sub_index = 0
                heading_subject = subject_of(clean_inline(b.text)[0])
            elif b.kind == "paragraph":
                text, bold = clean_inline(b.text)
                m = _CAPTION.match(text)
                caption = m.group(1).lower().rstrip(".") if m else ""
                text = _CAPTION.sub("", text)
                if sec.role == "intro":
                    text = re.sub(r"^tl;?dr:?\s*", "", text, flags=re.I)
                subject = heading_subject
                sentences = split_sentences(text)
                for k, s in enumerate(sentences):
                    s = _PANEL.sub("", s)  # "(A) Tokens are routed ...": a figure's panel
                    if k == 0 and len(sentences) > 1 and len(s.split()) <= 4:
                        # A lead-in ("MXFP8 A8W8. With ATen ..."; bold in the post).
                        subject = subject_of(s) or subject
                    c = Cand(s, si, bi, index, "prose", first_in_block=k == 0)
                    c.caption = caption
                    c.bold = any(sp and sp in s and any(ch.isdigit() for ch in sp) for sp in bold)
                    c.subject = subject
                    cands.append(c)
                    index += 1
                if cands[first:] and bi + 1 < len(sec.blocks):
                    cands[-1].lead = sec.blocks[bi + 1].kind in ("list_item", "table")
            elif b.kind == "list_item":
                text, bold = clean_inline(b.text)
                lead = next((c.text for c in reversed(cands) if c.lead), "")
                text = session_sentence(text, lead) or text
                c = Cand(text, si, bi, index, "item", first_in_block=True)
                c.bold = any(any(ch.isdigit() for ch in sp) for sp in bold)
                cands.append(c)
                index += 1
            elif b.kind == "table":
                for row_text in table_sentences(b):
                    cands.append(Cand(row_text, si, bi, index, "table"))
                    index += 1
            elif b.kind == "code" and si not in codes and sec.role == "usage":
                code = short_code(b.text)
                if code:
                    codes[si] = code
            for c in cands[first:]:
                c.sub = sub
                c.sub_index = sub_index
                sub_index += 1
    for c in cands:
        _score(c, title_words)
        role = sections[c.section].role
        if c.base > -50 and role in ("next", "conclusion") and _OUTLOOK.search(c.text):
            c.base += 0.8
        if c.base > -50 and role != "usage" and _IMPERATIVE.match(c.text):
            c.base -= 1.5
    headline: set[str] = set()
    intro = [c for c in cands if sections[c.section].role == "intro"]
    for c in intro + [c for c in cands if c.bold]:
        headline.update(f for f, w in c.figures.items() if w >= 1.0)
    if not any(c.base > -50 for c in cands):
        # An excerpt whose only sentences are promotional or in the first person still
        # gets an explainer: its own words beat no explainer at all.
        # Not a sentence past twice the longest kept: the number check reads each of its
        # figures against every figure of the post ("1.5x " 20,000 times: minutes).
        for c in cands:
            if (
                3 <= c.words <= 2 * MAX_WORDS
                and c.kind != "table"
                and not re.search(r"https?://", c.text)
            ):
                c.base = 0.0
    return Draft(sections, cands, codes, headline)


def _score(c: Cand, title_words: set[str]) -> None:
    """Set ``c``'s words, figures and base score (-100: never to be kept)."""
    plain = dehype(c.text)
    dehyped = plain != c.text
    c.text = text = plain
    c.words = len(text.split())
    c.figures = figures(text)
    c.long = c.words > MAX_WORDS
    if c.long:
        # Never kept (only a title phrase is taken from it): what it reads like is not
        # asked, and a 100,000-word sentence (a table row, a hostile post) costs nothing.
        c.base = -100.0
        _leaning(c)
        return
    # A sentence that leans on the one before ("This", "However") reads badly alone;
    # less so at a paragraph start, where it leans on the previous paragraph.
    dangling = bool(
        _DANGLING.match(text)
        or (not c.figures and _BACK_REFERENCE.match(text))
        # "Second, ..." without the first point before it reads as a fragment of a list.
        or re.match(r"(and|but|or|so|firstly|secondly|second|third|finally|lastly)\b", text, re.I)
    )
    s = 0.0
    if c.index == 0:
        s += 0.8
    elif c.sub_index == 0:
        s += 0.4  # opens a sub-section
    if c.first_in_block:
        s += 0.3
    s -= 0.25 * math.log1p(c.sub_index)
    overlap = len(content_words(text) & title_words)
    s += 0.35 * min(overlap, 3)
    if any(w >= 2.0 for w in c.figures.values()) and _CONDITION.search(text):
        s += 0.5
    if c.bold:
        s += 1.0
    n = c.words
    if n < 6:
        s -= 1.5
    if n > 28:
        s -= 0.15 * (n - 28)
    code_tokens = len(_CODE_TOKEN.findall(text))
    s -= 0.6 * code_tokens
    if dangling:
        s -= 0.4 if c.first_in_block else 0.8
    if re.search(r"\byou(r|’re|'re)?\b", text, re.I):
        s -= 0.4
    if not c.figures and _FIRST_PERSON_PLURAL.search(text):
        # "We are joining the ecosystem": a mission statement, and in a post that
        # quotes several teams, "the authors" would name the wrong ones.
        s -= 0.4
    if text.endswith("?"):
        s -= 2.0
    if text.endswith("!"):
        s -= 1.0
    if _CALL_TO_ACTION.search(text):
        s -= 1.5
    if text.endswith(":"):
        s -= 0.8
    if _POINTER.search(text):
        s -= 1.2
    if n >= 6:
        grade = 0.39 * n + 11.8 * _syllables(text) / n - 15.59
        if grade > 11:
            s -= 0.15 * (grade - 11)
    # Long parentheticals (settings, code, formulas) make a sentence hard to read.
    s -= 0.5 * sum(1 for p in re.findall(r"\(([^()]*)\)", text) if len(p.split()) > 6)
    if dehyped:
        s -= 0.5  # promotional to begin with
    if len(c.figures) > 4 and not any(w >= 2.0 for w in c.figures.values()):
        s -= 1.0  # many numbers, no result: configuration detail
    if c.caption:
        s -= 0.8 if c.first_in_block else 0.3  # a caption opens with a noun phrase
    if c.lead and not c.figures:
        s -= 1.2
    if c.kind == "item" and not c.figures:
        s -= 0.3  # list items are often fragments
    if c.kind == "table":
        s -= 0.3
        if not any(w >= 1.0 for w in c.figures.values()):
            s = -100.0
    excluded = (
        _LIST_LEAD.search(text)  # "... sessions include:" says nothing without its list
        or _HYPE.search(text)
        or _LETS.search(text)
        or _FIRST_PERSON_SINGULAR.search(text)
        or code_tokens > max(2, n // 4)
        or re.search(r"https?://|www\.|\s\|\s", text)
        or _CREDITS.search(text)
        or BIO.match(text)  # a speaker's or author's bio inside a paragraph
        or text.count("(") > 3  # a formula or a call chain, not prose
        or n < 3
        # A noun phrase is no statement ("The new “flat” models which live under ..."):
        # a caption's is said as one (phrases.as_caption), a table row's is a row.
        or (c.kind != "table" and not c.caption and is_noun_phrase(text))
        or (c.kind == "item" and has_no_finite_verb(text))
    )
    c.base = -100.0 if excluded else s
    _leaning(c)


def _leaning(c: Cand) -> None:
    """Set whether ``c``'s figures lean on the sentence before (``bare``, ``leans``)."""
    if c.kind != "table" and any(w >= 1.0 for w in c.figures.values()):
        c.bare = not _names_anything(c.text)
        c.leans = bool(_PRONOUN_SUBJECT.match(c.text))


_SUBJECT_NAME = re.compile(r"[A-Za-z]*(?:[a-z][A-Z]|[A-Z]{2}|\d)[\w.+-]*")


def subject_of(heading: str) -> str:
    """What a sub-heading or a bold lead-in names: its part before a colon (or all of it,
    when short), if that holds a name (a word with an inner capital or a digit: RMSNorm,
    GEMM, BF16); else "" ("Why It Matters" names nothing)."""
    head = heading.split(":", 1)[0].strip().rstrip(".")
    if not head or len(head.split()) > 4 or not _SUBJECT_NAME.search(head):
        return ""
    return head


def with_subject(
    c: Cand, case: CaseTable, before: Sequence[str] = (), wording: Wording = ENGLISH
) -> str:
    """The sentence, its subject in front when neither it nor the sentences ``before`` it
    in its paragraph name any of it ("For RMSNorm, speedups ..."; "For TopK and small K,
    ..." where it opens with "For"), in ``wording``'s language ("Pour RMSNorm, ...")."""
    names = [n.lower() for n in _SUBJECT_NAME.findall(c.subject)]
    said = " ".join([*before, c.text]).lower()
    if not c.subject or not c.figures or any(n in said for n in names):
        return c.text
    head = subject_case(c.subject, case, unknown_lower=True)
    if wording == ENGLISH and re.fullmatch(r"[a-z]+", head.rsplit(" ", 1)[-1]) and " " in head:
        head = "the " + head  # "the nccl2 backend"; but "RMSNorm", "dense GEMM"
    # A sentence that opens with the prefix's own word ("For small K", "Pour les petits
    # K") takes the subject into it: "For TopK and small K", not "For TopK, for small K".
    word = wording.about.split("{}", 1)[0]
    if c.text.startswith(word):
        return f"{word}{head}{wording.joins}{c.text[len(word) :]}"
    lowered = lower_first(c.text, case) if wording.lower else None
    return wording.about.format(head) + (c.text if lowered is None else lowered)


# A pronoun for a subject named in the sentence before.
_PRONOUN_SUBJECT = re.compile(
    r"(?:they|it|its|their|this|these|that|those|such|both|he|she|his|her)\b", re.IGNORECASE
)
_NAME_TOKEN = re.compile(r"[A-Za-z][\w.+]*")


def _names_anything(text: str) -> bool:
    """Whether a sentence names a thing (a product, model, format, chip: ATen, MI355X,
    Llama): a word with a capital past its first letter or a digit, or a capitalised word
    that does not open the sentence."""
    for m in _NAME_TOKEN.finditer(text):
        word = m.group(0).rstrip(".")
        if any(ch.isupper() or ch.isdigit() for ch in word[1:]):
            return True
        if word[:1].isupper() and m.start() > 0 and text[: m.start()].rstrip()[-1:] not in ".!?:":
            return True
    return False


def is_result(c: Cand) -> bool:
    """A measured result (a strong figure and a result word): the post's claim, attributed."""
    return (
        c.kind != "table"
        and any(w >= 2.0 for w in c.figures.values())
        and bool(_RESULT.search(c.text))
    )
