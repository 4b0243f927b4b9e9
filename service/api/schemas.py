"""Request and response bodies of the HTTP API (they make the OpenAPI document)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import Query
from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    HttpUrl,
    StringConstraints,
    Tag,
    field_validator,
)

from service import websub
from service.api.urls import FeedUrl
from service.models import CheckReport, DroppedFact, Explainer, NumberVerdict, explainer_fields
from service.store import tables as t

# PostgreSQL text cannot hold NUL: a string with one would fail in the database (a 500)
# rather than match nothing, so text that reaches a query or a column refuses it.
NO_NUL = r"^[^\x00]*$"


def _setting_text(max_length: int) -> StringConstraints:
    """A feed's text setting: kept without the padding a form or a shell adds, never
    blank (null is the default), no NUL."""
    return StringConstraints(
        strip_whitespace=True, min_length=1, max_length=max_length, pattern=NO_NUL
    )


# A feed's name is how a change record names its feed (data.source): kept without the
# padding a form or a shell adds, and never blank ("" was a name, the next feed named ""
# a 409 "already named ''"); null is no name.
FeedName = Annotated[str, _setting_text(512)]

# A feed's audience and language are what its explainers are written for: a blank one
# was stored and shown as the feed's setting while the pipeline silently wrote for the
# default, so like a name they are kept without padding and never blank; null is the
# default ("a curious non-specialist", "English").
FeedAudience = Annotated[str, _setting_text(512)]
FeedLanguage = Annotated[str, _setting_text(64)]


def not_null_in_schema(schema: dict[str, Any]) -> None:
    """For ``json_schema_extra`` of a field typed ``X | SkipJsonSchema[None] = None``:
    absent is its default, an explicit null is refused by the route, so the document
    shows neither null nor the default null."""
    schema.pop("default", None)


class FeedIn(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "url": "https://pytorch.org/blog/feed/",
                    "name": "PyTorch blog",
                    "secret": "s3cret-shared-with-the-monitor",
                    "audience": "a curious non-specialist",
                    "language": "English",
                }
            ]
        },
    )

    url: FeedUrl
    name: FeedName | None = None
    secret: str | None = Field(default=None, min_length=8, max_length=512, pattern=NO_NUL)
    audience: FeedAudience | None = None
    language: FeedLanguage | None = None


class FeedPatch(BaseModel):
    """What ``PATCH /feeds/{id}`` changes: the fields given (``null`` clears one; a
    feed's URL is its identity and stays)."""

    model_config = ConfigDict(
        extra="forbid",
        # At least one field: the route refuses an empty body (400).
        json_schema_extra={
            "examples": [{"secret": "a-new-secret-for-the-monitor"}],
            "minProperties": 1,
        },
    )

    name: FeedName | None = None
    secret: str | None = Field(default=None, min_length=8, max_length=512, pattern=NO_NUL)
    audience: FeedAudience | None = None
    language: FeedLanguage | None = None


# DELETE /feeds/{id}?force=true: a hub that cannot be reached never confirms an
# unsubscribe, and the feed it pushed to could not be removed.
ForceRemove = Annotated[
    bool, Query(description="Remove it though a WebSub hub pushes to it (a hub gone)")
]


class FeedOut(BaseModel):
    id: int
    url: str
    # Why the URL is never fetched (stored before URLs were checked: "javascript:..."):
    # remove the feed and register its http(s) URL.
    url_error: str | None = None
    name: str | None
    title: str | None
    audience: str | None
    language: str | None
    has_secret: bool
    hub_url: str | None
    websub_state: str | None
    # Why the last request to its hub failed (an unsubscribe that never reached it).
    websub_error: str | None = None
    # When the subscription the hub granted ends (active, renewing, or kept aside by a
    # pending unsubscribe), and when a request the hub took but has not verified is
    # asked again: what an operator watching a subscription needs to know.
    websub_lease_until: datetime | None = None
    websub_ask_again_at: datetime | None = None
    created_at: datetime

    @classmethod
    def of(cls, f: t.Feed) -> FeedOut:
        # A request the hub never verified, its time up, is shown settled before a
        # worker has written it (service.websub.settled), with why.
        now = datetime.now(UTC)
        state = websub.settled(f.websub_state, f.websub_lease_until, now)
        error = f.websub_error
        if state != f.websub_state and f.websub_state and f.websub_lease_until:
            error = websub.given_up_note(f.websub_state, f.hub_url, f.websub_lease_until)
        return cls(
            id=f.id,
            url=f.url,
            url_error=f.url_error,
            name=f.name,
            title=f.title,
            audience=f.audience,
            language=f.language,
            has_secret=bool(f.secret),
            hub_url=f.hub_url,
            websub_state=state,
            websub_error=error,
            websub_lease_until=websub.lease_of(
                state, f.websub_lease_until, f.websub_hub_lease_until
            ),
            websub_ask_again_at=f.websub_ask_at if state in websub.ASKED_AGAIN else None,
            created_at=f.created_at,
        )


class Accepted(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [{"delivery_id": 17, "duplicate": False, "status_url": "/deliveries/17"}]
        }
    )

    delivery_id: int
    duplicate: bool
    status_url: str


