"""One exception tree for Plainfeed.

Every error the project raises on purpose derives from :class:`PlainfeedError`. Each
class carries the HTTP status and the problem ``type`` slug that the API answers with
(RFC 9457 problem details), so the HTTP layer maps errors without knowing them one by
one, and the CLI prints ``str(err)`` and exits non-zero. Wrap lower-level exceptions with
``raise SomeError(...) from exc`` so that the cause stays chained.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pydantic import ValidationError


class PlainfeedError(Exception):
    """Base of every error Plainfeed raises on purpose."""

    status: int = 500
    slug: str = "internal-error"
    title: str = "Internal error"
    # The far side failed (a feed's server, a hub, the model endpoint): expected in
    # operation, not a bug of Plainfeed's. The API logs it as a warning, with its causes
    # on one line; a traceback shows Plainfeed's own frames, which say nothing of it.
    upstream: bool = False

    def __init__(self, detail: str = "", **extra: object) -> None:
        super().__init__(detail or self.title)
        self.detail = detail or self.title
        self.extra = extra


def cause_chain(exc: BaseException, limit: int = 6) -> str:
    """``exc``'s causes on one line, the nearest first (``raise ... from`` keeps them):
    ``httpx.ConnectTimeout: timed out <- TimeoutError: timed out``; "" when it has none."""
    out: list[str] = []
    seen = {id(exc)}
    cause = exc.__cause__ or (None if exc.__suppress_context__ else exc.__context__)
    while cause is not None and id(cause) not in seen and len(out) < limit:
        seen.add(id(cause))
        kind = type(cause)
        name = (
            kind.__qualname__
            if kind.__module__ == "builtins"
            else (f"{kind.__module__.split('.')[0]}.{kind.__qualname__}")
        )
        text = " ".join(str(cause).split())[:300]
        out.append(f"{name}: {text}" if text else name)
        cause = cause.__cause__ or (None if cause.__suppress_context__ else cause.__context__)
    return " <- ".join(out)


# --- configuration -----------


class ConfigError(PlainfeedError):
    """The settings are inconsistent or name something that does not exist."""

    slug = "config-error"
    title = "Configuration error"


# --- input given by a caller -----------


class InputError(PlainfeedError):
    """Input from a caller (HTTP request, CLI argument, file) is not acceptable."""

    status = 400
    slug = "bad-request"
    title = "Bad request"


class EmptyBody(InputError):
    """A request that needs a body came without one."""

    slug = "empty-body"
    title = "Empty body"


class BadJSON(InputError):
    """A JSON body that does not parse."""

    slug = "bad-json"
    title = "Body is not valid JSON"


class AmbiguousCredentials(InputError):
    """A request of more than one Authorization header, where one is read."""

    slug = "ambiguous-credentials"
    title = "Ambiguous credentials"


class AmbiguousSignature(InputError):
    """A delivery of more than one field of a header its signature is read from."""

    slug = "ambiguous-signature"
    title = "Ambiguous signature"


class AmbiguousDeliveryId(InputError):
    """A delivery of more than one field of a header its id is read from."""

    slug = "ambiguous-delivery-id"
    title = "Ambiguous delivery id"


class NotAFeed(InputError):
    """Bytes that a cheap sniff shows are no RSS, Atom, RDF or JSON Feed document."""

    status = 422
    slug = "not-a-feed"
    title = "Body is not a feed"


class Unprocessable(InputError):
    """Well-formed input that is semantically unusable (e.g. JSON without a feed reference)."""

    status = 422
    slug = "unprocessable"
    title = "Unprocessable input"


class PayloadTooLarge(InputError):
    """A body or a fetched document over the configured size cap."""

    status = 413
    slug = "payload-too-large"
    title = "Payload too large"


class TooLongToCheck(InputError):
    """An explainer or source sent to ``POST /check`` over PLAINFEED_CHECK_MAX_CHARS (an
    explainer also over PLAINFEED_CHECK_MAX_EXPLAINER_CHARS): the check's time grows with
    the text (some 20 s of CPU a MB of a source's figures, 45 s of an explainer's), so one
    request held a server thread for minutes; refused before any of it is spent."""

    status = 413
    slug = "too-long-to-check"
    title = "Too long to check"


class RequestTimeout(InputError):
    """A request body that did not arrive whole in time (PLAINFEED_BODY_TIMEOUT)."""

    status = 408
    slug = "request-timeout"
    title = "Request body timeout"


class UnsupportedMediaType(InputError):
    """A body with a content type Plainfeed does not take."""

    status = 415
    slug = "unsupported-media-type"
    title = "Unsupported media type"


class NotAcceptable(InputError):
    """None of the representations of a resource is acceptable to the request's Accept."""

    status = 406
    slug = "not-acceptable"
    title = "Not acceptable"


class NotFound(PlainfeedError):
    """The named feed, item, delivery or file does not exist."""

    status = 404
    slug = "not-found"
    title = "Not found"


class Gone(PlainfeedError):
    """The resource existed or could exist but is no longer accepted (WebSub unsubscribed)."""

    status = 410
    slug = "gone"
    title = "Gone"


class Conflict(PlainfeedError):
    """The request conflicts with the current state (e.g. approving a published item)."""

    status = 409
    slug = "conflict"
    title = "Conflict"


class AuthError(PlainfeedError):
    """Missing or wrong credentials: bearer token or webhook signature."""

    status = 401
    slug = "unauthorized"
    title = "Unauthorized"


class SignatureError(AuthError):
    """A webhook signature is missing, malformed, stale or does not match."""

    slug = "bad-signature"
    title = "Bad webhook signature"


# --- feeds and articles -----------


