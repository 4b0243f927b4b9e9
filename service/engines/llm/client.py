"""Talking to the endpoint: the OpenAI client, retries with backoff and jitter that honour
``Retry-After``, and mapping the client's errors onto the project's error tree. A call
in flight ends when its job's lease is lost (service.abandon): its connection is closed,
so that a server that stops generating for a client gone stops."""

from __future__ import annotations

import email.utils
import json
import random
import re
import ssl
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar

import httpcore2
import httpx2
import openai
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from service import abandon
from service.config import Settings
from service.engines.llm.formats import ResponseMode
from service.errors import (
    AnswerTooLarge,
    LLMError,
    LLMKeyRefused,
    LLMRejected,
    LLMRetryable,
)
from service.ratelimit import RateLimiter

T = TypeVar("T")

# A server refusing a response_format says so in its error text (llama.cpp answers 500).
_MODE_REFUSAL = re.compile(r"response_format|json_schema|json_object|structured output", re.I)
_RETRYABLE_STATUS = frozenset({408, 409, 429})
_KEY_REFUSED = {
    401: "the API key is wrong, revoked or missing",
    403: "the API key is not allowed to use this endpoint or model",
}
# An explainer is a few thousand tokens (tens of KiB of JSON); an answer of megabytes is a
# broken or hostile server, and reading it whole would hold it in memory per worker thread.
MAX_ANSWER_BYTES = 4 * 1024 * 1024
_DEADLINE = "plainfeed.deadline"  # the request extension holding its answer's deadline


class ModeRefused(Exception):
    """The server refused the response_format; the engine steps down, so this never
    leaves the package."""


class _BoundedStream(httpx2.SyncByteStream):
    """An answer's body, read against a deadline for the whole request and a size cap.

    httpx's timeouts are per socket operation: a server that sends a byte every few
    seconds never trips them, and a worker waits for it for ever (its lease renewed all
    the while). The deadline ends that; the cap ends an answer of any size."""

    def __init__(
        self, inner: httpx2.SyncByteStream, deadline: float, timeout: float, max_bytes: int
    ) -> None:
        self._inner = inner
        self._deadline = deadline
        self._timeout = timeout
        self._max_bytes = max_bytes

    def __iter__(self) -> Iterator[bytes]:
        size = 0
        for chunk in self._inner:
            size += len(chunk)
            if size > self._max_bytes:
                # Not an httpx error: openai would wrap it as a connection error and it
                # would be retried; the project's own error passes through it unchanged.
                raise AnswerTooLarge(
                    f"the LLM endpoint's answer is over {self._max_bytes} bytes; "
                    "an explainer is a few KiB"
                )
            if time.monotonic() > self._deadline:
                # An httpx timeout: openai maps it onto APITimeoutError, as any other.
                raise httpx2.ReadTimeout(
                    f"the answer was still arriving {self._timeout:g}s after the request"
                )
            yield chunk

    def close(self) -> None:
        self._inner.close()


def _bound_answers(timeout: float, max_bytes: int) -> dict[str, list[Callable[..., None]]]:
    """httpx event hooks that read every answer through a :class:`_BoundedStream`, its
    deadline ``timeout`` after the request was sent.

    Hooks, not a transport of our own: the client keeps its own transports, and with them
    the proxies of the environment (HTTPS_PROXY), which a client given a transport drops."""

    def sent(request: httpx2.Request) -> None:
        # On the request itself: transports read the extensions they know of only.
        request.extensions[_DEADLINE] = time.monotonic() + timeout

    def answered(response: httpx2.Response) -> None:
        deadline = response.request.extensions.get(_DEADLINE, time.monotonic() + timeout)
        stream = response.stream
        if isinstance(stream, httpx2.SyncByteStream):
            response.stream = _BoundedStream(stream, deadline, timeout, max_bytes)

    return {"request": [sent], "response": [answered]}


