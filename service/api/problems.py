"""RFC 9457 problem details for every error the API answers."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import ClientDisconnect

from service.api.allow import allowed, malformed_target, routes_of, unserved_allow
from service.api.limits import MAX_REQUEST_BODY
from service.errors import (
    BadJSON,
    PayloadTooLarge,
    PlainfeedError,
    RequestTimeout,
    UnsupportedMediaType,
    cause_chain,
    too_long_number,
)

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


# Errors of a request that could not be read as sent (400), and the problem each is:
# JSON that does not parse, a query that is not UTF-8 (service.api.deps.utf8_query).
# Any other is a 422 validation-error.
_MALFORMED = {"json_invalid": "bad-json", "query_not_utf8": "bad-query"}


def _is_page(path: str) -> bool:
    """Whether ``path`` is one of the HTML pages (the index, ``/ui/...``)."""
    return path == "/" or path.startswith("/ui/")


def _not_json(request: Request, errors: list[dict[str, Any]]) -> str | None:
    """The media type of a request whose whole body was refused because it is labelled
    as something other than JSON, else None."""
    if not any(e["loc"] == ["body"] and e["type"] != "missing" for e in errors):
        return None
    ctype = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if not ctype or ctype == "application/json" or ctype.endswith("+json"):
        return None
    return ctype


def _unreadable_json(exc: StarletteHTTPException) -> str | None:
    """Why a JSON body FastAPI could not read is bad, when that is what ``exc`` is: its
    "400 There was an error parsing the body" said nothing of a body that is not UTF-8
    (JSON is, RFC 8259), is nested past the decoder's depth or holds a number too long
    to convert, and the webhook, which reads its own body, says each."""
    cause = exc.__cause__
    if exc.status_code != 400 or cause is None:
        return None
    if isinstance(cause, BadJSON):  # a UTF-16 or UTF-32 body (service.api.utf8)
        return cause.detail
    if isinstance(cause, UnicodeDecodeError):
        return f"body is not valid JSON: it is not UTF-8 ({cause})"
    if isinstance(cause, RecursionError):
        return "body is not usable JSON: nested too deeply"
    if type(cause) is ValueError:
        # Not a subclass (JSONDecodeError, answered as json_invalid; a form parser's):
        # valid JSON the decoder refuses, a number of more digits than int() converts.
        return f"body is not usable JSON: {too_long_number()}"
    return None


def install(app: FastAPI) -> None:
    @app.exception_handler(PlainfeedError)
    async def _plainfeed(request: Request, exc: PlainfeedError) -> JSONResponse:
        if exc.status >= 500 and exc.upstream:
            # A gateway error (the model endpoint or a fetched server failed): expected
            # in operation, one line with its causes. It was logged as a bug, traceback
            # and all, at every 502 of a model endpoint down.
            chain = cause_chain(exc)
            log.warning(
                "%s %s: %s %s: %s%s",
                request.method,
                request.url.path,
                exc.status,
                exc.slug,
                exc.detail,
                f" (caused by {chain})" if chain else "",
            )
        elif exc.status >= 500:
            log.error("%s %s: %s", request.method, request.url.path, exc.detail, exc_info=exc)
        extra: dict[str, Any] = {
            f"upstream_{k}" if k in _RESERVED else k: v
            for k, v in exc.extra.items()
            if isinstance(v, str | int | float | bool)
        }
        return problem(exc.status, exc.slug, exc.title, exc.detail, request.url.path, **extra)

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError) -> Response:
        errors = [
            {"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
            for e in exc.errors()
        ]
        bad = next((e for e in exc.errors() if e.get("type") == "json_invalid"), None)
        if bad is not None and not _is_page(request.url.path):
            # FastAPI says "JSON decode error" and where; the decoder's reason beside it,
            # as the webhook's own reading of its body says it.
            reason = (bad.get("ctx") or {}).get("error") or "JSON decode error"
            where = bad.get("loc", ())[-1]
            return problem(
                BadJSON.status,
                BadJSON.slug,
                BadJSON.title,
                f"body is not valid JSON: {reason} (at character {where})",
                request.url.path,
                errors=errors,
            )
        ctype = _not_json(request, errors)
        if ctype is not None:
            # FastAPI reads a JSON body only when it is labelled JSON; "curl -d" labels it
            # a form, and the body was "not a valid dictionary": say what to send instead.
            return problem(
                UnsupportedMediaType.status,
                UnsupportedMediaType.slug,
                UnsupportedMediaType.title,
                f"content type {ctype!r} is not taken: send the body as JSON "
                "(Content-Type: application/json)",
                request.url.path,
            )
        first = errors[0] if errors else {"loc": [], "msg": "invalid request"}
        where = ".".join(str(p) for p in first["loc"])
        malformed = next((_MALFORMED[e["type"]] for e in errors if e["type"] in _MALFORMED), None)
        status = 400 if malformed else 422
        if _is_page(request.url.path):
            # A person's browser asked for a page (a search pasted into the address bar,
            # an edited offset), or sent the review form to an address whose query is not
            # UTF-8: an HTML page says what is wrong, as its 404 does.
            from service.api.pages import error_page

            return error_page(status, "Bad request", f"{where}: {first['msg']}")
        return problem(
            status,
            malformed or "validation-error",
            "Invalid request",
            f"{where}: {first['msg']}" if where else str(first["msg"]),
            request.url.path,
            errors=errors,
        )

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 405 and request.method == "OPTIONS":
            # OPTIONS asks what the target takes (RFC 9110 9.3.7): a success naming the
            # methods, no content. It was a 405 with them in Allow, as if OPTIONS were
            # refused. Where nothing is served (no page, no file), the 404 GET answers.
            allow = await allowed(request)
            if allow is None:
                if _is_page(request.url.path):
                    from service.api.pages import no_page

                    return no_page()
                return await _http(request, StarletteHTTPException(404))
            # A malformed id ("/items/abc"): GET's 422 (or page's 404), not a 204.
            return await malformed_target(request, _validation) or Response(
                status_code=204, headers={"Allow": allow}
            )
        unreadable = _unreadable_json(exc)
        if unreadable is not None and not _is_page(request.url.path):
            return problem(
                BadJSON.status, BadJSON.slug, BadJSON.title, unreadable, request.url.path
            )
        slug = {404: "not-found", 405: "method-not-allowed", 401: "unauthorized"}.get(
            exc.status_code, "http-error"
        )
        title = HTTPStatus(exc.status_code).phrase if _is_page(request.url.path) else None
        title = title or str(exc.detail)
        if exc.status_code == 413:
            # The body cap (service.api.limits) raises Starlette's exception, the one FastAPI
            # lets through its body parsing; it answers as PayloadTooLarge does.
            slug, title = PayloadTooLarge.slug, PayloadTooLarge.title
        elif exc.status_code == 415:  # a compressed body (service.api.limits)
            slug, title = UnsupportedMediaType.slug, UnsupportedMediaType.title
        elif exc.status_code == 408:  # a body too slow (service.api.limits.BodyTimeout)
            slug, title = RequestTimeout.slug, RequestTimeout.title
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            headers["Allow"] = await allowed(request) or unserved_allow(request)
        if _is_page(request.url.path):
            # A person's browser: the review form's body too slow (408), too big or
            # compressed, a page asked with a method it lacks. Its other errors are pages;
            # these were the API's problem JSON, shown raw to the person.
            from service.api.pages import error_page

            page = error_page(exc.status_code, title, str(exc.detail))
            page.headers.update(headers)
            return page
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


# The body of every problem, for the OpenAPI document.
PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "type": "object",
    "description": "RFC 9457 problem details. Some problems add members: `errors` (a "
    "validation error's every error), `upstream_status` (the far side's status of a failed "
    "fetch), and others named in their `detail`.",
    "properties": {
        "type": {"type": "string", "format": "uri", "title": "Type"},
        "title": {"type": "string", "title": "Title"},
        "status": {"type": "integer", "title": "Status"},
        "detail": {"type": "string", "title": "Detail"},
        "instance": {"type": "string", "title": "Instance"},
        "errors": {
            "type": "array",
            "title": "Errors",
            "items": {
                "type": "object",
                "properties": {
                    "loc": {"type": "array", "items": {"type": ["string", "integer"]}},
                    "msg": {"type": "string"},
                    "type": {"type": "string"},
                },
            },
        },
    },
    "required": ["type", "title", "status", "detail"],
    "additionalProperties": True,
}
_PROBLEM_CONTENT = {MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}}


def _needs_token(route: APIRoute) -> bool:
    from service.api.deps import require_token

    stack = list(route.dependant.dependencies)
    while stack:
        dep = stack.pop()
        if dep.call is require_token:
            return True
        stack.extend(dep.dependencies)
    return False


def _also_400(responses: dict[str, Any], why: str) -> None:
    """Declare ``why`` among the reasons of the operation's 400, after those it has."""
    bad = responses.setdefault("400", {})
    was = bad.get("description")
    bad["description"] = f"{was}, or {why}" if was else why[:1].upper() + why[1:]


