"""The glossary: plain definitions of jargon, loaded from YAML and merged per feed, and
placed after a term's first use where they read well."""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from service.engines.extractive.phrases import AFTERS
from service.engines.extractive.words import STOPWORDS, wordset
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
    placed_in: dict[int, list[int]] = {}  # sentence -> where its definitions go
    taken: list[tuple[int, int]] = []
    inserts: list[tuple[int, str]] = []
    labels: dict[int, str] = {}  # where a definition in parentheses goes -> "term: ..."
    for start, end, e in sorted(hits, key=lambda h: (h[0], -h[1])):
        if e.term in defined or any(a <= start < b for a, b in taken):
            continue
        sent = next((i for i, (a, b) in enumerate(spans) if a <= start < b), -1)
        if len(defined) >= most:
            continue
        placed = _definition_insert(text, start, end, e, text[start:end])
        if placed is None or _before_a_figure(
            text, placed[0], spans[sent][1] if sent >= 0 else len(text)
        ):
            continue
        others = placed_in.get(sent, [])
        label = _label(e, placed[1])
        if not _room_for(text, placed[0], others):
            if not (label and len(others) == 1 and others[0] in labels):
                continue
            if not _shared(text, others[0], placed[0]):
                continue
            # One noun phrase ("the kernel launches and HBM round-trips"): the two share
            # the later parenthesis, one aside, where two would read as a list of them.
            inserts = [x for x in inserts if x[0] != others[0]]
            placed = (placed[0], f" ({labels.pop(others[0])}; {label})")
            label = ""
        defined.add(e.term)
        if label:
            labels[placed[0]] = label
        inserts.append(placed)
        taken.append((start, end))
        placed_in.setdefault(sent, []).append(placed[0])
    # A term with no place after it (every use near a figure, say: "1.20x geometric mean
    # over Triton across all 24 cases") is defined at the end of its first sentence,
    # named again, where it parts nothing: undefined, the reader met it bare.
    for start, end, e in sorted(hits, key=lambda h: (h[0], -h[1])):
        if e.term in defined or len(defined) >= most or any(a <= start < b for a, b in taken):
            continue
        sent = next((i for i, (a, b) in enumerate(spans) if a <= start < b), -1)
        pos = _sentence_end(text, end, spans[sent][1] if sent >= 0 else len(text))
        if pos is None or not _room_for(text, pos, placed_in.get(sent, [])):
            continue
        defined.add(e.term)
        inserts.append((pos, f" ({e.term}: {e.definition})"))
        taken.append((start, end))
        placed_in.setdefault(sent, []).append(pos)
    for pos, piece in sorted(inserts, reverse=True):
        text = text[:pos] + piece + text[pos:]
    return text


def _label(entry: GlossaryEntry, piece: str) -> str:
    """A definition in parentheses as it reads beside another's ("kernel: code ..."); ""
    for one set apart by commas inside parentheses, which shares no parenthesis."""
    if not piece.startswith(" ("):
        return ""
    inner = piece[2:-1]
    return inner if inner.startswith(f"{entry.term}: ") else f"{entry.term}: {inner}"


_SHARED = 4  # words: two definitions this close, in one noun phrase, share a parenthesis


def _shared(text: str, first: int, pos: int) -> bool:
    """Whether a definition at ``pos`` can join the one at ``first`` before it: the words
    between join two nouns of one phrase ("launches and HBM round-trips"), a few, no
    figure, no punctuation that parts a clause or a parenthesis."""
    between = text[first:pos]
    return (
        pos - first > 0
        and len(between.split()) <= _SHARED
        and re.search(r"\b(?:and|or)\b", between) is not None
        and re.search(r"[,;:()\d—]", between) is None
    )


_NEAR_END = 8  # words: further from its term, a definition at a sentence's end is lost


def _sentence_end(text: str, end: int, stop: int) -> int | None:
    """Where a definition goes at the end of the sentence whose term ends at ``end`` (the
    sentence ends at ``stop``): before its final stop, after no parenthesis (two in a row
    do not read), not inside one, near enough to the term."""
    if text.rfind("(", 0, end) > text.rfind(")", 0, end):
        return None
    body = text[:stop].rstrip()
    pos = len(body) - 1 if body[-1:] in ".!?" else len(body)
    if pos <= end or body[pos - 1 : pos] in (")", ":", ",", "”", '"'):
        return None
    if body[:pos].rsplit(None, 1)[-1].lstrip(_OPENERS)[:1].isdigit():
        return None  # after "cutting costs by 96%" it reads as said of the figure
    if body[:pos].endswith(AFTERS):
        return None  # the attribution closes the sentence; a definition after it is lost
    return pos if len(text[end:pos].split()) <= _NEAR_END else None


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


# Two definitions in a sentence only this many words apart, at most: closer, or more,
# they read as a list of asides. With one a sentence, a term whose every placeable use
# shared its sentence with another's definition was never defined ("BF16", "MoE").
_APART = 12  # words


def _room_for(text: str, pos: int, others: Sequence[int]) -> bool:
    """Whether a sentence with definitions at ``others`` takes one more at ``pos``."""
    if not others:
        return True
    if len(others) > 1:
        return False
    a, b = sorted((pos, others[0]))
    return len(text[a:b].split()) >= _APART


