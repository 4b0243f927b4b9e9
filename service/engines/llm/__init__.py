"""The ``llm`` engine: prompt templates sent to an OpenAI-compatible endpoint.

The answer is the JSON of :class:`~service.models.Explainer`. Servers differ in how
they constrain output, so the engine asks for the strictest form first and steps down
when the server refuses it: ``json_schema`` (OpenAI, vLLM), then ``json_object`` with the
schema alongside (llama.cpp, Ollama), then no ``response_format`` and a fenced JSON
block. The form that worked is remembered per endpoint.

Transient failures (429, 5xx, timeouts, connection errors) are retried with exponential
backoff and jitter, honouring ``Retry-After``; when the tries run out the error is an
:class:`~service.errors.LLMRetryable` carrying ``retry_after``, so the queue backs off.

One module a concern: ``engine`` (:class:`LLMEngine`), ``formats`` (the modes, the schema,
reading answers), ``client`` (the OpenAI client, retries, error mapping) and ``parts``
(cutting a long post to fit the context).
"""

from __future__ import annotations

from service.engines.llm.client import parse_retry_after
from service.engines.llm.engine import LLMEngine, cost_usd
from service.engines.llm.formats import (
    MODES,
    SHARED_MODES,
    ModeMemory,
    ResponseMode,
    explainer_schema,
    extract_json,
    parse_explainer,
)
from service.engines.llm.parts import split_for_context

# Everything public of the engine when it was one module stays importable from here.
__all__ = [
    "MODES",
    "SHARED_MODES",
    "LLMEngine",
    "ModeMemory",
    "ResponseMode",
    "cost_usd",
    "explainer_schema",
    "extract_json",
    "parse_explainer",
    "parse_retry_after",
    "split_for_context",
]
