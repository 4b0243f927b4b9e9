"""The glossary: plain definitions of jargon, loaded from YAML and merged per feed
(``definitions`` places them in the explainer's text)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from service.engines.extractive.words import STOPWORDS
from service.errors import TemplateError

GLOSSARY_FILE = "glossary.yaml"
MAX_DEFINITIONS = 12  # more than this and a short explainer reads like a dictionary
# A longer explainer meets more terms: a term it uses undefined leaves the reader behind,
# worse than one more definition. At 12, the FlyDSL explainer (some 850 words, 28 terms)
# left RMSNorm, TopK and MLIR undefined, said again and again.
# Past the first 12, as many as its length allows (one a this many words: at 35, the
# FP8 explainer's 580 words left HBM undefined), and only while the explainer stays
# within the words an explainer has (``MOST_WORDS``).
WORDS_PER_DEFINITION = 25
WORDS_PER_SHORT = 18  # with short glosses (``GlossaryEntry.brief``), which read lighter
MOST_WORDS = 900


def definition_cap(words: int, per: int = WORDS_PER_DEFINITION) -> int:
    """The most terms an explainer of ``words`` words (definitions aside) defines, one a
    ``per`` words."""
    return max(MAX_DEFINITIONS, words // per)


@dataclass(frozen=True, slots=True)
class GlossaryEntry:
    """One term and its plain definition."""

    term: str
    definition: str
    pattern: re.Pattern[str]
    plural: str | None = None  # the definition to use after a plural form ("kernels, ...")
    # A gloss of a few words ("AMD's GPU software stack"): where the definition would stand
    # between a figure and what it is said of, and where the full definitions of an
    # explainer's terms do not fit in ``MOST_WORDS``.
    short: str | None = None
    # Longer names that hold the term and are something else ("Triton Inference Server",
    # NVIDIA's model server, is no Triton the language): never a use, title case or not.
    others: tuple[str, ...] = ()

    def brief(self) -> GlossaryEntry:
        """The entry with its short gloss as its definition (itself when it has none)."""
        if self.short is None:
            return self
        return dataclasses.replace(self, definition=self.short, plural=None, short=None)

    def definition_for(self, form: str) -> str:
        if self.plural and form.endswith("s") and not self.term.endswith("s"):
            return self.plural
        return self.definition

    def uses(self, text: str) -> Iterator[re.Match[str]]:
        """The term's uses in ``text``: not a word of a capitalised name ("Kernel" of
        "Composable Kernel", AMD's kernel library, is not a kernel the definition says),
        nor a name's first word ("Triton Inference Server"), nor a part of a path
        ("ROCm/aiter"); one of a slash pair is ("MXFP8/MXFP4 scaled GEMM")."""
        for m in self.pattern.finditer(text):
            if not _slash_pair(text, m.start(), m.end()):
                continue
            if _in_name(text, m.start(), m.end(), self.term):
                continue
            if _in_longer_name(text, m.start(), m.end(), self.term, self.others):
                continue
            yield m


# A capitalised word beside a match, the two one name ("Composable Kernel", "Kernel Tuner").
_NAME_BEFORE = re.compile(r"(?<![\w\-])([A-Z][\w\-]*)[ \t]+$")
_NAME_AFTER = re.compile(r"[ \t]+([A-Z][\w\-]*)")


def _in_name(text: str, start: int, end: int, term: str) -> bool:
    """Whether the lower-case ``term`` written at ``start:end`` is capitalised as a word
    of a longer name: a capitalised word not a stop word ("The kernel") right before or
    after it. A term the glossary writes with a capital ("Triton") is a name itself."""
    if not term[:1].islower() or not text[start : start + 1].isupper():
        return False
    before = _NAME_BEFORE.search(text, max(0, start - 60), start)
    after = _NAME_AFTER.match(text, end)
    return any(m and m.group(1).lower() not in STOPWORDS for m in (before, after))


# A plain word capitalised after a name: the two one longer name ("Triton Inference
# Server"), unless title case capitalises every word. Not an acronym ("Triton GEMM
# kernels": a kind of GEMM) nor a name with a capital inside ("ROCm PyTorch nightly":
# PyTorch built for ROCm), which the name qualifies; not a word of the next sentence.
_NAME_WORD_AFTER = re.compile(r"[ \t]+([A-Z][a-z]+(?:-[a-z]+)*)(?![\w\-])")
_CLAUSE_MARKS = ".!?:;\n()—|"
_TITLE_WORDS = 3  # content words: fewer, and title case cannot be told from names


def _in_longer_name(text: str, start: int, end: int, term: str, others: Sequence[str]) -> bool:
    """Whether the name ``term`` at ``start:end`` is a word of a longer name that is not
    it: one of ``others``, else, for a term the glossary writes with a capital, a
    capitalised word after it (not a stop word) in a clause not in title case. In title
    case every word has its capital, which tells nothing: "A Triton Operator Stack from
    Eager Mode to vLLM" is a stack of Triton the language."""
    for name in others:
        at = text.find(name, max(0, end - len(name)), start + len(name))
        if 0 <= at <= start and at + len(name) >= end:
            return True
    if not term[:1].isupper():
        return False
    after = _NAME_WORD_AFTER.match(text, end)
    if after is None or after.group(1).lower() in STOPWORDS:
        return False
    return not _title_case(text, start, after.end())