_FIGURE_AHEAD = 8  # words


def _before_a_figure(text: str, pos: int, end: int) -> bool:
    """Whether a figure follows within a few words of ``pos`` in its sentence: a definition
    there would stand between the figure and the name it is said of ("the Helion backend
    (...) can reduce latency by up to 50%"). A figure is a word that starts with a digit
    once its opening marks are off ("50%", "(1.5x", "~85.6%", "$5"); a name with digits in
    it ("MXFP8", "H100") is none, and a definition before it parts nothing."""
    ahead = re.split(r"[,;]\s|\s—", text[pos:end], maxsplit=1)[0]
    # Past a comma the figure is said of what follows it: the definition parts nothing
    # ("over BF16 (...), with peak memory nearly identical (~39 GB)").
    return any(w.lstrip(_OPENERS)[:1].isdigit() for w in ahead.split()[:_FIGURE_AHEAD])


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
    r"because|so|but|across|over|under|per|through|via|without|within|between|like|around)\b"
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


def _definition_insert(
    text: str, start: int, end: int, entry: GlossaryEntry, form: str
) -> tuple[int, str] | None:
    """Where and how a definition goes after a term, or ``None`` when it would not read
    well there. Inside parentheses it is set apart by commas; after a term that modifies
    a following noun ("per MoE layer"), it goes after that noun and names the term."""
    definition = entry.definition_for(form)
    if text.rfind("(", 0, start) > text.rfind(")", 0, start):
        return _inside_parentheses(text, end, definition)
    pos = end
    # Keep an abbreviation that follows the term with it: "mixture-of-experts (MoE)".
    m = re.match(r"\s*\([^()]{1,15}\)", text[pos:])
    if m:
        pos += m.end()
    after = text[pos:]
    # In parentheses wherever it goes: after a bare comma at a sentence's end it read as
    # one more item of a list ("1,500 learned gist tokens, small pieces of text, ...").
    if _ends_phrase(after):
        return pos, f" ({definition})"
    if m:
        return None
    noun = _modified_noun(after)
    if noun is None or any(w.lstrip(_OPENERS)[:1].isdigit() for w in text[:start].split()[-2:]):
        return None  # "a 13.4% throughput gain (...) over BF16" parts a result from its baseline
    # Every use of a term was often a modifier ("MoE layer", "BF16 dense GEMM"): the
    # term went undefined. After the noun phrase, named again, it parts nothing.
    return pos + noun, f" ({entry.term}: {entry.definition})"


def _ends_phrase(after: str) -> bool:
    """Whether the text ``after`` a term starts where its noun phrase ends."""
    return (
        not after
        or re.match(r"[.!?](\s|$)", after) is not None
        or after[0] in ",;:"
        or after.startswith(" —")
        or _PHRASE_END.match(after) is not None
        or _VERB.match(after) is not None
    )


# Past participles not in "-ed": after a term they start a clause, no noun it modifies
# ("the baseline built to get in front of users quickly").
_PARTICIPLES = wordset(
    "built kept written shown made done seen given taken grown held known sent spent told "
    "brought bought thought caught taught paid laid lost led met won begun chosen driven "
    "drawn broken spoken frozen hidden risen stolen torn worn woven fallen beaten bitten "
    "eaten forgotten gotten proven"
)
# These are nouns as often ("a BF16 run", "the optimized kernel set to MI450"): a
# participle only where "by" follows ("the baseline set by ATen").
_NOUN_OR_PARTICIPLE = wordset(
    "run set cut split cost hit cast spread read put let left found shut quit"
)
_NOUN_WORD = re.compile(r"\s[A-Za-z][A-Za-z\-]*(?=[\s.,;:!?]|$)")
_MODIFIED_WORDS = 3  # a longer run after a term is no noun phrase it modifies


def _modified_noun(after: str) -> int | None:
    """The length of the noun (one to three plain words) that a term modifies, from the
    start of ``after``, when its noun phrase ends there; ``None`` otherwise (a figure, a
    name with digits or a parenthesis comes first, or the phrase runs on)."""
    at = 0
    for _ in range(_MODIFIED_WORDS):
        m = _NOUN_WORD.match(after, at)
        if m is None or _PHRASE_END.match(after, at) or _VERB.match(after, at):
            return None
        word = m.group(0).strip()
        # Not a noun: "the coding agent your team already uses", "the baseline built to".
        low = word.lower()
        if low in STOPWORDS or low in _PARTICIPLES or re.search(r"[a-z](ly|ed)$", word):
            return None
        at = m.end()
        if low in _NOUN_OR_PARTICIPLE and after.startswith(" by ", at):
            return None
        if _ends_phrase(after[at:]):
            return at
    return None


def _inside_parentheses(text: str, end: int, definition: str) -> tuple[int, str] | None:
    """A definition for a term inside parentheses, set apart by commas ("(geometric mean,
    an average ..., across three models)"): parentheses within parentheses do not read.
    Not a definition with a comma of its own, which would blur where it ends."""
    if "," in definition:
        return None
    after = text[end:]
    if after.startswith(")"):
        return end, f", {definition}"
    if _PHRASE_END.match(after):  # not "(7,156 BF16 baseline": the term modifies a noun
        return end, f", {definition},"
    return None
