"""An item's text and where it came from (``content_source``) stay together: a text read
from the post's page is never replaced by the feed's excerpt, not even when the page is
read between a delivery's look at the items and its writes, and an edited excerpt of an
item whose page is still to be read stays "excerpt". The pipeline and real workers
against real SQLite and PostgreSQL; the pages on a real HTTP server on loopback."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from sqlalchemy import Engine

from service.worker import Worker
from tests.intake_rig import EXPLAINED, HTML, PAGE, Rig, entry, pages_seen, rigs, rss
from tests.origin import Origin, Seen

EDITED = "<p>A short teaser of the post, corrected. Read more</p>"


@pytest.fixture
def rig(db: Engine) -> Iterator[Callable[..., Rig]]:
    with rigs(db) as make:
        yield make


def test_an_excerpt_decided_before_its_page_was_read_leaves_the_page(
    rig: Callable[..., Rig], origin: Origin
) -> None:
    r = rig(page_fetches_per_delivery=1)
    first, deferred = (origin.route(f"/posts/p{i}", body=PAGE, headers=HTML) for i in (0, 1))
    # The first delivery reads post 0's page; post 1's is left to its item's worker.
    d = r.deliver(rss([entry(0, link=first), entry(1, link=deferred)]))
    assert (d.items_new, pages_seen(origin)) == (2, ["/posts/p0"])
    assert r.items()["Post 1"].content_source == "excerpt"

    # The next delivery brings post 1's excerpt, edited, and a new post 2 whose page it
    # reads. While it does, after it looked at the items and before it writes them,
    # another worker reads post 1's page and explains the post from it: the race, made
    # to happen every time.
    def read_meanwhile(_: Seen) -> tuple[int, dict[str, str], bytes]:
        with Worker(r.pipeline, stop=threading.Event()) as other:
            while other.run_once():
                pass
        return 200, HTML, PAGE

    later = origin.route("/posts/p2", handler=read_meanwhile)
    d2 = r.deliver(
        rss([entry(0, link=first), entry(1, link=deferred, text=EDITED), entry(2, link=later)])
    )
    assert pages_seen(origin) == ["/posts/p0", "/posts/p2", "/posts/p1"]  # p1 within p2
    assert (d2.state, d2.items_new, d2.items_changed, d2.problems) == ("processed", 1, 0, None)
    # The page stays, as a delivery that saw it read leaves it (the excerpt was written
    # over it, still marked "page", its item queued to explain the excerpt as the post).
    post = r.items()["Post 1"]
    assert post.content_source == "page" and "Rowwise FP8" in post.text
    assert "corrected" not in post.text and post.state in EXPLAINED
    # Read from its page, the item is left out of later deliveries as before.
    d3 = r.deliver(rss([entry(1, link=deferred, text=EDITED)]))
    assert (d3.items_new, d3.items_changed) == (0, 0)
    assert r.items()["Post 1"].text == post.text


def test_an_edited_excerpt_whose_page_is_still_to_be_read_stays_an_excerpt(
    rig: Callable[..., Rig], origin: Origin
) -> None:
    r = rig(page_fetches_per_delivery=0)
    link = origin.route("/posts/p0", body=PAGE, headers=HTML)
    r.deliver(rss([entry(0, link=link)]))
    d = r.deliver(rss([entry(0, link=link, text=EDITED)]))
    assert (d.items_new, d.items_changed) == (0, 1)
    post = r.items()["Post 0"]
    # Its text is the feed's excerpt, and its page is read before it is explained.
    assert (post.content_source, post.state) == ("excerpt", "pending")
    assert "corrected" in post.text and pages_seen(origin) == []
    r.drain()
    post = r.items()["Post 0"]
    assert post.content_source == "page" and "Rowwise FP8" in post.text
    assert post.state in EXPLAINED and pages_seen(origin) == ["/posts/p0"]


def test_an_excerpt_kept_because_its_page_was_not_read_is_replaced_as_the_feeds_text(
    rig: Callable[..., Rig], origin: Origin
) -> None:
    r = rig(page_fetches_per_delivery=1)
    gone = origin.route("/posts/gone", status=404, body=b"no")
    d = r.deliver(rss([entry(0, link=gone)]))
    assert d.problems is not None and "not read" in d.problems
    assert r.items()["Post 0"].content_source == "feed"
    d2 = r.deliver(rss([entry(0, link=gone, text=EDITED)]))
    assert d2.items_changed == 1
    post = r.items()["Post 0"]
    # The page was tried once: the edit is the feed's text, explained as it is.
    assert (post.content_source, post.state) == ("feed", "pending")
    assert "corrected" in post.text
    r.drain()
    assert r.items()["Post 0"].state in EXPLAINED
    assert len(origin.requests_to("/posts/gone")) == 1
