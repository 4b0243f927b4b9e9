"""Feed bytes -> a FeedDoc: RSS 0.9x/1.0 (RDF)/2.0 and Atom through feedparser
(``xmlfeed``), JSON Feed 1.0/1.1 by hand (``jsonfeed``).

``sniff`` is the cheap look at the first bytes that lets the webhook answer 422 without
parsing; ``parse_feed`` is the full parse the worker does.
"""

from __future__ import annotations

from service.errors import FeedParseError
from service.models import FeedDoc
from service.parse.entries import LONE_SURROGATE, storable
from service.parse.jsonfeed import parse_json
from service.parse.sniff import sniff
from service.parse.xmlfeed import parse_xml

__all__ = ["LONE_SURROGATE", "parse_feed", "sniff"]


def parse_feed(body: bytes, *, content_type: str | None = None, url: str | None = None) -> FeedDoc:
    """Parse a feed document. Raises :class:`FeedParseError` with the parser's reason when
    no feed can be read; a malformed document that still yields entries comes back with
    the parser's complaint in ``problems``."""
    if not body or not body.strip():
        raise FeedParseError("feed could not be read: the document is empty")
    kind = sniff(body, content_type)
    if kind == "json" or (kind is None and body.lstrip()[:1] == b"{"):
        return storable(parse_json(body))  # JSON but no JSON Feed: it says why
    return storable(parse_xml(body, content_type, url, kind))
