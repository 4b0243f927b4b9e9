"""The evaluation set: case files, metrics, thresholds and the runner.

A case is a directory ``eval/cases/<slug>/`` with the post as published
(``source.html``, ``source.md`` or ``source.txt``), a ``case.yaml`` with the figures a
good explainer carries (annotated by hand) and optionally a known-good ``reference``
explainer. The metric functions are pure; the loaders read files and ``run`` calls the
product's own steps (clean, the publishing gate, check), so the CLI only formats what it
returns.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any, Literal

import httpx2
import openai
import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from service import clean, render
from service.check import check_explainer
from service.config import get_settings
from service.engines import get_engine
from service.engines.base import ExplainOptions
from service.errors import EvalCaseError, PlainfeedError
from service.gate import explain_and_check
from service.models import Article, CheckReport, CheckStatus, Explainer
from service.readability import flesch_kincaid_grade, word_count
from service.text import split_sentences

EngineName = Literal["extractive", "llm", "reference"]
ENGINES: tuple[EngineName, ...] = ("extractive", "llm", "reference")
SOURCE_NAMES = ("source.html", "source.md", "source.txt")
_KINDS: dict[str, clean.DocumentKind] = {".html": "html", ".md": "md", ".txt": "text"}
DEFAULT_MIN_KEY_FACTS = 8

# --- the case file ------------------------------------------------------------------------


class CaseFact(BaseModel):
    """A figure of the source that a good explainer carries, written as the source writes it."""

    model_config = ConfigDict(extra="forbid")

    value: str = Field(min_length=1)
    about: str = Field(min_length=1)
    keywords: list[str] = Field(min_length=1)
    key: bool = False

    @field_validator("value")
    @classmethod
    def _has_digit(cls, v: str) -> str:
        v = v.strip()
        if not any(ch.isdigit() for ch in v):
            raise ValueError(f"fact value {v!r} has no digit, so it is not a number")
        return v

    @field_validator("keywords")
    @classmethod
    def _no_blank_keyword(cls, v: list[str]) -> list[str]:
        out = [k.strip() for k in v]
        if any(not k for k in out):
            raise ValueError("blank keyword")
        return out


class KnownUnsupported(BaseModel):
    """A number of the reference explainer that this version of the source lacks."""

    model_config = ConfigDict(extra="forbid")

    value: str = Field(min_length=1)
    why: str = Field(min_length=1)


class CaseFile(BaseModel):
    """The contents of ``case.yaml``."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://\S+$")
    notes: str | None = None
    facts: list[CaseFact] = Field(min_length=1)
    reference: str | None = None
    reference_unsupported: list[KnownUnsupported] = Field(default_factory=list)
    # Short posts (status incidents, feed excerpts) hold fewer than eight headline figures;
    # such a case says so here and explains why in ``notes``.
    min_key_facts: int = Field(default=DEFAULT_MIN_KEY_FACTS, ge=1)

    @model_validator(mode="after")
    def _enough_key_facts(self) -> CaseFile:
        keys = sum(1 for f in self.facts if f.key)
        if keys < self.min_key_facts:
            raise ValueError(f"{keys} key facts, fewer than min_key_facts={self.min_key_facts}")
        if self.min_key_facts < DEFAULT_MIN_KEY_FACTS and not self.notes:
            raise ValueError("min_key_facts below 8 needs notes saying why")
        if self.reference_unsupported and not self.reference:
            raise ValueError("reference_unsupported without a reference")
        return self


@dataclass(frozen=True, slots=True)
class Case:
    slug: str
    directory: Path
    spec: CaseFile
    source_path: Path

    @property
    def reference_path(self) -> Path | None:
        return self.directory / self.spec.reference if self.spec.reference else None