class DeliveryOut(BaseModel):
    id: int
    external_id: str
    feed_id: int | None
    sender: str
    content_type: str | None
    state: str
    error: str | None
    problems: str | None
    items_new: int
    items_changed: int
    items_skipped: int
    item_ids: list[int]
    attempts: int
    received_at: datetime
    processed_at: datetime | None
    body_bytes: int
    # When a retry with force was asked: its version applied however dated.
    forced_at: datetime | None = None

    @classmethod
    def of(cls, d: t.Delivery) -> DeliveryOut:
        return cls(
            id=d.id,
            external_id=d.external_id,
            feed_id=d.feed_id,
            sender=d.sender,
            content_type=d.content_type,
            state=d.state,
            error=d.error,
            problems=d.problems,
            items_new=d.items_new,
            items_changed=d.items_changed,
            items_skipped=d.items_skipped or 0,
            item_ids=list(d.item_ids or []),
            attempts=d.attempts,
            received_at=d.received_at,
            processed_at=d.processed_at,
            body_bytes=len(d.body or b""),
            forced_at=d.forced_at,
        )


class ExplainerMeta(BaseModel):
    id: int
    engine: str
    model: str
    prompt_version: str
    prompt_tokens: int
    completion_tokens: int
    llm_calls: int
    cost_usd: float
    repairs: int
    check_ok: bool
    approved_by: str | None
    approved_at: datetime | None
    created_at: datetime
    # The explainer of another item of the same post that this one is a copy of (its
    # tokens and cost are counted there; this one's are 0).
    reused_from: int | None = None


class ItemOut(BaseModel):
    id: int
    feed_id: int | None
    state: str
    title: str
    link: str | None
    author: str | None
    published: datetime | None
    content_hash: str
    content_source: str
    attempts: int
    next_attempt_at: datetime | None
    last_error: str | None
    created_at: datetime
    updated_at: datetime
    published_at: datetime | None
    source_words: int
    explainer: Explainer | None = None
    explainer_meta: ExplainerMeta | None = None
    check: CheckReport | None = None
    text: str | None = None

    @classmethod
    def of(cls, i: t.Item, ex: t.Explainer | None = None, *, full: bool = False) -> ItemOut:
        out = cls(
            id=i.id,
            feed_id=i.feed_id,
            state=i.state,
            title=i.title,
            link=i.link,
            author=i.author,
            published=i.published,
            content_hash=i.content_hash,
            content_source=i.content_source,
            attempts=i.attempts,
            next_attempt_at=i.next_attempt_at if i.state == "pending" else None,
            last_error=i.last_error,
            created_at=i.created_at,
            updated_at=i.updated_at,
            published_at=i.published_at,
            source_words=len(i.text.split()),
        )
        if full:
            out.text = i.text
        if ex is not None:
            out.explainer = Explainer.model_validate(ex.body)
            out.check = CheckReport.model_validate(ex.check) if ex.check else None
            out.explainer_meta = ExplainerMeta(
                id=ex.id,
                engine=ex.engine,
                model=ex.model,
                prompt_version=ex.prompt_version,
                prompt_tokens=ex.prompt_tokens,
                completion_tokens=ex.completion_tokens,
                llm_calls=ex.llm_calls,
                # Sums of float prices carry noise (0.00031574999999999995).
                cost_usd=round(ex.cost_usd, 8),
                repairs=ex.repairs,
                check_ok=ex.check_ok,
                approved_by=ex.approved_by,
                approved_at=ex.approved_at,
                created_at=ex.created_at,
                reused_from=ex.reused_from,
            )
        return out


