"""The publishing gate: explain, check every number, let the engine repair what the
check flagged (at most N rounds). Only a clean report publishes; the rest waits for a
person. No database here: the orchestrator stores what this returns."""

from __future__ import annotations

import time
from dataclasses import dataclass

from service import metrics
from service.check import check_explainer
from service.engines.base import Engine, ExplainOptions
from service.models import Article, CheckReport, ExplainResult, ItemState


@dataclass(frozen=True, slots=True)
class Outcome:
    result: ExplainResult
    report: CheckReport
    repairs: int

    @property
    def state(self) -> ItemState:
        return ItemState.PUBLISHED if self.report.ok else ItemState.NEEDS_REVIEW


def explain_and_check(
    engine: Engine,
    article: Article,
    options: ExplainOptions,
    *,
    repair_rounds: int,
) -> Outcome:
    """Explain, check, and let the engine repair flagged numbers (at most N rounds)."""
    started = time.perf_counter()
    result = engine.explain(article, options)
    metrics.EXPLAIN_SECONDS.labels(engine.name).observe(time.perf_counter() - started)
    report = _check(result, article)
    repairs = 0
    while not report.ok and repairs < repair_rounds:
        repaired = engine.repair(article, result, report, options)
        if repaired is None:
            break
        repairs += 1
        # Repair calls cost tokens too: carry the usage forward.
        repaired = repaired.model_copy(
            update={
                "usage": result.usage + repaired.usage,
                "cost_usd": result.cost_usd + repaired.cost_usd,
            }
        )
        result = repaired
        report = _check(result, article)
    return Outcome(result, report, repairs)


def _check(result: ExplainResult, article: Article) -> CheckReport:
    started = time.perf_counter()
    report = check_explainer(result.explainer, article.text, title=article.title)
    metrics.CHECK_SECONDS.observe(time.perf_counter() - started)
    for n in report.numbers:
        metrics.CHECK_NUMBERS.labels(n.status.value).inc()
    return report
