"""JSON bodies are UTF-8 (RFC 8259 8.1: "JSON text exchanged between systems that are
not part of a closed ecosystem MUST be encoded using UTF-8"): one in UTF-16 or UTF-32
is a 400 ``bad-json`` problem naming its encoding, on every route that reads JSON.

``json.loads`` of bytes guesses UTF-16 and UTF-32 from a byte order mark or from where
the first character's zero bytes fall (``json.detect_encoding``), and FastAPI's body
models and the webhook's JSON both read bodies so: a UTF-16 body was taken as well as
a UTF-8 one. A UTF-8 byte order mark is read over, as before (json.loads skips it).

A string of a JSON body that holds a lone surrogate (the escape "\\ud800", legal JSON and
no character) is a 422 validation problem naming where it stands (``whole_characters``,
an application-wide dependency), on every route whose body FastAPI reads as JSON; so is
a name an object of the body repeats ({"url": "https://a/", "url": "https://b/"}), which
json.loads reads as its last value: RFC 8259 4 says the names SHOULD be unique, I-JSON
(RFC 7493 2.3) MUST, and a body a signature check or a proxy reads as its first value
is another body to them. Not a feed document the webhook or WebSub is sent (JSON Feed):
feeds are read as they are written, a repeated name as its last value, as before.
"""

from __future__ import annotations

import codecs
import json
import re
from collections import Counter
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
# The refusals a problem lists: a body of thousands is told of its first ones.
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


class _Repeated(dict[str, Any]):
    """A JSON object that repeats names, read as json.loads reads it (each name's last
    value, where its first stood); ``times``: how many times each repeated name stands."""

    times: dict[str, int]


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object of ``pairs`` (an ``object_pairs_hook``), a :class:`_Repeated` if
    a name stands in it twice or more."""
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    repeated = _Repeated(obj)
    counts = Counter(name for name, _ in pairs)
    repeated.times = {name: n for name, n in counts.items() if n > 1}
    return repeated


# Where a loaded string can hold a surrogate: an escape of one (json.loads reads "\\ud800"),
# or the bytes of one, which json.loads of bytes decodes with "surrogatepass". (An escaped
# backslash before "ud800" matches too: the walk then finds nothing.)
_MAY_HOLD_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]|\xed[\xa0-\xbf]")


def loads(body: bytes) -> tuple[Any, bool]:
    """``body`` as json.loads reads it, each object repeating a name a :class:`_Repeated`
    (which :func:`refusals` tells), and whether one does."""
    repeated = False

    def hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        nonlocal repeated
        obj = _object(pairs)
        repeated = repeated or isinstance(obj, _Repeated)
        return obj

    return json.loads(body, object_pairs_hook=hook), repeated


def _repeat(name: str, times: int) -> str:
    return (
        f"key {json.dumps(name)} stands {times} times in one object: "
        "names are unique in JSON between systems (RFC 8259 4, RFC 7493 2.3), "
        "and which value counts is the reader's guess: send it once"
    )


_Entry = tuple[tuple[str | int, ...], Any, tuple[str, str] | None]


def refusals(value: Any) -> Iterator[tuple[tuple[str | int, ...], str, str]]:
    """Where in ``value`` (loaded JSON, by :func:`loads` if its repeated names are to be
    told) a string or an object's key holds a lone surrogate, or a name is repeated, what
    (``lone_surrogate``, ``duplicate_key``) and why, in document order (a repeated name
    where it first stands). Walked without recursion: json.loads takes a body nested
    nearly as deep as the interpreter's recursion allows."""
    # (where, a value to look into; or where, None, (what, why) of a key there refused)
    stack: list[_Entry] = [((), value, None)]
    while stack:
        loc, v, key_why = stack.pop()
        if key_why is not None:
            yield loc, *key_why
        elif isinstance(v, str):
            why = lone_surrogate(v)
            if why is not None:
                yield loc, "lone_surrogate", why
        elif isinstance(v, list):
            stack.extend(((*loc, i), item, None) for i, item in reversed(list(enumerate(v))))
        elif isinstance(v, dict):
            times = v.times if isinstance(v, _Repeated) else {}
            for key, item in reversed(v.items()):
                why = lone_surrogate(key)
                # A key refused: its value is not looked into, it has no name to be found by.
                stack.append(
                    ((*loc, key), item, None)
                    if why is None
                    else ((*loc, _printable(key)), None, ("lone_surrogate", f"key {why}"))
                )
                if times and key in times:  # told before what its value holds
                    repeat = ("duplicate_key", _repeat(_printable(key), times[key]))
                    stack.append(((*loc, _printable(key)), None, repeat))


def _read_as_json(request: Request) -> bool:
    """Whether FastAPI read the body of ``request`` as JSON (fastapi.routing: a route with
    a body model that is not a form, the body labelled application/json or +json)."""
    field = getattr(request.scope.get("route"), "body_field", None)
    if field is None or isinstance(field.field_info, params.Form):
        return False
    mt = media_type(request.headers.get("content-type"))
    return mt == "application/json" or (mt.startswith("application/") and mt.endswith("+json"))


async def whole_characters(request: Request) -> None:
    """Refuse a JSON body one of whose strings or keys holds a lone surrogate, or one
    of whose objects repeats a name: a 422 problem naming each (body.title,
    body.explainer.sections.0.paragraphs.0, body.url of {"url": 1, "url": 2}). pydantic
    refused one only in a string whose bound or pattern it checks, and a string it did
    not check reached an engine, a response or the database, which could not encode it
    (a 500); a repeated name was its last value. The body FastAPI loaded (request.body(),
    cached) is decoded again, its objects as pairs, for json.loads keeps no trace of a
    repeat: 2 ms a 1 MB explainer, beside FastAPI's own decode's 1.5 ms and the walk's
    6 ms. A body that is not JSON was refused before (400). An
    application-wide dependency, so that a new body model is covered as it is added.
    Not the webhook's feed document, which the webhook reads itself: a surrogate in a
    feed is U+FFFD, a repeated name its last value."""
    body = await request.body() if _read_as_json(request) else b""
    if not body:
        return
    try:
        value, repeated = loads(body)
    except RecursionError as exc:  # a frame or two deeper than FastAPI's own decode
        raise BadJSON("body is not usable JSON: nested too deeply") from exc
    if not repeated and not _MAY_HOLD_SURROGATE.search(body):
        return  # nothing to find: the walk costs 0.4-0.8 s a 1 MB body of small objects
    errors = []
    for loc, kind, why in refusals(value):
        errors.append({"type": kind, "loc": ("body", *loc), "msg": why})
        if len(errors) == _LISTED:
            break
    if errors:
        raise RequestValidationError(errors)
