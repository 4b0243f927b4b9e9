"""Reading a document's bytes as browsers do (service.clean.decode_document): the charset a
<meta> names, but never a Python codec no page is written in."""

from __future__ import annotations

import pytest

from service.clean import decode_document


@pytest.mark.parametrize(
    ("charset", "body", "text"),
    [
        # Escapes read out of the text: "\u003c" became "<", a tag out of plain letters.
        ("unicode_escape", rb"a \u003cb\u003e", r"a \u003cb\u003e"),
        ("raw_unicode_escape", rb"a \u003cb\u003e", r"a \u003cb\u003e"),
        # UTF-7 reads markup out of ASCII letters ("+ADw-" is "<"): no browser decodes it.
        ("utf-7", b"+ADw-script+AD4-", "+ADw-script+AD4-"),
        # A page an ASCII reader found a UTF-16 label in is no UTF-16 page (WHATWG).
        ("utf-16", "café".encode(), "café"),
        ("UTF-32LE", "café".encode(), "café"),
        ("koi8-r", "привет".encode("koi8-r"), "привет"),
        ("windows-1252", "café".encode("cp1252"), "café"),
    ],
)
def test_a_meta_charset_is_read_as_a_browser_reads_it(charset: str, body: bytes, text: str) -> None:
    doc = b'<html><head><meta charset="' + charset.encode() + b'"></head><body><p>'
    assert decode_document(doc + body + b"</p></body></html>").endswith(
        "<p>" + text + "</p></body></html>"
    )
