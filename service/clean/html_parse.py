"""HTML text -> an lxml tree, the cleaner's first step: one parse, and a way through
for documents the parser cannot read whole."""

from __future__ import annotations

import html as html_lib
import re

from lxml import etree

_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>")
# A start tag whose attributes run past 4 KiB loses them: libxml2 compares each
# attribute with those before it, and 200,000 of them on one tag (a hostile post, 2 MB)
# took minutes. No attribute the cleaner reads (href, a code block's class, colspan) is
# that long; the ranges between brackets are disjoint, so the scan is linear.
_LONG_TAG = re.compile(r"<([A-Za-z][A-Za-z0-9:-]*)[^<>]{4096,}>")


def _parser() -> etree.HTMLParser:
    # huge_tree lifts libxml2's nesting cap from 256 to 2048: past the cap the parser
    # stops and everything after the deep element is lost, not only the deep part. One
    # parser per document: its error log says whether that happened, and worker threads
    # must not read each other's.
    return etree.HTMLParser(remove_comments=True, remove_pis=True, no_network=True, huge_tree=True)


def parse_html(html: str) -> etree._Element | None:
    """The document's tree (None for an empty one); a BOM and an XML declaration are
    dropped first."""
    if html.startswith("\ufeff"):
        html = html[1:]
    if html.lstrip().startswith("<?xml"):
        # lxml refuses str input that declares an encoding; the str is decoded already.
        html = _XML_DECL.sub("", html, count=1)
    if not html.strip():
        return None
    html = _LONG_TAG.sub(r"<\1>", html)
    parser = _parser()
    root = etree.fromstring(html, parser)
    if any("Excessive depth" in e.message for e in parser.error_log):
        # Nested past the cap (a generator's runaway <div>s): read as paragraphs of plain
        # text, its markup dropped, rather than losing all that follows the deep element.
        return _flattened(html)
    return root


_DROPPED = re.compile(r"<(script|style|template)\b.*?</\1\s*>", re.S | re.I)
_BLOCK_END = re.compile(
    r"<\s*(?:br|hr)\b[^>]*>|</\s*(?:p|div|li|h[1-6]|tr|pre|blockquote|section|article)\s*>",
    re.I,
)
_TAG = re.compile(r"<[^>]*>")


def _flattened(html: str) -> etree._Element:
    """A document's text as a body of paragraphs, without its markup."""
    text = _TAG.sub(" ", _BLOCK_END.sub("\n\n", _DROPPED.sub(" ", html)))
    body = etree.Element("body")
    for para in re.split(r"\n\s*\n", html_lib.unescape(text)):
        words = " ".join(para.split())
        if words:
            etree.SubElement(body, "p").text = words
    root = etree.Element("html")
    root.append(body)
    return root
