"""What the POST /webhooks/feed tests (test_webhooks_api_*.py) send: the real PyTorch
blog feed, an edit of it, and a seed change record carrying it."""

from __future__ import annotations

import base64
import json
from typing import Any

from tests.conftest import DATA, PYTORCH_FEED
from tests.live import Service

HOOKS = DATA / "webhooks"
RSS = {"Content-Type": "application/rss+xml; charset=UTF-8"}
FEED_BYTES = PYTORCH_FEED.read_bytes()
PYTORCH_ITEMS = 10


def pytorch_change_record(svc: Service) -> tuple[int, dict[str, Any]]:
    """The PyTorch blog feed registered, and a seed change record carrying its artifact."""
    fid = svc.feed("https://pytorch.org/blog/feed/", name="pytorch-blog-feed")
    rec = json.loads((HOOKS / "change-record-004.json").read_text())
    rec["data"].update(
        content=base64.b64encode(FEED_BYTES).decode(),
        content_encoding="base64",
        bytes=len(FEED_BYTES),
        content_type="application/rss+xml",
    )
    return fid, rec


def edited_feed() -> bytes:
    """The PyTorch feed with its first post's text edited (a paragraph added)."""
    marker = b"<content:encoded><![CDATA["
    return FEED_BYTES.replace(marker, marker + b"<p>A paragraph added later.</p>", 1)
