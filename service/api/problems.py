"""RFC 9457 problem details for every error the API answers."""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect
from starlette.routing import Match

from service.errors import PayloadTooLarge, PlainfeedError

log = logging.getLogger(__name__)

PROBLEM_BASE = "https://plainfeed.dev/problems/"
MEDIA_TYPE = "application/problem+json"


# Members of every problem body: an error's extra fields of the same name are renamed
# ("status" of a FetchError is the upstream server's: "upstream_status").
_RESERVED = frozenset({"type", "title", "status", "detail", "instance", "headers"})


def problem(
    status: int,
    slug: str,
    title: str,
    detail: str,
    instance: str | None = None,
    *,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    body: dict[str, Any] = {
        "type": PROBLEM_BASE + slug,
        "title": title,
        "status": status,
        "detail": detail,
    }
    if instance:
        body["instance"] = instance
    body.update({k: v for k, v in extra.items() if v is not None})
    headers = dict(headers or {})
    if status == 401:
        headers.setdefault("WWW-Authenticate", "Bearer")
    return JSONResponse(body, status_code=status, media_type=MEDIA_TYPE, headers=headers)


_METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _allowed(request: Request) -> str:
    """The methods of every route at the request's path (RFC 9110 15.5.6: a 405 carries
    Allow). Starlette names those of the first such route only, and GET /feeds and POST
    /feeds are two routes; HEAD goes with GET (service.api.limits.HeadAsGet)."""
    routes = request.app.router.routes
    # Asked method by method: a router included in another matches as one route, and
    # only says whether it has a route for the path and a given method.
    methods = {
        m
        for m in _METHODS
        if any(r.matches({**request.scope, "method": m})[0] == Match.FULL for r in routes)
    }
    if "GET" in methods:
        methods.add("HEAD")
    return ", ".join(sorted(methods))


def install(app: FastAPI) -> None:
    @app.exception_handler(PlainfeedError)
    async def _plainfeed(request: Request, exc: PlainfeedError) -> JSONResponse:
        if exc.status >= 500:
            log.error("%s %s: %s", request.method, request.url.path, exc.detail, exc_info=exc)
        extra: dict[str, Any] = {
            f"upstream_{k}" if k in _RESERVED else k: v
            for k, v in exc.extra.items()
            if isinstance(v, str | int | float | bool)
        }
        return problem(exc.status, exc.slug, exc.title, exc.detail, request.url.path, **extra)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in exc.errors()
        ]
        first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
        where = ".".join(str(p) for p in first["loc"])
        status = 400 if any(e["type"] == "json_invalid" for e in errors) else 422
        return problem(
            status,
            "bad-json" if status == 400 else "validation-error",
            "Invalid request",
            f"{where}: {first['msg']}" if where else str(first["msg"]),
            request.url.path,
            errors=errors,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        slug = {404: "not-found", 405: "method-not-allowed", 401: "unauthorized"}.get(
            exc.status_code, "http-error"
        )
        title = str(exc.detail)
        if exc.status_code == 413:
            # The body cap (service.api.limits) raises Starlette's exception, the one FastAPI
            # lets through its body parsing; it answers as PayloadTooLarge does.
            slug, title = PayloadTooLarge.slug, PayloadTooLarge.title
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = _allowed(request)
        return problem(
            exc.status_code, slug, title, str(exc.detail), request.url.path, headers=headers
        )

    @app.exception_handler(ClientDisconnect)
    async def _gone(request: Request, exc: ClientDisconnect) -> JSONResponse:
        # The client closed the connection mid-body: nothing was stored, and no one is
        # left to read the answer. Not an error of the server's.
        log.info(
            "client disconnected before sending all of %s %s", request.method, request.url.path
        )
        return problem(
            400,
            "client-disconnect",
            "Client disconnected",
            "the connection closed before the request body was complete",
            request.url.path,
        )

    @app.exception_handler(Exception)
    async def _crash(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error on %s %s", request.method, request.url.path)
        return problem(
            500,
            "internal-error",
            "Internal error",
            "an unexpected error occurred; it has been logged",
            request.url.path,
        )
