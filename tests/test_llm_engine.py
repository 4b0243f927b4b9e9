"""The llm engine against the stub server: the exact requests it sends and what it makes
of each kind of answer."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from service import prompts
from service.engines import get_engine
from service.engines.base import ExplainOptions
from service.engines.llm import (
    LLMEngine,
    ModeMemory,
    explainer_schema,
    extract_json,
    parse_retry_after,
    split_for_context,
)
from service.errors import (
    AnswerTooLarge,
    AnswerTruncated,
    ConfigError,
    InvalidAnswer,
    LLMError,
    LLMRejected,
    LLMRetryable,
    NothingToExplain,
    PostTooLong,
    TemplateError,
)
from service.models import (
    Article,
    CheckReport,
    CheckStatus,
    Explainer,
    ExplainResult,
    NumberVerdict,
    Usage,
)
from service.ratelimit import RateLimiter
from tests.stub_llm import Reply, StubLLM, default_explainer, settings_for

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


@pytest.fixture
def stub() -> Iterator[StubLLM]:
    with StubLLM() as server:
        yield server


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


# --- the recorded 003 ---------------------------------------------------------------------


def test_003_is_the_recorded_answer_for_the_flydsl_post() -> None:
    article = Article(
        title="Accelerating PyTorch on AMD GPUs with FlyDSL",
        text=FLYDSL.read_text(encoding="utf-8"),
        url=FLYDSL_URL,
    )
    recorded = json.loads(
        (RECORDINGS / "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.json").read_text()
    )
    with StubLLM(recordings=RECORDINGS) as stub:
        engine = make_engine(stub, model="gpt-4o-mini")
        result = engine.explain(article, OPTIONS)
        (call,) = stub.calls
    assert call["model"] == "gpt-4o-mini"
    assert call["messages"] == explain_messages(article)
    assert call["messages"][0]["role"] == "system"
    assert call["messages"][1]["content"].count(FLYDSL_URL) == 1
    assert call["response_format"] == SCHEMA_FORMAT
    assert call["temperature"] == 0.2
    assert call["reply"] == "recording:pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl"

    assert result.explainer == Explainer.model_validate(recorded["answer"])
    assert result.explainer.title == "PyTorch FlyDSL: Operator support, performance gains"
    assert len(result.explainer.sections) == 5
    assert result.explainer.sections[3].code is not None
    assert result.engine == "llm"
    assert (result.model, result.prompt_version) == engine.identity(OPTIONS)
    # Usage is the server's (chars / 4), priced at gpt-4o-mini's rates.
    assert result.usage.calls == 1
    assert result.usage.prompt_tokens == len("\n".join(m["content"] for m in call["messages"])) // 4
    assert result.usage.completion_tokens > 1000
    expected_cost = (
        result.usage.prompt_tokens * 0.15 + result.usage.completion_tokens * 0.60
    ) / 1e6
    assert result.cost_usd == pytest.approx(expected_cost)


def test_unknown_model_costs_nothing(stub: StubLLM) -> None:
    result = make_engine(stub).explain(SMALL, OPTIONS)
    assert result.usage.calls == 1 and result.usage.prompt_tokens > 0
    assert result.cost_usd == 0.0
    assert result.explainer == Explainer.model_validate(default_explainer(f"Title: {SMALL.title}"))


# --- transient failures -----------------------------------------------------------------------


def test_429_with_retry_after_then_success(stub: StubLLM) -> None:
    stub.push(Reply.rate_limited("1"), Reply.explainer(VALID))
    result = make_engine(stub).explain(SMALL, OPTIONS)
    first, second = stub.calls
    assert (first["status"], second["status"]) == (429, 200)
    assert_explain_request(first)
    assert_explain_request(second)
    assert result.explainer == Explainer.model_validate(VALID)
    assert result.usage.calls == 1  # the refused request used no tokens


def test_500_then_success(stub: StubLLM) -> None:
    stub.push(Reply.error(500, "upstream exploded"), Reply.explainer(VALID))
    result = make_engine(stub).explain(SMALL, OPTIONS)
    assert [c["status"] for c in stub.calls] == [500, 200]
    for call in stub.calls:
        assert_explain_request(call)
    assert result.explainer.title == VALID["title"]


def test_retries_exhausted_is_retryable_with_the_servers_retry_after(stub: StubLLM) -> None:
    stub.push(*[Reply.error(503, "overloaded", {"Retry-After": "7"})] * 3)
    with pytest.raises(LLMRetryable) as info:
        make_engine(stub, llm_max_attempts=3).explain(SMALL, OPTIONS)
    assert info.value.retry_after == 7.0
    assert "503" in str(info.value) and "3 tries" in str(info.value)
    assert len(stub.calls) == 3


def test_errors_carry_the_tokens_spent_before_them(stub: StubLLM) -> None:
    # A long post: the first part is answered, the second part's endpoint fails for good.
    article = Article(title="Two parts", text="# A\n\n" + "a " * 1500 + "\n\n# B\n\n" + "b " * 1500)
    stub.push(Reply.explainer(VALID), Reply.error(401, "key revoked"))
    with pytest.raises(LLMRejected) as info:
        make_engine(stub, llm_context_chars=4000).explain(article, OPTIONS)
    usage = info.value.extra["usage"]
    assert usage.calls == 1 and usage.prompt_tokens > 0


def test_timeout_then_success(stub: StubLLM) -> None:
    stub.push(Reply.sleep(3.0), Reply.explainer(VALID))
    result = make_engine(stub, llm_timeout=0.5).explain(SMALL, OPTIONS)
    assert len(stub.calls) == 2
    for call in stub.calls:
        assert_explain_request(call)
    assert result.explainer.title == VALID["title"]
    assert result.usage.calls == 1


def test_timeouts_only_end_in_a_retryable_error(stub: StubLLM) -> None:
    stub.push(Reply.sleep(3.0), Reply.sleep(3.0))
    with pytest.raises(LLMRetryable, match="timed out"):
        make_engine(stub, llm_timeout=0.3, llm_max_attempts=2).explain(SMALL, OPTIONS)
    assert len(stub.calls) == 2


def test_a_server_that_drips_its_answer_times_out_within_the_request_timeout(
    stub: StubLLM,
) -> None:
    # 16 bytes every 0.2 s: no single read waits the 0.5 s timeout, but the whole answer
    # takes some 10 s. Cut at the deadline it ends in about 0.6 s; the bound leaves a
    # loaded machine seconds of slack (1.5 s after a 2.4 s drip failed once in CI) and
    # is still far below the whole drip. The engine is built before the clock starts.
    stub.push(Reply.drip(0.2))
    engine = make_engine(stub, llm_timeout=0.5, llm_max_attempts=1)
    started = time.monotonic()
    with pytest.raises(LLMRetryable, match="timed out"):
        engine.explain(SMALL, OPTIONS)
    assert time.monotonic() - started < 4.0


def test_an_enormous_answer_is_refused_without_reading_it_all_or_retrying(stub: StubLLM) -> None:
    stub.push(Reply.huge(100 * 1024 * 1024))
    with pytest.raises(AnswerTooLarge, match="over 4194304 bytes"):
        make_engine(stub, llm_max_attempts=3).explain(SMALL, OPTIONS)
    assert len(stub.calls) == 1  # neither re-asked nor retried


@pytest.mark.parametrize("text", ["", "  \n\n\t "])
def test_a_post_without_text_is_refused_before_any_call(stub: StubLLM, text: str) -> None:
    with pytest.raises(NothingToExplain, match="no text"):
        make_engine(stub).explain(Article(title="Empty 2026 post", text=text), OPTIONS)
    assert stub.calls == []


def test_the_client_goes_through_the_proxy_of_the_environment(
    stub: StubLLM, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The stub as the proxy; the endpoint's name does not resolve, so only the proxy
    # reaches it.
    for name in ("NO_PROXY", "no_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HTTP_PROXY", stub.url.removesuffix("/v1"))
    engine = make_engine(stub, openai_base_url="http://llm.invalid/v1", llm_max_attempts=1)
    assert engine.explain(SMALL, OPTIONS).usage.calls == 1
    assert stub.proxied == ["http://llm.invalid/v1/chat/completions"]


def test_connection_refused_is_retryable() -> None:
    with StubLLM() as stub:
        settings = settings_for(stub, llm_max_attempts=2)
    # The server is gone: nothing listens on its port any more.
    engine = LLMEngine(settings, modes=ModeMemory(), limiter=RateLimiter(1, 60_000))
    with pytest.raises(LLMRetryable, match="cannot reach"):
        engine.explain(SMALL, OPTIONS)


# --- refusals ----------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [401, 403, 404, 400])
def test_client_errors_are_rejected_without_retry(stub: StubLLM, status: int) -> None:
    stub.push(Reply.error(status, "Incorrect API key provided"))
    with pytest.raises(LLMRejected) as info:
        make_engine(stub).explain(SMALL, OPTIONS)
    assert f"({status})" in str(info.value)
    assert "Incorrect API key" in str(info.value)
    (call,) = stub.calls
    assert_explain_request(call)


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_says_the_key_is_wrong_whatever_the_server_words(
    stub: StubLLM, status: int
) -> None:
    stub.push(Reply.error(status, "Forbidden" if status == 403 else "Unauthorized"))
    with pytest.raises(LLMRejected, match=r"API key .*\(OPENAI_API_KEY\)"):
        make_engine(stub, llm_max_attempts=4).explain(SMALL, OPTIONS)
    assert len(stub.calls) == 1  # never retried


# --- answers that are not explainers -----------------------------------------------------------


def test_garbage_then_valid_reasks_with_the_validation_error(stub: StubLLM) -> None:
    stub.push(Reply.text("Sure! Here is a summary of the post."), Reply.explainer(VALID))
    result = make_engine(stub).explain(SMALL, OPTIONS)
    first, second = stub.calls
    assert_explain_request(first)
    base = explain_messages(SMALL)
    assert second["messages"][:2] == base
    assert second["messages"][2] == {
        "role": "assistant",
        "content": "Sure! Here is a summary of the post.",
    }
    reask = second["messages"][3]
    assert reask["role"] == "user"
    assert reask["content"].startswith(
        "Your answer is not a valid explainer: the answer is not JSON"
    )
    assert second["response_format"] == SCHEMA_FORMAT
    assert result.explainer.title == VALID["title"]
    assert result.usage.calls == 2


@pytest.mark.parametrize("content", ["", json.dumps(VALID)])
def test_a_content_filtered_answer_is_neither_taken_nor_asked_again(
    stub: StubLLM, content: str
) -> None:
    message = {"role": "assistant", "content": content}
    stub.push(Reply.choice({"message": message, "finish_reason": "content_filter"}))
    with pytest.raises(InvalidAnswer, match="content filter withheld the 'explain' answer"):
        make_engine(stub).explain(SMALL, OPTIONS)
    assert len(stub.calls) == 1


def test_a_tool_call_instead_of_content_is_named_in_the_reask(stub: StubLLM) -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "explainer", "arguments": "{}"}}
    stub.push(
        Reply.choice(
            {
                "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                "finish_reason": "tool_calls",
            }
        ),
        Reply.explainer(VALID),
    )
    result = make_engine(stub).explain(SMALL, OPTIONS)
    assert result.explainer.title == VALID["title"]
    reask = stub.calls[1]["messages"][3]["content"]
    assert "called a tool (explainer) instead of writing the JSON" in reask


def test_a_refusal_is_named_in_the_error(stub: StubLLM) -> None:
    refused = {"role": "assistant", "content": None, "refusal": "I cannot help with that."}
    stub.push(*[Reply.choice({"message": refused, "finish_reason": "stop"})] * 2)
    with pytest.raises(InvalidAnswer, match="the model refused: I cannot help with that"):
        make_engine(stub).explain(SMALL, OPTIONS)


def test_an_answer_nested_too_deep_is_invalid_not_a_crash(stub: StubLLM) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    stub.push(Reply.text(deep), Reply.text(deep))
    with pytest.raises(InvalidAnswer, match=r"not JSON \(nested too deep\)"):
        make_engine(stub).explain(SMALL, OPTIONS)
    assert len(stub.calls) == 2  # re-asked once, as any answer that is not JSON


@pytest.mark.parametrize("body", ["<html>It works!</html>", [1, 2]])
def test_an_answer_that_is_no_chat_completion_says_so(stub: StubLLM, body: object) -> None:
    # A base URL without /v1 reaches a server's HTML page, answered 200.
    stub.push(Reply.whole(body))
    with pytest.raises(LLMError, match=r"not a chat completion .*OPENAI_BASE_URL"):
        make_engine(stub).explain(SMALL, OPTIONS)
    assert len(stub.calls) == 1


def test_a_choice_without_a_message_is_reasked(stub: StubLLM) -> None:
    stub.push(Reply.choice({"finish_reason": "stop"}), Reply.explainer(VALID))
    result = make_engine(stub).explain(SMALL, OPTIONS)
    assert result.explainer.title == VALID["title"]
    assert "a choice without a message" in stub.calls[1]["messages"][3]["content"]


def test_content_as_a_list_of_parts_and_odd_usage_are_read(stub: StubLLM) -> None:
    parts = [{"type": "text", "text": json.dumps(VALID)[:20]}, {"text": json.dumps(VALID)[20:]}]
    message = {"role": "assistant", "content": parts}
    stub.push(Reply.choice({"message": message, "finish_reason": "stop"}))
    result = make_engine(stub).explain(SMALL, OPTIONS)
    assert result.explainer.title == VALID["title"]
    assert result.usage.calls == 1


def test_a_runaway_answer_goes_back_with_the_reask_cut_to_what_max_tokens_holds(
    stub: StubLLM,
) -> None:
    stub.push(Reply.text("Sure! " * 200_000), Reply.explainer(VALID))  # 1.2 MB, no JSON
    result = make_engine(stub).explain(SMALL, OPTIONS)
    assert result.explainer.title == VALID["title"]
    echoed = stub.calls[1]["messages"][2]["content"]
    assert len(echoed) <= 3000 * 8 + 100
    assert echoed.endswith("[... the rest of this answer is cut]")


def test_wrong_shape_reask_names_the_field(stub: StubLLM) -> None:
    stub.push(Reply.explainer({"title": "T", "sections": []}), Reply.explainer(VALID))
    make_engine(stub).explain(SMALL, OPTIONS)
    reask = stub.calls[1]["messages"][3]["content"]
    assert "does not match the explainer shape" in reask
    assert "sections" in reask


def test_garbage_twice_is_invalid_answer(stub: StubLLM) -> None:
    stub.push(Reply.text("no"), Reply.text("still no"))
    with pytest.raises(InvalidAnswer) as info:
        make_engine(stub).explain(SMALL, OPTIONS)
    assert "after one re-ask" in str(info.value)
    assert len(stub.calls) == 2
    assert isinstance(info.value.extra["usage"], Usage)
    assert info.value.extra["usage"].calls == 2


def test_cut_by_length_retries_once_with_more_tokens(stub: StubLLM) -> None:
    stub.push(Reply.length(VALID), Reply.explainer(VALID))
    result = make_engine(stub, llm_max_output_tokens=8192).explain(SMALL, OPTIONS)
    first, second = stub.calls
    assert_explain_request(first, max_tokens=3000)
    assert_explain_request(second, max_tokens=6000)
    assert result.explainer.title == VALID["title"]


def test_cut_by_length_twice_is_answer_truncated(stub: StubLLM) -> None:
    stub.push(Reply.length(VALID), Reply.length(VALID))
    with pytest.raises(AnswerTruncated, match="max_tokens=6000"):
        make_engine(stub, llm_max_output_tokens=8192).explain(SMALL, OPTIONS)
    assert [c["max_tokens"] for c in stub.calls] == [3000, 6000]


@pytest.mark.parametrize(("limit", "sent"), [(4096, [3000, 4096]), (3000, [3000])])
def test_more_tokens_for_a_cut_answer_stay_within_the_output_limit(
    stub: StubLLM, limit: int, sent: list[int]
) -> None:
    stub.push(Reply.length(VALID), Reply.length(VALID))
    with pytest.raises(AnswerTruncated, match=f"max_tokens={sent[-1]}"):
        make_engine(stub, llm_max_output_tokens=limit).explain(SMALL, OPTIONS)
    assert [c["max_tokens"] for c in stub.calls] == sent


def test_cut_twice_on_a_post_with_headings_goes_part_wise(stub: StubLLM) -> None:
    article = Article(
        title="Two halves",
        text="# First\n\nThe first half says one thing.\n\n# Second\n\nThe second half says more.",
    )
    stub.push(Reply.length(VALID), Reply.length(VALID))
    result = make_engine(stub).explain(article, OPTIONS)
    names = [c["messages"][1]["content"].split("\n")[0] for c in stub.calls[2:]]
    assert names == ["Post title: Two halves"] * 3
    assert "Part 1 of 2" in stub.calls[2]["messages"][1]["content"]
    assert "Part 2 of 2" in stub.calls[3]["messages"][1]["content"]
    assert "Notes on the 2 parts" in stub.calls[4]["messages"][1]["content"]
    assert result.usage.calls == 5


# --- response formats ----------------------------------------------------------------------------


def test_json_schema_refused_falls_back_to_json_object_and_remembers(stub: StubLLM) -> None:
    stub.reject_formats = {"json_schema"}
    engine = make_engine(stub)
    result = engine.explain(SMALL, OPTIONS)
    first, second = stub.calls
    assert (first["status"], first["reply"]) == (500, "reject:json_schema")
    assert_explain_request(first)
    assert_explain_request(
        second, response_format={"type": "json_object", "schema": explainer_schema()}
    )
    assert result.explainer.title.startswith("A small post")
    # The next explainer goes straight to the mode that worked.
    engine.explain(SMALL, OPTIONS)
    assert [c["response_format"]["type"] for c in stub.calls] == [
        "json_schema",
        "json_object",
        "json_object",
    ]


def test_scripted_llama_cpp_style_500_for_json_schema(stub: StubLLM) -> None:
    stub.push(Reply("reject_schema"), Reply.explainer(VALID))
    result = make_engine(stub).explain(SMALL, OPTIONS)
    assert [c["response_format"]["type"] for c in stub.calls] == ["json_schema", "json_object"]
    assert result.explainer.title == VALID["title"]


def test_no_response_format_at_all_reads_a_fenced_json_block(stub: StubLLM) -> None:
    stub.reject_formats = {"json_schema", "json_object"}
    stub.push(Reply.fenced(VALID))
    result = make_engine(stub).explain(SMALL, OPTIONS)
    assert [c["reply"] for c in stub.calls] == [
        "reject:json_schema",
        "reject:json_object",
        "fenced",
    ]
    third = stub.calls[2]
    assert third["response_format"] is None
    assert third["messages"] == explain_messages(SMALL)
    assert result.explainer == Explainer.model_validate(VALID)


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


# --- templates and identity ---------------------------------------------------------------------


def test_missing_template_variable_is_a_template_error(tmp_path: Path, stub: StubLLM) -> None:
    (tmp_path / "explain.md").write_text(
        "---\nname: explain\ndescription: d\n---\n"
        "{% block system %}x{% endblock %}{% block user %}{{ title }} {{ tone }}{% endblock %}",
        encoding="utf-8",
    )
    with pytest.raises(TemplateError, match="tone"):
        make_engine(stub).explain(SMALL, ExplainOptions(template_dir=tmp_path))
    assert stub.calls == []


def test_prompt_version_follows_the_templates(tmp_path: Path, stub: StubLLM) -> None:
    engine = make_engine(stub)
    model, version = engine.identity(OPTIONS)
    assert model == "stub-model"
    override = tmp_path / "feed"
    override.mkdir()
    source = (prompts.DEFAULT_PROMPTS_DIR / "repair.md").read_text(encoding="utf-8")
    (override / "repair.md").write_text(source, encoding="utf-8")
    assert engine.identity(ExplainOptions(template_dir=override)) == (model, version)
    (override / "repair.md").write_text(source + "\nBe careful.", encoding="utf-8")
    changed = engine.identity(ExplainOptions(template_dir=override))[1]
    assert changed != version
    result = engine.explain(SMALL, ExplainOptions(template_dir=override))
    assert result.prompt_version == changed


def test_get_engine_auto_picks_llm_when_an_endpoint_is_set(stub: StubLLM) -> None:
    engine = get_engine(settings_for(stub, engine="auto"))
    assert isinstance(engine, LLMEngine)
    assert engine.name == "llm"


def test_get_engine_auto_picks_extractive_without_an_endpoint(tmp_path: Path) -> None:
    from service.config import Settings
    from service.engines.extractive import ExtractiveEngine

    settings = Settings(
        engine="auto", openai_base_url=None, openai_api_key=None, prompts_dir=tmp_path
    )
    engine = get_engine(settings)
    assert isinstance(engine, ExtractiveEngine)
    assert engine.prompts_dir == tmp_path
    assert get_engine(settings, name="llm").name == "llm"
    with pytest.raises(ConfigError):
        get_engine(settings, name="gpt")


# --- pure helpers ------------------------------------------------------------------------------


def test_parse_retry_after_forms() -> None:
    assert parse_retry_after({"Retry-After": "3"}) == 3.0
    assert parse_retry_after({"retry-after-ms": "250", "Retry-After": "3"}) == 0.25
    assert parse_retry_after(
        {"Retry-After": "Wed, 21 Oct 2026 07:28:10 GMT"},
        now=datetime(2026, 10, 21, 7, 28, 0, tzinfo=UTC).timestamp(),
    ) == pytest.approx(10.0)
    assert parse_retry_after({"Retry-After": "soon"}) is None
    assert parse_retry_after({}) is None
    assert parse_retry_after({"Retry-After": "-5"}) == 0.0


def test_extract_json_forms() -> None:
    assert extract_json('{"a": 1}') == {"a": 1}
    assert extract_json('Here:\n```json\n{"a": 2}\n```\nDone.') == {"a": 2}
    assert extract_json('Sure, {"a": 3} is it') == {"a": 3}
    for bad in ("", "plain words", "{broken"):
        with pytest.raises(ValueError):
            extract_json(bad)


def test_strict_schema_lists_every_property_and_forbids_others() -> None:
    schema = explainer_schema()

    def objects(node: Any) -> Iterator[dict[str, Any]]:
        if isinstance(node, dict):
            if node.get("type") == "object":
                yield node
            for value in node.values():
                yield from objects(value)
        elif isinstance(node, list):
            for value in node:
                yield from objects(value)

    found = list(objects(schema))
    assert len(found) == 2  # Explainer and Section
    for obj in found:
        assert obj["additionalProperties"] is False
        assert sorted(obj["required"]) == sorted(obj["properties"])
    assert "minLength" not in json.dumps(schema) and "default" not in json.dumps(schema)


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


def test_usage_counts_written_as_strings_are_read_and_odd_digits_are_none(
    stub: StubLLM,
) -> None:
    # str.isdigit takes "²" for a digit, which int() refuses: the explain, paid for,
    # crashed on reading its usage.
    answer = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "stub-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": json.dumps(VALID)},
                "finish_reason": "stop",
            }
        ],
        "usage": {"prompt_tokens": "120", "completion_tokens": "²", "total_tokens": "2"},
    }
    stub.push(Reply.whole(answer))
    result = make_engine(stub).explain(SMALL, OPTIONS)
    assert result.explainer.title == VALID["title"]
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (120, 0)
