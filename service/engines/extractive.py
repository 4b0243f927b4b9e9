"""The offline explainer engine: the explainer shape built from the post's own sentences.

No model at all. The post is read as blocks (``service.text``), its sections become the
explainer's sections, and in each the most informative whole sentences are kept: those
with figures and their conditions, early ones, ones that share words with the title.
Table rows become sentences made of their header and cells. Jargon gets a plain
definition at first use from ``prompts/glossary.yaml``; result sentences are attributed
to the post.

Every sentence is a source sentence used whole (only Markdown syntax stripped, first
person turned into "the authors", an attribution or a definition added), and nothing
the engine adds contains a digit, so every number of the explainer is the source's own,
character for character, and the number check passes by construction.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Literal

import yaml

from service.config import DEFAULT_PROMPTS_DIR
from service.engines.base import ExplainOptions
from service.errors import EngineError, TemplateError
from service.models import (
    Article,
    CheckReport,
    Explainer,
    ExplainResult,
    Section,
    Usage,
)
from service.text import Block, split_blocks, split_sentences

try:  # textstat counts syllables offline (pyphen); see service.readability
    from textstat import textstat as _textstat

    def _syllables(text: str) -> int:
        return int(_textstat.syllable_count(text))
except ImportError:  # pragma: no cover - textstat is a declared dependency

    def _syllables(text: str) -> int:
        return sum(max(1, len(re.findall(r"[aeiouy]+", w))) for w in text.lower().split())


# Bump when the output for the same input changes: it is part of the idempotency key.
ENGINE_VERSION = "extractive-1"
GLOSSARY_FILE = "glossary.yaml"

MAX_SECTIONS = 7
MIN_SECTIONS = 3
MAX_PARAGRAPHS = 4
MAX_DEFINITIONS = 12  # more than this and the explainer reads like a dictionary
MAX_CODE_LINES = 8

Role = Literal["intro", "body", "usage", "next", "conclusion"]

# --- glossary -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GlossaryEntry:
    """One term and its plain definition."""

    term: str
    definition: str
    pattern: re.Pattern[str]
    plural: str | None = None  # the definition to use after a plural form ("kernels, ...")

    def definition_for(self, form: str) -> str:
        if self.plural and form.endswith("s") and not self.term.endswith("s"):
            return self.plural
        return self.definition


def _term_pattern(forms: Sequence[str], case: bool) -> re.Pattern[str]:
    alts = "|".join(re.escape(f) for f in sorted(set(forms), key=len, reverse=True))
    # Not inside a longer identifier (FP8 in MXFP8, compile in torch.compile, GPU in GPU-based).
    return re.compile(rf"(?<![\w./\-])(?:{alts})(?![\w/\-]|\.\w)", 0 if case else re.IGNORECASE)


def _parse_glossary(data: object, where: str) -> dict[str, GlossaryEntry]:
    if data is None:
        return {}
    terms = data.get("terms") if isinstance(data, dict) else None
    if not isinstance(terms, dict):
        raise TemplateError(f"{where}: expected a mapping 'terms: {{term: definition}}'")
    out: dict[str, GlossaryEntry] = {}
    for term, spec in terms.items():
        if not isinstance(term, str) or not term.strip():
            raise TemplateError(f"{where}: a glossary term is blank or not a string")
        forms: list[str] = [term, term + "s"]
        case = any(c.isupper() for c in term)
        plural: str | None = None
        if isinstance(spec, str):
            definition = spec
        elif isinstance(spec, dict) and isinstance(spec.get("define"), str):
            definition = spec["define"]
            if "forms" in spec:
                raw = spec["forms"]
                if not isinstance(raw, list) or not all(isinstance(f, str) for f in raw):
                    raise TemplateError(f"{where}: forms of {term!r} must be a list of strings")
                forms = list(raw)
            if "case" in spec:
                case = bool(spec["case"])
            if isinstance(spec.get("plural"), str):
                plural = " ".join(spec["plural"].split()) or None
        else:
            raise TemplateError(f"{where}: {term!r} needs a definition string or 'define:'")
        definition = " ".join(definition.split())
        if not definition:
            raise TemplateError(f"{where}: {term!r} has an empty definition")
        out[term] = GlossaryEntry(term, definition, _term_pattern(forms, case), plural)
    return out


@lru_cache(maxsize=32)
def _load_glossary_file(path: Path, mtime: float) -> tuple[str, dict[str, GlossaryEntry]]:
    try:
        raw = path.read_text(encoding="utf-8")
        data = yaml.safe_load(raw)
    except (OSError, yaml.YAMLError) as exc:
        raise TemplateError(f"cannot read glossary {path}: {exc}") from exc
    return raw, _parse_glossary(data, str(path))


def load_glossary(*paths: Path) -> tuple[str, tuple[GlossaryEntry, ...]]:
    """Merge glossary files in order (later ones override terms); ``(raw texts, entries)``.

    Missing files are skipped, so a feed's template dir need not have a glossary.
    """
    raws: list[str] = []
    merged: dict[str, GlossaryEntry] = {}
    for path in paths:
        if not path.is_file():
            continue
        raw, entries = _load_glossary_file(path, path.stat().st_mtime)
        raws.append(raw)
        merged.update(entries)
    return "\n".join(raws), tuple(merged.values())


# --- inline cleaning --------------------------------------------------------------------------

_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_CITATION = re.compile(r"\s?\[\d+(?:\s*[,–-]\s*\d+)*\]")  # [1,2] reference markers
_AUTOLINK = re.compile(r"<https?://[^>]+>")
_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_ITALIC = re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])|(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)")
_CODE = re.compile(r"`+([^`]+?)`+")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!$|])")
_STRAY = re.compile(r"\*\*|(?<!\w)\*(?!\w)")


_REFS = re.compile(
    r",?\s+as (?:shown|seen|illustrated) in (?:Figure|Fig\.|Table) \d+[a-z]?"
    r"|\s*\((?:see )?(?:Figure|Fig\.|Table) \d+[a-z]?\)"
    r"|\s*\((?:PRs?\s*)?#\s?\d+(?:(?:,\s*|\s+and\s+|\s*→\s*)#?\s?\d+)*\)"
)


def strip_refs(sentence: str) -> str:
    """Pointers to figures, tables and pull requests the reader cannot see."""
    return _REFS.sub("", sentence)


def clean_inline(text: str) -> tuple[str, list[str]]:
    """Markdown inline syntax out of ``text``; returns the text and its bold spans."""
    text = _IMAGE.sub("", text)
    text = _AUTOLINK.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _CITATION.sub("", text)
    text = _CODE.sub(r"\1", text)
    bold: list[str] = []

    def _b(m: re.Match[str]) -> str:
        inner = m.group(1) or m.group(2) or ""
        bold.append(inner.strip())
        return inner

    text = _BOLD.sub(_b, text)
    text = _ITALIC.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = _STRAY.sub("", text)
    text = _ESCAPE.sub(r"\1", text)
    text = " ".join(text.split())
    text = re.sub(r"\s+([,.;:!?)])", r"\1", text)
    text = re.sub(r"\(\s+", "(", text)
    return text, bold


# --- numbers and words ------------------------------------------------------------------------

_NUM_TOKEN = re.compile(r"[^\s—]*\d[^\s—]*")
_EDGE = "\"'()[]{}.,;:!?*"
_QUANTITY = re.compile(
    r"[~≈+\-−$€£]?\d[\d,]*(?:\.\d+)?(?:[x×%]|[kKMBT])?"
    r"(?:[–—\-]|→)?(?:[$€£]?\d[\d,]*(?:\.\d+)?(?:[x×%]|[kKMBT])?)?"
)
_UNIT_AFTER = re.compile(r"\s*(?:times|percent|×|ms\b|seconds?\b|tok/s|tokens/s|GB|GiB|TB)")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’\-]*")


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Names too generic to be an explainer's subject.
_JUNK_TITLE = re.compile(
    r"^(tl;?dr|summary|introduction|overview|untitled( post)?|home|blog|post|news|none)?\W*$",
    re.IGNORECASE,
)

_GENERIC_NAMES = _wordset(
    "AI ML LLM LLMs GPU GPUs CPU CPUs API APIs TL DR Today Here Figure Table The This"
)

STOPWORDS = _wordset(
    """a an and are as at be by for from has have how in into is it its of on or that the
    their this to was were what when where which while who why will with without your you
    we our us can new now more most than then these those not no"""
)


def number_tokens(text: str) -> list[str]:
    """Every token of ``text`` that holds a digit, without surrounding punctuation."""
    out = []
    for m in _NUM_TOKEN.finditer(text):
        tok = m.group(0).strip(_EDGE)
        if any(c.isdigit() for c in tok):
            out.append(tok)
    return out


def _figure_weight(tok: str, after: str) -> float:
    """How much a number says: quantities with units most, identifiers least."""
    if _QUANTITY.fullmatch(tok):
        if re.search(r"[x×%$€£]|\d[kKMBT]$", tok) or _UNIT_AFTER.match(after):
            return 2.0
        if re.fullmatch(r"(?:19|20)\d\d", tok):
            return 0.3  # a year
        return 1.0
    if (
        re.match(r"[~≈+\-−$€£]?\d", tok)
        and re.search(r"\d(?:x|×|%)", tok)
        and not re.search(r"\d\s?[x×]\s?[A-Za-z]", tok)  # "8xMI325X" is a machine, not a ratio
    ):
        return 2.0
    return 0.4  # identifiers and versions: MI355X, FP8, 0.14.2b


_MONTH = re.compile(
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+$", re.IGNORECASE
)


def _figures(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for m in _NUM_TOKEN.finditer(text):
        tok = m.group(0).strip(_EDGE)
        if any(c.isdigit() for c in tok):
            weight = _figure_weight(tok, text[m.end() :])
            if _MONTH.search(text[max(0, m.start() - 12) : m.start()]) or re.fullmatch(
                r"\d{1,2}:\d\d(?:[ap]m)?", tok
            ):
                weight = 0.3  # dates and times say when, not how much
            if weight == 1.0 and re.fullmatch(r"\d", tok):
                weight = 0.3  # "stage 0", "step 2": labels more than amounts
            out[tok] = max(out.get(tok, 0.0), weight)
    # Lists of plain counts ("256, 512, or 1024 threads") are detail, not results.
    plain = [t for t, w in out.items() if w == 1.0]
    for t in plain[2:]:
        out[t] = 0.3
    # So are runs of identifiers ("A0 feeds C00/C01, A1 feeds C10/C11").
    names = [t for t, w in out.items() if w == 0.4]
    for t in names[2:]:
        out[t] = 0.1
    return out


def _content_words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text) if w.lower() not in STOPWORDS and len(w) > 2}


# --- candidates -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Cand:
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
    caption: bool = False
    sub: int = 0  # which sub-section (under the n-th sub-heading) of its section
    sub_index: int = 0  # position within that sub-section
    dangling: bool = False


@dataclass(slots=True)
class _SourceSection:
    heading: str | None
    role: Role
    blocks: list[Block]
    subheadings: list[str] = field(default_factory=list)


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
# Captions often carry the measured figures: their label goes, their text stays.
_CAPTION = re.compile(r"^(?:figure|fig\.|table|image|chart)\s*\d*[a-z]?\s*[:.]\s+", re.IGNORECASE)
_BIO = re.compile(
    r"^[A-Z][\w.\-’' ]{1,60} (is|was) an? ([\w\-]+ ){0,5}(engineer|scientist|researcher|"
    r"manager|developer|lead|architect|director|professor|student|intern|member|founder|"
    r"head|advocate|maintainer)\b"
)
_THANKS = re.compile(
    r"^(we('d| would)? (like to )?(sincerely )?thank|thanks to|special thanks|many thanks|"
    r"we are grateful|we're grateful|acknowledg)",
    re.IGNORECASE,
)
_HYPE = re.compile(
    r"\b(revolutionary|revolutioniz\w*|game[- ]chang\w*|groundbreaking|unprecedented|"
    r"blazing(ly)?|mind-blowing|incredibl[ey]|amazing|awesome|best-in-class|world-class|"
    r"cutting-edge|state-of-the-art|speed of light|supercharg\w*|unleash\w*|magic(al)?|"
    r"seamless(ly)?|effortless(ly)?|stunning|excited|thrilled|delighted|proud to|"
    r"breakthrough|lightning[- ]fast|insanely)\b",
    re.IGNORECASE,
)
# Hype adjectives and adverbs that can go without breaking the sentence.
_HYPE_WORD = re.compile(
    r"\b(unprecedented|incredibl[ey]|amazing|awesome|best-in-class|world-class|cutting-edge|"
    r"state-of-the-art|groundbreaking|revolutionary|breakthrough|stunning|mind-blowing|"
    r"blazing(?:ly)?[- ]fast|lightning[- ]fast|seamless(?:ly)?|effortless(?:ly)?|"
    r"game[- ]changing|insanely|truly)\s+(?=[\w(])",
    re.IGNORECASE,
)


def dehype(sentence: str) -> str:
    """The sentence without removable hype words ("our breakthrough model" -> "our model")."""
    out = _HYPE_WORD.sub("", sentence)
    if out == sentence:
        return sentence
    # The article that preceded a removed word now precedes another one.
    out = re.sub(r"\b([Aa])n (?=[b-df-hj-np-tv-z])", r"\1 ", out)
    out = re.sub(r"\b([Aa]) (?=[aeiou])", r"\1n ", out)
    return out[:1].upper() + out[1:] if sentence[:1].isupper() else out


_POINTER = re.compile(
    r"\b(figure|fig\.|table|chart|graph|diagram)\s*\d|\b(shown|see|illustrated) (below|above|"
    r"in figure|in the figure|in table)|\bclick\b|\bhere:|\blearn more\b|\bcheck out\b|"
    r"https?://|\bthe following\b|\bbelow\b|\babove\b",
    re.IGNORECASE,
)
_DANGLING = re.compile(
    r"^(this|these|that|those|it|its|they|their|such|both|however|instead|here|then|also|"
    r"but|and|so|thus|hence|therefore|meanwhile|in addition|additionally|moreover|likewise|"
    r"similarly|as a result|in contrast|on the other hand|again|still|yet|otherwise)\b",
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
_ATTRIBUTED = re.compile(
    r"\b(the authors|the post|according to|report(s|ed)?|the team|the companies|"
    r"the study|the paper)\b",
    re.IGNORECASE,
)
_CODE_TOKEN = re.compile(
    r"\w_\w|\w\([^()]*\)|\w\.\w+\(|==|!=|->|::|\{[^{}]*\}|[{}]|\w=\S|^\$|--\w|\b[a-z]+\.[a-z_]+\.[a-z_]"
)
# Credit lines of release notes: "API Unstable (PR #189284 by ...)", "See #180247, #184407".
_CREDITS = re.compile(
    r"^(api (un)?stable\b|see #\d)|\(prs? #|#\d+(?:,| and) #?\d+|\bby @\w", re.IGNORECASE
)
_CALL_TO_ACTION = re.compile(
    r"\b(let us know|join us|contact us|reach out|feel free|stay tuned|sign up|follow us)\b",
    re.IGNORECASE,
)
_FIRST_PERSON_SINGULAR = re.compile(r"\b(I|I'm|I’m|I've|I’ve|I'd|I’d|my|me|mine)\b")
_LETS = re.compile(r"\blet[’']s\b", re.IGNORECASE)


def _is_boilerplate(block: Block, plain: str) -> bool:
    if block.kind == "heading":
        return bool(_SKIP_SECTION.match(plain)) or bool(re.match(r"^tl;?dr:?$", plain, re.I))
    if block.kind in ("paragraph", "list_item"):
        if plain.startswith("(") and plain.rstrip(".").endswith(")"):
            return True  # a credit line: "(PR #184240 by ...)"
        return bool(
            _BOILER_BLOCK.match(plain) or _BIO.match(plain) or _THANKS.match(plain)
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


def _source_sections(blocks: list[Block]) -> list[_SourceSection]:
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
    sections: list[_SourceSection] = [_SourceSection(None, "intro", [])]
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
                sections.append(_SourceSection(plain, _role(plain), []))
                continue
            if skipping:
                continue
            sections[-1].subheadings.append(plain)
            sections[-1].blocks.append(b)
            continue
        if skipping or _is_boilerplate(b, plain):
            continue
        sections[-1].blocks.append(b)
    return [s for s in sections if any(b.kind != "heading" for b in s.blocks)]


# --- sentence rewriting ------------------------------------------------------------------------

_FIRST_PERSON = [
    (re.compile(r"\bwe[’']re\b"), "the authors are"),
    (re.compile(r"\bWe[’']re\b"), "The authors are"),
    (re.compile(r"\bwe[’']ve\b"), "the authors have"),
    (re.compile(r"\bWe[’']ve\b"), "The authors have"),
    (re.compile(r"\bwe[’']ll\b"), "the authors will"),
    (re.compile(r"\bWe[’']ll\b"), "The authors will"),
    (re.compile(r"\bwe[’']d\b"), "the authors would"),
    (re.compile(r"\bWe[’']d\b"), "The authors would"),
    (re.compile(r"\bwe\b"), "the authors"),
    (re.compile(r"\bWe\b"), "The authors"),
    (re.compile(r"\bour\b"), "their"),
    (re.compile(r"\bOur\b"), "Their"),
    (re.compile(r"\bours\b"), "theirs"),
    (re.compile(r"\bourselves\b"), "themselves"),
    (re.compile(r"\bus\b"), "them"),
]


def third_person(sentence: str) -> str:
    """The authors' "we" as "the authors" (numbers are never touched)."""
    for pat, repl in _FIRST_PERSON:
        sentence = pat.sub(repl, sentence)
    return sentence


