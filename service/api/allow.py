"""The methods a path takes, for the Allow of its 405 and of its OPTIONS (RFC 9110
10.2.1, 15.5.6): those of every route at the path, of a file a static mount holds, HEAD
beside GET (service.api.limits.HeadAsGet) and OPTIONS."""

from __future__ import annotations

import stat
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from fastapi import Request
from fastapi.dependencies.utils import request_params_to_args
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool
from starlette.routing import Match
from starlette.staticfiles import StaticFiles

_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def routes_of(routes: list[Any]) -> Iterator[Any]:
    """The routes of the app and of the routers it includes: an included router matches
    as one route, and would not say which of its routes matched."""
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from routes_of(included.routes)
        else:
            yield route


def methods_at(request: Request, *, any_page: bool = False) -> set[str]:
    """The methods of the routes at the request's path; the page of any other /ui
    address (pages.ANY_PAGE) among them only with ``any_page``: GET of
    /ui/items/1/review is its "no page here", not a method of the review form's."""
    from service.api.pages import ANY_PAGE

    return {
        m
        for r in routes_of(request.app.router.routes)
        if any_page or getattr(r, "path", None) != ANY_PAGE
        for m in _METHODS
        if r.matches({**request.scope, "method": m})[0] == Match.FULL
    }


def unserved_allow(request: Request) -> str:
    """The Allow of a 405 at a path where nothing is served (OPTIONS there is the 404 of
    GET, and names nothing): the methods that answer there all the same. The page of
    any other /ui address (its "no page here") is GET's; a static mount takes GET at
    every path in it, a file it holds or not (a 404 there, as a page's): no route of
    the app's is found in it, and the Allow StaticFiles names was replaced with an
    empty one. HEAD goes with GET (service.api.limits.HeadAsGet)."""
    if isinstance(request.scope.get("endpoint"), StaticFiles):
        return "GET, HEAD"
    methods = methods_at(request, any_page=True)
    if "GET" in methods:
        methods.add("HEAD")
    return ", ".join(sorted(methods))


async def _served_methods(request: Request) -> set[str]:
    """The methods served at the request's path: those of the routes there (the page of
    any other /ui address, its "no page here", is none), or GET of a file a static mount
    holds (none of one it does not: GET there is a 404)."""
    mount = request.scope.get("endpoint")
    if not isinstance(mount, StaticFiles):
        return methods_at(request)
    try:
        _, found = await run_in_threadpool(mount.lookup_path, mount.get_path(request.scope))
    except (OSError, ValueError):  # (a name too long, a NUL: GET's 404 too)
        return set()
    return {"GET"} if found is not None and stat.S_ISREG(found.st_mode) else set()


async def allowed(request: Request) -> str | None:
    """The Allow of the request's path, the same for its 405 (RFC 9110 15.5.6) and the
    204 of its OPTIONS (RFC 9110 10.2.1: the methods the target supports; the 405 named
    no OPTIONS, which succeeds there): the methods served (:func:`_served_methods`, of
    every route at the path: Starlette names those of the first such route only, and
    GET /feeds and POST /feeds are two routes), HEAD beside GET (limits.HeadAsGet), and
    OPTIONS. None where nothing is served."""
    methods = await _served_methods(request)
    if not methods:
        return None
    methods |= {"HEAD", "OPTIONS"} if "GET" in methods else {"OPTIONS"}
    return ", ".join(sorted(methods))


async def malformed_target(
    request: Request,
    invalid: Callable[[Request, RequestValidationError], Awaitable[Response]],
) -> Response | None:
    """The answer of the routes at the request's path to its path parameters, when they
    refuse them, for OPTIONS there (RFC 9110 9.3.7: what the target takes; a target no
    method takes names nothing): a malformed id ("/items/abc", "/items/0") is the 422
    of GET's (``invalid``, the handler of RequestValidationError), an item page's the
    404 page GET and the review form answer. OPTIONS answered 204 and named the methods.
    None for well-formed parameters: a row id (leading zeros read as GET reads them,
    "/items/007" is item 7), whether or not a row has it: OPTIONS does not look."""
    from service.api.pages import ANY_PAGE, malformed_id_page

    for route in routes_of(request.app.router.routes):
        if not isinstance(route, APIRoute) or route.path == ANY_PAGE:
            continue
        for method in sorted(route.methods or ()):
            match, child = route.matches({**request.scope, "method": method})
            if match == Match.FULL:
                break
        else:
            continue
        params = child.get("path_params", {})
        page = malformed_id_page(params) if route.path.startswith("/ui/") else None
        if page is not None:
            return page
        _, errors = request_params_to_args(route.dependant.path_params, params)
        if errors:
            return await invalid(request, RequestValidationError(errors))
    return None
