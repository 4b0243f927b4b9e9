"""The interface every explainer engine implements."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from service.models import Article, CheckReport, ExplainResult

DEFAULT_AUDIENCE = "a curious non-specialist"


@dataclass(frozen=True, slots=True)
class ExplainOptions:
    """Per-feed choices that shape an explainer."""

    audience: str = DEFAULT_AUDIENCE
    language: str = "English"
    template_dir: Path | None = None  # per-feed override of prompts/


class Engine(Protocol):
    """Article in, explainer out. Implementations: ``llm`` and ``extractive``."""

    name: str
    # True when explain() mostly waits for a model server: the gate reads the source for
    # the number check meanwhile, so the check after the answer finds it indexed.
    waits_on_io: bool

    def identity(self, options: ExplainOptions) -> tuple[str, str]:
        """``(model, prompt_version)`` that this engine would use now.

        With the article's content hash it forms the idempotency key: an item is
        explained once per (content hash, prompt version, model).
        """
        ...

    def explain(self, article: Article, options: ExplainOptions) -> ExplainResult:
        """Write an explainer of ``article``. Raises an ``EngineError`` subclass."""
        ...

    def repair(
        self,
        article: Article,
        result: ExplainResult,
        report: CheckReport,
        options: ExplainOptions,
    ) -> ExplainResult | None:
        """Rewrite the sentences the check flagged; ``None`` when the engine cannot."""
        ...
