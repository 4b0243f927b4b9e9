"""The publishing gate: explain, check every number, let the engine repair what the
check flagged (at most N rounds). Only a clean report publishes; the rest waits for a
person. No database here: the orchestrator stores what this returns."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from service import abandon, metrics
from service.check import check_explainer, headline_facts, index_source
from service.engines.base import Engine, ExplainOptions
from service.errors import EngineError, LeaseLost, TemplateError
from service.models import (
    Article,
    CheckReport,
    CheckStatus,
    ExplainResult,
    ItemState,
    Usage,
)

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Outcome:
    result: ExplainResult
    report: CheckReport
    repairs: int
    review_derived: bool = False  # the policy it was judged by (PLAINFEED_REVIEW_DERIVED)

    @property
    def publishable(self) -> bool:
        """No unsupported or misattached number, the explainer's shape (1 to 7 sections of
        1 to 4 paragraphs), and, when the policy asks, no derived number either: a number
        the writer computed is then a person's call too."""
        if not self.report.ok or self.report.shape:
            return False
        return not (self.review_derived and self.report.count(CheckStatus.DERIVED))

    @property
    def state(self) -> ItemState:
        return ItemState.PUBLISHED if self.publishable else ItemState.NEEDS_REVIEW


def explain_and_check(
    engine: Engine,
    article: Article,
    options: ExplainOptions,
    *,
    repair_rounds: int,
    review_derived: bool = False,
    feed_names: Sequence[str | None] = (),
) -> Outcome:
    """Explain, check, and let the engine repair flagged numbers (at most N rounds).
    Derived numbers are not repaired (the post backs them); ``review_derived`` holds an
    explainer that has some for a person. ``feed_names``: the title and name of the
    post's feed, for the check (:func:`_check`)."""
    reader = _read_source_meanwhile(article) if engine.waits_on_io else None
    started = time.perf_counter()
    try:
        result = engine.explain(article, options)
    finally:
        if reader is not None:
            reader.join()
    metrics.EXPLAIN_SECONDS.labels(engine.name).observe(time.perf_counter() - started)
    try:
        # The explain may have outlived the lease: its result would be refused, so
        # neither the check nor the repairs it may ask for are worth running.
        abandon.check("the number check")
    except LeaseLost as exc:
        _charge(exc, result)
        raise
    report = _check(result, article, feed_names)
    repairs = 0
    while not report.ok and repairs < repair_rounds:
        try:
            abandon.check("a repair")
            repaired = engine.repair(article, result, report, options)
        except LeaseLost as exc:
            _charge(exc, result)  # the explain and the rounds before were paid too
            raise
        except (EngineError, TemplateError) as exc:
            # The explainer is paid for and checked: a repair call that fails (503s past
            # the retries, an invalid rewrite) or a repair template that does not render
            # (a feed's repair.md naming an unknown variable) leaves it to a person, with
            # its report, instead of throwing it away to be written and paid for again.
            log.warning(
                "repair round %d failed, the explainer waits for review: %s", repairs + 1, exc
            )
            usage = exc.extra.get("usage")
            if isinstance(usage, Usage) and usage.calls:
                repairs += 1
                cost = exc.extra.get("cost_usd")
                result = result.model_copy(
                    update={
                        "usage": result.usage + usage,
                        "cost_usd": result.cost_usd
                        + (float(cost) if isinstance(cost, int | float) else 0.0),
                    }
                )
            break
        if repaired is None:
            break
        repairs += 1
        # Repair calls cost tokens too: carry the usage forward, kept rewrite or not.
        spent = {
            "usage": result.usage + repaired.usage,
            "cost_usd": result.cost_usd + repaired.cost_usd,
        }
        repaired_report = _check(repaired, article, feed_names)
        rejected = repair_rejected(result, report, repaired, repaired_report)
        if rejected:
            # A rewrite that flags as much as before, or passes by cutting whole sections,
            # is no repair: keep the explainer it was given (a person reviews it), and stop,
            # since asking again from the same explainer loops.
            log.info("repair round %d rejected: %s", repairs, rejected)
            result = result.model_copy(update=spent)
            break
        result = repaired.model_copy(update=spent)
        report = repaired_report
    return Outcome(result, report, repairs, review_derived)


