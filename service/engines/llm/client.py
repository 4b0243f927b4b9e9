"""Talking to the endpoint: the OpenAI client, retries with backoff and jitter that honour
``Retry-After``, and mapping the client's errors onto the project's error tree."""

from __future__ import annotations

import email.utils
import json
import random
import re
import time
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import openai
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from service.config import Settings
from service.engines.llm.formats import ResponseMode
from service.errors import LLMError, LLMRejected, LLMRetryable
from service.ratelimit import RateLimiter

T = TypeVar("T")

# A server refusing a response_format says so in its error text (llama.cpp answers 500).
_MODE_REFUSAL = re.compile(r"response_format|json_schema|json_object|structured output", re.I)
_RETRYABLE_STATUS = frozenset({408, 409, 429})


class ModeRefused(Exception):
    """The server refused the response_format; the engine steps down, so this never
    leaves the package."""


def openai_client(settings: Settings) -> openai.OpenAI:
    """A client for the settings' endpoint; retries are ours (``with_retries``)."""
    return openai.OpenAI(
        base_url=settings.openai_base_url,
        # Local servers (llama.cpp, vLLM, Ollama) take any key; the client insists on one.
        api_key=settings.openai_api_key or "not-needed",
        max_retries=0,  # tenacity retries, so that Retry-After and the caps are ours
        timeout=settings.llm_timeout,
    )


def parse_retry_after(headers: Mapping[str, str], now: float | None = None) -> float | None:
    """Seconds a server asks to wait: ``retry-after-ms``, or ``Retry-After`` as seconds or
    an HTTP date. ``None`` when absent or unreadable."""
    lowered = {k.lower(): v for k, v in headers.items()}
    ms = lowered.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def with_retries(call: Callable[[], T], settings: Settings) -> T:
    """``call``, tried again on ``LLMRetryable`` up to the settings' attempts."""

    def wait(state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        after = getattr(exc, "retry_after", None)
        if after is not None:
            return float(min(after, settings.llm_retry_after_max))
        # Exponential backoff with jitter, so that workers that failed together do not
        # come back together.
        step: float = settings.llm_backoff_initial * 2.0 ** (state.attempt_number - 1)
        return min(settings.llm_backoff_max, step + random.uniform(0, settings.llm_backoff_initial))

    retrying = Retrying(
        stop=stop_after_attempt(max(1, settings.llm_max_attempts)),
        wait=wait,
        retry=retry_if_exception_type(LLMRetryable),
        reraise=True,
    )
    try:
        return retrying(call)
    except LLMRetryable as exc:
        raise LLMRetryable(
            f"{exc.detail} (gave up after {settings.llm_max_attempts} tries)",
            retry_after=exc.retry_after,
        ) from exc


def create(
    client: openai.OpenAI,
    limiter: RateLimiter,
    request: dict[str, Any],
    mode: ResponseMode,
    timeout: float,
) -> Any:
    """One chat completion within the limiter's slots, the client's errors mapped."""
    with limiter.slot():
        try:
            return client.chat.completions.create(**request)
        except openai.APITimeoutError as exc:
            raise LLMRetryable(f"LLM request timed out after {timeout:g}s") from exc
        except openai.APIConnectionError as exc:
            raise LLMRetryable(f"cannot reach the LLM endpoint {client.base_url}: {exc}") from exc
        except openai.APIStatusError as exc:
            raise _classify(exc, mode) from exc
        except openai.OpenAIError as exc:
            raise LLMError(f"LLM client error: {exc}") from exc


def _classify(exc: openai.APIStatusError, mode: ResponseMode) -> Exception:
    status = exc.status_code
    text = f"{exc.message} {json.dumps(exc.body, default=str) if exc.body is not None else ''}"
    if mode != "fenced" and status in (400, 422, 500) and _MODE_REFUSAL.search(text):
        return ModeRefused(f"{status} for response_format {mode}: {exc.message}")
    if status in _RETRYABLE_STATUS or status >= 500:
        return LLMRetryable(
            f"LLM endpoint answered {status}: {exc.message}",
            retry_after=parse_retry_after(exc.response.headers),
            status=status,
        )
    return LLMRejected(
        f"LLM endpoint rejected the request ({status}): {exc.message}", status=status
    )