def _finish(sentence: str) -> str:
    s = sentence.strip()
    if s.endswith(":"):
        s = s[:-1].rstrip() + "."
    if s and s[-1] not in ".!?" and not (len(s) > 1 and s[-1] in "\"'”’)" and s[-2] in ".!?"):
        s += "."
    if s and re.fullmatch(r"[a-z][a-z’'\-]*[,;:]?", s.split(" ", 1)[0]):
        s = s[0].upper() + s[1:]  # but not torch.compile, vLLM or fp8
    return s


def _lower_first(sentence: str, table: dict[str, Counter[str]]) -> str | None:
    """The sentence with its first letter lower-cased to follow "that" or a comma; ``None``
    when the first word is a name (the post writes it capitalised mid-sentence)."""
    first = sentence.split(" ", 1)[0].rstrip(",;:")
    if not _is_title_word(first):
        return None if first[:1].isupper() else sentence
    known = first.lower() in table
    if (
        first.lower() in STOPWORDS
        or (known and _usual_case(first, table) == first.lower())
        # A word the post never uses mid-sentence: ordinary if it looks like one.
        or (not known and re.search(r"(ing|ed|ly|ion|s)$", first.lower()) is not None)
    ):
        return sentence[0].lower() + sentence[1:]
    return None


_ATTRIBUTIONS = ("The authors report that ", "According to the post, ", "The post reports that ")