class _LeasedStream(httpcore2.NetworkStream):
    """A connection whose reads, in a job (service.abandon), wait in slices and raise
    LeaseLost between two once the job's lease is lost (abandon.read_watched): the read
    that raises leaves the answer unread, so httpcore closes the connection instead of
    handing it to the next request. Outside a job (the CLI's explain, the API's
    synchronous one) a read is one wait, as httpcore's own."""

    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return abandon.read_watched(
            lambda wait: self._inner.read(max_bytes, wait),
            timeout,
            httpcore2.ReadTimeout,
            "the model call in flight",
            in_flight=True,  # the engine counts the call (taken, maybe billed)
        )

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore2.NetworkStream:
        return _LeasedStream(self._inner.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _LeasedBackend(httpcore2.NetworkBackend):
    """Connections made by ``inner``, read as :class:`_LeasedStream`."""

    def __init__(self, inner: httpcore2.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Any = None,
    ) -> httpcore2.NetworkStream:
        return _LeasedStream(
            self._inner.connect_tcp(host, port, timeout, local_address, socket_options)
        )

    def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Any = None
    ) -> httpcore2.NetworkStream:
        return _LeasedStream(self._inner.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def watch_leases(client: httpx2.Client) -> int:
    """Read the answers of ``client`` through :class:`_LeasedStream`; the number of its
    connection pools so wrapped (its own and its proxies', HTTPS_PROXY's too).

    The pools are reached through httpx's and httpcore's private attributes, pinned in
    constraints.txt: a transport of our own would drop the environment's proxies (as
    :func:`_bound_answers` says), and a version that moves them wraps none, which the
    tests see (the calls then end at the steps' checks only)."""
    wrapped = 0
    for transport in (client._transport, *client._mounts.values()):
        pool = getattr(transport, "_pool", None)
        backend = getattr(pool, "_network_backend", None)
        if isinstance(backend, httpcore2.NetworkBackend) and not isinstance(
            backend, _LeasedBackend
        ):
            pool._network_backend = _LeasedBackend(backend)  # type: ignore[union-attr]
            wrapped += 1
    return wrapped


def openai_client(settings: Settings) -> openai.OpenAI:
    """A client for the settings' endpoint; retries are ours (``with_retries``), an
    answer must arrive whole within ``llm_timeout`` and ``MAX_ANSWER_BYTES``, and a job's
    call ends once its lease is lost (:func:`watch_leases`)."""
    timeout = httpx2.Timeout(
        settings.llm_timeout, connect=min(settings.llm_connect_timeout, settings.llm_timeout)
    )
    http_client = openai.DefaultHttpxClient(
        timeout=timeout,
        event_hooks=_bound_answers(settings.llm_timeout, MAX_ANSWER_BYTES),
    )
    watch_leases(http_client)
    return openai.OpenAI(
        base_url=settings.openai_base_url,
        # Local servers (llama.cpp, vLLM, Ollama) take any key; the client insists on one.
        api_key=settings.openai_api_key or "not-needed",
        max_retries=0,  # tenacity retries, so that Retry-After and the caps are ours
        timeout=timeout,
        http_client=http_client,
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
        # A backoff (up to llm_retry_after_max) ends when the job's lease is lost.
        sleep=lambda seconds: abandon.sleep(seconds, "a model call's retry"),
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
    """One chat completion within the limiter's slots, the client's errors mapped. In a
    job, the wait for a slot ends in LeaseLost once the job's lease is lost."""
    with limiter.slot():
        # Every call, retries and parts too, once its slot is had (waited for, maybe,
        # behind other workers' calls and the rate): its answer would be refused.
        abandon.check("a model call")
        try:
            return client.chat.completions.create(**request)
        except openai.APITimeoutError as exc:
            if isinstance(exc.__cause__, httpx2.ConnectTimeout):
                raise LLMRetryable(
                    f"cannot reach the LLM endpoint {client.base_url}: no connection "
                    f"within {client.timeout.connect:g}s"  # type: ignore[union-attr]
                ) from exc
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
    if status in _KEY_REFUSED:
        # Servers word this many ways ("Unauthorized", "Forbidden", an HTML page): name
        # the setting to fix, so that a failed item's reason says what to do.
        return LLMKeyRefused(
            f"LLM endpoint rejected the request ({status}): {_KEY_REFUSED[status]} "
            f"(OPENAI_API_KEY): {exc.message}",
            status=status,
        )
    return LLMRejected(
        f"LLM endpoint rejected the request ({status}): {exc.message}", status=status
    )
