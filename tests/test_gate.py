"""The gate reads the source for the number check while an engine waits for its model."""

from __future__ import annotations

from pathlib import Path

from service.check import check_explainer, headline_facts, index_source
from service.engines.base import ExplainOptions
from service.engines.llm import LLMEngine, ModeMemory
from service.gate import explain_and_check
from service.models import Article
from service.ratelimit import RateLimiter
from tests.stub_llm import StubLLM, settings_for

ROOT = Path(__file__).resolve().parent.parent
SOURCE = (
    ROOT / "tests/data/corpus/posts/pytorch-blog-how-shopify-built-a-continual-learning-loop.md"
)
ARTICLE = Article(
    title="How Shopify built a continual learning loop",
    text=SOURCE.read_text(encoding="utf-8"),
    url="https://pytorch.org/blog/how-shopify-built-a-continual-learning-loop/",
)


def test_the_source_is_indexed_while_the_model_answers() -> None:
    index_source.cache_clear()
    with StubLLM(delay=0.3) as stub:
        engine = LLMEngine(settings_for(stub), modes=ModeMemory(), limiter=RateLimiter(4, 60_000))
        outcome = explain_and_check(engine, ARTICLE, ExplainOptions(), repair_rounds=0)
    info = index_source.cache_info()
    # Read once, beside the model call; the check after the answer found it read.
    assert (info.misses, info.hits) == (1, 1)
    # The report of the check (the post's headline figures as its key facts).
    facts = headline_facts(ARTICLE.text, ARTICLE.title)
    assert outcome.report == check_explainer(
        outcome.result.explainer, ARTICLE.text, facts, title=ARTICLE.title
    )
