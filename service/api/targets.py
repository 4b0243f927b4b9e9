"""Request targets other than a path (RFC 9112 3.2), answered the same way whichever HTTP
parser read them (service.api.protocol): the absolute form a proxy's client sends, read
as the path it names on the host it names; CONNECT's authority form, refused (the
service is no proxy); and the asterisk form, of OPTIONS only, which asks about the
server as a whole.

h11 gave an absolute-form target to the app whole ("/http://x/healthz": 404) where
httptools took its path, and httptools refused one with no path ("http://x") and any
CONNECT with a 400 of the parser's, where h11 routed CONNECT's "host:port" (404);
"OPTIONS *" was a 404 of "/*" on both.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from service.api.allow import routes_of
from service.api.heads import KNOWN_METHODS
from service.api.problems import problem

# The methods the server takes somewhere, for "OPTIONS *" (HEAD: every GET route's,
# service.api.limits.HeadAsGet; OPTIONS: this answer).
_ALWAYS = frozenset({"HEAD", "OPTIONS"})
_SCHEMES = (b"http://", b"https://")

Headers = list[tuple[bytes, bytes]]


def origin_form(target: bytes) -> tuple[bytes, bytes] | None:
    """The authority and origin-form target (path and query) of an absolute-form
    ``target`` ("http://host:8080/p?q" gives "host:8080" and "/p?q"; no path is "/");
    None for any other form. RFC 9112 3.2.2: a server must take the absolute form."""
    if not target[:8].lower().startswith(_SCHEMES):
        return None
    rest = target.split(b"//", 1)[1]
    end = min((i for i in (rest.find(b"/"), rest.find(b"?")) if i >= 0), default=len(rest))
    authority = rest[:end].rpartition(b"@")[2]  # (user info is no part of a Host)
    path = rest[end:]
    return authority, (path if path.startswith(b"/") else b"/" + path)


def target_fault(target: bytes) -> str | None:
    """Why an absolute-form ``target`` is refused, else None: an empty host, which a
    recipient must reject (RFC 9110 4.2.1: "http:///items", "http://:80/"), or user
    info, which it should take for an error (4.2.4: a password in a request line is
    written to every log on its way). Both parsers served them as the path's own."""
    if not target[:8].lower().startswith(_SCHEMES):
        return None
    rest = target.split(b"//", 1)[1]
    end = min((i for i in (rest.find(b"/"), rest.find(b"?")) if i >= 0), default=len(rest))
    if b"@" in rest[:end]:
        return "the request target names user info (user@host), which HTTP does not send"
    if not rest[:end].partition(b":")[0] and not rest[:end].startswith(b"["):
        return "the request target names no host"
    return None


# A Host field's value (RFC 9110 7.2: uri-host [":" port], RFC 3986 3.2.2): an IP literal
# in brackets, an IPv6 address there with a zone ID after "%25" (RFC 6874: "[fe80::1%25eth0]",
# unreserved and percent-encoded characters), or a name of unreserved, percent-encoded and
# sub-delimiter characters (an IPv4 address is one); empty where the target has no
# authority (RFC 9112 3.2).
_HOST = re.compile(
    rb"(\[[0-9A-Za-z:.]+(?:%25(?:[A-Za-z0-9\-._~]|%[0-9A-Fa-f]{2})+)?\]"
    rb"|[A-Za-z0-9\-._~%!$&'()*+,;=]*)(:[0-9]*)?"
)


def host_fault(headers: Sequence[tuple[bytes, bytes]], version: bytes | None) -> str | None:
    """Why a request's Host is refused, else None: RFC 9112 3.2 has a server answer 400
    to an HTTP/1.1 request (``version`` b"1.1") with no Host and to any with more than
    one Host or one that is no host and port (a space, a path, user info). h11 refused
    the first two, httptools none: "Host: a b/c" reached the app on both."""
    hosts = [v for k, v in headers if k.lower() == b"host"]
    if len(hosts) > 1:
        return "the request has more than one Host header"
    if not hosts:
        # (A later 1.x is served as 1.1: RFC 9110 2.5.)
        needs = version is not None and version.startswith(b"1.") and version != b"1.0"
        return "an HTTP/1.1 request needs a Host header" if needs else None
    if not _HOST.fullmatch(hosts[0].strip(b" \t")):
        return "the Host header is no host[:port]"
    return None


