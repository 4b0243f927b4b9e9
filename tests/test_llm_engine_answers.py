"""The llm engine against the stub server: what it makes of answers that are not
explainers (garbage, refusals, tool calls, cut answers, odd usage counts): asked again
once with the reason, or refused with it."""

from __future__ import annotations

import json

import pytest

from service.engines.llm import extract_json
from service.errors import AnswerTruncated, InvalidAnswer, LLMError
from service.models import Article, Usage
from tests.llm_engine_helpers import (
    OPTIONS,
    SCHEMA_FORMAT,
    SMALL,
    VALID,
    assert_explain_request,
    explain_messages,
    make_engine,
)
from tests.stub_llm import Reply, StubLLM

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


def test_extract_json_forms() -> None:
    assert extract_json('{"a": 1}') == {"a": 1}
    assert extract_json('Here:\n```json\n{"a": 2}\n```\nDone.') == {"a": 2}
    assert extract_json('Sure, {"a": 3} is it') == {"a": 3}
    for bad in ("", "plain words", "{broken"):
        with pytest.raises(ValueError):
            extract_json(bad)


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
