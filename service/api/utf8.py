"""JSON bodies are UTF-8 (RFC 8259 8.1: "JSON text exchanged between systems that are
not part of a closed ecosystem MUST be encoded using UTF-8"): one in UTF-16 or UTF-32
is a 400 ``bad-json`` problem naming its encoding, on every route that reads JSON.

``json.loads`` of bytes guesses UTF-16 and UTF-32 from a byte order mark or from where
the first character's zero bytes fall (``json.detect_encoding``), and FastAPI's body
models and the webhook's JSON both read bodies so: a UTF-16 body was taken as well as
a UTF-8 one. A UTF-8 byte order mark is read over, as before (json.loads skips it).

A string of a JSON body that holds a lone surrogate (the escape "\\ud800", legal JSON and
no character) is a 422 validation problem naming where it stands (``whole_characters``,
an application-wide dependency), on every route whose body FastAPI reads as JSON.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterator
from typing import Any

from fastapi import Request, params
from fastapi.exceptions import RequestValidationError
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from service.errors import BadJSON
from service.ingest import JSON_TYPES, SNIFF_TYPES, media_type

# The bytes looked at: the encoding is in the first 4; a body the webhook sniffs is JSON
# if its first character past a byte order mark and white space is { or [.
_HEAD = 64
# UTF-32's marks first: UTF-32LE's begins with UTF-16LE's.
_MARKS = (
    (codecs.BOM_UTF32_LE, "UTF-32LE"),
    (codecs.BOM_UTF32_BE, "UTF-32BE"),
    (codecs.BOM_UTF16_LE, "UTF-16LE"),
    (codecs.BOM_UTF16_BE, "UTF-16BE"),
)


def wide_encoding(head: bytes) -> str | None:
    """The UTF-16 or UTF-32 encoding ``json.loads`` would read a body beginning with
    ``head`` (its first 4 bytes at least, if it has them) in, by name ("UTF-16LE"), or
    None for UTF-8, with a byte order mark or without."""
    found = json.detect_encoding(head)
    if found in ("utf-8", "utf-8-sig"):
        return None
    for mark, name in _MARKS:
        if head.startswith(mark):
            return name
    return found.upper().replace("-BE", "BE").replace("-LE", "LE")


def _looks_json(head: bytes, name: str) -> bool:
    """Whether ``head``, in encoding ``name``, begins (past its mark and white space)
    with an object or an array, as the webhook's sniff of an unlabelled body asks."""
    text = head.decode(name.replace("LE", "-LE").replace("BE", "-BE"), errors="ignore")
    return text.lstrip("\ufeff \t\r\n").startswith(("{", "["))


def refusal(name: str) -> BadJSON:
    return BadJSON(
        f"body is not valid JSON: it is {name}, and JSON between systems is UTF-8 "
        "(RFC 8259 8.1): send it as UTF-8"
    )


class Utf8Json:
    """Refuses a JSON body in UTF-16 or UTF-32 where a route reads it (BadJSON raised from
    ``receive``, as BodyLimit raises its 413): a body labelled JSON (application/json,
    text/json, ``+json``), or one unlabelled (or octet-stream, text/plain) that begins as
    JSON, which FastAPI and the webhook read as JSON too."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            ctype = dict(scope.get("headers", ())).get(b"content-type", b"")
            mt = media_type(ctype.decode("latin-1"))
            labelled = mt in JSON_TYPES or mt.endswith("+json")
            if labelled or mt in SNIFF_TYPES:
                receive = _checked(receive, labelled)
        await self.app(scope, receive, send)


def _checked(receive: Receive, labelled: bool) -> Receive:
    looked = False

    async def checked() -> Message:
        nonlocal looked
        if looked:
            return await receive()
        looked = True
        body, more = b"", True
        while more and len(body) < _HEAD:
            message = await receive()
            if message["type"] != "http.request":
                return message  # a disconnect: the body is cut off, nothing to check
            body += message.get("body", b"")
            more = message.get("more_body", False)
        name = wide_encoding(body)
        if name is not None and (labelled or _looks_json(body[:_HEAD], name)):
            raise refusal(name)
        return {"type": "http.request", "body": body, "more_body": more}

    return checked


# json.loads makes a surrogate pair ("\\ud83d\\ude00") one character: a surrogate left in
# a loaded string stands alone.
_SURROGATE = re.compile("[\ud800-\udfff]")
# The lone surrogates a problem lists: a body of thousands is told of its first ones.
_LISTED = 10


def lone_surrogate(text: str) -> str | None:
    """Why ``text`` is no Unicode text ("holds a lone surrogate (\\ud800 at character
    7), ..."), or None when it holds none."""
    found = None if text.isascii() else _SURROGATE.search(text)
    if found is None:
        return None
    return (
        f"holds a lone surrogate (\\u{ord(found.group()):04x} at character {found.start()}), "
        "no Unicode character: write a character beyond U+FFFF as a surrogate pair"
    )


def _printable(key: str) -> str:
    """A key as a problem can write it (a lone surrogate as its escape)."""
    return key.encode("utf-8", "backslashreplace").decode("utf-8")


def lone_surrogates(value: Any) -> Iterator[tuple[tuple[str | int, ...], str]]:
    """Where in ``value`` (loaded JSON) a string, or an object's key, holds a lone
    surrogate, and why, in document order. Walked without recursion: json.loads takes a
    body nested nearly as deep as the interpreter's recursion allows."""
    # (where, a value to look into; or where, None, why a key there is refused)
    stack: list[tuple[tuple[str | int, ...], Any, str | None]] = [((), value, None)]
    while stack:
        loc, v, key_why = stack.pop()
        if key_why is not None:
            yield loc, key_why
        elif isinstance(v, str):
            why = lone_surrogate(v)
            if why is not None:
                yield loc, why
        elif isinstance(v, list):
            stack.extend(((*loc, i), item, None) for i, item in reversed(list(enumerate(v))))
        elif isinstance(v, dict):
            for key, item in reversed(v.items()):
                why = lone_surrogate(key)
                # A key refused: its value is not looked into, it has no name to be found by.
                stack.append(
                    ((*loc, key), item, None)
                    if why is None
                    else ((*loc, _printable(key)), None, f"key {why}")
                )


def _read_as_json(request: Request) -> bool:
    """Whether FastAPI read the body of ``request`` as JSON (fastapi.routing: a route with
    a body model that is not a form, the body labelled application/json or +json)."""
    field = getattr(request.scope.get("route"), "body_field", None)
    if field is None or isinstance(field.field_info, params.Form):
        return False
    mt = media_type(request.headers.get("content-type"))
    return mt == "application/json" or (mt.startswith("application/") and mt.endswith("+json"))


async def whole_characters(request: Request) -> None:
    """Refuse a JSON body one of whose strings or keys holds a lone surrogate: a 422
    problem naming each (body.title, body.explainer.sections.0.paragraphs.0). pydantic
    refused one only in a string whose bound or pattern it checks, and a string it did
    not check reached an engine, a response or the database, which could not encode it
    (a 500). The body FastAPI loaded is read again from the request's cache, not decoded
    twice; a body that is not JSON was refused before (400). An application-wide
    dependency, so that a new body model is covered as it is added. Not the webhook's
    feed document, which the webhook reads itself: a surrogate in a feed is U+FFFD."""
    if not _read_as_json(request) or not await request.body():
        return
    errors = []
    for loc, why in lone_surrogates(await request.json()):
        errors.append({"type": "lone_surrogate", "loc": ("body", *loc), "msg": why})
        if len(errors) == _LISTED:
            break
    if errors:
        raise RequestValidationError(errors)
