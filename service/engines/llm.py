"""The ``llm`` engine: prompt templates sent to an OpenAI-compatible endpoint.

The answer is the JSON of :class:`~service.models.Explainer`. Servers differ in how
they constrain output, so the engine asks for the strictest form first and steps down
when the server refuses it: ``json_schema`` (OpenAI, vLLM), then ``json_object`` with the
schema alongside (llama.cpp, Ollama), then no ``response_format`` and a fenced JSON
block. The form that worked is remembered per endpoint.

Transient failures (429, 5xx, timeouts, connection errors) are retried with exponential
backoff and jitter, honouring ``Retry-After``; when the tries run out the error is an
:class:`~service.errors.LLMRetryable` carrying ``retry_after``, so the queue backs off.
"""

from __future__ import annotations

import email.utils
import functools
import json
import random
import re
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import openai
from pydantic import ValidationError
from tenacity import RetryCallState, Retrying, retry_if_exception_type, stop_after_attempt

from service.config import Settings
from service.engines.base import ExplainOptions
from service.errors import (
    AnswerTruncated,
    EngineError,
    InvalidAnswer,
    LLMError,
    LLMRejected,
    LLMRetryable,
)
from service.models import (
    Article,
    CheckReport,
    CheckStatus,
    Explainer,
    ExplainResult,
    Usage,
)
from service.prompts import EXPLAIN_SET, RenderedPrompt, load_set, set_version
from service.ratelimit import RateLimiter, limiter_for

ResponseMode = Literal["json_schema", "json_object", "fenced"]
MODES: tuple[ResponseMode, ...] = ("json_schema", "json_object", "fenced")

# A server refusing a response_format says so in its error text (llama.cpp answers 500).
_MODE_REFUSAL = re.compile(r"response_format|json_schema|json_object|structured output", re.I)
_RETRYABLE_STATUS = frozenset({408, 409, 429})
_REASK = (
    "Your answer is not a valid explainer: {reason}\n"
    "Answer again with only the JSON object, in the shape given in the instructions."
)


# --- pure helpers -------------------------------------------------------------------------


@functools.cache
def _strict_schema() -> str:
    return json.dumps(_make_strict(Explainer.model_json_schema()))


def explainer_schema() -> dict[str, Any]:
    """The JSON schema of :class:`Explainer`, in the subset OpenAI's strict mode accepts.

    Strict mode wants every property listed as required (optional ones nullable),
    ``additionalProperties: false`` on every object, and no string/array length keywords;
    pydantic still enforces those lengths when the answer is validated.
    """
    fresh: dict[str, Any] = json.loads(_strict_schema())  # a copy: callers may mutate it
    return fresh


def _make_strict(node: Any) -> Any:
    if isinstance(node, dict):
        out = {
            k: _make_strict(v)
            for k, v in node.items()
            if k not in ("default", "minLength", "maxLength", "minItems", "maxItems")
        }
        if out.get("type") == "object" and "properties" in out:
            out["required"] = list(out["properties"])
            out["additionalProperties"] = False
        return out
    if isinstance(node, list):
        return [_make_strict(v) for v in node]
    return node


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


_FENCED = re.compile(r"```(?:json|JSON)?\s*\n(.*?)\n\s*```", re.S)


def extract_json(text: str) -> Any:
    """The JSON value of an answer: the whole text, a fenced ```json block, or the
    outermost ``{...}``. Raises ``ValueError`` naming what is wrong."""
    stripped = text.strip()
    if not stripped:
        raise ValueError("the answer is empty")
    candidates = [stripped]
    candidates += [m.group(1) for m in _FENCED.finditer(stripped)]
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        candidates.append(stripped[start : end + 1])
    error: json.JSONDecodeError | None = None
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            error = error or exc
    raise ValueError(f"the answer is not JSON ({error})")


def parse_explainer(text: str) -> Explainer:
    """Validate an answer as an explainer; ``ValueError`` with a readable reason if not."""
    data = extract_json(text)
    try:
        return Explainer.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'answer'}: {e['msg']}"
            for e in exc.errors()[:8]
        )
        raise ValueError(f"the JSON does not match the explainer shape: {problems}") from exc


_HEADING_LINE = re.compile(r"^#{1,6}\s")
_FENCE_LINE = re.compile(r"^\s*(```|~~~)")


