"""The glossary: plain definitions of jargon, loaded from YAML and merged per feed, and
placed after a term's first use where they read well."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from service.errors import TemplateError
from service.text import split_sentences

GLOSSARY_FILE = "glossary.yaml"
MAX_DEFINITIONS = 12  # more than this and the explainer reads like a dictionary


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
        if sent in used_sentences or len(defined) >= most:
            continue
        placed = _definition_insert(text, start, end, e.definition_for(text[start:end]))
        if placed is None or _before_a_figure(
            text, placed[0], spans[sent][1] if sent >= 0 else len(text)
        ):
            continue
        defined.add(e.term)
        inserts.append(placed)
        taken.append((start, end))
        used_sentences.add(sent)
    for pos, piece in sorted(inserts, reverse=True):
        text = text[:pos] + piece + text[pos:]
    return text


def most_seen(
    glossary: Sequence[GlossaryEntry], placed: Collection[str], seen: str, headline: str
) -> tuple[GlossaryEntry, ...]:
    """The glossary cut to the ``MAX_DEFINITIONS`` of the ``placed`` terms (those a
    definition found a place for) the reader meets most: a term of the ``headline``
    first, then the terms the explainer's text (``seen``, without definitions) uses most,
    then the earliest. Spent in reading order, the cap went to a term said once
    ("nightly" of the FlyDSL explainer) and left one said five times undefined
    ("kernel")."""
    entries = [e for e in glossary if e.term in placed]

    def rank(e: GlossaryEntry) -> tuple[bool, int, int]:
        first = e.pattern.search(seen)
        at = first.start() if first else len(seen)
        return (e.pattern.search(headline) is None, -len(e.pattern.findall(seen)), at)

    kept = {e.term for e in sorted(entries, key=rank)[:MAX_DEFINITIONS]}
    return tuple(e for e in glossary if e.term in kept)


_FIGURE_AHEAD = 8  # words


def _before_a_figure(text: str, pos: int, end: int) -> bool:
    """Whether a figure follows within a few words of ``pos`` in its sentence: a definition
    there would stand between the figure and the name it is said of ("the Helion backend
    (...) can reduce latency by up to 50%"). A figure is a word that starts with a digit
    once its opening marks are off ("50%", "(1.5x", "~85.6%", "$5"); a name with digits in
    it ("MXFP8", "H100") is none, and a definition before it parts nothing."""
    return any(w.lstrip(_OPENERS)[:1].isdigit() for w in text[pos:end].split()[:_FIGURE_AHEAD])


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
    # In parentheses wherever it goes: after a bare comma at a sentence's end it read as
    # one more item of a list ("1,500 learned gist tokens, small pieces of text, ...").
    if not after or re.match(r"[.!?](\s|$)", after):
        return pos, f" ({definition})"
    if (
        after[0] in ",;:"
        or after.startswith(" —")
        or _PHRASE_END.match(after)
        or _VERB.match(after)
    ):
        return pos, f" ({definition})"
    return None
