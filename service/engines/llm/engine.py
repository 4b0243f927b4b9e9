"""The ``llm`` engine: one call per post, or one per part and a combining call for a post
too long for the context; one re-ask for an invalid answer, a larger ``max_tokens`` for a
cut one; repair of flagged sentences; tokens and cost of every call."""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import openai

from service.config import Settings
from service.engines.base import ExplainOptions, prompt_inputs
from service.engines.llm.client import ModeRefused, create, openai_client, with_retries
from service.engines.llm.formats import (
    SHARED_MODES,
    ModeMemory,
    ResponseMode,
    parse_explainer,
    reask,
    response_format,
)
from service.engines.llm.parts import blocks, group_notes, passages_for, split_for_context
from service.errors import (
    AnswerTruncated,
    EngineError,
    InvalidAnswer,
    LeaseLost,
    LLMError,
    LLMRejected,
    NothingToExplain,
    PlainfeedError,
    PostTooLong,
)
from service.models import Article, CheckReport, CheckStatus, Explainer, ExplainResult, Usage
from service.prompt_folder import EXPLAIN_SET
from service.prompts import RenderedPrompt, load_set, set_version
from service.ratelimit import RateLimiter, limiter_for

# A token is about four characters of English; twice that bounds what an answer of
# max_tokens can hold in any language or code.
_CHARS_PER_TOKEN_MAX = 8
_CUT = "\n[... the rest of this answer is cut]"


def cost_usd(model: str, usage: Usage, prices: Mapping[str, tuple[float, float]]) -> float:
    """USD for ``usage`` at ``prices`` (per million prompt/completion tokens); 0 if unknown."""
    prompt_price, completion_price = prices.get(model, (0.0, 0.0))
    return (usage.prompt_tokens * prompt_price + usage.completion_tokens * completion_price) / 1e6


@dataclass(slots=True)
class _Tally:
    """The tokens one explain or repair has spent so far."""

    usage: Usage = field(default_factory=Usage)


def _tokens(usage: Any, name: str) -> int:
    value = getattr(usage, name, None)
    # A server that writes its counts as strings; ASCII only: "²".isdigit(), int() refuses.
    if isinstance(value, str) and value.isascii() and value.isdigit():
        value = int(value)
    return value if isinstance(value, int) and value >= 0 else 0