# --- headings ------------------------------------------------------------------------------------

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


def _case_table(text: str) -> dict[str, Counter[str]]:
    """For each word, how it is written where it does not start a sentence."""
    table: dict[str, Counter[str]] = {}
    for m in re.finditer(r"(?<=[a-z0-9,;)] )([A-Za-z][\w\-]*)", text):
        w = m.group(1)
        table.setdefault(w.lower(), Counter())[w] += 1
    return table


def _usual_case(word: str, table: dict[str, Counter[str]]) -> str:
    seen = table.get(word.lower())
    if not seen:
        return word
    return seen.most_common(1)[0][0]


def _is_title_word(word: str) -> bool:
    """'Features', 'Kernel-Level': capitalised ordinary words, not PyTorch, GEMM or FP8."""
    parts = [p for p in word.split("-") if p]
    return (
        bool(parts)
        and parts[0][:1].isupper()
        and all(
            (p[:1].isupper() and p[1:].isalpha() and p[1:] == p[1:].lower())
            or p in ("to", "of", "and", "in", "on", "for", "the", "a")
            for p in parts
        )
    )


def _sentence_case(heading: str, table: dict[str, Counter[str]]) -> str:
    """Title Case as sentence case: a word goes lower case when the post writes it lower
    case mid-sentence; names and acronyms (PyTorch, GEMM, vLLM, FP8) keep their case."""
    out = []
    for w in heading.split(" "):
        core = w.strip("\"'():,;?!")
        if core and _is_title_word(core):
            usual = _usual_case(core, table)
            if usual.lower() == core.lower() and usual != core and not _is_title_word(usual):
                w = w.replace(core, usual, 1)
            elif usual == core and core.lower() in STOPWORDS:
                w = w.replace(core, core.lower(), 1)
        out.append(w)
    return _capitalise(" ".join(out))


