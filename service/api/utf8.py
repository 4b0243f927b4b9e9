"""JSON bodies are UTF-8 (RFC 8259 8.1: "JSON text exchanged between systems that are
not part of a closed ecosystem MUST be encoded using UTF-8"): one in UTF-16 or UTF-32
is a 400 ``bad-json`` problem naming its encoding, on every route that reads JSON.

``json.loads`` of bytes guesses UTF-16 and UTF-32 from a byte order mark or from where
the first character's zero bytes fall (``json.detect_encoding``), and FastAPI's body
models and the webhook's JSON both read bodies so: a UTF-16 body was taken as well as
a UTF-8 one. A UTF-8 byte order mark is read over, as before (json.loads skips it).
"""

from __future__ import annotations

import codecs
import json

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