def _chunks(text: str, starts_chunk: Callable[[str], bool]) -> list[str]:
    """Split ``text`` into chunks before lines where ``starts_chunk`` is true, never inside
    a fenced code block."""
    chunks: list[list[str]] = [[]]
    fence: str | None = None
    for line in text.splitlines():
        m = _FENCE_LINE.match(line)
        if fence is None and starts_chunk(line) and any(s.strip() for s in chunks[-1]):
            chunks.append([])
        chunks[-1].append(line)
        if m:
            fence = m.group(1) if fence is None else (None if m.group(1) == fence else fence)
    return [c for c in ("\n".join(lines).strip() for lines in chunks) if c]


def _starts_block(line: str) -> bool:
    return not line.strip() or bool(_HEADING_LINE.match(line))


def _pack(pieces: Sequence[str], budget: int) -> list[str]:
    parts: list[str] = []
    current = ""
    for piece in pieces:
        if current and len(current) + 2 + len(piece) > budget:
            parts.append(current)
            current = piece
        else:
            current = f"{current}\n\n{piece}" if current else piece
    if current:
        parts.append(current)
    return parts


def split_for_context(text: str, budget: int) -> list[str]:
    """Cut cleaned text into parts of at most ``budget`` characters, at headings first,
    then at blank lines; a single block larger than the budget is cut hard."""
    text = text.strip()
    if len(text) <= budget:
        return [text]
    pieces: list[str] = []
    for section in _chunks(text, lambda line: bool(_HEADING_LINE.match(line))):
        if len(section) <= budget:
            pieces.append(section)
            continue
        for block in _chunks(section, _starts_block):
            while len(block) > budget:
                cut = block.rfind(" ", 0, budget)
                cut = cut if cut > budget // 2 else budget
                pieces.append(block[:cut].strip())
                block = block[cut:].strip()
            if block:
                pieces.append(block)
    return _pack(pieces, budget)


def cost_usd(model: str, usage: Usage, prices: Mapping[str, tuple[float, float]]) -> float:
    """USD for ``usage`` at ``prices`` (per million prompt/completion tokens); 0 if unknown."""
    prompt_price, completion_price = prices.get(model, (0.0, 0.0))
    return (usage.prompt_tokens * prompt_price + usage.completion_tokens * completion_price) / 1e6


# --- response-format memory ------------------------------------------------------------------


class ModeMemory:
    """The response_format mode that works, per endpoint and model (thread-safe; only
    steps down)."""

    def __init__(self) -> None:
        self._modes: dict[str, ResponseMode] = {}
        self._lock = threading.Lock()

    def get(self, endpoint: str) -> ResponseMode:
        with self._lock:
            return self._modes.get(endpoint, MODES[0])

    def step_down(self, endpoint: str, refused: ResponseMode) -> ResponseMode | None:
        """Record that ``refused`` failed; the next mode to try, or None if none is left."""
        index = MODES.index(refused) + 1
        if index >= len(MODES):
            return None
        with self._lock:
            current = self._modes.get(endpoint, MODES[0])
            if MODES.index(current) < index:
                self._modes[endpoint] = MODES[index]
            return self._modes[endpoint]


SHARED_MODES = ModeMemory()


class _ModeRefused(Exception):
    """Private: the server refused the response_format; never leaves this module."""


@dataclass(slots=True)
class _Tally:
    usage: Usage = field(default_factory=Usage)


# --- the engine ---------------------------------------------------------------------------