def _capitalise(text: str) -> str:
    """Upper-case the first letter unless the first word is an identifier (vLLM, fp8)."""
    first = text.split(" ", 1)[0]
    if re.fullmatch(r"[a-z][a-z\-’']*", first):
        return text[:1].upper() + text[1:]
    return text


_WH_AUX = re.compile(
    r"^(how|what|why|where|when|who)\s+(will|can|could|should|would|is|are|was|were|does|do|did)"
    r"\s+(it|they|we|this|that|these|those|you)\s+(.+)$",
    re.I,
)
_WHAT_IS = re.compile(r"^what\s+(is|are)\s+(the|their|our)\s+(.+?)(\s+here)?$", re.I)


def plain_heading(heading: str, table: dict[str, Counter[str]]) -> str:
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
    return _sentence_case(third_person(h), table)


# --- the engine -------------------------------------------------------------------------------


@dataclass(slots=True)
class _Plan:
    heading: str
    role: Role
    sections: list[int]  # source sections it draws from
    budget: int = 0


class ExtractiveEngine:
    """Builds explainers from the post's own sentences; deterministic, offline, fast."""

    name = "extractive"

    def __init__(self, prompts_dir: Path = DEFAULT_PROMPTS_DIR) -> None:
        self.prompts_dir = prompts_dir

    def _glossary_paths(self, options: ExplainOptions) -> list[Path]:
        paths = [self.prompts_dir / GLOSSARY_FILE]
        if options.template_dir is not None:
            paths.append(options.template_dir / GLOSSARY_FILE)
        return paths

    def identity(self, options: ExplainOptions) -> tuple[str, str]:
        raw, _ = load_glossary(*self._glossary_paths(options))
        digest = hashlib.sha256(f"{ENGINE_VERSION}\n{raw}".encode()).hexdigest()[:16]
        return "extractive", f"{ENGINE_VERSION}+{digest}"

    def explain(self, article: Article, options: ExplainOptions) -> ExplainResult:
        _, glossary = load_glossary(*self._glossary_paths(options))
        explainer = build_explainer(article, glossary)
        _, version = self.identity(options)
        return ExplainResult(
            explainer=explainer,
            engine=self.name,
            model="extractive",
            prompt_version=version,
            usage=Usage(),
        )

    def repair(
        self,
        article: Article,
        result: ExplainResult,
        report: CheckReport,
        options: ExplainOptions,
    ) -> ExplainResult | None:
        # Its sentences are the source's own: a flagged number is a checker question,
        # not something rewriting could fix.
        return None


def build_explainer(article: Article, glossary: Sequence[GlossaryEntry] = ()) -> Explainer:
    """The explainer of ``article`` (pure). Raises ``EngineError`` when there is no text."""
    if not article.text.strip():
        raise EngineError("the article has no text to explain (empty content)")
    return _Builder(article, glossary).build()