def with_host(headers: Sequence[tuple[bytes, bytes]], authority: bytes) -> Headers:
    """``headers`` with the Host of an absolute-form target's ``authority``: RFC 9112
    3.2.2 has a server ignore the Host sent with one (a client sends both to a proxy)."""
    kept = [(k, v) for k, v in headers if k.lower() != b"host"]
    return [(b"host", authority), *kept]


# The characters of a method named in a problem's detail (a token may be a head long).
_METHOD_SHOWN = 40


def method_not_implemented(method: str) -> tuple[str, str, str]:
    """The slug, title and detail of the 501 of a ``method`` the server does not know
    (heads.KNOWN_METHODS; RFC 9110 9.1 and 15.6.2)."""
    shown = method if len(method) <= _METHOD_SHOWN else method[:_METHOD_SHOWN] + "..."
    known = ", ".join(sorted(m.decode() for m in KNOWN_METHODS))
    return (
        "method-not-implemented",
        "Method not implemented",
        f"the method {shown} is not one this server knows (it knows {known}; "
        "a method is case-sensitive)",
    )


class RequestTargets:
    """CONNECT and the asterisk form answered before any route is looked for: both
    parsers give the app the target (CONNECT's "host:port", "*") as its path. And a
    method the server does not know, a 501 (RFC 9110 9.1): the HTTP protocols
    (service.api.protocol) answer it before the app sees it; this is the app's own
    answer under a server that does not run them (a route's 405 or a 404, else).

    CONNECT is a 405 (Method Not Allowed), as nginx answers it: the method is one HTTP
    defines and a server may know, and 405 says it is the method that is refused, where
    a 400 would blame the request's syntax, which is sound. Its target is a tunnel to
    another host, which the service does not open: the resource allows no method, so
    Allow is empty (RFC 9110 10.2.1 names this use). The connection is closed after the
    answer: what a client sends after a CONNECT may be the tunnel's bytes, not a request.

    "OPTIONS *" is a 200 with Allow naming the methods the server takes somewhere, and no
    content (RFC 9110 9.3.7); another method with "*" is a 400, as the form is OPTIONS's
    alone (RFC 9112 3.2.4)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        response: Response
        if scope["method"].encode("latin-1") not in KNOWN_METHODS:
            slug, title, detail = method_not_implemented(scope["method"])
            response = problem(501, slug, title, detail)
        elif scope["method"] == "CONNECT":
            detail = (
                "CONNECT asks for a tunnel to another host: this server is no proxy, and opens none"
            )
            headers = {"Allow": "", "Connection": "close"}
            response = problem(
                405, "method-not-allowed", "Method Not Allowed", detail, headers=headers
            )
        elif scope["path"] == "*" and scope["method"] == "OPTIONS":
            response = Response(headers={"Allow": _server_methods(scope)})
        elif scope["path"] == "*":
            detail = f"the target * is for OPTIONS only, not {scope['method']}"
            response = problem(400, "bad-http-request", "Malformed HTTP request", detail)
        else:
            await self.app(scope, receive, send)
            return
        await response(scope, receive, send)


def _server_methods(scope: Scope) -> str:
    """The methods of every route of the app ``scope`` is of."""
    app = scope.get("app")
    routes = getattr(getattr(app, "router", None), "routes", [])
    methods = set(_ALWAYS)
    for route in routes_of(routes):
        methods.update(getattr(route, "methods", None) or ())
    return ", ".join(sorted(methods))
