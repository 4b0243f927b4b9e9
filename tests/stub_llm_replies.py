"""What the stub LLM server (tests.stub_llm) answers: the scripted :class:`Reply` kinds,
the recorded answers of eval/recordings and the small default explainer."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPLY_KINDS = (
    "explainer",  # body: an explainer dict, answered as JSON content
    "text",  # body: any text, answered as the content (garbage, prose...)
    "fenced",  # body: an explainer dict, answered inside a ```json fence with prose around
    "status",  # status (+ message, headers): an error answer (429, 500, 503, 401...)
    "sleep",  # seconds: wait, then answer body or the default (a client timeout)
    "length",  # body (optional): half of the JSON, finish_reason "length"
    "reject_schema",  # a 500 that names json_schema, as llama.cpp answers
    "default",  # the built-in small explainer
    "drip",  # body (optional): the explainer, sent 16 bytes every ``seconds``
    "huge",  # body: the size in bytes of a content of "a"s (a runaway server)
    "choice",  # body: the whole first choice (content_filter, tool_calls, refusal...)
    "body",  # body: the whole answer's JSON, whatever it is (not a chat completion)
)


@dataclass(frozen=True)
class Reply:
    """One scripted answer. ``Reply.from_dict`` reads the JSON form used by ``--script``:
    ``{"kind": "status", "status": 429, "headers": {"Retry-After": "1"}}``."""

    kind: str
    body: Any = None
    status: int = 200
    message: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    def __post_init__(self) -> None:
        if self.kind not in REPLY_KINDS:
            raise ValueError(f"unknown reply kind {self.kind!r}; one of {REPLY_KINDS}")

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Reply:
        return cls(
            kind=str(data["kind"]),
            body=data.get("body"),
            status=int(data.get("status", 200)),
            message=str(data.get("message", "")),
            headers=dict(data.get("headers", {})),
            seconds=float(data.get("seconds", 0.0)),
        )

    # shorthands for tests
    @classmethod
    def explainer(cls, body: Mapping[str, Any]) -> Reply:
        return cls("explainer", body=dict(body))

    @classmethod
    def text(cls, text: str) -> Reply:
        return cls("text", body=text)

    @classmethod
    def fenced(cls, body: Mapping[str, Any]) -> Reply:
        return cls("fenced", body=dict(body))

    @classmethod
    def error(
        cls, status: int, message: str = "", headers: Mapping[str, str] | None = None
    ) -> Reply:
        return cls("status", status=status, message=message, headers=dict(headers or {}))

    @classmethod
    def rate_limited(cls, retry_after: str = "1") -> Reply:
        return cls.error(429, "Rate limit reached", {"Retry-After": retry_after})

    @classmethod
    def sleep(cls, seconds: float) -> Reply:
        return cls("sleep", seconds=seconds)

    @classmethod
    def length(cls, body: Mapping[str, Any] | None = None) -> Reply:
        return cls("length", body=dict(body) if body else None)

    @classmethod
    def drip(cls, seconds: float, body: Mapping[str, Any] | None = None) -> Reply:
        return cls("drip", body=dict(body) if body else None, seconds=seconds)

    @classmethod
    def huge(cls, size: int) -> Reply:
        return cls("huge", body=size)

    @classmethod
    def choice(cls, choice: Mapping[str, Any]) -> Reply:
        return cls("choice", body=dict(choice))

    @classmethod
    def whole(cls, body: Any) -> Reply:
        return cls("body", body=body)


@dataclass(frozen=True)
class Recording:
    """A recorded answer for one post (``eval/recordings/<slug>.json``)."""

    slug: str
    match: tuple[str, ...]
    answer: dict[str, Any]
    repair: dict[str, Any] | None = None  # the answer to a repair request (<explainer> ...)

    @classmethod
    def load(cls, path: Path) -> Recording:
        data = json.loads(path.read_text(encoding="utf-8"))
        match = data["match"]
        return cls(
            slug=str(data.get("slug", path.stem)),
            match=tuple([match] if isinstance(match, str) else match),
            answer=dict(data["answer"]),
            repair=dict(data["repair"]) if data.get("repair") else None,
        )


def load_recordings(directory: Path) -> list[Recording]:
    return [Recording.load(p) for p in sorted(Path(directory).glob("*.json"))]


_TITLE = re.compile(r"^(?:Post title|Title):\s*(.+)$", re.M)


def default_explainer(user_text: str) -> dict[str, Any]:
    """A small valid explainer naming the post's title, without any digit."""
    m = _TITLE.search(user_text)
    title = m.group(1).strip() if m else "The post"
    words = [w for w in title.split() if not any(c.isdigit() for c in w)]
    subject = " ".join(words).strip(" :-–") or "The post"
    return {
        "title": f"{subject}: what is new, what it shows",
        "sections": [
            {
                "heading": "What the post is about",
                "paragraphs": [
                    f"The post describes {subject}. It explains the idea in plain words."
                ],
            },
            {
                "heading": "What the authors report",
                "paragraphs": ["The authors describe results under their own conditions."],
            },
            {
                "heading": "What comes next",
                "paragraphs": ["The source says that further work is in progress."],
            },
        ],
        "takeaway": None,
    }
