"""The answers the HTTP protocols (service.api.protocol) write themselves, to a head the
parser refuses or the service does: problem documents (RFC 9457), as the API answers
every error, and what decides them for a head the parser took (``refusal``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

from service.api.heads import KNOWN_METHODS, unknown_codings
from service.api.problems import PROBLEM_BASE
from service.api.targets import host_fault, method_not_implemented, target_fault
from service.errors import RequestTimeout


def bad_request_body(msg: str) -> bytes:
    """The problem document for a request the HTTP parser refused (``msg``: uvicorn's)."""
    return _problem(400, "bad-http-request", "Malformed HTTP request", msg)


def _problem(status: int, slug: str, title: str, detail: str) -> bytes:
    return json.dumps(
        {"type": PROBLEM_BASE + slug, "title": title, "status": status, "detail": detail}
    ).encode()


def not_implemented_body(codings: list[bytes]) -> bytes:
    """The problem document for a body sent in a transfer coding the service does not
    decode (heads.unknown_codings)."""
    names = ", ".join(c.decode("latin-1") for c in codings)
    return _problem(
        501,
        "transfer-coding-not-implemented",
        "Transfer coding not implemented",
        f"the request body is sent in {names} (Transfer-Encoding); the service decodes "
        "only chunked: send the body as it is, with Content-Encoding if compressed",
    )


def method_not_implemented_body(method: bytes) -> bytes:
    """The problem document for a request of a method the server does not know
    (heads.KNOWN_METHODS): 501, RFC 9110 9.1 and 15.6.2."""
    return _problem(501, *method_not_implemented(method.decode("latin-1")))


def version_not_supported_body(version: bytes) -> bytes:
    """The problem document for a request of an HTTP major version other than 1 (RFC 9110
    15.6.6): the service speaks HTTP/1.1 (and 1.0), no HTTP/2 nor HTTP/3."""
    return _problem(
        505,
        "http-version-not-supported",
        "HTTP version not supported",
        f"the request is of HTTP/{version.decode('latin-1')}; this server speaks HTTP/1.1",
    )


class Refusal(NamedTuple):
    """The answer to a head the parser took and the service refuses: its status and
    reason, and its problem body."""

    status: int
    reason: bytes
    body: bytes


def refusal(
    headers: Sequence[tuple[bytes, bytes]],
    target: bytes,
    method: bytes | None = None,
    version: bytes | None = None,
) -> Refusal | None:
    """The answer to a head of an HTTP ``version`` other than 1.x (505; 400 when its
    request line names none), whose Host is missing (in HTTP/1.1), given twice or
    malformed (400), whose body is sent in a transfer coding the service does not
    decode (501), whose ``method`` the server does not know (501), or whose absolute-form
    target is refused (400), else None. (In this order on both parsers: h11 refuses a
    missing Host, then the coding, before it gives the head.)"""
    if version is not None and not version.startswith(b"1."):
        if not version:
            detail = "the request line names no HTTP version (HTTP/0.9 is not spoken)"
            return Refusal(400, b"Bad Request", bad_request_body(detail))
        return Refusal(505, b"HTTP Version Not Supported", version_not_supported_body(version))
    if fault := host_fault(headers, version):
        return Refusal(400, b"Bad Request", bad_request_body(fault))
    if codings := unknown_codings(headers):
        return Refusal(501, b"Not Implemented", not_implemented_body(codings))
    if method is not None and method not in KNOWN_METHODS:
        return Refusal(501, b"Not Implemented", method_not_implemented_body(method))
    if fault := target_fault(target):
        return Refusal(400, b"Bad Request", bad_request_body(fault))
    return None


def headers_too_large_body(limit: int) -> bytes:
    return _problem(
        431,
        "headers-too-large",
        "Request header fields too large",
        f"the request line and headers are over {limit} bytes (PLAINFEED_MAX_HEAD_BYTES)",
    )


def head_too_slow_body(seconds: float) -> bytes:
    return _problem(
        408,
        RequestTimeout.slug,
        # (Its own title: RequestTimeout's says "Request body timeout".)
        "Request head timeout",
        f"the request line and headers did not arrive whole within {seconds:g} seconds "
        "(PLAINFEED_HEAD_TIMEOUT)",
    )
