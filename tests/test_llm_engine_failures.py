"""The llm engine against the stub server when the endpoint fails: transient failures
retried (with the server's Retry-After), refusals not, and the tokens spent before an
error carried with it."""

from __future__ import annotations

import socket
import time
from datetime import UTC, datetime

import pytest

from service.engines.llm import LLMEngine, ModeMemory, parse_retry_after
from service.errors import AnswerTooLarge, LLMRejected, LLMRetryable, NothingToExplain
from service.models import Article, Explainer
from service.ratelimit import RateLimiter
from tests.llm_engine_helpers import OPTIONS, SMALL, VALID, assert_explain_request, make_engine
from tests.stub_llm import Reply, StubLLM, settings_for

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
    # The answer that comes has the time limit to come in: half a second was too short
    # on a busy machine (the first answer comes later than the limit, however busy).
    stub.push(Reply.sleep(4.0), Reply.explainer(VALID))
    result = make_engine(stub, llm_timeout=2.0).explain(SMALL, OPTIONS)
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


@pytest.mark.timeout(60, method="thread")  # (before: each try waited llm_timeout, 120 s)
def test_a_host_that_drops_connections_costs_a_try_the_connect_timeout() -> None:
    # A listener whose backlog is full drops each new SYN, as a host behind a firewall
    # that drops packets does: the connect waited the request's whole llm_timeout.
    with socket.socket() as full:
        full.bind(("127.0.0.1", 0))
        full.listen(0)
        url = f"http://127.0.0.1:{full.getsockname()[1]}/v1"
        with socket.create_connection(full.getsockname()):  # (the one the backlog holds)
            with StubLLM() as stub:
                settings = settings_for(
                    stub,
                    openai_base_url=url,
                    llm_timeout=120.0,
                    llm_connect_timeout=0.5,
                    llm_max_attempts=2,
                )
            engine = LLMEngine(settings, modes=ModeMemory(), limiter=RateLimiter(1, 60_000))
            with pytest.raises(LLMRetryable, match=r"no connection within 0\.5s"):
                engine.explain(SMALL, OPTIONS)


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