def _charge(exc: LeaseLost, result: ExplainResult) -> None:
    """Add the usage of the explain and the rounds before to what the step ``exc``
    stopped spent, if anything: the caller records them all, paid for."""
    spent = exc.extra.get("usage")
    exc.extra["usage"] = result.usage + (spent if isinstance(spent, Usage) else Usage())
    cost = exc.extra.get("cost_usd")
    exc.extra["cost_usd"] = result.cost_usd + (
        float(cost) if isinstance(cost, int | float) else 0.0
    )


def check_stored(
    result: ExplainResult,
    article: Article,
    *,
    review_derived: bool = False,
    feed_names: Sequence[str | None] = (),
) -> Outcome:
    """The gate's verdict on an explainer written before (for another item of the same
    post): the number check against this article (of the feed of ``feed_names``), under
    today's checker and policy. No engine call, so no repair: a caller that wants one
    explains anew."""
    return Outcome(result, _check(result, article, feed_names), 0, review_derived)


def _flagged(report: CheckReport) -> int:
    return report.count(CheckStatus.UNSUPPORTED) + report.count(CheckStatus.MISATTACHED)


def repair_rejected(
    before: ExplainResult,
    before_report: CheckReport,
    after: ExplainResult,
    after_report: CheckReport,
) -> str | None:
    """Why a repair's rewrite must not replace the explainer, or ``None`` to take it.

    The repair prompt rewrites or drops the sentences that hold flagged numbers and keeps
    everything else; a rewrite with fewer sections dropped content the check never
    flagged (an explainer of one section "passes" any check), and one that flags no fewer
    numbers made nothing better."""
    had, has = len(before.explainer.sections), len(after.explainer.sections)
    if has < had:
        return f"the rewrite has {has} of the explainer's {had} sections"
    if _flagged(after_report) >= _flagged(before_report):
        return (
            f"the rewrite has {_flagged(after_report)} flagged numbers, "
            f"the explainer had {_flagged(before_report)}"
        )
    return None


def _read_source_meanwhile(article: Article) -> threading.Thread:
    """Index the source for the check while the engine waits for its model server.

    Indexing a 5,000-word post costs ~8 ms of CPU, the first check of it ~5 ms more; the
    answer takes seconds, during which this thread has the interpreter to itself. The
    index is memoised per text, so the check (and every repair round's check) after the
    answer only looks numbers up. A failure here is left to the check to meet again.
    """

    def read() -> None:
        try:
            index_source(article.text, article.title)
        except Exception:  # the check indexes again and reports what went wrong
            log.debug("indexing the source ahead of the check failed", exc_info=True)

    reader = threading.Thread(target=read, name="index-source", daemon=True)
    reader.start()
    return reader


def _check(
    result: ExplainResult, article: Article, feed_names: Sequence[str | None]
) -> CheckReport:
    started = time.perf_counter()
    # A post's own key facts are its headline figures: reported when dropped, no failure.
    facts = headline_facts(article.text, article.title)
    # Its feed's names, its author and its page's site are its context: a name the cleaned
    # text never writes, but the feed is named for ("PyTorch" of "PyTorch Blog"), is no
    # invented one.
    report = check_explainer(
        result.explainer,
        article.text,
        facts,
        title=article.title,
        context_names=(*feed_names, article.author, article.site_name),
    )
    report.shape = result.explainer.shape_problems()
    metrics.CHECK_SECONDS.observe(time.perf_counter() - started)
    for n in report.numbers:
        metrics.CHECK_NUMBERS.labels(n.status.value).inc()
    return report
