"""Answer formats: the ``response_format`` modes from strictest to loosest and which one
works per endpoint, the explainer's JSON schema, and reading an answer as an explainer."""

from __future__ import annotations

import functools
import json
import re
import threading
from typing import Any, Literal

from pydantic import ValidationError

from service.errors import validation_problems
from service.models import Explainer

ResponseMode = Literal["json_schema", "json_object", "fenced"]
MODES: tuple[ResponseMode, ...] = ("json_schema", "json_object", "fenced")


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


def response_format(mode: ResponseMode) -> dict[str, Any] | None:
    """The request's ``response_format`` for ``mode``; ``None``: none (a fenced answer)."""
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": "explainer", "schema": explainer_schema(), "strict": True},
        }
    if mode == "json_object":
        # llama.cpp and vLLM read a schema here; others ignore it.
        return {"type": "json_object", "schema": explainer_schema()}
    return None


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
    error: Exception | None = None
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except json.JSONDecodeError as exc:
            error = error or exc
        except RecursionError:
            # Arrays nested thousands deep ("[[[[..."): the decoder recurses per level.
            # Not JSON an explainer could be, and not a crash of the worker either.
            error = error or ValueError("nested too deep")
    raise ValueError(f"the answer is not JSON ({error})")


def parse_explainer(text: str) -> Explainer:
    """Validate an answer as an explainer; ``ValueError`` with a readable reason if not."""
    data = extract_json(text)
    try:
        return Explainer.model_validate(data)
    except ValidationError as exc:
        problems = validation_problems(exc, "answer", limit=8)
        raise ValueError(f"the JSON does not match the explainer shape: {problems}") from exc


_REASK = (
    "Your answer is not a valid explainer: {reason}\n"
    "Answer again with only the JSON object, in the shape given in the instructions."
)


def reask(reason: str) -> str:
    """The follow-up that asks again for a valid explainer."""
    return _REASK.format(reason=reason)