class FeedParseError(PlainfeedError):
    """The feed parser rejected a document (no entries could be read)."""

    status = 422
    slug = "feed-parse-error"
    title = "Feed could not be parsed"


class FetchError(PlainfeedError):
    """Fetching a feed or article over HTTP failed."""

    status = 502
    slug = "fetch-failed"
    title = "Fetch failed"
    upstream = True


class FetchRefused(FetchError):
    """The SSRF guard refused the URL (private, loopback, link-local or multicast address)."""

    status = 422
    slug = "fetch-refused"
    title = "URL refused"


class FetchTooLarge(FetchError):
    """The fetched document is over the size cap."""

    slug = "fetch-too-large"
    title = "Fetched document too large"


# --- explaining -----------


class TemplateError(PlainfeedError):
    """A prompt template is missing, malformed, or lacks a variable it uses."""

    slug = "template-error"
    title = "Prompt template error"


class EngineError(PlainfeedError):
    """An explainer engine could not produce an explainer."""

    status = 502
    slug = "engine-error"
    title = "Explainer engine error"
    upstream = True


class NothingToExplain(EngineError):
    """The article has no text an engine can explain (no prose sentences): the input's
    fault, not the engine's, so the API answers 422 rather than a gateway error."""

    status = 422
    slug = "nothing-to-explain"
    title = "Nothing to explain"


class PostTooLong(EngineError):
    """The post would take more calls than PLAINFEED_LLM_MAX_PARTS allows, or more text
    than PLAINFEED_EXTRACTIVE_MAX_CHARS (a dump, a book): refused before any call or CPU
    is spent on it, as its cost would be."""

    status = 413
    slug = "post-too-long"
    title = "Post too long to explain"


class LLMError(EngineError):
    """The language-model endpoint failed."""

    slug = "llm-error"
    title = "LLM endpoint error"


class LLMRetryable(LLMError):
    """A transient LLM failure (429, 5xx, timeout, connection error): worth retrying."""

    def __init__(self, detail: str = "", retry_after: float | None = None, **extra: object) -> None:
        super().__init__(detail, **extra)
        self.retry_after = retry_after


class LLMRejected(LLMError):
    """The endpoint refused the request for good (400, 401, 403, 404): never retried."""

    slug = "llm-rejected"
    title = "LLM endpoint rejected the request"


class LLMKeyRefused(LLMRejected):
    """The endpoint refused the key (401, 403): no item can be explained until the key
    is fixed, so items wait for it (retried later, the circuit opened) instead of each
    failing for good, a whole backlog lost to one rotated key."""

    slug = "llm-key-refused"
    title = "LLM endpoint refused the API key"


class InvalidAnswer(LLMError):
    """The model's answer does not validate as an explainer, even after one re-ask."""

    slug = "llm-invalid-answer"
    title = "LLM answer is not a valid explainer"


class AnswerTruncated(LLMError):
    """The model stopped for length (finish_reason == "length")."""

    slug = "llm-truncated"
    title = "LLM answer was cut by length"


class AnswerTooLarge(LLMError):
    """The endpoint's answer is larger than any explainer could be (a broken server)."""

    slug = "llm-answer-too-large"
    title = "LLM answer too large"


class CircuitOpen(LLMRetryable):
    """Too many consecutive upstream failures: calls are held back for a while."""

    status = 503
    slug = "circuit-open"
    title = "LLM circuit open"


# --- storage and queue -----------


class StoreError(PlainfeedError):
    """The database failed or holds something it should not."""

    status = 503
    slug = "store-error"
    title = "Storage error"


class LeaseLost(StoreError):
    """A worker's lease on a job expired and another worker may have claimed it."""

    slug = "lease-lost"
    title = "Lease lost"


# --- evaluation ------------------------------------------------------------------------


class EvalCaseError(InputError):
    """An evaluation case (``case.yaml``, its source or its reference) is missing or invalid."""

    slug = "eval-case-error"
    title = "Invalid evaluation case"


def validation_problems(exc: ValidationError, whole: str, limit: int | None = None) -> str:
    """A pydantic validation error as one line a person reads: ``loc: message; ...``.

    pydantic's own text spans lines and links to its documentation; in a CLI message or an
    error stored on an item that is noise. ``whole`` stands for the location of an error
    about the whole value; ``limit`` caps how many are listed (the rest are counted)."""
    errors = exc.errors()
    shown = errors if limit is None else errors[:limit]
    text = "; ".join(f"{'.'.join(str(p) for p in e['loc']) or whole}: {_said(e)}" for e in shown)
    if len(shown) < len(errors):
        text += f"; and {len(errors) - len(shown)} more"
    return text


def _said(error: Any) -> str:
    """A pydantic error's message. Of a whole value not a mapping, what it is instead:
    "Input should be a valid dictionary or instance of Thresholds" named a class no
    writer of an empty thresholds file, or of a JSON list, has seen."""
    if error["loc"] or error["type"] not in ("model_type", "dict_type"):
        return str(error["msg"])
    value = error.get("input")
    kinds = (
        (type(None), "nothing (it is empty)"),
        (list, "a list"),
        (str, "a string"),
        (bool, "true or false"),
        ((int, float), "a number"),
    )
    kind = next((k for t, k in kinds if isinstance(value, t)), "another value")
    return f"expected a mapping of names to values, not {kind}"


def too_long_number() -> str:
    """Why JSON the decoder refused with a plain ``ValueError`` is unusable: a number of
    more digits than Python converts to an int (``sys.get_int_max_str_digits``, a guard
    against quadratic conversion). Valid JSON, so no ``JSONDecodeError``: every reader of
    untrusted JSON catches this one too, or it leaves as a crash."""
    import sys

    return f"a number has more than {sys.get_int_max_str_digits()} digits"