class PostIn(BaseModel):
    """A post given as exactly one of ``html``, ``markdown``, ``text`` or ``url``."""

    # Bounded by the engine's setting (POST /explain's 413 post-too-long: PLAINFEED_
    # EXTRACTIVE_MAX_CHARS, PLAINFEED_LLM_MAX_PARTS) or the check's (POST /check's 413
    # too-long-to-check: PLAINFEED_CHECK_MAX_CHARS), over the text as read, not by a
    # length of their own here: the body cap bounds what is read.
    html: str | None = None
    markdown: str | None = None
    text: str | None = None
    url: HttpUrl | None = None
    # A lone surrogate here, as in any string of a JSON body, is refused before the body
    # is validated (service.api.utf8.whole_characters).
    title: str | None = None
    # The feed or site the post is from: its cleaned text often never writes what the
    # feed is named for, and an explainer's "For PyTorch users" invented no name.
    feed_title: str | None = Field(
        default=None,
        max_length=1024,
        description='The title of the feed or site the post is from ("PyTorch Blog"): '
        "the number check reads a name in it as the post's context, never as a figure's "
        "support.",
    )


class ExplainIn(PostIn):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "title": "Faster kernels",
                    "html": "<h2>Results</h2><p>The new kernel is 1.10x faster on MI355X.</p>",
                }
            ]
        },
    )

    engine: str | None = Field(default=None, pattern="^(llm|extractive)$")


class CheckIn(PostIn):
    """An explainer written anywhere, and the post it explains (exactly one of ``html``,
    ``markdown``, ``text`` or ``url``)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "explainer": "The new kernel is 1.10x faster on MI355X.",
                    "title": "Faster kernels",
                    "html": "<h2>Results</h2><p>The new kernel is 1.10x faster on MI355X.</p>",
                }
            ]
        },
    )

    # Markdown or plain text, or the explainer's JSON shape (as `POST /explain` answers it).
    # Told apart by the value's type, so that an error names what was sent: a JSON object
    # that is no explainer "explainer.json.sections: Field required", not pydantic's
    # attempts at every member ("explainer.constrained-str: Input should be a string").
    # Bounded by PLAINFEED_CHECK_MAX_EXPLAINER_CHARS (413, service.api.ops), as text or
    # JSON, not by a length of its own here: the body cap bounds what is read.
    explainer: Annotated[
        Annotated[str, Tag("text")] | Annotated[Explainer, Tag("json")],
        Discriminator(lambda v: "json" if isinstance(v, dict | Explainer) else "text"),
    ]

    @field_validator("explainer", mode="before")
    @classmethod
    def _explainer_of_a_document(cls, v: Any) -> Any:
        # The JSON the service serves (`GET /items/{id}/explainer?format=json`, `plainfeed
        # explain -f json`, a whole `POST /explain` answer) carries its metadata beside the
        # explainer: taken as `plainfeed check` takes it, not refused key by key.
        if isinstance(v, dict):
            v = explainer_fields(v)
        return v


class CheckOut(BaseModel):
    """The number check, its verdict and counts first (as `plainfeed check --json` prints
    it): ``ok`` is false when a number is unsupported or misattached."""

    ok: bool
    counts: dict[str, int]
    numbers: list[NumberVerdict]
    dropped: list[DroppedFact]

    @classmethod
    def of(cls, report: CheckReport) -> CheckOut:
        return cls(
            ok=report.ok, counts=report.counts(), numbers=report.numbers, dropped=report.dropped
        )


class ExplainOut(BaseModel):
    explainer: Explainer
    # The post as read (title, url, author, published), as in the explainer's JSON
    # document: for a url, the caller learns here which page and title were explained.
    source: dict[str, str | None]
    check: CheckReport
    engine: str
    model: str
    prompt_version: str
    usage: dict[str, int]
    cost_usd: float
    markdown: str