def _text(content: Any) -> str:
    """A message's content as text: a string, or the text of a list of content parts
    (servers that answer in the parts form of requests)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = (p.get("text") if isinstance(p, dict) else getattr(p, "text", "") for p in content)
        return "".join(str(t or "") for t in texts)
    return ""


def _read_completion(response: Any) -> tuple[Usage, str, str | None, str | None]:
    """The tokens, text, finish reason and what came instead of text (see ``_instead``)
    of a chat completion, whatever of it the server left out or wrote in another shape.

    The client hands over what it parsed without validating it: a body that is no chat
    completion (an HTML page at a wrong base URL comes as a str) would otherwise raise
    AttributeError, which the worker takes for a crash and retries as one."""
    if isinstance(response, str | bytes) or not hasattr(response, "choices"):
        shown = str(response)[:200]
        raise LLMError(
            f"the LLM endpoint's answer is not a chat completion (is OPENAI_BASE_URL the "
            f"API's base, ending in /v1?): {shown!r}"
        )
    raw_usage = getattr(response, "usage", None)
    usage = Usage(
        prompt_tokens=_tokens(raw_usage, "prompt_tokens"),
        completion_tokens=_tokens(raw_usage, "completion_tokens"),
        calls=1,
    )
    choices = getattr(response, "choices", None)
    if not choices:
        error = getattr(response, "error", None)
        why = f": {str(error)[:300]}" if error else ""
        return usage, "", "stop", f"the endpoint answered no choices{why}"
    choice = choices[0]
    finish = getattr(choice, "finish_reason", None)
    message = getattr(choice, "message", None)
    if message is None:
        return usage, "", finish, "the endpoint answered a choice without a message"
    return usage, _text(getattr(message, "content", None)), finish, _instead(message)


def _instead(message: Any) -> str | None:
    """What an answer's message holds instead of text: a refusal (structured outputs) or
    tool calls (a server or model that calls a tool unasked). ``None`` when nothing."""
    refusal = getattr(message, "refusal", None)
    if refusal:
        return f"the model refused: {str(refusal)[:300]}"
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        names = ", ".join(
            str(getattr(getattr(c, "function", None), "name", None) or "?") for c in calls
        )
        return f"the model called a tool ({names}) instead of writing the JSON"
    return None


class _NoteMemo:
    """The notes on parts already answered, by model and exact prompt (thread-safe, the
    newest ``size`` kept).

    A long post is many paid calls before the combining one; when a later call fails (a
    503 past the retries, the process's workers retry the item later), the parts already
    answered are not asked, nor paid for, again. The engine is shared by the process's
    worker threads, so any of them retrying the item finds them."""

    def __init__(self, size: int = 512) -> None:
        self._size = size
        self._notes: OrderedDict[str, Explainer] = OrderedDict()
        self._lock = threading.Lock()

    @staticmethod
    def key(model: str, prompt: RenderedPrompt) -> str:
        text = json.dumps([model, prompt.version, prompt.messages], ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def get(self, key: str) -> Explainer | None:
        with self._lock:
            note = self._notes.get(key)
            if note is not None:
                self._notes.move_to_end(key)
            return note

    def put(self, key: str, note: Explainer) -> None:
        with self._lock:
            self._notes[key] = note
            self._notes.move_to_end(key)
            while len(self._notes) > self._size:
                self._notes.popitem(last=False)


class LLMEngine:
    """Explains articles through an OpenAI-compatible chat-completions endpoint."""

    name = "llm"
    waits_on_io = True

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
        self.client = client or openai_client(settings)
        self.endpoint = str(self.client.base_url)
        # A proxy (LiteLLM) may route models to different servers: remember per both.
        self.mode_key = f"{self.endpoint} {self.model}"
        self.limiter = limiter or limiter_for(
            self.endpoint, settings.llm_max_concurrency, settings.llm_rpm
        )
        self.modes = modes or SHARED_MODES
        self.notes = _NoteMemo()

    # -- Engine protocol ------------------------------------------------------------------

    def identity(self, options: ExplainOptions) -> tuple[str, str]:
        return self.model, self._templates_version(options)

    def close(self) -> None:
        self.client.close()  # its connections to the endpoint (a client given too)

    def explain(self, article: Article, options: ExplainOptions) -> ExplainResult:
        """Write an explainer; any ``EngineError`` carries ``extra["usage"]`` and
        ``extra["cost_usd"]``, the tokens spent before it and their price."""
        if not article.text.strip():
            # A model asked about an empty <post> answers anyway (with the title, or made
            # up): paid for, and published when it has no digit. The extractive engine
            # refuses the same article with the same error.
            raise NothingToExplain("the article has no text to explain (empty content)")
        templates = self._templates(options)
        tally = _Tally()
        try:
            explainer = self._explain(article, options, templates, tally)
        except (EngineError, LeaseLost) as exc:
            self._charge(exc, tally)
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
        ctx, most = self.settings.llm_context_chars, self.settings.llm_max_parts
        # A part holds at most ctx characters: a text over ctx * most is too long without
        # splitting it first (splitting 8.7 MB took seconds before the same refusal).
        calls = -(-len(article.text) // ctx)
        parts = split_for_context(article.text, ctx) if calls <= most else []
        if calls > most or len(parts) > most:
            raise PostTooLong(
                f"the post ({len(article.text):,} characters) takes "
                f"{f'at least {calls}' if calls > most else len(parts)} calls of "
                f"PLAINFEED_LLM_CONTEXT_CHARS={ctx:,}, over PLAINFEED_LLM_MAX_PARTS={most}"
            )
        if len(parts) > 1:
            return self._explain_parts(parts, common, templates, tally)
        prompt = templates["explain"].render({**common, "text": article.text})
        try:
            return self._ask(prompt, tally)
        except AnswerTruncated:
            # The post fits one call but the answer did not: the part-wise path asks for
            # shorter answers, one per half of the post.
            if len(blocks(article.text)) < 2:
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
        # A post longer than the context: the passages the flagged sentences speak of.
        text = passages_for(
            article.text, [n.sentence for n in flagged], self.settings.llm_context_chars
        )
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
        except (EngineError, LeaseLost) as exc:
            self._charge(exc, tally)
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
        # The same function keys reuse of a stored explainer (inputs_key): a variable
        # added there is part of the key at once.
        return prompt_inputs(article, options)

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
            key = _NoteMemo.key(self.model, prompt)
            note = self.notes.get(key)
            if note is None:
                note = self._ask(prompt, tally)
                self.notes.put(key, note)
            notes.append(note.model_dump_json(indent=1, exclude_none=True))
        # The notes of a very long post (hundreds of parts) are longer than the context
        # themselves: merge them in groups that fit, then merge the merges.
        while True:
            groups = group_notes(notes, self.settings.llm_context_chars)
            merged = [
                self._ask(templates["combine"].render({**common, "parts": group}), tally)
                for group in groups
            ]
            if len(merged) == 1:
                return merged[0]
            notes = [m.model_dump_json(indent=1, exclude_none=True) for m in merged]

    def _charge(self, exc: PlainfeedError, tally: _Tally) -> None:
        """Tell the caller what a failed explain or repair spent: the orchestrator records
        it, since the endpoint bills it whether or not an explainer came of it. A call
        abandoned in flight (its lease lost) was taken too: counted, its tokens unknown."""
        usage = tally.usage + Usage(calls=1 if exc.extra.pop("in_flight", False) else 0)
        exc.extra["usage"] = usage
        exc.extra["cost_usd"] = cost_usd(self.model, usage, self.settings.prices)

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
            content, finish, instead = self._complete(
                messages, prompt.temperature, max_tokens, tally
            )
            if finish == "content_filter":
                # The endpoint withheld the answer (Azure, some proxies): asking the same
                # again meets the same filter, and what did come is not the whole answer.
                raise InvalidAnswer(
                    f"the endpoint's content filter withheld the {prompt.name!r} answer"
                    + (f" ({instead})" if instead else "")
                )
            if finish == "length":
                if not grown and max_tokens < limit:
                    # Twice the tokens, within PLAINFEED_LLM_MAX_OUTPUT_TOKENS: a server
                    # answers a max_tokens past its model's output limit with a 400, which
                    # fails the item where a cut answer goes part-wise.
                    grown = True
                    max_tokens = min(max_tokens * 2, limit)
                    continue
                raise AnswerTruncated(
                    f"the {prompt.name!r} answer was cut at max_tokens={max_tokens}"
                )
            try:
                if instead and not content.strip():
                    raise ValueError(f"the answer has no content: {instead}")
                return parse_explainer(content)
            except ValueError as exc:
                if reasked:
                    raise InvalidAnswer(
                        f"the {prompt.name!r} answer is still not a valid explainer after one "
                        f"re-ask: {exc}"
                    ) from exc
                reasked = True
                # The invalid answer goes back with the re-ask, billed as prompt tokens: no
                # more of it than max_tokens could have produced (a server that ignores
                # max_tokens sends up to MAX_ANSWER_BYTES; the reason says what is wrong).
                room = max_tokens * _CHARS_PER_TOKEN_MAX
                echoed = content if len(content) <= room else content[:room] + _CUT
                messages = [
                    *prompt.messages,
                    {"role": "assistant", "content": echoed},
                    {"role": "user", "content": reask(str(exc))},
                ]

    def _complete(
        self,
        messages: list[dict[str, str]],
        temperature: float,
        max_tokens: int,
        tally: _Tally,
    ) -> tuple[str, str | None, str | None]:
        """One chat completion (retried, stepping down response formats as refused):
        the answer text, the finish reason, and what the answer holds instead of text
        (a refusal, a tool call), if anything."""
        while True:
            mode = self.modes.get(self.mode_key)
            try:
                response = with_retries(
                    functools.partial(self._request, messages, temperature, max_tokens, mode),
                    self.settings,
                )
            except ModeRefused as exc:
                if self.modes.step_down(self.mode_key, mode) is None:
                    raise LLMRejected(f"the endpoint refused every answer format: {exc}") from exc
                continue
            usage, content, finish, instead = _read_completion(response)
            tally.usage = tally.usage + usage
            return content, finish, instead

    def _request(
        self,
        messages: list[dict[str, str]],
        temperature: float,
        max_tokens: int,
        mode: ResponseMode,
    ) -> Any:
        request: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
        fmt = response_format(mode)
        if fmt is not None:
            request["response_format"] = fmt
        return create(self.client, self.limiter, request, mode, self.settings.llm_timeout)