class LLMEngine:
    """Explains articles through an OpenAI-compatible chat-completions endpoint."""

    name = "llm"

    def __init__(
        self,
        settings: Settings,
        *,
        client: openai.OpenAI | None = None,
        limiter: RateLimiter | None = None,
        modes: ModeMemory | None = None,
    ) -> None:
        self.settings = settings
        self.model = settings.model
        self.client = client or openai.OpenAI(
            base_url=settings.openai_base_url,
            # Local servers (llama.cpp, vLLM, Ollama) take any key; the client insists on one.
            api_key=settings.openai_api_key or "not-needed",
            max_retries=0,  # tenacity retries, so that Retry-After and the caps are ours
            timeout=settings.llm_timeout,
        )
        self.endpoint = str(self.client.base_url)
        # A proxy (LiteLLM) may route models to different servers: remember per both.
        self.mode_key = f"{self.endpoint} {self.model}"
        self.limiter = limiter or limiter_for(
            self.endpoint, settings.llm_max_concurrency, settings.llm_rpm
        )
        self.modes = modes or SHARED_MODES

    # -- Engine protocol ------------------------------------------------------------------

    def identity(self, options: ExplainOptions) -> tuple[str, str]:
        return self.model, self._templates_version(options)

    def explain(self, article: Article, options: ExplainOptions) -> ExplainResult:
        """Write an explainer; any ``EngineError`` carries ``extra["usage"]``, the tokens
        spent before it."""
        templates = self._templates(options)
        tally = _Tally()
        try:
            explainer = self._explain(article, options, templates, tally)
        except EngineError as exc:
            exc.extra["usage"] = tally.usage
            raise
        return self._result(explainer, tally.usage, set_version(templates))

    def _explain(
        self,
        article: Article,
        options: ExplainOptions,
        templates: Mapping[str, Any],
        tally: _Tally,
    ) -> Explainer:
        common = self._article_vars(article, options)
        parts = split_for_context(article.text, self.settings.llm_context_chars)
        if len(parts) > 1:
            return self._explain_parts(parts, common, templates, tally)
        prompt = templates["explain"].render({**common, "text": article.text})
        try:
            return self._ask(prompt, tally)
        except AnswerTruncated:
            # The post fits one call but the answer did not: the part-wise path asks for
            # shorter answers, one per half of the post.
            if len(_chunks(article.text, _starts_block)) < 2:
                raise
            parts = split_for_context(article.text, len(article.text) // 2 + 1)
            return self._explain_parts(parts, common, templates, tally)

    def repair(
        self,
        article: Article,
        result: ExplainResult,
        report: CheckReport,
        options: ExplainOptions,
    ) -> ExplainResult | None:
        """Rewrite the sentences holding flagged numbers. The result's ``usage`` and
        ``cost_usd`` are the repair's alone; ``None`` when nothing is flagged."""
        flagged = [
            n
            for n in report.numbers
            if n.status in (CheckStatus.UNSUPPORTED, CheckStatus.MISATTACHED)
        ]
        if not flagged:
            return None  # nothing this engine can fix
        templates = self._templates(options)
        text = article.text
        if len(text) > self.settings.llm_context_chars:
            text = text[: self.settings.llm_context_chars] + "\n\n(the post goes on; cut here)"
        prompt = templates["repair"].render(
            {
                "title": article.title,
                "url": article.url,
                "language": options.language,
                "explainer_json": result.explainer.model_dump_json(indent=1, exclude_none=True),
                "flagged": flagged,
                "text": text,
            }
        )
        tally = _Tally()
        try:
            explainer = self._ask(prompt, tally)
        except EngineError as exc:
            exc.extra["usage"] = tally.usage
            raise
        # Usage and cost of the repair call(s) alone: the gate adds them to the result's.
        return result.model_copy(
            update={
                "explainer": explainer,
                "usage": tally.usage,
                "cost_usd": cost_usd(self.model, tally.usage, self.settings.prices),
                "prompt_version": set_version(templates),
            }
        )

    # -- steps -------------------------------------------------------------------------------

    def _templates(self, options: ExplainOptions) -> dict[str, Any]:
        return load_set(EXPLAIN_SET, self.settings.prompts_dir, options.template_dir)

    def _templates_version(self, options: ExplainOptions) -> str:
        return set_version(self._templates(options))

    @staticmethod
    def _article_vars(article: Article, options: ExplainOptions) -> dict[str, Any]:
        return {
            "title": article.title,
            "author": article.author,
            "published": article.published.date().isoformat() if article.published else None,
            "url": article.url,
            "audience": options.audience,
            "language": options.language,
        }

    def _explain_parts(
        self,
        parts: Sequence[str],
        common: Mapping[str, Any],
        templates: Mapping[str, Any],
        tally: _Tally,
    ) -> Explainer:
        notes: list[str] = []
        for number, part in enumerate(parts, start=1):
            prompt = templates["explain-part"].render(
                {**common, "text": part, "part_number": number, "part_count": len(parts)}
            )
            notes.append(self._ask(prompt, tally).model_dump_json(indent=1, exclude_none=True))
        return self._ask(templates["combine"].render({**common, "parts": notes}), tally)

    def _result(self, explainer: Explainer, usage: Usage, version: str) -> ExplainResult:
        return ExplainResult(
            explainer=explainer,
            engine=self.name,
            model=self.model,
            prompt_version=version,
            usage=usage,
            cost_usd=cost_usd(self.model, usage, self.settings.prices),
        )

    def _ask(self, prompt: RenderedPrompt, tally: _Tally) -> Explainer:
        """One template's answer, validated: one re-ask when invalid, one larger
        ``max_tokens`` when cut by length."""
        messages = prompt.messages
        limit = self.settings.llm_max_output_tokens
        max_tokens = min(prompt.max_tokens or limit, limit)
        reasked = grown = False
        while True:
            content, finish = self._complete(messages, prompt.temperature, max_tokens, tally)
            if finish == "length":
                if not grown:
                    grown = True
                    max_tokens *= 2
                    continue
                raise AnswerTruncated(
                    f"the {prompt.name!r} answer was cut at max_tokens={max_tokens}"
                )
            try:
                return parse_explainer(content)
            except ValueError as exc:
                if reasked:
                    raise InvalidAnswer(
                        f"the {prompt.name!r} answer is still not a valid explainer after one "
                        f"re-ask: {exc}"
                    ) from exc
                reasked = True
                messages = [
                    *prompt.messages,
                    {"role": "assistant", "content": content},
                    {"role": "user", "content": _REASK.format(reason=exc)},
                ]

    def _complete(
        self,
        messages: list[dict[str, str]],
        temperature: float,
        max_tokens: int,
        tally: _Tally,
    ) -> tuple[str, str | None]:
        """One chat completion (retried, stepping down response formats as refused):
        the answer text and finish reason."""
        while True:
            mode = self.modes.get(self.mode_key)
            try:
                response = self._retrying(
                    functools.partial(self._request, messages, temperature, max_tokens, mode)
                )
            except _ModeRefused as exc:
                if self.modes.step_down(self.mode_key, mode) is None:
                    raise LLMRejected(f"the endpoint refused every answer format: {exc}") from exc
                continue
            usage = response.usage
            tally.usage = tally.usage + Usage(
                prompt_tokens=usage.prompt_tokens if usage else 0,
                completion_tokens=usage.completion_tokens if usage else 0,
                calls=1,
            )
            if not response.choices:
                return "", "stop"
            choice = response.choices[0]
            return choice.message.content or "", choice.finish_reason

    def _retrying(self, call: Callable[[], Any]) -> Any:
        s = self.settings

        def wait(state: RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            after = getattr(exc, "retry_after", None)
            if after is not None:
                return float(min(after, s.llm_retry_after_max))
            # Exponential backoff with jitter, so that workers that failed together do not
            # come back together.
            step: float = s.llm_backoff_initial * 2.0 ** (state.attempt_number - 1)
            return min(s.llm_backoff_max, step + random.uniform(0, s.llm_backoff_initial))

        retrying = Retrying(
            stop=stop_after_attempt(max(1, s.llm_max_attempts)),
            wait=wait,
            retry=retry_if_exception_type(LLMRetryable),
            reraise=True,
        )
        try:
            return retrying(call)
        except LLMRetryable as exc:
            raise LLMRetryable(
                f"{exc.detail} (gave up after {s.llm_max_attempts} tries)",
                retry_after=exc.retry_after,
            ) from exc

    def _request(
        self,
        messages: list[dict[str, str]],
        temperature: float,
        max_tokens: int,
        mode: ResponseMode,
    ) -> Any:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
        if mode == "json_schema":
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "explainer", "schema": explainer_schema(), "strict": True},
            }
        elif mode == "json_object":
            # llama.cpp and vLLM read a schema here; others ignore it.
            kwargs["response_format"] = {"type": "json_object", "schema": explainer_schema()}
        with self.limiter.slot():
            try:
                return self.client.chat.completions.create(**kwargs)
            except openai.APITimeoutError as exc:
                raise LLMRetryable(
                    f"LLM request timed out after {self.settings.llm_timeout:g}s"
                ) from exc
            except openai.APIConnectionError as exc:
                raise LLMRetryable(f"cannot reach the LLM endpoint {self.endpoint}: {exc}") from exc
            except openai.APIStatusError as exc:
                raise _classify(exc, mode) from exc
            except openai.OpenAIError as exc:
                raise LLMError(f"LLM client error: {exc}") from exc


def _classify(exc: openai.APIStatusError, mode: ResponseMode) -> Exception:
    status = exc.status_code
    text = f"{exc.message} {json.dumps(exc.body, default=str) if exc.body is not None else ''}"
    if mode != "fenced" and status in (400, 422, 500) and _MODE_REFUSAL.search(text):
        return _ModeRefused(f"{status} for response_format {mode}: {exc.message}")
    if status in _RETRYABLE_STATUS or status >= 500:
        return LLMRetryable(
            f"LLM endpoint answered {status}: {exc.message}",
            retry_after=parse_retry_after(exc.response.headers),
            status=status,
        )
    return LLMRejected(
        f"LLM endpoint rejected the request ({status}): {exc.message}", status=status
    )