def _title_case(text: str, start: int, end: int) -> bool:
    """Whether the clause around ``start:end`` is written in title case: every word but
    the small ones capitalised (or a name with a capital inside: "vLLM"), at least
    ``_TITLE_WORDS`` of them."""
    begin = max(text.rfind(c, 0, start) for c in _CLAUSE_MARKS) + 1
    stops = [i for i in (text.find(c, end) for c in _CLAUSE_MARKS) if i >= 0]
    clause = text[begin : min(stops, default=len(text))]
    words = [w for w in re.findall(r"[^\W\d_][\w'’\-]*", clause) if w.lower() not in STOPWORDS]
    return len(words) >= _TITLE_WORDS and all(w != w.lower() for w in words)


def _term_pattern(forms: Sequence[str], case: bool) -> re.Pattern[str]:
    alts = "|".join(re.escape(f) for f in sorted(set(forms), key=len, reverse=True))
    # Not inside a longer identifier (FP8 in MXFP8, compile in torch.compile, GPU in GPU-based);
    # beside a slash, ``_slash_pair`` says.
    return re.compile(rf"(?<![\w.\-])(?:{alts})(?![\w\-]|\.\w)", 0 if case else re.IGNORECASE)


# Two names joined by one slash, nothing else in the word: both with a capital
# ("MXFP8/MXFP4", "ATen/Triton") or both plain words ("latency/throughput"), not an
# owner and a repository ("ROCm/aiter") or a unit ("tokens/s").
_PAIR = re.compile(r"[A-Za-z0-9+\-]*[A-Z][\w+\-]*/[A-Za-z0-9+\-]*[A-Z][\w+\-]*|[a-z]{3,}/[a-z]{3,}")


def _slash_pair(text: str, start: int, end: int) -> bool:
    """Whether a match at ``start:end`` with a slash beside it is one of a pair of names
    ("MXFP8/MXFP4 scaled GEMM"), true too with no slash. Left out, the FlyDSL explainer's
    first sentence used MXFP8 two sentences before it defined it; a path ("ROCm/aiter",
    "github.com/ROCm/...") or a unit ("tokens/s") is no use of its words."""
    if text[start - 1 : start] != "/" and text[end : end + 1] != "/":
        return True
    a = max(text.rfind(c, 0, start) for c in " \t\n(") + 1
    b = min((i for i in (text.find(c, end) for c in " \t\n)") if i >= 0), default=len(text))
    word = text[a:b].rstrip(".,;:!?")
    return _PAIR.fullmatch(word) is not None


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
        short: str | None = None
        others: tuple[str, ...] = ()
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
            if "others" in spec:
                raw = spec["others"]
                if not isinstance(raw, list) or not all(isinstance(f, str) for f in raw):
                    raise TemplateError(f"{where}: others of {term!r} must be a list of strings")
                others = tuple(raw)
            if isinstance(spec.get("short"), str):
                short = " ".join(spec["short"].split()) or None
        else:
            raise TemplateError(f"{where}: {term!r} needs a definition string or 'define:'")
        definition = " ".join(definition.split())
        if not definition:
            raise TemplateError(f"{where}: {term!r} has an empty definition")
        out[term] = GlossaryEntry(
            term, definition, _term_pattern(forms, case), plural, short, others
        )
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


def most_seen(
    glossary: Sequence[GlossaryEntry],
    placed: Collection[str],
    seen: str,
    headline: str,
    most: int = MAX_DEFINITIONS,
) -> tuple[GlossaryEntry, ...]:
    """The glossary cut to the ``most`` of the ``placed`` terms (those a
    definition found a place for; past ``MAX_DEFINITIONS``, those whose words fit in
    ``MOST_WORDS`` with ``seen``) the reader meets most: a term of the ``headline``
    first, then the terms the explainer's text (``seen``, without definitions) uses most,
    then the earliest. Spent in reading order, the cap went to a term said once
    ("nightly" of the FlyDSL explainer) and left one said five times undefined
    ("kernel")."""
    entries = [e for e in glossary if e.term in placed]

    def rank(e: GlossaryEntry) -> tuple[bool, int, int]:
        uses = list(e.uses(seen))
        at = uses[0].start() if uses else len(seen)
        return (next(e.uses(headline), None) is None, -len(uses), at)

    kept: set[str] = set()
    room = MOST_WORDS - len(seen.split())
    for e in sorted(entries, key=rank)[:most]:
        room -= len(e.definition.split()) + 1  # the term named again, at most
        if len(kept) >= MAX_DEFINITIONS and room < 0:
            break
        kept.add(e.term)
    return tuple(e for e in glossary if e.term in kept)
