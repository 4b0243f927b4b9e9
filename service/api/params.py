"""What a route reads from its address: the types of its path and query parameters
(ids, limits, offsets, filters) and the page of a listing with the link to the next."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import Path, Query, Request
from fastapi._compat import ModelField
from fastapi.dependencies.models import Dependant
from pydantic import BaseModel, BeforeValidator, Field

from service.store import tables as t


def blank_is_none(value: object) -> object:
    """An empty query value as the parameter not given: an HTML form sends its "any"
    choice so (``state=``), and a typed parameter refused it as no value of its type."""
    return None if value == "" else value


def _blank_too(schema: dict[str, Any]) -> None:
    schema.setdefault("anyOf", []).append({"type": "string", "maxLength": 0})


# Beside BeforeValidator(blank_is_none): the OpenAPI document says "" is taken too.
BLANK_TOO = Field(json_schema_extra=_blank_too)


def query_fields(dependant: Dependant) -> Iterator[ModelField]:
    """The query parameters of ``dependant`` and of its dependencies."""
    stack = [dependant]
    while stack:
        dep = stack.pop()
        yield from dep.query_params
        stack.extend(dep.dependencies)


def query_names(request: Request) -> Iterator[str]:
    """The names of the query parameters the route that matched ``request`` reads."""
    dependant = getattr(request.scope.get("route"), "dependant", None)
    if isinstance(dependant, Dependant):
        yield from (field.alias for field in query_fields(dependant))


class Page(BaseModel):
    total: int
    limit: int
    offset: int
    next: str | None
    items: list[Any]

    @classmethod
    def of(cls, request: Request, total: int, limit: int, offset: int, items: list[Any]) -> Page:
        """One page of a listing, with the URL of the next one when there is more."""
        nxt = None
        if offset + limit < total:
            # Only the parameters the route reads: any other was copied into the link
            # (thousands of them made a link of megabytes, on every page after).
            known = set(query_names(request))
            kept = [
                (k, v)
                for k, v in request.query_params.multi_items()
                if k in known and k not in ("offset", "limit")
            ]
            query = urlencode([*kept, ("offset", offset + limit), ("limit", limit)])
            url = request.url.replace(query=query)
            nxt = str(url)
            settings = request.app.state.ctx.settings
            # Behind a proxy the request's Host is the proxy's upstream address: a public
            # URL the operator set is where clients reach the API, as the Atom links use.
            # Unset (`plainfeed serve` fills in the address it serves), the Host stays.
            if "public_url" in settings.model_fields_set:
                nxt = f"{settings.public_url.rstrip('/')}{url.path}?{url.query}"
        return cls(total=total, limit=limit, offset=offset, next=nxt, items=items)


def _digits(value: object) -> object:
    """A number in an address written in the digits 0-9 alone: pydantic reads " 12",
    "+12", "1_2" and "12.0" as 12, so "/items/%2012" was item 12 and "?limit=%205" a
    limit of 5, one resource or page under many addresses, and a typo taken for a value.
    Leading zeros are kept as the number ("/items/007" is item 7, as its page reads it)."""
    if isinstance(value, str) and not (value.isascii() and value.isdigit()):
        raise ValueError("must be written in the digits 0-9 alone (no space, sign, point or _)")
    return value


# For every integer of a path or query (an id, limit, offset, day count).
DIGITS = BeforeValidator(_digits)
Limit = Annotated[int, Query(ge=1, le=200), DIGITS]
Offset = Annotated[int, Query(ge=0, le=t.MAX_OFFSET), DIGITS]
# Row ids in paths and filters: bounded, so that an id no column can hold is a 422, not a
# database error.
Id = Annotated[int, Path(ge=1, le=t.MAX_ID), DIGITS]
FeedFilter = Annotated[int | None, Query(ge=1, le=t.MAX_ID, description="Only this feed's"), DIGITS]