def parse_case_file(text: str, where: str = "case.yaml") -> CaseFile:
    """Validate the text of a ``case.yaml``; errors name the file and the field."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise EvalCaseError(f"{where}: not valid YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise EvalCaseError(f"{where}: expected a mapping with title, url and facts")
    try:
        return CaseFile.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(file)'}: {e['msg']}" for e in exc.errors()
        )
        raise EvalCaseError(f"{where}: {problems}") from exc


def load_case(directory: Path) -> Case:
    """Read one case directory."""
    case_yaml = directory / "case.yaml"
    if not case_yaml.is_file():
        raise EvalCaseError(f"{directory}: no case.yaml")
    spec = parse_case_file(case_yaml.read_text(encoding="utf-8"), str(case_yaml))
    sources = [directory / n for n in SOURCE_NAMES if (directory / n).is_file()]
    if len(sources) != 1:
        raise EvalCaseError(
            f"{directory}: needs exactly one of {', '.join(SOURCE_NAMES)}, found {len(sources)}"
        )
    case = Case(directory.name, directory, spec, sources[0])
    ref = case.reference_path
    if ref is not None and not ref.is_file():
        raise EvalCaseError(f"{directory}: reference {spec.reference} does not exist")
    return case


def load_cases(root: Path) -> list[Case]:
    """Every case under ``root`` (one directory per case), sorted by slug."""
    if not root.is_dir():
        raise EvalCaseError(f"{root}: not a directory of cases")
    dirs = sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
    if not dirs:
        raise EvalCaseError(f"{root}: holds no case directories")
    return [load_case(d) for d in dirs]


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
    """What keeps the explainer from the DESIGN.md shape; empty when it has it."""
    problems: list[str] = []
    if not title_ok(explainer.title):
        problems.append(f"title {explainer.title!r} is neither 'Subject: ...' nor a statement")
    n = len(explainer.sections)
    if not min_sections <= n <= max_sections:
        problems.append(f"{n} sections, want {min_sections}..{max_sections}")
    for i, section in enumerate(explainer.sections, 1):
        if not section.heading.strip():
            problems.append(f"section {i} has no heading")
        p = len(section.paragraphs)
        if not 1 <= p <= max_paragraphs:
            problems.append(f"section {i} has {p} paragraphs, want 1..{max_paragraphs}")
    return problems


# --- scores ----------------------------------------------------------------------------------


@dataclass(slots=True)
class CaseScore:
    """The metrics of one case (the first eight fields are DESIGN.md's JSON keys)."""

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
    return CaseScore(
        slug=slug,
        number_precision=number_precision(report),
        key_fact_recall=recall,
        misattached=report.count(CheckStatus.MISATTACHED),
        structure_ok=not problems,
        reading_grade=flesch_kincaid_grade(prose(explainer)),
        words=word_count(prose(explainer)),
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


# --- thresholds -----------------------------------------------------------------------------


class EngineThresholds(BaseModel):
    """The minimums one engine must meet (see eval/thresholds.yaml)."""

    model_config = ConfigDict(extra="forbid")

    number_precision: float = Field(default=1.0, ge=0, le=1)  # every case
    misattached: int = Field(default=0, ge=0)  # every case, at most
    key_fact_recall: float = Field(default=0.0, ge=0, le=1)  # overall mean
    reading_grade: float = 12.0  # overall mean, at most
    words: tuple[int, int] = (300, 900)  # every long-source case
    short_words: tuple[int, int] = (20, 300)  # every short-source case
    structure_ok: Literal["all", "any", "none"] = "all"  # "none": reported, not required


class Thresholds(BaseModel):
    model_config = ConfigDict(extra="forbid")

    short_source_words: int = Field(default=400, ge=0)
    engines: dict[str, EngineThresholds]


def parse_thresholds(text: str, where: str = "thresholds.yaml") -> Thresholds:
    try:
        return Thresholds.model_validate(yaml.safe_load(text))
    except (yaml.YAMLError, ValidationError) as exc:
        raise EvalCaseError(f"{where}: {exc}") from exc


def threshold_failures(scores: Sequence[CaseScore], limits: EngineThresholds) -> list[str]:
    """Every way the run falls below ``limits``; empty when it meets them."""
    out: list[str] = []
    for s in scores:
        if s.error:
            out.append(f"{s.slug}: {s.error}")
            continue
        if s.number_precision_adjusted < limits.number_precision:
            out.append(
                f"{s.slug}: number precision {s.number_precision_adjusted:.3f} "
                f"< {limits.number_precision} (unsupported: {', '.join(s.unsupported)})"
            )
        if s.misattached > limits.misattached:
            out.append(f"{s.slug}: {s.misattached} misattached > {limits.misattached}")
        lo, hi = limits.short_words if s.short else limits.words
        if not lo <= s.words <= hi:
            out.append(f"{s.slug}: {s.words} words, want {lo}..{hi}")
        if limits.structure_ok == "all" and not s.structure_ok:
            out.append(f"{s.slug}: structure: {'; '.join(s.structure_problems)}")
    if limits.structure_ok == "any" and scores and not any(s.structure_ok for s in scores):
        out.append("no case has the explainer structure")
    total = overall(scores)
    if scores and total["key_fact_recall"] < limits.key_fact_recall:
        out.append(
            f"overall key-fact recall {total['key_fact_recall']:.3f} < {limits.key_fact_recall}"
        )
    if scores and total["reading_grade"] > limits.reading_grade:
        out.append(f"overall reading grade {total['reading_grade']:.2f} > {limits.reading_grade}")
    return out


# --- the runner -------------------------------------------------------------------------------

# Case and its cleaned source in; the explainer and its number check out.
Produce = Callable[[Case, Article], tuple[Explainer, CheckReport]]


@dataclass(slots=True)
class EvalRun:
    engine: str
    scores: list[CaseScore]
    skipped: list[str] = field(default_factory=list)
    detail: str = ""  # what produced the explainers (endpoint and model, recordings)

    def as_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "detail": self.detail,
            "cases": [s.as_dict() for s in self.scores],
            "overall": overall(self.scores),
            "skipped": self.skipped,
        }


def run_cases(
    cases: Sequence[Case],
    engine: str,
    produce: Produce,
    load_article: Callable[[Case], Article],
    *,
    short_source_words: int = 400,
    applies: Callable[[Case], bool] | None = None,
    progress: Callable[[str], None] | None = None,
    detail: str = "",
) -> EvalRun:
    """Explain, check and score every case that ``applies`` (the others are listed as
    skipped). A case whose engine fails scores zero and the run goes on; only a broken
    case file stops it."""
    result = EvalRun(engine, [], detail=detail)
    for case in cases:
        if applies is not None and not applies(case):
            result.skipped.append(case.slug)
            continue
        if progress:
            progress(case.slug)
        article = load_article(case)
        short = article.words < short_source_words
        known = [k.value for k in case.spec.reference_unsupported] if engine == "reference" else []
        try:
            explainer, report = produce(case, article)
        except PlainfeedError as exc:
            if isinstance(exc, EvalCaseError):
                raise
            result.scores.append(failed_score(case.slug, article.words, str(exc), short=short))
            continue
        result.scores.append(
            score_case(
                case.slug,
                explainer,
                report,
                case.spec.facts,
                article.words,
                known_unsupported=known,
                short=short,
            )
        )
    return result


# --- recorded LLM answers -----------------------------------------------------------------------


class Recording(BaseModel):
    """One recorded answer (format: eval/recordings/README.md), and optionally the answer
    to a repair request for the same post."""

    slug: str
    match: list[str] = Field(min_length=1)
    origin: str = ""
    answer: Explainer
    repair: Explainer | None = None

    def answer_to(self, user: str) -> Explainer:
        """The recorded answer for a request with this user text."""
        return self.repair if self.repair is not None and asks_repair(user) else self.answer


# prompts/repair.md hands the model the explainer to correct inside this tag; no other
# prompt of the set carries an explainer.
REPAIR_MARK = "<explainer>"


def asks_repair(user: str) -> bool:
    """Whether a chat request's user text asks to repair an explainer."""
    return REPAIR_MARK in user


def load_recordings(directory: Path) -> list[Recording]:
    """Every ``*.json`` recording of ``directory``, in name order (the first match wins)."""
    if not directory.is_dir():
        raise EvalCaseError(f"{directory}: no directory of recorded answers")
    out = []
    for path in sorted(directory.glob("*.json")):
        try:
            out.append(Recording.model_validate_json(path.read_bytes()))
        except ValidationError as exc:
            raise EvalCaseError(f"{path}: not a recording: {exc}") from exc
    return out


def recording_for(text: str, recordings: Sequence[Recording]) -> Recording | None:
    """The first recording one of whose match strings occurs in ``text`` (any case)."""
    folded = text.casefold()
    return next(
        (r for r in recordings if any(m.casefold() in folded for m in r.match if m.strip())),
        None,
    )


def replay_client(recordings: Sequence[Recording]) -> openai.OpenAI:
    """An OpenAI client whose transport answers chat completions from recordings, in
    process (openai's own HTTP client, httpx2, with a mock transport): the ``llm`` engine
    runs its real prompts, parsing and repair against them.
    A request no recording matches gets a 404, which the engine reports as an error."""

    def answer(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content or b"{}")
        user = "\n".join(
            m["content"]
            for m in body.get("messages", [])
            if m.get("role") == "user" and isinstance(m.get("content"), str)
        )
        rec = recording_for(user, recordings)
        if rec is None:
            return httpx2.Response(404, json={"error": {"message": "no recorded answer"}})
        content = rec.answer_to(user).model_dump_json(exclude_none=True)
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        usage = {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(content) // 4}
        return httpx2.Response(
            200,
            json={
                "id": f"recorded-{rec.slug}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "recorded"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": usage | {"total_tokens": sum(usage.values())},
            },
        )

    return openai.OpenAI(
        base_url="http://recordings.invalid/v1",
        api_key="recorded",
        max_retries=0,
        http_client=openai.DefaultHttpx2Client(transport=httpx2.MockTransport(answer)),
    )


# --- wiring to the pipeline's steps ------------------------------------------------------------


def load_thresholds(path: Path) -> Thresholds:
    if not path.is_file():
        raise EvalCaseError(f"{path}: no thresholds file")
    return parse_thresholds(path.read_text(encoding="utf-8"), str(path))


def load_article(case: Case) -> Article:
    """The case's source as the pipeline cleans it, titled as its feed titles it."""
    kind = _KINDS[case.source_path.suffix]
    return clean.article_from_document(
        case.source_path.read_bytes(),
        kind=kind,
        filename=case.source_path.name,
        url=case.spec.url,
        title=case.spec.title,
    )


def run(
    cases_dir: Path,
    engine: EngineName,
    *,
    recordings: Path | None = None,
    short_source_words: int = 400,
    progress: Callable[[str], None] | None = None,
) -> EvalRun:
    """Run the evaluation set with one engine through the product's own steps: clean the
    source, explain it (the publishing gate, with its repair rounds) and check it.

    ``reference`` scores the cases' reference explainers (cases without one are skipped).
    ``llm`` uses the configured endpoint, or with ``recordings`` the recorded answers of
    that directory (cases no recording answers are skipped).
    """
    if engine not in ENGINES:
        raise EvalCaseError(f"unknown engine {engine!r}; choose one of {', '.join(ENGINES)}")
    cases = load_cases(cases_dir)
    settings = get_settings()
    applies: Callable[[Case], bool] | None = None

    if engine == "reference":
        detail = "reference explainers of the cases"

        def applies(case: Case) -> bool:
            return case.reference_path is not None

        def produce(case: Case, article: Article) -> tuple[Explainer, CheckReport]:
            assert case.reference_path is not None
            explainer = render.parse_explainer(case.reference_path.read_text(encoding="utf-8"))
            return explainer, check_explainer(explainer, article.text, title=article.title)

    else:
        if engine == "llm" and recordings is not None:
            recorded = load_recordings(recordings)
            settings = settings.model_copy(update={"model": "recorded"})
            product = get_engine(settings, "llm", client=replay_client(recorded))
            detail = f"recorded answers of {recordings}"

            def applies(case: Case) -> bool:
                return recording_for(f"{case.spec.url}\n{case.spec.title}", recorded) is not None

        elif engine == "llm":
            if not settings.llm_configured:
                raise EvalCaseError(
                    "no LLM endpoint configured: set OPENAI_BASE_URL (and PLAINFEED_MODEL), "
                    "or replay recorded answers with --recordings eval/recordings"
                )
            product = get_engine(settings, "llm")
            detail = f"{settings.openai_base_url or 'OpenAI'}, model {settings.model}"
        else:
            product = get_engine(settings, "extractive")
            detail = "extractive engine (no model)"
        options = ExplainOptions()

        def produce(case: Case, article: Article) -> tuple[Explainer, CheckReport]:
            # The publishing gate, repairs included: what would be published is scored.
            outcome = explain_and_check(
                product, article, options, repair_rounds=settings.repair_rounds
            )
            return outcome.result.explainer, outcome.report

    return run_cases(
        cases,
        engine,
        produce,
        load_article,
        short_source_words=short_source_words,
        applies=applies,
        progress=progress,
        detail=detail,
    )
