"""Pure scoring: figures in text, the metrics of one explainer and their means."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from service.evaluate.cases import CaseFact
from service.models import CheckReport, CheckStatus, Explainer
from service.readability import flesch_kincaid_grade, word_count
from service.text import split_sentences

# --- figures in text ----------------------------------------------------------------------

_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2e3a\u2e3b]")
_TIMES = re.compile(r"(\d)\s*(?:times\b|×|x\b)")
_PERCENT = re.compile(r"(\d)\s*(?:percent\b|per cent\b|%)")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?!\d))")
_RANGE = re.compile(r"(\d[x%]?)\s*(?:-|\bto\b)\s*(?=[$~]?\d)")
_RANGE_UNIT = re.compile(r"(\d)([x%])-(\d[\d.]*)\2")


def normalise_figures(text: str) -> str:
    """Lower-case text with figure spellings unified, so that ``1.17x–3.66x`` and
    ``1.17 to 3.66 times`` compare equal (dash styles, spaces, x/×/times, %/percent,
    thousands separators, approximation marks, the ratio sign used as a colon)."""
    s = unicodedata.normalize("NFKC", text).lower()
    s = s.replace("\u2236", ":").replace("\\$", "$").replace("~", "")
    s = _DASHES.sub("-", s)
    s = " ".join(s.split())
    s = _TIMES.sub(r"\1x", s)
    s = _PERCENT.sub(r"\1%", s)
    s = _THOUSANDS.sub("", s)
    s = _RANGE.sub(r"\1-", s)
    return _RANGE_UNIT.sub(r"\1-\3\2", s)


def _find_bounded(needle: str, hay: str) -> bool:
    start = 0
    while (i := hay.find(needle, start)) >= 0:
        start = i + 1
        before = hay[i - 1] if i else " "
        j = i + len(needle)
        after = hay[j] if j < len(hay) else " "
        after2 = hay[j + 1] if j + 1 < len(hay) else " "
        if needle[0].isalnum() and (before.isalnum() or before in "._"):
            continue
        if needle[-1].isalnum() and after.isalnum():
            continue
        if after in ".," and after2.isdigit():
            continue
        return True
    return False


def contains_figure(text: str, value: str) -> bool:
    """Whether ``text`` carries the figure ``value`` (as a whole token, normalised).

    A multiplier may lose its ``x`` in a list ("1.58 and 1.68 times" carries 1.58x).
    """
    hay, needle = normalise_figures(text), normalise_figures(value)
    if not needle:
        return False
    if _find_bounded(needle, hay):
        return True
    bare = needle[:-1]
    return needle.endswith("x") and bare[-1:].isdigit() and _find_bounded(bare, hay)


def contains_keyword(text: str, keyword: str) -> bool:
    """Case-insensitive match of ``keyword`` starting at a word boundary."""
    hay, needle = normalise_figures(text), normalise_figures(keyword)
    start = 0
    while (i := hay.find(needle, start)) >= 0:
        if i == 0 or not hay[i - 1].isalnum():
            return True
        start = i + 1
    return False


# --- metrics --------------------------------------------------------------------------------


def _as_sentence(text: str) -> str:
    # A title or heading is a sentence of its own; without a full stop textstat would
    # glue it to the next sentence and overstate the grade.
    text = text.strip()
    return text if text[-1:] in ".!?:" else text + "."


def explainer_sentences(explainer: Explainer) -> list[str]:
    """The explainer's sentences: title, headings, paragraph sentences, takeaway."""
    out = [explainer.title]
    for section in explainer.sections:
        out.append(section.heading)
        for para in section.paragraphs:
            out.extend(split_sentences(para))
    if explainer.takeaway:
        out.extend(split_sentences(explainer.takeaway))
    return out


def prose(explainer: Explainer) -> str:
    """The explainer's prose for reading measures (code excluded)."""
    parts = [_as_sentence(explainer.title)]
    for section in explainer.sections:
        parts.append(_as_sentence(section.heading))
        parts.extend(section.paragraphs)
    if explainer.takeaway:
        parts.append(explainer.takeaway)
    return "\n\n".join(parts)


def fact_carried(fact: CaseFact, sentences: Iterable[str]) -> bool:
    """A fact is carried when one sentence holds its value and one of its keywords."""
    return any(
        contains_figure(s, fact.value) and any(contains_keyword(s, k) for k in fact.keywords)
        for s in sentences
    )


def key_fact_recall(explainer: Explainer, facts: Sequence[CaseFact]) -> tuple[float, list[str]]:
    """Share of key facts carried, and the values of those dropped (1.0 with no key facts)."""
    sentences = explainer_sentences(explainer)
    keys = [f for f in facts if f.key]
    dropped = [f.value for f in keys if not fact_carried(f, sentences)]
    return (1.0 - len(dropped) / len(keys) if keys else 1.0), dropped


