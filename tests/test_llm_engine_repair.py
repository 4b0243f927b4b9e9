"""The llm engine against the stub server repairing an explainer: the flagged numbers
sent (with the passage of a long post), the rewrite taken, nothing sent when nothing is
flagged."""

from __future__ import annotations

from typing import Any

from service.models import (
    Article,
    CheckReport,
    CheckStatus,
    Explainer,
    ExplainResult,
    NumberVerdict,
    Usage,
)
from tests.llm_engine_helpers import OPTIONS, SMALL, VALID, make_engine
from tests.stub_llm import Reply, StubLLM

# --- repair ----------------------------------------------------------------------------------


def _result(explainer: dict[str, Any]) -> ExplainResult:
    return ExplainResult(
        explainer=Explainer.model_validate(explainer),
        engine="llm",
        model="stub-model",
        prompt_version="v",
        usage=Usage(prompt_tokens=100, completion_tokens=50, calls=1),
    )


def test_repair_sends_the_flagged_numbers_and_takes_the_rewrite(stub: StubLLM) -> None:
    article = Article(title="Speed", text="The new kernel is 1.10x faster on MI355X.")
    before = _result(
        {
            "title": "Speed",
            "sections": [{"heading": "Result", "paragraphs": ["It is 1.2x faster."]}],
        }
    )
    fixed = {
        "title": "Speed",
        "sections": [{"heading": "Result", "paragraphs": ["It is 1.10x faster."]}],
    }
    report = CheckReport(
        numbers=[
            NumberVerdict(
                text="1.2x",
                kind="quantity",
                status=CheckStatus.UNSUPPORTED,
                sentence="It is 1.2x faster.",
                reason="no such number in the source",
            )
        ]
    )
    stub.push(Reply.explainer(fixed))
    engine = make_engine(stub)
    after = engine.repair(article, before, report, OPTIONS)
    assert after is not None
    (call,) = stub.calls
    assert call["temperature"] == 0.0
    user = call["messages"][1]["content"]
    assert '- "1.2x" (unsupported) in the sentence: "It is 1.2x faster."' in user
    assert "Reason: no such number in the source" in user
    assert before.explainer.model_dump_json(indent=1, exclude_none=True) in user
    assert "<post>\nThe new kernel is 1.10x faster on MI355X.\n</post>" in user
    assert after.explainer == Explainer.model_validate(fixed)
    # The repair's own usage: service.gate adds it to the explain call's.
    assert after.usage.calls == 1
    assert after.usage.prompt_tokens == len("\n".join(m["content"] for m in call["messages"])) // 4
    assert after.prompt_version == engine.identity(OPTIONS)[1]


def test_the_repair_of_a_long_post_is_shown_the_passage_of_the_flagged_claim(
    stub: StubLLM,
) -> None:
    filler = [f"# Topic {n}\n\nThe kernel reads data from disk in batches. " * 3 for n in range(60)]
    claim = "The cache hit rate rose to 97% on the Zephyr cluster."
    article = Article(title="Caches", text="\n\n".join([*filler, "# Results\n\n" + claim]))
    wrong = "The cache hit rate rose to 99% on the Zephyr cluster."
    before = _result({"title": "Caches", "sections": [{"heading": "A", "paragraphs": [wrong]}]})
    report = CheckReport(
        numbers=[
            NumberVerdict(
                text="99%", kind="quantity", status=CheckStatus.UNSUPPORTED, sentence=wrong
            )
        ]
    )
    engine = make_engine(stub, llm_context_chars=2000)
    assert engine.repair(article, before, report, OPTIONS) is not None
    user = stub.calls[0]["messages"][1]["content"]
    post = user[user.index("<post>") : user.index("</post>")]
    assert claim in post  # the last block of the post, not its first 2,000 characters
    assert len(post) <= 2000 + len("<post>\n")


def test_repair_without_flagged_numbers_sends_nothing(stub: StubLLM) -> None:
    before = _result(VALID)
    report = CheckReport(
        numbers=[
            NumberVerdict(text="2", kind="quantity", status=CheckStatus.SUPPORTED, sentence="2.")
        ]
    )
    assert make_engine(stub).repair(SMALL, before, report, OPTIONS) is None
    assert stub.calls == []
