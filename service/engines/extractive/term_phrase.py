"""Where a definition goes right after its term, as English noun phrases go: after the
phrase the term ends (before its verb, a preposition or a stop), after the noun a term
modifies ("BF16 dense GEMM (BF16: ...)"), set apart by commas inside parentheses."""

from __future__ import annotations

import re

from service.engines.extractive.glossary import GlossaryEntry
from service.engines.extractive.words import STOPWORDS, wordset

OPENERS = "([{\"'“‘~≈<>$€£¥+-−±"


_PHRASE_END = re.compile(
    r"\s(?:for|to|of|and|or|in|on|at|by|with|from|into|that|which|who|is|are|was|were|can|"
    r"could|will|would|may|might|must|should|has|have|had|does|do|did|as|than|when|while|"
    r"because|so|but|across|over|under|per|through|via|without|within|between|like|around)\b"
)


# A term followed by its verb ends its noun phrase ("FlyDSL provides ..."), while one
# followed by another noun modifies it ("BF16 dense GEMM") and takes no definition there.
VERB = re.compile(
    r"\s(?:provides|delivers|reaches|makes|uses|runs|supports|adds|achieves|improves|shows|"
    r"offers|enables|lets|gives|keeps|takes|turns|becomes|remains|stays|helps|needs|requires|"
    r"allows|handles|computes|selects|chooses|accepts|returns|produces|reduces|increases|"
    r"expresses|lowers|targets|includes|contains|covers|works|scales|exceeds|outperforms|"
    r"depends|means|applies|brings|builds|lands|moves|ships|wins|beats|cuts|sits|lives|"
    r"relies|matters|grows|dropped|improved|reduced|reached|delivered|achieved|showed|ran|"
    r"used|added|became|remained|made|gave|took|cut|manages|managed)\b"
)


def definition_insert(
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
    # The first of a slash pair goes with the second ("MXFP8/MXFP4 scaled GEMM (MXFP8:
    # ...)"), named: right after it the definition parts the pair.
    pair = None if m else re.match(r"/[A-Za-z0-9][\w+\-]*", text[pos:])
    if pair:
        pos += pair.end()
    after = text[pos:]
    # In parentheses wherever it goes: after a bare comma at a sentence's end it read as
    # one more item of a list ("1,500 learned gist tokens, small pieces of text, ...").
    if _ends_phrase(after):
        return pos, f" ({entry.term}: {entry.definition})" if pair else f" ({definition})"
    if m:
        return None
    noun = _modified_noun(after)
    if noun is None or any(w.lstrip(OPENERS)[:1].isdigit() for w in text[:start].split()[-2:]):
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
        or VERB.match(after) is not None
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
# A plain word ("A/B" too), or a code of capitals and digits that names a variant ("FP8
# E4M3": the term modifies it as it would a noun; a figure starts with a digit, and is none).
_NOUN_WORD = re.compile(
    r"\s(?:[A-Za-z][A-Za-z\-]*(?:/[A-Za-z]+)?|[A-Z][A-Z0-9]*[0-9][A-Z0-9]*)(?=[\s.,;:!?]|$)"
)
# Nouns in "-ly", which reads as an adverb's ending ("a ROCm PyTorch nightly for ...").
_LY_NOUNS = wordset("nightly weekly monthly daily family assembly supply anomaly rally")
_MODIFIED_WORDS = 3  # a longer run after a term is no noun phrase it modifies
# Short words that end on a stop and are no noun: "balancing throughput vs. latency" put
# the definition in "vs (throughput: ...). latency", read as the sentence's end.
_NO_NOUNS = wordset("vs versus etc via per")


def _modified_noun(after: str) -> int | None:
    """The length of the noun (one to three plain words) that a term modifies, from the
    start of ``after``, when its noun phrase ends there; ``None`` otherwise (a figure, a
    name with digits or a parenthesis comes first, or the phrase runs on)."""
    at = 0
    for _ in range(_MODIFIED_WORDS):
        m = _NOUN_WORD.match(after, at)
        if m is None or _PHRASE_END.match(after, at) or VERB.match(after, at):
            return None
        word = m.group(0).strip()
        # Not a noun: "the coding agent your team already uses", "the baseline built to".
        low = word.lower()
        adverb = re.search(r"[a-z](ly|ed)$", word) is not None and low not in _LY_NOUNS
        if low in STOPWORDS or low in _PARTICIPLES or low in _NO_NOUNS or adverb:
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
