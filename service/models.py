"""Typed values passed between the pipeline's steps.

Plain frozen dataclasses for what flows inside the pipeline (feed documents, entries,
articles); pydantic models for what crosses a boundary as JSON (the explainer a model
answers with, the check report the API serves), so they validate on the way in.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

# --- feeds -----------


@dataclass(frozen=True, slots=True)
class FeedEntry:
    """One item of a feed as the parser read it (HTML not yet cleaned)."""

    key: str  # stable identity within the feed: guid, else link, else hash(title, date)
    guid: str | None
    link: str | None
    title: str
    author: str | None
    published: datetime | None
    updated: datetime | None
    summary_html: str
    content_html: str | None  # full content (content:encoded, atom:content); None if absent
    categories: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FeedDoc:
    """A parsed feed document."""

    kind: str  # "rss", "atom", "rdf", "json"
    title: str
    link: str | None
    self_url: str | None
    hub_urls: tuple[str, ...]
    entries: tuple[FeedEntry, ...]
    problems: tuple[str, ...] = ()  # parser complaints about a document it still read
    # False for XML that is not well-formed (feedparser's loose parser read what it
    # could): new entries are taken, but no stored item is changed from it.
    well_formed: bool = True


# --- articles -----------

# Where an article's text came from. "excerpt": a feed's excerpt whose page is still to
# be read (the delivery's page budget was spent, or the item was skipped); the item's
# worker reads it before explaining, and it becomes "page" (or "feed" when the page
# cannot be read or has less text).
ContentSource = Literal["feed", "page", "file", "request", "excerpt"]


def content_hash(text: str) -> str:
    """The identity of an article's cleaned text (what decides whether it changed)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Article:
    """A post as clean text: Markdown-like blocks (headings, paragraphs, lists, fenced
    code, pipe tables) that the explainer engines and the number check read."""

    title: str
    text: str
    url: str | None = None
    author: str | None = None
    # The site a page says it is on (og:site_name): the check's context, as the author
    # is. Not stored: an item is explained without it, as its feed's title names it.
    site_name: str | None = None
    published: datetime | None = None
    content_source: ContentSource = "feed"
    hash: str = field(default="")

    def __post_init__(self) -> None:
        if not self.hash:
            object.__setattr__(self, "hash", content_hash(self.text))

    @property
    def words(self) -> int:
        return len(self.text.split())


# --- explainers -----------


