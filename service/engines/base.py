"""The interface every explainer engine implements."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from service.models import Article, CheckReport, ExplainResult

DEFAULT_AUDIENCE = "a curious non-specialist"


@dataclass(frozen=True, slots=True)
class ExplainOptions:
    """Per-feed choices that shape an explainer."""

    audience: str = DEFAULT_AUDIENCE
    language: str = "English"
    template_dir: Path | None = None  # per-feed override of prompts/


def prompt_inputs(article: Article, options: ExplainOptions) -> dict[str, Any]:
    """What an explainer is written from besides the post's text and the templates: the
    variables every explain template is rendered with (the llm engine renders exactly
    these), the feed's audience and language among them."""
    return {
        "title": article.title,
        "author": article.author,
        "published": article.published.date().isoformat() if article.published else None,
        "url": article.url,
        "audience": options.audience,
        "language": options.language,
    }


def inputs_key(article: Article, options: ExplainOptions) -> str:
    """A digest of :func:`prompt_inputs`. With the content hash, the prompt version (which
    covers a feed's template override) and the model, it says when an explainer written
    for one item is the one another item would get: the same post under two feeds is
    explained once, and a feed with another audience or language gets its own."""
    # ASCII JSON: a lone surrogate in a title is an escape, not an encoding error.
    data = json.dumps(prompt_inputs(article, options), sort_keys=True)
    return hashlib.sha256(data.encode("ascii")).hexdigest()


class Engine(Protocol):
    """Article in, explainer out. Implementations: ``llm`` and ``extractive``."""

    name: str
    # True when explain() mostly waits for a model server: the gate reads the source for
    # the number check meanwhile, so the check after the answer finds it indexed.
    waits_on_io: bool

    def close(self) -> None:
        """Let go of what it holds (the llm engine: its HTTP client's connections)."""
        ...

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
