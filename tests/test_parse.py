"""parse: the cheap sniff and the full feed parse (golden files, formats, failures)."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from service.errors import FeedParseError
from service.parse import parse_feed, sniff
from service.parse.xmlfeed import _without_epilog
from tests.conftest import PYTORCH_FEED
from tests.regen_golden import DATA, cases, describe

CORPUS_FEEDS = DATA / "corpus" / "feeds"
PYTORCH = CORPUS_FEEDS / "pytorch-blog-2026-09-02-397d8ac.xml"


# --- golden files -------------------------------------------------------------------------


@pytest.mark.parametrize(("src", "expected"), cases(), ids=lambda p: p.name)
def test_parse_matches_golden_file(src: Path, expected: Path) -> None:
    assert expected.exists(), f"no golden file: run `python -m tests.regen_golden` ({src.name})"
    want = json.loads(expected.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(describe(parse_feed(src.read_bytes())), ensure_ascii=False))
    assert got == want


def test_golden_cases_cover_every_corpus_feed_and_each_format() -> None:
    names = {src.name for src, _ in cases()}
    assert {p.name for p in CORPUS_FEEDS.iterdir()} <= names
    kinds = {json.loads(exp.read_text())["kind"] for _, exp in cases()}
    assert kinds == {"rss", "rdf", "atom", "json"}


# --- sniff --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "content_type", "kind"),
    [
        (b'<?xml version="1.0"?>\n<rss version="2.0"><channel/></rss>', None, "rss"),
        (b'<rss version="2.0"><channel/></rss>', "text/html", "rss"),  # no XML declaration
        (b"\xef\xbb\xbf<?xml version='1.0'?><!-- generator --><rss/>", None, "rss"),
        (
            b'<?xml version="1.0"?><!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS'
            b' 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd"><rss/>',
            None,
            "rss",
        ),
        (
            b'<?xml-stylesheet href="s.xsl"?><feed xmlns="http://www.w3.org/2005/Atom"/>',
            None,
            "atom",
        ),
        (b'<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/>', None, "rdf"),
        ('<?xml version="1.0"?><feed/>'.encode("utf-16"), None, "atom"),
        (b' {"version": "https://jsonfeed.org/version/1.1", "items": []}', None, "json"),
        (b'{"items": [], "title": "x"}', "application/feed+json; charset=utf-8", "json"),
        (b'{"feed_url": "https://example.com/feed"}', "application/json", None),
        (b"<!DOCTYPE html><html><head><title>Blog</title></head></html>", "text/html", None),
        (b"<html><body><p>rss</p></body></html>", None, None),
        (b"", None, None),
        (b"   \n ", None, None),
        (bytes(range(256)) * 8, None, None),
        (b"just some text", "text/plain", None),
    ],
)
def test_sniff(body: bytes, content_type: str | None, kind: str | None) -> None:
    assert sniff(body, content_type) == kind


def test_sniff_reads_the_real_feeds() -> None:
    got = {p.name.split("-2026")[0]: sniff(p.read_bytes(), None) for p in CORPUS_FEEDS.iterdir()}
    assert got == {
        "claude-status-history-atom": "atom",
        "deepmind-blog": "rss",
        "ollama-blog": "rss",
        "openai-status-atom": "atom",
        "pytorch-blog": "rss",
        "together-blog": "rss",
    }


def test_sniff_looks_only_at_the_head() -> None:
    # A valid RSS head followed by megabytes of junk is still sniffed as RSS, quickly.
    body = b"<rss version='2.0'><channel>" + b"\x00garbage" * 500_000
    assert sniff(body, None) == "rss"


# --- parse_feed ---------------------------------------------------------------------------


def test_real_wordpress_feed() -> None:
    doc = parse_feed(PYTORCH.read_bytes(), url="https://pytorch.org/blog/feed/")
    assert doc.kind == "rss"
    assert doc.title == "Blog – PyTorch"
    assert doc.self_url == "https://pytorch.org/blog/feed/"
    assert doc.problems == ()  # the HTML comment after </rss> is no problem
    assert len(doc.entries) == 10
    first = doc.entries[0]
    assert first.key == "https://pytorch.org/?p=161911"  # guid first
    assert first.title == "PyTorch 2.14 Release Blog"
    assert first.author == "PyTorch Foundation"
    assert first.published == datetime(2026, 9, 2, 18, 41, 48, tzinfo=UTC)
    assert first.updated is None  # RSS has no update date; feedparser's fallback is not used
    assert first.categories == ("Announcements", "Blog")
    assert first.content_html is not None and len(first.content_html) > 100_000
    assert first.summary_html.startswith("We are excited to announce the release of PyTorch® 2.14")


def test_dates_are_aware_utc() -> None:
    for src, _ in cases():
        for e in parse_feed(src.read_bytes()).entries:
            for dt in (e.published, e.updated):
                assert dt is None or dt.utcoffset() == UTC.utcoffset(None), (src.name, e.key)


def test_atom_hubs_self_and_offsets() -> None:
    doc = parse_feed((DATA / "feeds" / "atom.xml").read_bytes())
    assert doc.hub_urls == ("https://pubsubhubbub.appspot.com/", "https://websub.example/hub")
    assert doc.self_url == "https://runtime.example/feed.atom"
    entry = doc.entries[0]
    assert entry.published == datetime(2026, 9, 1, 12, 30, tzinfo=UTC)  # -04:00 converted
    assert entry.content_html is not None and "<li>8 to 256 connections</li>" in entry.content_html
    assert entry.summary_html == "Non-blocking I/O lands in 0.14.2b."


def test_entry_without_summary_has_no_copied_summary() -> None:
    # feedparser copies atom:content into `summary`; FeedEntry keeps them apart.
    doc = parse_feed(
        (CORPUS_FEEDS / "claude-status-history-atom-2026-10-08-012672d.xml").read_bytes()
    )
    assert all(e.summary_html == "" and e.content_html for e in doc.entries)


def test_empty_titles_and_empty_descriptions_are_read() -> None:
    together = parse_feed((CORPUS_FEEDS / "together-blog-2026-10-06-12072ab.xml").read_bytes())
    assert sum(1 for e in together.entries if e.title == "") == 19
    deepmind = parse_feed((CORPUS_FEEDS / "deepmind-blog-2026-09-02-2371bbb.xml").read_bytes())
    assert sum(1 for e in deepmind.entries if e.summary_html == "") == 25
    assert all(e.content_html is None for e in deepmind.entries)


def test_keys_fall_back_to_link_then_hash() -> None:
    doc = parse_feed((DATA / "feeds" / "rss091.xml").read_bytes())
    assert doc.entries[0].key == "https://kernel-notes.example/tiling-gemm"
    assert doc.entries[2].key.startswith("sha256:")
    again = parse_feed((DATA / "feeds" / "rss091.xml").read_bytes())
    assert again.entries[2].key == doc.entries[2].key  # stable across parses


def test_plain_text_fields_become_html() -> None:
    doc = parse_feed((DATA / "feeds" / "jsonfeed11.json").read_bytes())
    mxfp4 = doc.entries[1]
    assert mxfp4.key == "1042"  # a numeric id
    assert mxfp4.content_html == (
        "<p>MXFP4 keeps a shared scale per 32 values.</p>\n"
        "<p>That halves storage again &lt;versus&gt; MXFP8.</p>"
    )
    assert doc.entries[0].author == "Lin, Ortiz"
    assert doc.problems == ("item 3 is not an object: ignored",)


# A feed that is not well-formed ("A & B"): feedparser's loose parser hands the author over
# HTML-escaped, the title and the summary decoded.
LOOSE_AUTHOR = (
    b'<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>T</title>'
    b"<item><title>A & B &lt;b&gt; c</title><link>https://x.example/1</link>"
    b"<author>Ann &lt;b&gt; &amp; Bo</author>"
    b"<description>&lt;p&gt;x &amp;lt;y&amp;gt; z&lt;/p&gt;</description></item>"
    b"<item><title>Two</title><link>https://x.example/2</link>"
    b"<dc:creator>Cy &lt;c&gt;</dc:creator><description>x</description></item>"
    b"</channel></rss>"
)
# Well-formed, the name's text escaped once more by the publisher's template.
ATOM_ESCAPED_AUTHOR = (
    b'<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title><entry><id>1</id>'
    b"<title>t</title><author><name>Ann &amp;lt;b&amp;gt;</name></author>"
    b'<content type="html">x</content><updated>2026-01-01T00:00:00Z</updated></entry></feed>'
)


def test_an_author_the_parser_leaves_escaped_is_unescaped_once() -> None:
    """The item page and the Atom feed showed a literal "&lt;b&gt;": the stored author
    was the parser's escaped text, escaped again on output. The title and summary were
    decoded already and stay as they were."""
    loose = parse_feed(LOOSE_AUTHOR)
    assert not loose.well_formed
    first, second = loose.entries
    assert first.author == "Ann <b> & Bo" and second.author == "Cy <c>"
    assert first.title == "A & B <b> c"
    assert first.summary_html == "<p>x &lt;y&gt; z</p>"  # HTML: escaped, as it should be
    assert parse_feed(ATOM_ESCAPED_AUTHOR).entries[0].author == "Ann <b>"
    # Well-formed, the parser decoded it: as it was.
    strict = parse_feed(LOOSE_AUTHOR.replace(b"A & B", b"A &amp; B"))
    assert strict.well_formed and strict.entries[0].author == "Ann <b> & Bo"
    assert (
        parse_feed(LOOSE_AUTHOR.replace(b"Ann &lt;b&gt;", b"<![CDATA[Ann <b>]]>")).entries[0].author
        == "Ann <b> & Bo"
    )


def test_malformed_but_readable_feed_reports_the_parser_complaint() -> None:
    doc = parse_feed((DATA / "feeds" / "malformed.xml").read_bytes())
    assert [e.title for e in doc.entries] == ["Throughput up 2.04x", "Second post"]
    assert len(doc.problems) == 1 and "not well-formed" in doc.problems[0]
    assert doc.entries[1].published is None  # "not a date"


def test_duplicate_keys_keep_the_first_entry() -> None:
    item = "<item><guid>same</guid><title>{}</title></item>"
    body = f"<rss version='2.0'><channel><title>t</title>{item.format('a')}{item.format('b')}"
    doc = parse_feed((body + "</channel></rss>").encode())
    assert [e.title for e in doc.entries] == ["a"]
    assert doc.problems == ("duplicate entry key 'same': later entry ignored",)


def test_valid_feed_without_items_is_an_empty_feed() -> None:
    doc = parse_feed(b"<rss version='2.0'><channel><title>New blog</title></channel></rss>")
    assert doc.title == "New blog" and doc.entries == ()


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"", "empty"),
        (b"  \n", "empty"),
        (b"<!DOCTYPE html><html><body><p>Hello</p></body></html>", "no RSS, Atom or RDF"),
        (bytes(range(256)), "not well-formed"),
        (b"<rss version='2.0'><channel><title>cut", "no element found"),
        (b'{"version": "https://jsonfeed.org/version/1.1", "items": [', "JSON Feed"),
        (b'{"version": "https://jsonfeed.org/version/1.1", "items": {}}', "not a list"),
        (b'{"feed_url": "https://example.com/feed"}', "unknown version"),
        (b"[1, 2]", "syntax error"),
        (b'{"version": "https://jsonfeed.org/version/1.1", "items": ' + b"[" * 100_000, "depth"),
        (b"<rss>" + b"<a>" * 10_000, "no element found"),
    ],
)
def test_unreadable_documents_raise_feed_parse_error(body: bytes, reason: str) -> None:
    with pytest.raises(FeedParseError) as err:
        parse_feed(body)
    assert reason in str(err.value)
    assert err.value.status == 422


def test_relative_links_resolve_against_the_feed_url() -> None:
    body = (
        b"<rss version='2.0'><channel><title>t</title><link>/</link>"
        b"<item><title>a</title><link>/posts/a</link></item></channel></rss>"
    )
    doc = parse_feed(body, url="https://blog.example/feed.xml")
    assert doc.link == "https://blog.example/"
    assert doc.entries[0].link == "https://blog.example/posts/a"
    assert doc.problems == ()


def test_mislabelled_content_type_is_a_problem_not_a_failure() -> None:
    body = (
        b"<rss version='2.0'><channel><title>t</title><item><title>a</title></item></channel></rss>"
    )
    doc = parse_feed(body, content_type="text/html")
    assert [e.title for e in doc.entries] == ["a"]
    assert doc.problems == ("NonXMLContentType: text/html is not an XML media type",)


def test_a_truncated_document_leaves_its_cut_entry_out() -> None:
    whole = parse_feed(PYTORCH_FEED.read_bytes())
    assert whole.well_formed
    cut = parse_feed(PYTORCH_FEED.read_bytes()[: PYTORCH_FEED.stat().st_size // 2])
    assert not cut.well_formed
    assert [e.key for e in cut.entries] == [e.key for e in whole.entries][: len(cut.entries)]
    # The last entry the loose parser returned stopped mid-way: it is not among them.
    assert any("was left out" in p for p in cut.problems)
    last = whole.entries[len(cut.entries)]
    assert last.content_html != (cut.entries[-1].content_html if cut.entries else None)


def test_a_malformed_but_whole_document_keeps_its_entries() -> None:
    doc = PYTORCH_FEED.read_bytes().replace(b"</channel>", b"<oops></channel>", 1)
    parsed = parse_feed(doc)
    assert not parsed.well_formed
    assert len(parsed.entries) == len(parse_feed(PYTORCH_FEED.read_bytes()).entries)
    assert not any("left out" in p for p in parsed.problems)


def test_values_a_database_cannot_hold_are_taken_out() -> None:
    doc = parse_feed(
        b'{"version": "https://jsonfeed.org/version/1.1", "title": "a\\u0000b",'
        b' "feed_url": "https://x.example/' + b"a" * 3000 + b'",'
        b' "items": [{"id": "i\\u00001", "content_text": "T\\u0000ext."}]}'
    )
    assert doc.title == "ab"
    assert doc.self_url is None  # longer than a URL column: not the feed's address
    assert doc.entries[0].key == "i1"
    assert "\x00" not in (doc.entries[0].content_html or "")


def test_lone_surrogates_become_replacement_characters() -> None:
    doc = parse_feed(
        b'{"version": "https://jsonfeed.org/version/1.1", "title": "a\\ud800b",'
        b' "items": [{"id": "i\\udc00", "title": "t\\udfff", "content_text": "T\\ud800ext.",'
        b' "tags": ["\\ud800"]}, {"id": "ok", "title": "\\ud83d\\ude00 pair"}]}'
    )
    assert doc.title == "a\ufffdb"
    first, second = doc.entries
    assert (first.key, first.guid, first.title) == ("i\ufffd", "i\ufffd", "t\ufffd")
    assert first.categories == ("\ufffd",)
    assert "T\ufffdext." in (first.content_html or "")
    assert second.title == "\U0001f600 pair"  # a whole pair is one character, kept
    for value in (doc.title, first.key, first.title, first.content_html or ""):
        value.encode("utf-8")


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
def test_an_element_with_thousands_of_attributes_is_refused_at_once(encoding: str) -> None:
    # feedparser's strict parser takes time growing with the square of one element's
    # attributes: these 1.2 MB took two minutes of a worker.
    crowded = " ".join(f'a{i}="1"' for i in range(100_000))
    doc = (
        f'<?xml version="1.0" encoding="{encoding}"?><rss version="2.0"><channel><title>T'
        f"</title><item><guid>1</guid><description {crowded}>t</description></item>"
        "</channel></rss>"
    ).encode(encoding)
    # Refused by counting before any parser runs: no reading of them to wait for.
    with pytest.raises(FeedParseError, match="more than 128 attributes"):
        parse_feed(doc)


def test_elements_with_their_usual_attributes_are_read() -> None:
    usual = " ".join(f'a{i}="x=1&amp;y=2"' for i in range(128))
    doc = (
        '<rss version="2.0"><channel><title>T</title><item><guid>1</guid>'
        f"<title {usual}>One</title><description><![CDATA[<p>Text.</p>]]></description>"
        "</item></channel></rss>"
    ).encode()
    assert [e.title for e in parse_feed(doc).entries] == ["One"]
    assert len(parse_feed(PYTORCH_FEED.read_bytes()).entries) == 10


def test_a_malformed_document_followed_by_many_comments_is_read_at_once() -> None:
    # What follows the root element is looked past to see whether the document was cut
    # short; 400,000 trailing comments (3.2 MB) took 15 s, a 10 MiB feed minutes.
    doc = (
        b'<rss version="2.0"><channel><title>T</title><oops><item><guid>1</guid>'
        b"<title>t</title></item></channel></rss>\n" + b"<!-- cached -->\n <?pi x?>" * 200_000
    )
    # The guard times the look past the epilog alone (milliseconds; the quadratic one took
    # 15 s): feedparser's own linear reading of 4.8 MB takes seconds on a loaded machine.
    started = time.monotonic()
    assert _without_epilog(doc).endswith(b"</rss>")
    assert time.monotonic() - started < 5
    parsed = parse_feed(doc)
    assert not parsed.well_formed and [e.key for e in parsed.entries] == ["1"]
    # Cut short after the comments began: still seen as cut short.
    cut = parse_feed(doc[: doc.index(b"</item>")] + b"<!-- x -->")
    assert any("ends before its root element closes" in p for p in cut.problems)


def test_a_document_that_is_not_its_declared_encoding_is_read_in_linear_time() -> None:
    """One byte that is no UTF-8 in a document declared UTF-8 sent feedparser to chardet,
    whose scan of letters takes time growing with the square of the longest run of them:
    12,000 letters took half a minute, a 300 KB run hours of a worker (its lease renewed
    all along). Read as windows-1252 instead, what browsers read such bytes as."""
    run = b"a" * 12_000
    body = (
        b'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel>'
        b"<title>Caf\xe9 notes</title><link>https://cafe.example/</link>"
        b"<item><guid>urn:cafe:1</guid><title>Caf\xe9</title><description>"
        + run
        + b"</description></item></channel></rss>"
    )
    began = time.monotonic()
    doc = parse_feed(body)
    took = time.monotonic() - began
    assert took < 5  # was ~35 s; linear, it is milliseconds
    assert doc.title == "Café notes" and [e.title for e in doc.entries] == ["Café"]
    assert "a" * 1000 in (doc.entries[0].summary_html or "")