class Section(BaseModel):
    """One numbered section of an explainer."""

    model_config = ConfigDict(extra="forbid")

    heading: str = Field(min_length=1, description="A plain statement, not a teaser.")
    paragraphs: list[str] = Field(min_length=1, description="One to four short paragraphs.")
    code: str | None = Field(default=None, description="Optional short code block, verbatim.")

    @field_validator("heading")
    @classmethod
    def _strip_heading(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise ValueError("heading is blank")
        return v

    @field_validator("paragraphs")
    @classmethod
    def _no_blank_paragraphs(cls, v: list[str]) -> list[str]:
        out = [p.strip() for p in v if p and p.strip()]
        if not out:
            raise ValueError("every paragraph is blank")
        return out


# What an explainer's JSON document (service.render.document: `plainfeed explain -f json`,
# the API's JSON) adds to the explainer's own fields; `GET /items/{id}/explainer` adds the
# item's id (without it there, the CLI refused that document: "item_id: Extra inputs").
DOCUMENT_META = frozenset(
    {"source", "engine", "model", "prompt_version", "usage", "cost_usd", "check", "item_id"}
)


def explainer_fields(doc: dict[str, Any]) -> Any:
    """The explainer of a JSON document that carries one: a whole explain result has it
    under "explainer"; an explainer document beside its metadata (DOCUMENT_META), which
    is dropped. Any other key stays, to be refused as a mistake."""
    if "explainer" in doc:
        return doc["explainer"]
    return {k: v for k, v in doc.items() if k not in DOCUMENT_META}


class Explainer(BaseModel):
    """The explainer's content, in the JSON shape of README's "The explainer"."""

    model_config = ConfigDict(extra="forbid")

    title: str = Field(min_length=1, description="'Subject: what is new, what it shows'.")
    sections: list[Section] = Field(min_length=1)
    takeaway: str | None = None

    @field_validator("title")
    @classmethod
    def _strip_title(cls, v: str) -> str:
        v = v.strip()
        if not v:
            raise ValueError("title is blank")
        return v

    def shape_problems(
        self, *, min_sections: int = 1, max_sections: int = 7, max_paragraphs: int = 4
    ) -> list[str]:
        """What keeps its sections from the explainer's shape (README, "The explainer":
        3 to 7 sections of one to four paragraphs, each with a heading); empty when they
        have it. The gate asks for one section at least (a status update has little to
        say), the evaluation for three."""
        problems: list[str] = []
        n = len(self.sections)
        if not min_sections <= n <= max_sections:
            problems.append(f"{n} sections, want {min_sections}..{max_sections}")
        for i, section in enumerate(self.sections, 1):
            if not section.heading.strip():
                problems.append(f"section {i} has no heading")
            p = len(section.paragraphs)
            if not 1 <= p <= max_paragraphs:
                problems.append(f"section {i} has {p} paragraphs, want 1..{max_paragraphs}")
        return problems

    def all_text(self) -> str:
        """Every prose string of the explainer, in reading order (code blocks excluded)."""
        parts = [self.title]
        for s in self.sections:
            parts.append(s.heading)
            parts.extend(s.paragraphs)
        if self.takeaway:
            parts.append(self.takeaway)
        return "\n\n".join(parts)


class Usage(BaseModel):
    """Token usage of one or more LLM calls."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            calls=self.calls + other.calls,
        )


class ExplainResult(BaseModel):
    """An explainer plus how it was made."""

    explainer: Explainer
    engine: str
    model: str
    prompt_version: str
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float = 0.0


# --- the number check -----------


class CheckStatus(StrEnum):
    SUPPORTED = "supported"
    UNSUPPORTED = "unsupported"
    MISATTACHED = "misattached"
    DERIVED = "derived"


class NumberVerdict(BaseModel):
    """One number of the explainer and what the source says about it."""

    text: str  # as written in the explainer
    kind: str  # quantity, range, version, identifier, word
    status: CheckStatus
    sentence: str  # the explainer sentence it sits in
    source: str | None = None  # the supporting source sentence or table row
    source_block: int | None = None  # index of the source block holding it
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Fact:
    """A number a good explainer of a source carries (an evaluation case's ``facts``)."""

    value: str  # as the source writes it: "1.10x", "1.17–3.66x", "MI355X"
    about: str = ""
    keywords: tuple[str, ...] = ()
    key: bool = True  # key facts count for recall and are reported when dropped


class DroppedFact(BaseModel):
    """A key fact of the source that the explainer does not carry."""

    value: str
    about: str = ""


class CheckReport(BaseModel):
    """The number check of one explainer against its source."""

    numbers: list[NumberVerdict] = Field(default_factory=list)
    dropped: list[DroppedFact] = Field(default_factory=list)
    # Set by the gate: an explainer off its shape (twelve sections, a section of nine
    # paragraphs) waits for review, however clean its numbers.
    shape: list[str] = Field(
        default_factory=list, description="What keeps the explainer from its shape"
    )

    def count(self, status: CheckStatus) -> int:
        return sum(1 for n in self.numbers if n.status == status)

    def counts(self) -> dict[str, int]:
        """Numbers by status, and the dropped key facts: the summary a reader sees first."""
        return {status.value: self.count(status) for status in CheckStatus} | {
            "dropped": len(self.dropped)
        }

    @property
    def ok(self) -> bool:
        """Publishable: no unsupported and no misattached number."""
        return not any(
            n.status in (CheckStatus.UNSUPPORTED, CheckStatus.MISATTACHED) for n in self.numbers
        )

    @property
    def precision(self) -> float:
        if not self.numbers:
            return 1.0
        return self.count(CheckStatus.SUPPORTED) / len(self.numbers)


# --- item states -----------


class ItemState(StrEnum):
    PENDING = "pending"
    PROCESSING = "processing"
    PUBLISHED = "published"
    NEEDS_REVIEW = "needs_review"
    FAILED = "failed"
    # Seen but not explained: an older entry of a feed's first delivery, past
    # PLAINFEED_FIRST_DELIVERY_MAX_ITEMS. A later delivery does not count it as new (nor
    # an edit of it as a change to explain); a retry explains it.
    SKIPPED = "skipped"


class DeliveryState(StrEnum):
    RECEIVED = "received"
    PROCESSING = "processing"
    PROCESSED = "processed"
    FAILED = "failed"


class OutboundState(StrEnum):
    """The states of an outbound delivery (an event sent to a subscriber)."""

    PENDING = "pending"
    SENDING = "sending"
    DELIVERED = "delivered"
    FAILED = "failed"
    CANCELLED = "cancelled"