def number_precision(report: CheckReport, known: Sequence[str] = ()) -> float:
    """Supported numbers / all numbers (1.0 when none). Numbers listed in ``known``
    (documented as absent from this version of the source) count as supported."""
    if not report.numbers:
        return 1.0
    ok = sum(
        1
        for n in report.numbers
        if n.status == CheckStatus.SUPPORTED or (known and is_known(n.text, known))
    )
    return ok / len(report.numbers)


def is_known(text: str, known: Sequence[str]) -> bool:
    norm = normalise_figures(text)
    return any(norm == normalise_figures(k) for k in known)


def title_ok(title: str) -> bool:
    """``Subject: what is new`` or a clear statement (four words or more, not a question)."""
    title = title.strip()
    subject, colon, rest = title.partition(":")
    if colon and subject.split() and rest.split():
        return True
    return len(title.split()) >= 4 and not title.endswith(("?", "...", "…"))


def structure_problems(
    explainer: Explainer,
    *,
    min_sections: int = 3,
    max_sections: int = 7,
    max_paragraphs: int = 4,
) -> list[str]:
    """What keeps the explainer from its shape (README, "The explainer"); empty when it has it."""
    problems: list[str] = []
    if not title_ok(explainer.title):
        problems.append(f"title {explainer.title!r} is neither 'Subject: ...' nor a statement")
    return problems + explainer.shape_problems(
        min_sections=min_sections, max_sections=max_sections, max_paragraphs=max_paragraphs
    )


# --- scores ----------------------------------------------------------------------------------


@dataclass(slots=True)
class CaseScore:
    """The metrics of one case (the first eight fields are the keys of eval/README's JSON)."""

    slug: str
    number_precision: float
    key_fact_recall: float
    misattached: int
    structure_ok: bool
    reading_grade: float
    words: int
    source_words: int
    number_precision_adjusted: float = 1.0
    numbers: int = 0
    unsupported: list[str] = field(default_factory=list)
    known_unsupported: list[str] = field(default_factory=list)
    dropped_key_facts: list[str] = field(default_factory=list)
    structure_problems: list[str] = field(default_factory=list)
    short: bool = False
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "number_precision": round(self.number_precision, 4),
            "key_fact_recall": round(self.key_fact_recall, 4),
            "misattached": self.misattached,
            "structure_ok": self.structure_ok,
            "reading_grade": round(self.reading_grade, 2),
            "words": self.words,
            "source_words": self.source_words,
            "number_precision_adjusted": round(self.number_precision_adjusted, 4),
            "numbers": self.numbers,
            "unsupported": self.unsupported,
            "known_unsupported": self.known_unsupported,
            "dropped_key_facts": self.dropped_key_facts,
            "structure_problems": self.structure_problems,
            "short": self.short,
            "error": self.error,
        }


def score_case(
    slug: str,
    explainer: Explainer,
    report: CheckReport,
    facts: Sequence[CaseFact],
    source_words: int,
    *,
    known_unsupported: Sequence[str] = (),
    short: bool = False,
) -> CaseScore:
    """All metrics of one explainer of one case."""
    recall, dropped = key_fact_recall(explainer, facts)
    problems = structure_problems(explainer, min_sections=1 if short else 3)
    bad = [n for n in report.numbers if n.status != CheckStatus.SUPPORTED]
    text = prose(explainer)
    return CaseScore(
        slug=slug,
        number_precision=number_precision(report),
        key_fact_recall=recall,
        misattached=report.count(CheckStatus.MISATTACHED),
        structure_ok=not problems,
        reading_grade=flesch_kincaid_grade(text),
        words=word_count(text),
        source_words=source_words,
        number_precision_adjusted=number_precision(report, known_unsupported),
        numbers=len(report.numbers),
        unsupported=[n.text for n in bad if not is_known(n.text, known_unsupported)],
        known_unsupported=[n.text for n in bad if is_known(n.text, known_unsupported)],
        dropped_key_facts=dropped,
        structure_problems=problems,
        short=short,
    )


def failed_score(slug: str, source_words: int, error: str, *, short: bool = False) -> CaseScore:
    """The score of a case whose engine or check raised: zero on every count."""
    return CaseScore(
        slug, 0.0, 0.0, 0, False, 0.0, 0, source_words,
        number_precision_adjusted=0.0, short=short, error=error,
    )  # fmt: skip


OVERALL_KEYS = (
    "number_precision",
    "key_fact_recall",
    "misattached",
    "structure_ok",
    "reading_grade",
    "words",
    "source_words",
    "number_precision_adjusted",
)


def overall(scores: Sequence[CaseScore]) -> dict[str, Any]:
    """Means over the cases (``structure_ok`` becomes the share of cases that pass)."""
    if not scores:
        return {k: 0.0 for k in OVERALL_KEYS} | {"cases": 0}
    out: dict[str, Any] = {}
    for k in OVERALL_KEYS:
        out[k] = round(fmean(float(getattr(s, k)) for s in scores), 4)
    out["cases"] = len(scores)
    out["misattached_total"] = sum(s.misattached for s in scores)
    out["errors"] = sum(1 for s in scores if s.error)
    return out
