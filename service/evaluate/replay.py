"""Recorded LLM answers and an in-process OpenAI client that replays them."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import httpx2
import openai
from pydantic import BaseModel, Field, ValidationError

from service.errors import EvalCaseError, validation_problems
from service.evaluate.cases import read_bytes
from service.models import Explainer


class Recording(BaseModel):
    """One recorded answer (format: eval/recordings/README.md), and optionally the answer
    to a repair request for the same post."""

    slug: str
    match: list[str] = Field(min_length=1)
    origin: str = ""
    answer: Explainer
    repair: Explainer | None = None

    def answer_to(self, user: str) -> Explainer:
        """The recorded answer for a request with this user text."""
        return self.repair if self.repair is not None and asks_repair(user) else self.answer


# prompts/repair.md hands the model the explainer to correct inside this tag; no other
# prompt of the set carries an explainer.
REPAIR_MARK = "<explainer>"


def asks_repair(user: str) -> bool:
    """Whether a chat request's user text asks to repair an explainer."""
    return REPAIR_MARK in user


def load_recordings(directory: Path) -> list[Recording]:
    """Every ``*.json`` recording of ``directory``, in name order (the first match wins)."""
    if not directory.is_dir():
        raise EvalCaseError(f"{directory}: no directory of recorded answers")
    out = []
    for path in sorted(directory.glob("*.json")):
        data = read_bytes(path, "recording")  # a directory named *.json: an EvalCaseError
        try:
            out.append(Recording.model_validate_json(data))
        except ValidationError as exc:
            problems = validation_problems(exc, "(file)")
            raise EvalCaseError(f"{path}: not a recording: {problems}") from exc
    return out


def recording_for(text: str, recordings: Sequence[Recording]) -> Recording | None:
    """The first recording one of whose match strings occurs in ``text`` (any case)."""
    folded = text.casefold()
    return next(
        (r for r in recordings if any(m.casefold() in folded for m in r.match if m.strip())),
        None,
    )


def replay_client(recordings: Sequence[Recording]) -> openai.OpenAI:
    """An OpenAI client whose transport answers chat completions from recordings, in
    process (openai's own HTTP client, httpx2, with a mock transport): the ``llm`` engine
    runs its real prompts, parsing and repair against them.
    A request no recording matches gets a 404, which the engine reports as an error."""

    def answer(request: httpx2.Request) -> httpx2.Response:
        body = json.loads(request.content or b"{}")
        user = "\n".join(
            m["content"]
            for m in body.get("messages", [])
            if m.get("role") == "user" and isinstance(m.get("content"), str)
        )
        rec = recording_for(user, recordings)
        if rec is None:
            return httpx2.Response(404, json={"error": {"message": "no recorded answer"}})
        content = rec.answer_to(user).model_dump_json(exclude_none=True)
        prompt_chars = sum(len(str(m.get("content", ""))) for m in body.get("messages", []))
        usage = {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(content) // 4}
        return httpx2.Response(
            200,
            json={
                "id": f"recorded-{rec.slug}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "recorded"),
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": usage | {"total_tokens": sum(usage.values())},
            },
        )

    return openai.OpenAI(
        base_url="http://recordings.invalid/v1",
        api_key="recorded",
        max_retries=0,
        http_client=openai.DefaultHttpx2Client(transport=httpx2.MockTransport(answer)),
    )
