"""JSON Feed 1.0/1.1, read by hand (feedparser 6.0.x has no JSON Feed support)."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Mapping
from typing import Any

from service.dates import utc_from_iso
from service.errors import FeedParseError
from service.models import FeedDoc, FeedEntry
from service.parse.entries import dedupe, make_entry, plain_text


def _json_str(value: object) -> str | None:
    if isinstance(value, str):
        return value.strip() or None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)  # JSON Feed 1.0 producers sometimes write numeric ids
    return None


def _json_author(item: Mapping[str, Any]) -> str | None:
    authors = item.get("authors")
    if not isinstance(authors, list):
        author = item.get("author")  # JSON Feed 1.0
        authors = [author] if isinstance(author, dict) else []
    names = [
        a["name"].strip() for a in authors if isinstance(a, dict) and isinstance(a.get("name"), str)
    ]
    names = [n for n in names if n]
    return ", ".join(names) or None


def _text_to_html(text: str) -> str:
    paras = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "\n".join(
        "<p>" + html.escape(p, quote=False).replace("\n", "<br>\n") + "</p>" for p in paras
    )


def parse_json(body: bytes) -> FeedDoc:
    try:
        doc = json.loads(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise FeedParseError(f"JSON Feed could not be read: {exc}") from exc
    if not isinstance(doc, dict):
        raise FeedParseError("JSON Feed could not be read: top level is not an object")
    version = doc.get("version")
    if not isinstance(version, str) or not version.startswith("https://jsonfeed.org/version/"):
        raise FeedParseError(f"JSON Feed could not be read: unknown version {version!r}")
    items = doc.get("items")
    if not isinstance(items, list):
        raise FeedParseError("JSON Feed could not be read: `items` is not a list")
    problems: list[str] = []
    entries: list[FeedEntry] = []
    for n, item in enumerate(items):
        if not isinstance(item, dict):
            problems.append(f"item {n} is not an object: ignored")
            continue
        content = _json_str(item.get("content_html"))
        if content is None and _json_str(item.get("content_text")):
            content = _text_to_html(str(item["content_text"]))
        summary = _json_str(item.get("summary"))  # plain text in JSON Feed
        tags = item.get("tags")
        entries.append(
            make_entry(
                guid=_json_str(item.get("id")),
                link=_json_str(item.get("url")) or _json_str(item.get("external_url")),
                title=plain_text(_json_str(item.get("title"))),
                author=_json_author(item),
                published=utc_from_iso(item.get("date_published")),
                updated=utc_from_iso(item.get("date_modified")),
                summary_html=html.escape(summary, quote=False) if summary else "",
                content_html=content,
                categories=tuple(t.strip() for t in tags if isinstance(t, str) and t.strip())
                if isinstance(tags, list)
                else (),
            )
        )
    hubs_raw = doc.get("hubs")
    hubs = (
        tuple(h["url"] for h in hubs_raw if isinstance(h, dict) and isinstance(h.get("url"), str))
        if isinstance(hubs_raw, list)
        else ()
    )
    return FeedDoc(
        kind="json",
        title=plain_text(_json_str(doc.get("title"))),
        link=_json_str(doc.get("home_page_url")),
        self_url=_json_str(doc.get("feed_url")),
        hub_urls=hubs,
        entries=dedupe(entries, problems),
        problems=tuple(problems),
    )