def _document(schema: dict[str, Any], app: FastAPI) -> None:
    """What the handlers above answer, in the OpenAPI document: every error as
    ``application/problem+json`` (FastAPI says ``application/json`` with its own
    validation shape), 401 where the bearer token is checked, 400, 408, 413 and 415
    where a body is read, 400 of a query not UTF-8 everywhere; and HEAD beside every
    GET."""
    schemas = schema.setdefault("components", {}).setdefault("schemas", {})
    schemas["Problem"] = PROBLEM_SCHEMA
    for name in ("HTTPValidationError", "ValidationError"):
        schemas.pop(name, None)
    cap = MAX_REQUEST_BODY // (1024 * 1024)
    for route in routes_of(app.routes):
        if not isinstance(route, APIRoute):
            continue
        if not route.include_in_schema:
            continue
        for method in route.methods or ():
            op = schema["paths"].get(route.path, {}).get(method.lower())
            if op is None:
                continue
            responses = op.setdefault("responses", {})
            if _needs_token(route):
                responses.setdefault(
                    "401", {"description": "Missing or wrong bearer token (PLAINFEED_API_TOKEN)"}
                )
            body = op.get("requestBody", {}).get("content", {})
            if body:
                if "application/json" in body:
                    responses.setdefault("400", {"description": "The body is not valid JSON"})
                responses.setdefault("413", {"description": f"Body over {cap} MiB"})
                # service.api.limits refuses a compressed body; a JSON route, a body
                # labelled as anything else (the handler of RequestValidationError).
                responses.setdefault(
                    "415", {"description": "Compressed (Content-Encoding), or not JSON"}
                )
                responses.setdefault(
                    "408", {"description": "Body not in whole within PLAINFEED_BODY_TIMEOUT"}
                )
            if _needs_token(route):
                # service.api.deps.bearer_ok, beside the route's other 400 if it has one.
                # Refused only where the token is read: another route, or any when no
                # token is set, takes two (nothing is decided by them).
                _also_400(
                    responses,
                    "more than one Authorization header (where PLAINFEED_API_TOKEN is set)",
                )
            # service.api.deps.utf8_query, on every route; a page answers it as a page.
            _also_400(responses, "a query parameter not UTF-8 once percent-decoded (bad-query)")
            if _is_page(route.path):
                responses["400"].setdefault("content", {"text/html": {}})
            for status, response in responses.items():
                content = response.get("content")
                # FastAPI's own 422 names its validation shape; a response that declares
                # a content of its own (the pages' HTML, /readyz's 503) keeps it.
                default = "HTTPValidationError" in str(content)
                if int(status) >= 400 and (not content or default):
                    response["content"] = _PROBLEM_CONTENT
                    if response.get("description") == "Validation Error":
                        response["description"] = "Invalid request (the `errors` say where)"
    for ops in schema["paths"].values():
        get = ops.get("get")
        if get is not None and "head" not in ops:
            # service.api.limits.HeadAsGet: every GET answers HEAD, without the body.
            ops["head"] = {
                **{k: get[k] for k in ("tags", "summary", "parameters") if k in get},
                "description": "As GET, without the body.",
                "operationId": f"{get.get('operationId', 'get')}_head",
                "responses": {
                    status: {"description": r.get("description", "")}
                    for status, r in get["responses"].items()
                },
            }


def document(app: FastAPI) -> None:
    """Make ``app``'s OpenAPI document declare its problems (see :func:`_document`)."""
    base = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            _document(base(), app)
        assert app.openapi_schema is not None
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
