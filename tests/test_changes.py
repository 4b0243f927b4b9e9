"""changes: new, changed and unchanged items of a real feed, through parse and clean.

The edits mirror the PyTorch feed's history (seed 004): an ``<img>`` attribute changed
inside an existing item (cosmetic), a figure changed in a paragraph (visible), items
added at the top and rotated out at the bottom.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from service.changes import Changes, decide_changes, entry_date
from service.clean import article_from_entry
from service.models import Article
from service.parse import parse_feed

FEED = Path(__file__).parent / "data" / "corpus" / "feeds" / "pytorch-blog-2026-09-02-397d8ac.xml"
FP8_KEY = "https://pytorch.org/?p=154222"


def _articles(body: bytes) -> list[tuple[str, Article]]:
    return [(e.key, article_from_entry(e)) for e in parse_feed(body).entries]


def _known(body: bytes) -> dict[str, str]:
    return {key: a.hash for key, a in _articles(body)}


ORIGINAL = FEED.read_bytes()
KNOWN = _known(ORIGINAL)


def test_same_feed_again_changes_nothing() -> None:
    changes = decide_changes(KNOWN, _articles(ORIGINAL))
    assert changes.new == () and changes.changed == ()
    assert len(changes.unchanged) == 10


def test_img_attribute_edit_is_unchanged() -> None:
    # Seed 004: WordPress dropped fetchpriority="high" from an item's first image.
    assert ORIGINAL.count(b'fetchpriority="high" ') == 1
    edited = ORIGINAL.replace(b'fetchpriority="high" ', b"")
    assert edited.count(b'width="1024" height="689"') == 1
    edited = edited.replace(b'width="1024" height="689"', b'width="1200" height="807"')
    changes = decide_changes(KNOWN, _articles(edited))
    assert changes.changed == () and changes.new == ()
    assert len(changes.unchanged) == 10


def test_last_build_date_and_whitespace_are_unchanged() -> None:
    edited = ORIGINAL.replace(
        b"<lastBuildDate>Wed, 02 Sep 2026 18:41:48 +0000</lastBuildDate>",
        b"<lastBuildDate>Thu, 03 Sep 2026 08:00:00 +0000</lastBuildDate>",
    ).replace(b"<p>", b"<p>\n  ")
    changes = decide_changes(KNOWN, _articles(edited))
    assert changes.changed == () and len(changes.unchanged) == 10


def test_figure_edit_in_a_paragraph_is_changed() -> None:
    old = b"FP8 training delivers a 13.4% throughput gain"
    assert ORIGINAL.count(old) == 1
    edited = ORIGINAL.replace(old, b"FP8 training delivers a 13.5% throughput gain")
    changes = decide_changes(KNOWN, _articles(edited))
    assert [key for key, _ in changes.changed] == [FP8_KEY]
    assert "13.5% throughput gain" in changes.changed[0][1].text
    assert changes.new == () and len(changes.unchanged) == 9
    assert changes.to_queue == changes.changed


def test_added_item_is_new_and_rotated_out_items_are_untouched() -> None:
    item = (
        b"<item><title>Hardware-Agnostic Models in vLLM</title>"
        b"<link>https://pytorch.org/blog/hardware-agnostic-models-in-vllm/</link>"
        b'<guid isPermaLink="false">https://pytorch.org/?p=169750</guid>'
        b"<pubDate>Tue, 22 Sep 2026 15:45:46 +0000</pubDate>"
        b"<content:encoded><![CDATA[<p>Within 3.4% of the native implementation.</p>]]>"
        b"</content:encoded></item>"
    )
    body = ORIGINAL.replace(b"<item>", item + b"<item>", 1)
    # The oldest item rotates out, as in the real feed's history.
    last = body.rindex(b"<item>")
    body = body[:last] + body[body.index(b"</item>", last) + len(b"</item>") :]
    changes = decide_changes(KNOWN, _articles(body))
    assert [key for key, _ in changes.new] == ["https://pytorch.org/?p=169750"]
    assert changes.new[0][1].text == "Within 3.4% of the native implementation."
    assert changes.changed == ()
    assert len(changes.unchanged) == 9  # the rotated-out item is in no list


def test_repeated_key_counts_once() -> None:
    a = Article(title="t", text="one 1")
    b = Article(title="t", text="two 2")
    changes = decide_changes({"k": a.hash}, [("k", a), ("k", b), ("n", b), ("n", a)])
    assert changes == Changes(new=(("n", b),), changed=(), unchanged=("k",))


# --- order: an older version delivered late -----------

SEP = {d: datetime(2026, 9, d, 10, tzinfo=UTC) for d in range(1, 6)}


def test_a_version_dated_before_the_stored_one_is_older_not_changed() -> None:
    old = b"FP8 training delivers a 13.4% throughput gain"
    edited = ORIGINAL.replace(old, b"FP8 training delivers a 13.5% throughput gain")
    stored = {FP8_KEY: SEP[3]}
    older = decide_changes(KNOWN, _articles(edited), known_dates=stored, dates={FP8_KEY: SEP[2]})
    assert older.changed == () and [k for k, _ in older.older] == [FP8_KEY]
    assert older.to_queue == ()
    # Newer, equal (an edit that keeps the date), or unknown on either side: applied.
    for incoming, known in ((SEP[4], SEP[3]), (SEP[3], SEP[3]), (None, SEP[3]), (SEP[2], None)):
        applied = decide_changes(
            KNOWN, _articles(edited), known_dates={FP8_KEY: known}, dates={FP8_KEY: incoming}
        )
        assert [k for k, _ in applied.changed] == [FP8_KEY] and applied.older == ()
    # The same text dated earlier is unchanged: an order matters only for other text.
    same = decide_changes(KNOWN, _articles(ORIGINAL), known_dates=stored, dates={FP8_KEY: SEP[1]})
    assert same.older == () and len(same.unchanged) == 10


def test_entry_date_is_updated_else_published_and_not_far_ahead() -> None:
    now = datetime(2026, 9, 5, tzinfo=UTC)
    entry = parse_feed(ORIGINAL).entries[0]
    assert entry.updated is None and entry.published is not None  # RSS: pubDate only
    assert entry_date(entry, now) == entry.published
    assert entry_date(replace(entry, updated=SEP[4]), now) == SEP[4]
    assert entry_date(replace(entry, published=None), now) is None
    ahead = replace(entry, updated=now + timedelta(hours=2))  # a typo'd year, a wrong clock
    assert entry_date(ahead, now) is None
    assert entry_date(replace(entry, updated=now + timedelta(minutes=30)), now) is not None
