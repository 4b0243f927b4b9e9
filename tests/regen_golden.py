"""Golden parse results of the test feeds: ``python -m tests.regen_golden`` rewrites them.

Each feed under ``tests/data/feeds/`` (hand-written) and ``tests/data/corpus/feeds/``
(real) has ``tests/data/feeds/<name>.expected.json`` beside the hand-written ones: what
``parse_feed`` reads from it. ``tests/test_parse.py`` compares the parse with it exactly,
so any change in what the parser reads shows up as a diff to review, then to regenerate.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from service.models import FeedDoc
from service.parse import parse_feed

DATA = Path(__file__).parent / "data"
GOLDEN = DATA / "feeds"
SOURCES = (GOLDEN, DATA / "corpus" / "feeds")
_SUFFIXES = (".xml", ".json", ".atom", ".rss", ".rdf")


def _sha(text: str | None) -> str | None:
    return hashlib.sha256(text.encode("utf-8")).hexdigest() if text else None


def describe(doc: FeedDoc) -> dict[str, Any]:
    """The parse result as plain JSON data (HTML bodies by length and hash)."""
    return {
        "kind": doc.kind,
        "title": doc.title,
        "link": doc.link,
        "self_url": doc.self_url,
        "hub_urls": list(doc.hub_urls),
        "problems": list(doc.problems),
        "entry_count": len(doc.entries),
        "entries": [
            {
                "key": e.key,
                "guid": e.guid,
                "link": e.link,
                "title": e.title,
                "author": e.author,
                "published": e.published.isoformat() if e.published else None,
                "updated": e.updated.isoformat() if e.updated else None,
                "categories": list(e.categories),
                "summary_length": len(e.summary_html),
                "summary_sha256": _sha(e.summary_html),
                "has_content": e.content_html is not None,
                "content_length": len(e.content_html or ""),
                "content_sha256": _sha(e.content_html),
            }
            for e in doc.entries
        ],
    }


def cases() -> list[tuple[Path, Path]]:
    """(feed file, expected file) pairs."""
    out = []
    for folder in SOURCES:
        for path in sorted(folder.iterdir()):
            if path.suffix in _SUFFIXES and not path.name.endswith(".expected.json"):
                out.append((path, GOLDEN / f"{path.stem}.expected.json"))
    return out


def render(path: Path) -> str:
    data = describe(parse_feed(path.read_bytes()))
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=False) + "\n"


def main() -> None:
    for src, expected in cases():
        expected.write_text(render(src), encoding="utf-8")
        print(f"wrote {expected.relative_to(DATA.parent.parent)}")


if __name__ == "__main__":
    main()
