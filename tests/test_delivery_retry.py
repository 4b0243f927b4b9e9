"""POST /deliveries/{id}/retry keeps what the delivery's earlier runs recorded: the real
app on loopback with its workers, real SQLite and PostgreSQL, the feed on a real HTTP
server. A retry emptied `items_new` and `item_ids` before it ran again, and a run that
found nothing new (the feed unchanged, answered 304) left them empty: which items the
delivery had created was lost."""

from __future__ import annotations

import json
from typing import Any

from service.pipeline import outcome
from tests.live import Service
from tests.origin import Origin

RSS = {"Content-Type": "application/rss+xml; charset=UTF-8"}


def rss(*posts: int) -> bytes:
    entries = "".join(
        f"<item><title>Post {i}</title><guid>urn:retry:{i}</guid>"
        f"<pubDate>Tue, 0{i} Sep 2026 10:00:00 GMT</pubDate>"
        f"<description>&lt;p&gt;Post {i}: the parser is {i + 1}x faster after the "
        "rewrite of its tokenizer.&lt;/p&gt;</description></item>"
        for i in posts
    )
    return (
        '<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
        f"<title>Retry</title><link>https://retry.example/</link>{entries}</channel></rss>"
    ).encode()


def retried(svc: Service, delivery_id: int) -> dict[str, Any]:
    r = svc.http.post(f"/deliveries/{delivery_id}/retry")
    assert r.status_code == 202, r.text
    return svc.outcome(delivery_id)


def test_a_retried_delivery_keeps_what_its_earlier_runs_recorded(
    svc: Service, origin: Origin
) -> None:
    url = origin.route("/feed", body=rss(1, 2), headers=RSS, etag='"v1"')
    fid = svc.feed(url)
    first = svc.fetched(fid)
    assert (first["items_new"], first["items_changed"]) == (2, 0), first
    created = first["item_ids"]
    assert len(created) == 2

    # Retried while the feed is as it was: answered 304, nothing new, nothing forgotten.
    same = retried(svc, first["id"])
    assert same["state"] == "processed" and "not modified" in same["problems"], same
    assert (same["items_new"], same["items_changed"]) == (2, 0)
    assert same["item_ids"] == created

    # Retried once the feed has a third post: it is added to what the delivery created.
    origin.route("/feed", body=rss(1, 2, 3), headers=RSS, etag='"v2"')
    more = retried(svc, first["id"])
    assert more["state"] == "processed", more
    assert (more["items_new"], more["items_changed"]) == (3, 0), more
    assert more["item_ids"][:2] == created and len(more["item_ids"]) == 3
    assert more["item_ids"] == sorted(more["item_ids"])
    listed = svc.http.get("/items", params={"feed_id": fid}).json()
    assert sorted(i["id"] for i in listed["items"]) == more["item_ids"]


def test_a_retried_delivery_keeps_what_its_earlier_runs_noted(svc: Service, origin: Origin) -> None:
    """Its problems were the latest run's only: a retry answered 304 said that alone, and
    the parser's complaint of the run before, or an earlier run's failure, were gone."""
    dup = "duplicate entry key 'urn:retry:1': later entry ignored"
    url = origin.route("/feed", body=rss(1, 1, 2), headers=RSS, etag='"v1"')
    fid = svc.feed(url)
    first = svc.fetched(fid)
    noted = first["problems"]  # the duplicate, and the pages not read (urn: links)

    same = retried(svc, first["id"])
    unchanged = f"{url} not modified (HTTP 304)"
    assert same["problems"] == f"{noted}; {unchanged}", same

    # A run that fails keeps what the runs before it noted; `error` is its own failure.
    origin.route("/feed", body=b"<html><body>moved</body></html>", headers={})
    failed = retried(svc, first["id"])
    assert failed["state"] == "failed" and failed["error"], failed
    assert failed["problems"] == same["problems"], failed

    # The next run succeeds: no error, the earlier failure among the problems, and a
    # note said again is said once, where it was said last (newest last).
    origin.route("/feed", body=rss(1, 1, 2, 3), headers=RSS, etag='"v3"')
    last = retried(svc, first["id"])
    assert last["state"] == "processed" and last["error"] is None, last
    # Its own notes: the duplicate again (moved last) and the new post's page (the
    # stored posts' pages are not read again); the earlier runs' notes before them.
    page = "page urn:retry:{} not read (only http(s) URLs are fetched, not urn: urn:retry:{})"
    pages = [f"{page.format(i, i)}; kept the feed's excerpt" for i in (1, 2, 3)]
    assert noted == "; ".join([dup, *pages[:2]]), noted
    failure = f"an earlier run failed: {failed['error']}"
    assert last["problems"] == "; ".join([*pages[:2], unchanged, failure, dup, pages[2]]), last
    assert (last["items_new"], len(last["item_ids"])) == (3, 3), last


def test_a_run_with_thousands_of_problems_keeps_the_first_and_counts_the_rest(
    svc: Service, origin: Origin
) -> None:
    """A run's own notes were all kept: a feed of 3,000 items that are no objects stored
    3,000 notes (some 100 KB) in the delivery's problems, on every run. The first
    RUN_PROBLEMS are kept and the rest counted, as the earlier runs' oldest notes are."""
    bad = 3000
    feed = {
        "version": "https://jsonfeed.org/version/1.1",
        "title": "Many bad items",
        "items": [
            *range(bad),
            {"id": "urn:cap:1", "title": "Post", "content_html": "<p>It is 2x faster.</p>"},
        ],
    }
    body = json.dumps(feed).encode()
    url = origin.route("/feed.json", body=body, headers={"Content-Type": "application/feed+json"})
    fid = svc.feed(url)
    first = svc.fetched(fid)
    assert first["items_new"] == 1, first
    kept = [f"item {n} is not an object: ignored" for n in range(outcome.RUN_PROBLEMS)]
    left = f"[{bad - outcome.RUN_PROBLEMS:,} more problems left out]"
    assert first["problems"] == "; ".join([*kept, left]), first["problems"][:500]
    assert len(first["problems"]) <= outcome.PROBLEMS_CHARS

    # A retry that notes the same says them once, where they were said last: no growth.
    again = retried(svc, first["id"])
    assert again["problems"] == first["problems"], again["problems"][:500]
