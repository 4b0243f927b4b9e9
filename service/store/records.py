"""Stored rows back into the typed values the steps use."""

from __future__ import annotations

from service.models import Article, CheckReport, Explainer, ExplainResult, Usage
from service.store import tables as t


def article_of(item: t.Item) -> Article:
    """The item's cleaned post as an Article (its stored hash, not a recomputed one)."""
    return Article(
        title=item.title,
        text=item.text,
        url=item.link,
        author=item.author,
        published=item.published,
        content_source=item.content_source,  # type: ignore[arg-type]
        hash=item.content_hash,
    )


def result_of(ex: t.Explainer) -> ExplainResult:
    return ExplainResult(
        explainer=Explainer.model_validate(ex.body),
        engine=ex.engine,
        model=ex.model,
        prompt_version=ex.prompt_version,
        usage=Usage(
            prompt_tokens=ex.prompt_tokens,
            completion_tokens=ex.completion_tokens,
            calls=ex.llm_calls,
        ),
        cost_usd=ex.cost_usd,
    )


def report_of(ex: t.Explainer) -> CheckReport | None:
    return CheckReport.model_validate(ex.check) if ex.check else None
