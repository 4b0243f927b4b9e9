"""changes: new, changed and unchanged items of a real feed, through parse and clean.

The edits mirror the PyTorch feed's history (seed 004): an ``<img>`` attribute changed
inside an existing item (cosmetic), a figure changed in a paragraph (visible), items
added at the top and rotated out at the bottom.
"""

from __future__ import annotations

from pathlib import Path

from service.changes import Changes, decide_changes
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
