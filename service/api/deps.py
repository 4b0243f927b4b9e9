"""Request dependencies: the application context, the bearer-token guard, and the checks
that a query is UTF-8 and that a one-valued query parameter is given once."""

from __future__ import annotations

import hmac
from collections.abc import Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin
from urllib.parse import unquote_plus, unquote_to_bytes

from fastapi import Depends, Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from service.api.params import FeedFilter, query_fields
from service.config import Settings
from service.errors import AmbiguousCredentials, AuthError, NotFound
from service.pipeline import Pipeline
from service.store import tables as t
from service.worker import WorkerPool


@dataclass
class AppContext:
    settings: Settings
    db: Engine
    sessions: sessionmaker[Session]
    pipeline: Pipeline
    pool: WorkerPool | None = None

    def notify(self) -> None:
        if self.pool is not None:
            self.pool.notify()


def get_ctx(request: Request) -> AppContext:
    ctx: AppContext = request.app.state.ctx
    return ctx


Ctx = Annotated[AppContext, Depends(get_ctx)]


def get_session(ctx: Ctx) -> Iterator[Session]:
    """A read-only session for GET routes (writes go through the pipeline)."""
    with ctx.pipeline.read_sessions() as s:
        yield s


DB = Annotated[Session, Depends(get_session)]


def bearer_ok(request: Request, settings: Settings) -> bool:
    """Whether the request carries the API token (or none is set). Authorization is one
    field (RFC 9110 11.6.2): a request of two is refused (400), where the first was read
    and the other passed over, whichever of them the client, or a proxy adding its own,
    meant. Refused where the token is read, not everywhere: without a token, and on a
    route that reads none (a public read, /healthz), nothing is decided by them, and a
    front end that duplicates the field would have failed those for no credential."""
    if not settings.api_token:
        return True
    sent = request.headers.getlist("authorization")
    if len(sent) > 1:
        raise AmbiguousCredentials(
            f"the request has {len(sent)} Authorization headers: send one (Bearer <token>)"
        )
    auth = sent[0] if sent else ""
    scheme, _, token = auth.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(
        token.strip().encode(), settings.api_token.encode()
    )


def require_token(request: Request, ctx: Ctx) -> str:
    """Guard for write endpoints when PLAINFEED_API_TOKEN is set. Returns who called."""
    if not bearer_ok(request, ctx.settings):
        raise AuthError("missing or wrong bearer token (Authorization: Bearer <token>)")
    return "api-token" if ctx.settings.api_token else "anonymous"


Writer = Annotated[str, Depends(require_token)]


def known_feed(s: DB, feed_id: FeedFilter = None) -> int | None:
    """A ``feed_id`` filter names a feed that exists: a 404 problem otherwise, as the
    CLI's ``--feed`` and the webhook's ``feed_id`` say. An empty page said of a mistyped
    id what it says of a feed with nothing in it."""
    if feed_id is not None and s.get(t.Feed, feed_id) is None:
        raise NotFound(f"no feed with id {feed_id}")
    return feed_id


KnownFeed = Annotated[int | None, Depends(known_feed)]
# The answer of a route filtered by KnownFeed, for its OpenAPI document.
NO_FEED: dict[int | str, dict[str, Any]] = {404: {"description": "No feed with that feed_id"}}


def _takes_many(annotation: object) -> bool:
    """Whether a parameter of this type takes several values (``list[str]``, optional or
    annotated), as FastAPI reads a repeated query parameter into a sequence."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _takes_many(get_args(annotation)[0])
    if origin is Union or origin is UnionType:
        return any(_takes_many(arg) for arg in get_args(annotation))
    kind = origin or annotation
    return (
        isinstance(kind, type)
        and issubclass(kind, (Sequence, AbstractSet))
        and not issubclass(kind, (str, bytes))
    )


def _one_valued_queries(dependant: Dependant) -> Iterator[str]:
    """The names of the query parameters of ``dependant`` and its dependencies that take
    one value."""
    for field in query_fields(dependant):
        if not _takes_many(field.field_info.annotation):
            yield field.alias


def one_value_each(request: Request) -> None:
    """Refuse a query parameter that takes one value given more than once: FastAPI takes
    the last (``/items?feed_id=1&feed_id=2`` listed feed 2's), where the client most
    likely meant either. Goes by what the matched route declares, for every route (an
    application-wide dependency); a 422 problem naming the parameter."""
    dependant = getattr(request.scope.get("route"), "dependant", None)
    if not isinstance(dependant, Dependant):
        return
    errors = []
    for name in dict.fromkeys(_one_valued_queries(dependant)):
        values = request.query_params.getlist(name)
        if len(values) > 1:
            errors.append(
                {
                    "type": "repeated",
                    "loc": ("query", name),
                    "msg": f"given {len(values)} times; it takes one value",
                    "input": values,
                }
            )
    if errors:
        raise RequestValidationError(errors)


def _not_utf8(encoded: str) -> str | None:
    """Why ``encoded`` (a query parameter's name or value as sent, percent-encoded) is not
    UTF-8 once decoded, else None."""
    raw = unquote_to_bytes(encoded.replace("+", " "))
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = "".join(f"%{b:02X}" for b in raw[exc.start : exc.end])
        return f"is not UTF-8 ({bad} at byte {exc.start})"
    return None


def utf8_query(request: Request) -> None:
    """Refuse a query parameter whose name or value, percent-decoded, is not UTF-8
    (``/items?q=%FF``): Starlette decodes each with the bytes that are not UTF-8 read as
    U+FFFD, and the search was for U+FFFD, a WebSub challenge echoed changed, without a
    word. A 400 problem naming the parameter (``errors[].loc`` ``["query", "q"]``, type
    ``query_not_utf8``), for every parameter of the query as it is read, whether the
    route declares it or reads the query itself (the WebSub verification); on every
    route (an application-wide dependency). Bytes that are not percent-encoded are the
    HTTP parser's to refuse (400 bad-http-request)."""
    errors = []
    for pair in request.scope.get("query_string", b"").decode("latin-1").split("&"):
        # As Starlette splits a query (urllib.parse.parse_qsl): "&", the first "=".
        name, _, value = pair.partition("=")
        if (why := _not_utf8(name)) is not None:
            errors.append(_query_error(name, f"the name {why}"))  # named as sent: "%FF"
        elif (why := _not_utf8(value)) is not None:
            errors.append(_query_error(unquote_plus(name), why))
    if errors:
        raise RequestValidationError(errors)


def _query_error(name: str, why: str) -> dict[str, Any]:
    return {
        "type": "query_not_utf8",
        "loc": ("query", name),
        "msg": f"{why}: a query is read as UTF-8, percent-encode its bytes (é is %C3%A9)",
    }
