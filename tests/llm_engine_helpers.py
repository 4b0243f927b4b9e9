"""What the llm engine's tests share (tests/test_llm_engine_*.py): the articles and
answers they send and expect, an engine on the stub server, and the exact explain request
it must send. The stub server itself is the ``stub`` fixture of tests/conftest.py."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from service import prompts
from service.engines.base import ExplainOptions
from service.engines.llm import LLMEngine, ModeMemory, explainer_schema
from service.models import Article
from service.ratelimit import RateLimiter
from tests.stub_llm import StubLLM, settings_for

ROOT = Path(__file__).resolve().parent.parent
RECORDINGS = ROOT / "eval" / "recordings"
FLYDSL = (
    ROOT / "tests/data/corpus/posts/pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"
)
FLYDSL_URL = "https://pytorch.org/blog/accelerating-pytorch-on-amd-gpus-with-flydsl/"

SMALL = Article(
    title="A small post",
    text="The tool is faster now. It reads files in a new way.",
    url="https://example.org/small",
    author="A. Writer",
    published=datetime(2026, 9, 2, 12, 0, tzinfo=UTC),
)
VALID = {
    "title": "A tool: faster file reading",
    "sections": [{"heading": "What changed", "paragraphs": ["The tool reads files faster."]}],
}
OPTIONS = ExplainOptions()


def make_engine(stub: StubLLM, **overrides: Any) -> LLMEngine:
    # A fresh mode memory and limiter per test: the shared ones are per process.
    return LLMEngine(
        settings_for(stub, **overrides), modes=ModeMemory(), limiter=RateLimiter(4, 60_000)
    )


def explain_messages(article: Article, options: ExplainOptions = OPTIONS) -> list[dict[str, str]]:
    return prompts.render(
        "explain",
        {
            "title": article.title,
            "author": article.author,
            "published": article.published.date().isoformat() if article.published else None,
            "url": article.url,
            "audience": options.audience,
            "language": options.language,
            "text": article.text,
        },
    ).messages


SCHEMA_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "explainer", "schema": explainer_schema(), "strict": True},
}


def assert_explain_request(call: dict[str, Any], article: Article = SMALL, **expected: Any) -> None:
    assert call["model"] == "stub-model"
    assert call["messages"] == explain_messages(article)
    assert call["response_format"] == expected.get("response_format", SCHEMA_FORMAT)
    assert call["temperature"] == 0.2
    assert call["max_tokens"] == expected.get("max_tokens", 3000)
