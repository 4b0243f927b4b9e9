"""The llm engine against the stub server with posts longer than one call's context:
explained part-wise and combined, split at headings with code kept whole, and refused
before any call past the parts cap."""

from __future__ import annotations

import re

import pytest

from service import prompts
from service.engines.llm import split_for_context
from service.errors import LLMRetryable, PostTooLong
from service.models import Article, Explainer
from tests.llm_engine_helpers import FLYDSL, OPTIONS, SCHEMA_FORMAT, make_engine
from tests.stub_llm import Reply, StubLLM, default_explainer

# --- long posts -----------------------------------------------------------------------------------


def test_long_post_goes_through_explain_part_and_combine(stub: StubLLM) -> None:
    text = FLYDSL.read_text(encoding="utf-8")
    article = Article(title="Accelerating PyTorch on AMD GPUs with FlyDSL", text=text)
    engine = make_engine(stub, llm_context_chars=8000)
    parts = split_for_context(text, 8000)
    assert len(parts) >= 3
    result = engine.explain(article, OPTIONS)

    calls = stub.calls
    assert len(calls) == len(parts) + 1
    part_system = (
        prompts.load_template("explain-part")
        .render(
            {
                "title": "",
                "url": None,
                "audience": "",
                "language": "",
                "text": "",
                "part_number": 1,
                "part_count": 1,
            }
        )
        .system
    )
    for number, (call, part) in enumerate(zip(calls, parts, strict=False), start=1):
        assert call["messages"][0] == {"role": "system", "content": part_system}
        user = call["messages"][1]["content"]
        assert f"Part {number} of {len(parts)}:" in user
        assert f"<part>\n{part}\n</part>" in user
        assert call["temperature"] == 0.2
        assert call["max_tokens"] == 2000
        assert call["response_format"] == SCHEMA_FORMAT
    combine = calls[-1]
    assert combine["max_tokens"] == 3000
    user = combine["messages"][1]["content"]
    assert f"Notes on the {len(parts)} parts, in order:" in user
    # The notes are the part answers, verbatim as JSON.
    note = Explainer.model_validate(default_explainer(calls[0]["messages"][1]["content"]))
    assert note.model_dump_json(indent=1, exclude_none=True) in user
    assert result.usage.calls == len(parts) + 1
    assert sum(len(p) for p in parts) >= len(text.strip()) - 2 * len(parts)


def test_the_notes_of_a_very_long_post_are_merged_in_calls_that_fit_the_context(
    stub: StubLLM,
) -> None:
    # 40 sections of about 1,900 characters: 40 parts at the smallest context, and 40
    # notes, far more text than one combining call may send.
    sections = [f"# Topic {n}\n\n" + "The kernel reads data. " * 80 for n in range(40)]
    article = Article(title="A very long post", text="\n\n".join(sections))
    budget = 2000
    parts = split_for_context(article.text, budget)
    assert len(parts) == 40
    result = make_engine(stub, llm_context_chars=budget).explain(article, OPTIONS)

    combines = [c for c in stub.calls if "<notes part=" in c["messages"][1]["content"]]
    assert len(stub.calls) == len(parts) + len(combines)
    for call in combines:
        user = call["messages"][1]["content"]
        notes = re.findall(r"<notes part=\"\d+\">\n(.*?)\n</notes>", user, re.S)
        # Two notes at least (merging ends), and no more than the context holds, give or
        # take the one note a group may take past it.
        assert len(notes) >= 2
        assert sum(map(len, notes)) <= budget + max(map(len, notes))
    assert result.usage.calls == len(stub.calls)


def test_a_retry_after_a_failed_part_does_not_pay_for_the_answered_parts_again(
    stub: StubLLM,
) -> None:
    sections = [f"# Topic {n}\n\n" + "The kernel reads data. " * 80 for n in range(3)]
    article = Article(title="A long post", text="\n\n".join(sections))
    engine = make_engine(stub, llm_context_chars=2000, llm_max_attempts=2)
    # Parts 1 and 2 are answered; part 3 meets 503s until the tries run out.
    stub.push(Reply("default"), Reply("default"), *[Reply.error(503, "overloaded")] * 2)
    with pytest.raises(LLMRetryable):
        engine.explain(article, OPTIONS)
    assert len(stub.calls) == 4
    stub.clear_calls()
    # The item's retry: part 3 and the combining call, nothing more.
    result = engine.explain(article, OPTIONS)
    users = [c["messages"][1]["content"] for c in stub.calls]
    assert len(users) == 2
    assert "Part 3 of 3" in users[0] and "Notes on the 3 parts" in users[1]
    assert result.usage.calls == 2  # what this attempt paid for


def test_split_for_context_cuts_at_headings_and_keeps_code_whole() -> None:
    code = "```python\n" + "\n".join(f"x{i} = {i}" for i in range(30)) + "\n# not a heading\n```"
    text = "# One\n\n" + "a " * 150 + "\n\n# Two\n\n" + code + "\n\n# Three\n\n" + "b " * 150
    parts = split_for_context(text, 400)
    assert all(len(p) <= 400 for p in parts)
    assert parts[0].startswith("# One") and parts[-1].startswith("# Three")
    assert any(p.startswith("# Two") and p.endswith("```") for p in parts)
    assert split_for_context("short", 400) == ["short"]
    long_line = "word " * 500
    assert all(len(p) <= 400 for p in split_for_context(long_line, 400))


@pytest.mark.parametrize("budget", [0, -1])
def test_split_for_context_refuses_a_budget_that_holds_no_text(budget: int) -> None:
    # It cut empty pieces off a long block for ever, memory growing.
    with pytest.raises(ValueError, match="holds no text"):
        split_for_context("word " * 100, budget)


@pytest.mark.parametrize("chars", [0, -1, 1999])
def test_a_context_budget_below_the_minimum_is_refused(chars: int) -> None:
    from service.config import Settings

    with pytest.raises(ValueError, match="llm_context_chars"):
        Settings(_env_file=None, llm_context_chars=chars)  # type: ignore[call-arg]


def test_a_post_past_the_parts_cap_is_refused_before_any_call(stub: StubLLM) -> None:
    """40 parts is 40 paid calls and their merges: past PLAINFEED_LLM_MAX_PARTS the post
    is refused, naming both settings, before the first call."""
    sections = [f"# Topic {n}\n\n" + "The kernel reads data. " * 80 for n in range(40)]
    article = Article(title="A very long post", text="\n\n".join(sections))
    engine = make_engine(stub, llm_context_chars=2000, llm_max_parts=39)
    with pytest.raises(PostTooLong) as caught:
        engine.explain(article, OPTIONS)
    assert "takes 40 calls of PLAINFEED_LLM_CONTEXT_CHARS=2,000" in caught.value.detail
    assert "PLAINFEED_LLM_MAX_PARTS=39" in caught.value.detail
    assert caught.value.status == 413
    assert stub.calls == []
    # Longer than the cap's characters: refused without being split first.
    huge = Article(title="Huge", text="The kernel reads data. " * 20_000)
    with pytest.raises(PostTooLong, match="takes at least 230 calls"):
        engine.explain(huge, OPTIONS)
    assert stub.calls == []
