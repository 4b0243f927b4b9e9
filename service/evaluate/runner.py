"""The runner: explain, check and score every case with one engine through the product's
own steps (clean, the publishing gate, check)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from service import render
from service.check import check_explainer
from service.config import get_settings
from service.engines import get_engine
from service.engines.base import ExplainOptions
from service.errors import EvalCaseError, PlainfeedError
from service.evaluate.cases import Case, load_article, load_cases, read_text
from service.evaluate.metrics import CaseScore, failed_score, overall, score_case
from service.evaluate.replay import load_recordings, recording_for, replay_client
from service.gate import explain_and_check
from service.models import Article, CheckReport, Explainer

EngineName = Literal["extractive", "llm", "reference"]
ENGINES: tuple[EngineName, ...] = ("extractive", "llm", "reference")

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
            explainer = render.parse_explainer(read_text(case.reference_path, "reference"))
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