class _Builder:
    def __init__(self, article: Article, glossary: Sequence[GlossaryEntry]) -> None:
        self.article = article
        self.glossary = glossary
        blocks = split_blocks(article.text)
        prose = [b.text for b in blocks if b.kind in ("paragraph", "list_item")]
        self.case = _case_table("\n".join(prose))
        self.title_words = _content_words(article.title)
        self.sections = _source_sections(blocks)
        self.cands: list[_Cand] = []
        self.codes: dict[int, str] = {}
        self.headline: set[str] = set()
        self.subs_seen: dict[int, set[int]] = {}
        self.total_budget = 0
        self.token_counts = Counter(re.findall(r"[\w\-]*\w", article.text))

    # -- candidates --

    def _collect(self) -> None:
        for si, sec in enumerate(self.sections):
            index = 0
            sub = 0
            sub_index = 0
            for bi, b in enumerate(sec.blocks):
                first = len(self.cands)
                if b.kind == "heading":
                    sub += 1
                    sub_index = 0
                elif b.kind == "paragraph":
                    text, bold = clean_inline(b.text)
                    caption = bool(_CAPTION.match(text))
                    text = _CAPTION.sub("", text)
                    if sec.role == "intro":
                        text = re.sub(r"^tl;?dr:?\s*", "", text, flags=re.I)
                    text = re.sub(r"^\([A-Za-z0-9]\)\s+", "", text)  # "(A) " panel labels
                    for k, s in enumerate(split_sentences(text)):
                        c = _Cand(s, si, bi, index, "prose", first_in_block=k == 0)
                        c.caption = caption
                        c.bold = any(
                            sp and sp in s and any(ch.isdigit() for ch in sp) for sp in bold
                        )
                        self.cands.append(c)
                        index += 1
                elif b.kind == "list_item":
                    text, bold = clean_inline(b.text)
                    c = _Cand(text, si, bi, index, "item", first_in_block=True)
                    c.bold = any(any(ch.isdigit() for ch in sp) for sp in bold)
                    self.cands.append(c)
                    index += 1
                elif b.kind == "table":
                    for row_text in _table_sentences(b):
                        self.cands.append(_Cand(row_text, si, bi, index, "table"))
                        index += 1
                elif b.kind == "code" and si not in self.codes and sec.role == "usage":
                    code = _short_code(b.text)
                    if code:
                        self.codes[si] = code
                for c in self.cands[first:]:
                    c.sub = sub
                    c.sub_index = sub_index
                    sub_index += 1
        for c in self.cands:
            self._score(c)
        intro = [c for c in self.cands if self.sections[c.section].role == "intro"]
        for c in intro + [c for c in self.cands if c.bold]:
            self.headline.update(f for f, w in c.figures.items() if w >= 1.0)

    def _score(self, c: _Cand) -> None:
        plain = dehype(c.text)
        dehyped = plain != c.text
        c.text = text = plain
        c.words = len(text.split())
        c.figures = _figures(text)
        # A sentence that leans on the one before ("This", "However") reads badly alone;
        # less so at a paragraph start, where it leans on the previous paragraph.
        c.dangling = bool(_DANGLING.match(text)) or bool(
            re.match(r"(and|but|or|so|firstly|secondly|finally|lastly)\b", text, re.I)
        )
        s = 0.0
        if c.index == 0:
            s += 0.8
        elif c.sub_index == 0:
            s += 0.4  # opens a sub-section
        if c.first_in_block:
            s += 0.3
        s -= 0.25 * math.log1p(c.sub_index)
        overlap = len(_content_words(text) & self.title_words)
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
        if c.dangling:
            s -= 0.4 if c.first_in_block else 0.8
        if re.search(r"\byou(r|’re|'re)?\b", text, re.I):
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
        if c.kind == "item" and not c.figures:
            s -= 0.3  # list items are often fragments
        if c.kind == "table":
            s -= 0.3
            if not any(w >= 1.0 for w in c.figures.values()):
                s = -100.0
        excluded = (
            _HYPE.search(text)
            or _LETS.search(text)
            or _FIRST_PERSON_SINGULAR.search(text)
            or code_tokens > max(2, n // 4)
            or re.search(r"https?://|www\.|\s\|\s", text)
            or _CREDITS.search(text)
            or text.count("(") > 3  # a formula or a call chain, not prose
            or n < 3
        )
        c.long = n > 80
        c.base = -100.0 if excluded or c.long else s

    def _gain(self, c: _Cand, covered: dict[str, float]) -> float:
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

    # -- plan --

    def _mass(self, si: int) -> float:
        scores = sorted((self._gain(c, {}) for c in self.cands if c.section == si), reverse=True)
        return 1.0 + sum(max(0.0, x) for x in scores[:8])

    def _plan(self) -> list[_Plan]:
        secs = self.sections
        intro = [i for i, s in enumerate(secs) if s.role == "intro"]
        body = [i for i, s in enumerate(secs) if s.role == "body"]
        usage = [i for i, s in enumerate(secs) if s.role == "usage"]
        nxt = [i for i, s in enumerate(secs) if s.role == "next"]
        concl = [i for i, s in enumerate(secs) if s.role == "conclusion"]
        tail = usage[:1] + nxt[:1]
        room = MAX_SECTIONS - len(intro) - len(tail)
        if len(body) > room:
            ranked = sorted(body, key=lambda i: (-self._mass(i), i))
            body = sorted(ranked[:room])
        chosen = intro + body + tail
        if len(chosen) < MIN_SECTIONS:
            chosen = sorted(set(chosen + usage[1:] + nxt[1:] + concl))[:MAX_SECTIONS]
            tail = [i for i in chosen if secs[i].role in ("usage", "next")]
            chosen = [i for i in chosen if i not in tail] + tail
        plans = []
        for i in chosen:
            s = secs[i]
            heading = "What is new" if s.heading is None else plain_heading(s.heading, self.case)
            plans.append(_Plan(heading, s.role, [i]))
        if len(plans) < MIN_SECTIONS:
            plans = self._split(plans)
        return plans

    def _split(self, plans: list[_Plan]) -> list[_Plan]:
        """Too few sections: split the post's text into parts with generic headings."""
        cands = [c for c in self.cands if c.base > -50]
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
        new_sections: list[_SourceSection] = []
        remap: dict[tuple[int, int], int] = {}
        for gi, group in enumerate(groups):
            role: Role = "intro" if gi == 0 else "body"
            new_sections.append(_SourceSection(names[min(gi, 2)], role, []))
            for key in group:
                remap[key] = gi
        for c in self.cands:
            c.section = remap.get((c.section, c.block), -1)
        self.cands = [c for c in self.cands if c.section >= 0]
        self.codes = {}
        self.sections = new_sections
        return [_Plan(s.heading or "", s.role, [i]) for i, s in enumerate(new_sections)]

    def _budgets(self, plans: list[_Plan]) -> None:
        src_words = sum(
            len(b.text.split())
            for s in self.sections
            for b in s.blocks
            if b.kind in ("paragraph", "list_item", "table")
        )
        total = int(min(780, max(320, 0.2 * src_words + 150)))
        # Sentences bring attribution and definitions with them: leave room.
        total = int(total * 0.85)
        self.total_budget = total
        # Sections share most of it; the rest goes to the best figures left (``_fill``).
        total = int(total * 0.8)
        masses = [sum(self._mass(i) ** 0.75 for i in p.sections) for p in plans]
        whole = sum(masses) or 1.0
        cap = max(240, int(1.3 * total / max(1, len(plans))), int(0.6 * total))
        for p, m in zip(plans, masses, strict=True):
            share = total * m / whole
            p.budget = int(min(cap, max(45, share)))

    # -- selection --

    def _select(self, plans: list[_Plan]) -> list[list[_Cand]]:
        # A figure in a long sentence is only half carried: its context is diluted.
        covered: dict[str, float] = {}
        chosen: list[list[_Cand]] = []
        for p in plans:
            pool = [c for c in self.cands if c.section in p.sections and c.base > -50]
            picked: list[_Cand] = []
            words = 0
            while pool and words < p.budget:
                best = max(pool, key=lambda c: (self._gain(c, covered), -c.section, -c.index))
                gain = self._gain(best, covered)
                if gain < -1.5 or (gain < 0.4 and words >= 0.8 * p.budget):
                    break
                pool.remove(best)
                if words + best.words > p.budget * 1.25 and picked:
                    continue
                picked.append(best)
                words += best.words
                share = 0.5 if best.words > 35 else 1.0
                for f in best.figures:
                    covered[f] = min(1.0, covered.get(f, 0.0) + share)
                self.subs_seen.setdefault(best.section, set()).add(best.sub)
            chosen.append(picked)
        self._fill(plans, chosen, covered)
        for picked in chosen:
            picked.sort(key=lambda c: (c.section, c.index))
        return chosen

    def _fill(
        self, plans: list[_Plan], chosen: list[list[_Cand]], covered: dict[str, float]
    ) -> None:
        """Budget left over: the post's remaining figure-bearing sentences, best first,
        wherever they are."""
        used = sum(c.words for picked in chosen for c in picked)
        taken = {id(c) for picked in chosen for c in picked}
        where = {si: k for k, p in enumerate(plans) for si in p.sections}
        pool = [c for c in self.cands if c.base > -50 and id(c) not in taken and c.section in where]
        while pool and used < self.total_budget:
            best = max(pool, key=lambda c: (self._gain(c, covered), -c.section, -c.index))
            # Figures first; plain sentences only while the explainer is still short.
            if self._gain(best, covered) < (1.0 if used >= 0.75 * self.total_budget else 0.0):
                break
            pool.remove(best)
            if used + best.words > self.total_budget * 1.1:
                continue
            chosen[where[best.section]].append(best)
            used += best.words
            share = 0.5 if best.words > 35 else 1.0
            for f in best.figures:
                covered[f] = min(1.0, covered.get(f, 0.0) + share)

    # -- writing --

    def _paragraphs(self, picked: list[_Cand]) -> list[list[_Cand]]:
        paras: list[list[_Cand]] = []
        for c in picked:
            cur = paras[-1] if paras else None
            same_run = cur is not None and (
                cur[-1].block == c.block
                or (cur[-1].kind == c.kind == "item" and c.block - cur[-1].block <= 1)
                or (cur[-1].kind == c.kind == "table" and cur[-1].block == c.block)
            )
            short = cur is not None and sum(x.words for x in cur) < 25
            if cur is not None and (same_run or short) and len(cur) < 4:
                cur.append(c)
            else:
                paras.append([c])
        while len(paras) > MAX_PARAGRAPHS:
            sizes = [
                sum(x.words for x in a) + sum(x.words for x in b)
                for a, b in itertools.pairwise(paras)
            ]
            k = sizes.index(min(sizes))
            paras[k : k + 2] = [paras[k] + paras[k + 1]]
        return paras

    def _sentence(self, c: _Cand, attribute: int | None) -> str:
        s = _finish(third_person(strip_refs(c.text)))
        if attribute is not None and not _ATTRIBUTED.search(s):
            lowered = _lower_first(s, self.case)
            if lowered is not None:
                s = _ATTRIBUTIONS[attribute % len(_ATTRIBUTIONS)] + lowered
            else:  # a name opens the sentence: keep its capital
                s = _ATTRIBUTIONS[1] + s
        return s

    def _is_result(self, c: _Cand) -> bool:
        return (
            c.kind != "table"
            and any(w >= 2.0 for w in c.figures.values())
            and bool(_RESULT.search(c.text))
        )

    def build(self) -> Explainer:
        self._collect()
        if not any(c.base > -50 for c in self.cands):
            # An excerpt whose only sentences are promotional or in the first person still
            # gets an explainer: its own words beat no explainer at all.
            for c in self.cands:
                if c.words >= 3 and c.kind != "table" and not re.search(r"https?://", c.text):
                    c.base = 0.0
        if not any(c.base > -50 for c in self.cands):
            raise EngineError("the article has no prose sentences to explain")
        plans = self._plan()
        self._budgets(plans)
        chosen = self._select(plans)
        if not any(chosen):
            # Nothing scored well (one long sentence, say): the best there is, alone.
            pool = [c for c in self.cands if c.base > -50]
            best = max(pool, key=lambda c: (c.base, -c.section, -c.index))
            k = next((i for i, p in enumerate(plans) if best.section in p.sections), 0)
            chosen[k].append(best)
        defined: set[str] = set()
        attributions = 0
        sections: list[Section] = []
        for p, picked in zip(plans, chosen, strict=True):
            if not picked:
                continue
            paragraphs = []
            for para in self._paragraphs(picked):
                sentences = []
                attributed = False
                for c in para:
                    attribute = None
                    if not attributed and self._is_result(c):
                        attribute = attributions
                        attributions += 1
                        attributed = True
                    sentences.append(self._sentence(c, attribute))
                text = " ".join(sentences)
                text = self._define(text, defined)
                paragraphs.append(text)
            code = next((self.codes[i] for i in p.sections if i in self.codes), None)
            sections.append(Section(heading=p.heading, paragraphs=paragraphs, code=code))
        if not sections:
            raise EngineError("the article has no prose sentences to explain")
        return Explainer(title=self._title(), sections=sections, takeaway=self._takeaway(defined))

    def _define(self, text: str, defined: set[str]) -> str:
        """A plain definition after the first use of a glossary term that reads well with
        one: where the term ends its phrase, at most one definition per sentence."""
        hits: list[tuple[int, int, GlossaryEntry]] = []
        for e in self.glossary:
            if e.term in defined:
                continue
            for m in e.pattern.finditer(text):
                hits.append((m.start(), m.end(), e))
        if not hits:
            return text
        spans = _sentence_spans(text)
        used_sentences: set[int] = set()
        taken: list[tuple[int, int]] = []
        inserts: list[tuple[int, str]] = []
        for start, end, e in sorted(hits, key=lambda h: (h[0], -h[1])):
            if e.term in defined or any(a <= start < b for a, b in taken):
                continue
            sent = next((i for i, (a, b) in enumerate(spans) if a <= start < b), -1)
            if sent in used_sentences or len(defined) >= MAX_DEFINITIONS:
                continue
            placed = _definition_insert(text, start, end, e.definition_for(text[start:end]))
            if placed is None:
                continue
            defined.add(e.term)
            inserts.append(placed)
            taken.append((start, end))
            used_sentences.add(sent)
        for pos, piece in sorted(inserts, reverse=True):
            text = text[:pos] + piece + text[pos:]
        return text

    # -- title and takeaway --

    def _subject(self, title: str) -> str:
        """The post's subject: a short title prefix before ':', else the name the post
        uses most (PyTorch, FlyDSL, ExecuTorch) among the title's and intro's names."""
        left = title.split(":", 1)[0].strip() if ":" in title else ""
        if left and _names_something(left):
            return left
        m = re.match(r"(?:how|why|when|where)\s+([A-Z][\w\-]+)\s+[a-z]", title, re.I)
        if m and m.group(1)[:1].isupper() and m.group(1).lower() not in STOPWORDS:
            return m.group(1)  # "How Shopify built ...": the one who did it

        def candidates(source: str, anywhere: bool) -> list[str]:
            found = []
            for m in re.finditer(r"(?<![\w\-])[A-Za-z][\w\-.+]*[\w+]", source):
                w = m.group(0)
                mixed = any(c.isupper() for c in w[1:]) or (
                    w[0].islower() and any(c.isupper() for c in w)
                )
                starts = m.start() == 0 or source[: m.start()].rstrip()[-1:] in ".!?:"
                if mixed or (w[0].isupper() and (anywhere or not starts)):
                    found.append(w)
            return found

        def score(w: str) -> float:
            if w.lower() in STOPWORDS or w in _GENERIC_NAMES:
                return 0.0
            count = self.token_counts.get(w, 0)
            mixed = any(c.isupper() for c in w[1:])
            return count * (1.5 if mixed else 1.0) * (0.6 if w.isupper() else 1.0)

        intro = " ".join(c.text for c in self.cands if self.sections[c.section].role == "intro")
        pool = candidates(title, anywhere=True) + candidates(intro[:1500], anywhere=False)
        best = max(pool, key=lambda w: (score(w), -pool.index(w)), default="")
        if not best or score(best) < 1:
            return ""
        m = re.search(rf"{re.escape(best)}\s+(\d+(?:\.\d+)*[a-z]?)(?![\w.])", title)
        return f"{best} {m.group(1)}" if m else best

    def _title(self) -> str:
        raw = _restore_slug(" ".join(self.article.title.split()), self.case)
        if _JUNK_TITLE.match(raw):
            raw = ""  # a fallback title ("TL;DR") says nothing: subject and claim do
        subject = self._subject(raw)
        new = raw
        if ":" in raw:
            left, right = (x.strip() for x in raw.split(":", 1))
            new = right if left == subject else left
        if subject:
            pat = re.compile(
                rf"\s*,?\s*\b(with|in|on|for|from|by|using|via|and|to|at)\s+"
                rf"{re.escape(subject)}\s*$"
            )
            if pat.search(new):
                new = pat.sub("", new)
            elif new.startswith(subject + " "):
                new = new[len(subject) + 1 :]
            else:
                new = re.sub(
                    rf"^(how|why|when|where)\s+{re.escape(subject)}\s+(?=[a-z])",
                    r"\1 it ",
                    new,
                    flags=re.I,
                )
        new = new.rstrip("?!. ")
        if subject and re.fullmatch(
            rf"((how|why|what|when|where)\s+)?{re.escape(subject)}", new, re.I
        ):
            new = ""  # "Why ExecuTorch?" says no more than the subject
        new = _sentence_case(new, self.case) if new else ""
        claim = self._claim()
        if claim and claim.split(" ", 1)[0].lower() in ("the", "a", "an", "this", "its"):
            claim = claim.split(" ", 1)[1]
        if claim and new:
            claim = _lower_first(claim, self.case) or claim
        parts = [p for p in (new, claim) if p]
        rest = _capitalise(", ".join(parts)) if parts else "What the post says"
        if not subject:
            return rest if claim or ":" in rest else f"{rest}: what the post says"
        return f"{subject}: {rest}"

    def _claim(self) -> str:
        """A short phrase around the post's headline figure, words as written: from the
        intro first, else from the best figure-bearing sentence of the post."""
        usable = [c for c in self.cands if (c.base > -50 or c.long) and c.kind != "table"]
        intro = [c for c in usable if self.sections[c.section].role == "intro"]
        ranked = sorted(
            (c for c in usable if any(w >= 1.0 for f, w in c.figures.items())),
            key=lambda c: (-self._gain(c, {}), c.section, c.index),
        )
        for pool, least in ((intro, 2.0), (ranked[:5], 2.0), (ranked[:3], 1.0)):
            for c in pool:
                for fig, w in c.figures.items():
                    if w < least:
                        continue
                    phrase = _phrase_around(third_person(strip_refs(c.text)), fig)
                    if phrase:
                        return phrase
        return ""

    def _takeaway(self, defined: set[str]) -> str | None:
        concl = [i for i, s in enumerate(self.sections) if s.role == "conclusion"]
        pool = [
            c
            for c in self.cands
            if c.section in concl
            and c.base > -50
            and c.kind == "prose"
            and not re.search(r"\byou", c.text, re.I)
        ]
        if not pool:
            return None
        best = max(pool, key=lambda c: (c.base + 0.3 * len(c.figures), -c.index))
        return self._define(_finish(third_person(best.text)), defined)


# --- helpers -------------------------------------------------------------------------------------


def _names_something(phrase: str) -> bool:
    """ "PyTorch 2.14" or "Gemma" names a subject; "The problem" does not."""
    words = phrase.split()
    if not 0 < len(words) <= 3 or words[0].lower() in STOPWORDS:
        return False
    return any(
        any(ch.isdigit() for ch in w) or any(ch.isupper() for ch in w[1:]) or w[:1].isupper()
        for w in words
    )


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
    r"because|so|but|across|over|under|per|through|via|without|within|between|like)\b"
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


def _definition_insert(text: str, start: int, end: int, definition: str) -> tuple[int, str] | None:
    """Where and how a definition goes after a term, or ``None`` when it would not read
    well there: inside parentheses, or where the term modifies a following noun."""
    if text.rfind("(", 0, start) > text.rfind(")", 0, start):
        return None
    pos = end
    # Keep an abbreviation that follows the term with it: "mixture-of-experts (MoE)".
    m = re.match(r"\s*\([^()]{1,15}\)", text[pos:])
    if m:
        pos += m.end()
    after = text[pos:]
    if not after or re.match(r"[.!?](\s|$)", after):
        return pos, f", {definition}"
    if (
        after[0] in ",;:"
        or after.startswith(" —")
        or _PHRASE_END.match(after)
        or _VERB.match(after)
    ):
        return pos, f" ({definition})"
    return None


_SKIP_COLUMN = re.compile(r"^(prs?|pull requests?|links?|urls?|sources?|references?|refs?)$", re.I)


def _table_sentences(block: Block) -> list[str]:
    """Table rows as sentences: "For <row label>, the post lists <header>: <cell>; ..."."""
    header = [clean_inline(h)[0] for h in block.header]
    out = []
    for row in block.rows:
        cells = [clean_inline(c)[0] for c in row]
        if not cells or not cells[0]:
            continue
        parts = []
        for h, v in zip(header[1:], cells[1:], strict=False):
            if not v or v in ("-", "—", "–") or _SKIP_COLUMN.match(h):
                continue
            parts.append(f"{h}: {v}" if h else v)
        if parts:
            out.append(f"For {cells[0]}, the post lists {'; '.join(parts)}.")
    return out


def _short_code(code: str) -> str:
    """The first lines of a code block (whole chunks between blank lines), or ''.
    Comment-only lines go: the explainer's prose does the explaining."""
    lines_in = code.strip("\n").split("\n")
    bare = [ln for ln in lines_in if not re.match(r"\s*(#|//)", ln)]
    if any(ln.strip() for ln in bare):
        code = re.sub(r"\n\s*\n(\s*\n)+", "\n\n", "\n".join(bare)).strip("\n")
    chunks = [c for c in re.split(r"\n\s*\n", code.strip("\n")) if c.strip()]
    kept: list[str] = []
    lines = 0
    for chunk in chunks:
        n = chunk.count("\n") + 1
        if lines + n > MAX_CODE_LINES:
            break
        kept.append(chunk.rstrip())
        lines += n
    return "\n\n".join(kept)


def _restore_slug(title: str, case: dict[str, Counter[str]]) -> str:
    """'how-shopify-built-a-loop' (a scraped slug) as 'How Shopify built a loop'."""
    if " " in title or title.count("-") < 2 or title != title.lower():
        return title
    words = [_usual_case(w, case) for w in title.split("-")]
    s = " ".join(words)
    return s[:1].upper() + s[1:]


_CLAUSE_CUT = re.compile(r",\s|;\s|:\s|\s\(|\s—\s|\s–\s|\.\s")
_PREP_CUT = re.compile(
    r"\s(?:for|over|across|on|with|in|when|at|by|while|because|as|than|compared|relative|"
    r"using|through|after|before|from)\s"
)
_LEAD_IN = (
    "up to",
    "within",
    "about",
    "roughly",
    "around",
    "nearly",
    "almost",
    "approximately",
    "over",
    "under",
    "by",
    "only",
    "just",
    "at least",
    "at most",
    "more than",
    "less than",
    "than",
)


def _phrase_around(sentence: str, fig: str) -> str:
    """The clause holding ``fig``, trimmed at commas and at a trailing prepositional
    phrase; the cut never falls inside the figure or a range."""
    at = sentence.find(fig)
    if at < 0:
        return ""
    start = 0
    for m in _CLAUSE_CUT.finditer(sentence):
        if m.end() <= at:
            start = m.end()
    end = len(sentence)
    for m in _CLAUSE_CUT.finditer(sentence, at + len(fig)):
        end = m.start()
        break
    clause = sentence[start:end].strip().rstrip(".")
    rel = clause.find(fig)
    after = clause[rel:]
    for m in _PREP_CUT.finditer(after, len(fig)):
        rest = after[m.end() :]
        if re.match(r"[\d$]", rest):
            continue  # "from 8 to 256": part of a range
        if len(clause[: rel + m.start()].split()) >= 4 and len(clause.split()) > 10:
            after = after[: m.start()]
            break
    before = clause[:rel].split()
    if len(after.split()) >= 3:
        # The figure leads its noun phrase ("1.10x geometric-mean speedup"); keep only
        # a lead-in that belongs to it ("up to", "within").
        keep: list[str] = []
        for lead in _LEAD_IN:
            n = len(lead.split())
            if [w.lower() for w in before[-n:]] == lead.split():
                keep = before[-n:]
                break
        phrase = " ".join([*keep, after])
    else:
        phrase = " ".join([*before[-5:], after])
    phrase = re.sub(r"^(and|or|but|while|with|which|that|so)\s+", "", phrase.strip(), flags=re.I)
    if not 2 <= len(phrase.split()) <= 14:
        return ""
    return phrase


def explainer_words(explainer: Explainer) -> int:
    """Words of an explainer's prose (title, headings, paragraphs, takeaway)."""
    return len(explainer.all_text().split())


def iter_number_tokens(explainer: Explainer) -> Iterable[str]:
    """Number-bearing tokens of an explainer's prose and code."""
    yield from number_tokens(explainer.all_text())
    for s in explainer.sections:
        if s.code:
            yield from number_tokens(s.code)
