"""clean: Markdown and plain text, articles from feed entries and whole documents, and which
entries are excerpts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from service.clean import (
    article_from_document,
    article_from_entry,
    clean_markdown,
    clean_plain,
    is_excerpt,
)
from service.errors import InputError, Unprocessable
from service.models import FeedEntry
from service.parse import parse_feed
from service.text import split_blocks
from tests.conftest import CORPUS

# --- markdown and plain text --------------------------------------------------------------------


def test_clean_markdown() -> None:
    md = (
        "---\ntitle: Front matter\n---\n"
        "Title\n=====\n\n"
        'PyTorch users on **MI350** can use\n[FlyDSL](https://github.com/ROCm/FlyDSL "t") and '
        "[the docs][docs].\n\n"
        "![A chart of 1.10x](_static/chart.png)\n"
        "[![badge 2.0](https://img/badge.svg)](https://ci)\n"
        "<!-- IMAGE 1: a figure\nover two lines -->\n\n"
        "Op | Speedup\n--- | ---:\nGEMM | 1.10x\nTopK | 4.82x\n\n"
        "```python\n# [not a link](x) ![nor an image](y)\nx = 1\u00a0 # **kept**\n```\n\n"
        "Latency\u00a041\u202fms at 21\u223623, non\u2011blocking, \\*literal\\* &amp; 3 \\$\n"
        "`C00`–`C11` and `` a`b **c** `` at 10<sup>9</sup>\n\n"
        "***\n\n"
        "[docs]: https://docs.example\n"
    )
    text = clean_markdown(md)
    assert text == (
        "# Title\n\n"
        "PyTorch users on MI350 can use\nFlyDSL and the docs.\n\n"
        "| Op | Speedup |\n| --- | ---: |\n| GEMM | 1.10x |\n| TopK | 4.82x |\n\n"
        "```python\n# [not a link](x) ![nor an image](y)\nx = 1  # **kept**\n```\n\n"
        "Latency 41 ms at 21:23, non-blocking, *literal* & 3 $\n"
        "C00–C11 and a`b **c** at 10^9"
    )
    table = next(b for b in split_blocks(text) if b.kind == "table")
    assert table.header == ("Op", "Speedup")
    assert table.rows == (("GEMM", "1.10x"), ("TopK", "4.82x"))


def test_a_sentence_a_scraper_broke_after_a_code_span_is_one_paragraph_again() -> None:
    """Scraped Markdown puts a blank line after each inline code span of some posts:
    ". In case (3), ..." and "for each flat model, that implements ..." became
    paragraphs (and broken sentences of the explainer) of their own."""
    md = (CORPUS / "posts" / "pytorch-blog-hardware-agnostic-models-in-vllm.md").read_text()
    text = clean_markdown(md)
    assert "imported from vllm/model_executor/layers. In case (3), the transformers" in text
    assert "we plan to provide a new model.py for each flat model, that implements" in text
    assert "reside in a shared place (model_executor/hw_agnostic), whereas" in text
    assert "\n\n." not in text and "\n\n," not in text and "\n\n)" not in text
    # A new paragraph is one: after a code span, a capital letter starts a sentence.
    assert clean_markdown("Run `make`\n\nThen read the log.") == "Run make\n\nThen read the log."
    # A list item after a code span stays an item.
    assert clean_markdown("- one `a`\n\n- two") == "- one a\n\n- two"


def test_clean_markdown_keeps_the_corpus_tables_and_code() -> None:
    md = (
        CORPUS / "posts" / "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"
    ).read_text()
    blocks = split_blocks(clean_markdown(md))
    tables = [b for b in blocks if b.kind == "table"]
    assert len(tables) == 1 and len(tables[0].rows) == 5
    assert tables[0].rows[0][2] == "torch.mm"
    code = [b for b in blocks if b.kind == "code"]
    assert len(code) == 4
    assert any("\n        ScalingType.BlockWise1x32,\n" in c.text for c in code)
    prose = "\n".join(b.text for b in blocks if b.kind != "code")
    assert "](" not in prose and "`" not in prose and "**" not in prose


def test_clean_plain() -> None:
    text = "Title\r\n\r\n\r\n\r\nLine\u00a0one  has  spaces\nline two\u2011x \n```\n"
    assert clean_plain(text) == "Title\n\nLine one  has  spaces\nline two-x\n\\```"


# --- articles -------------------------------------------------------------------------------------


def _entry(**kw: object) -> FeedEntry:
    base: dict[str, object] = {
        "key": "k",
        "guid": "k",
        "link": "https://blog.example/p",
        "title": "A title",
        "author": "Ada",
        "published": None,
        "updated": None,
        "summary_html": "",
        "content_html": None,
    }
    base.update(kw)
    return FeedEntry(**base)  # type: ignore[arg-type]


def test_article_from_entry_prefers_content() -> None:
    when = datetime(2026, 9, 1, tzinfo=UTC)
    e = _entry(
        title="Release\u00a02.14", summary_html="<p>Short...</p>",
        content_html="<p>Full 2.14 text.</p>", updated=when,
    )  # fmt: skip
    a = article_from_entry(e)
    assert (a.title, a.text, a.url, a.author, a.published) == (
        "Release 2.14", "Full 2.14 text.", "https://blog.example/p", "Ada", when,
    )  # fmt: skip
    assert a.content_source == "feed" and len(a.hash) == 64
    b = article_from_entry(_entry(summary_html="<p>Only the summary.</p>", content_html="<p></p>"))
    assert b.text == "Only the summary."


@pytest.mark.parametrize(
    ("html", "title"),
    [
        # A release post carried without its title: its section heading is not its title.
        (
            "<p>We released Foo 2.1 today!</p><p>More text.</p><h2>Performance</h2><p>Fast.</p>",
            "We released Foo 2.1 today!",
        ),
        # A lead-in ("TL;DR") names nothing: the words after it do.
        ("<p><strong>TL;DR</strong></p><p>Foo got faster.</p><h2>Details</h2>", "Foo got faster."),
        ("<h2>TL;DR</h2><p>Foo got faster.</p>", "Foo got faster."),
        # A fragment that opens with a heading: that heading.
        ("<h2>Foo 2.1 is out</h2><p>It is faster.</p>", "Foo 2.1 is out"),
        # A first sentence with the bracket or quote its stop closes (it was cut at the
        # stop: "Foo 2.1 is out (and 2x faster."; and read on past a curly quote).
        ("<p>Foo 2.1 is out (and 2x faster.) More text.</p>", "Foo 2.1 is out (and 2x faster.)"),
        ("<p>Ada said “Foo 2.1 is out.” More text.</p>", "Ada said “Foo 2.1 is out.”"),
    ],
)
def test_an_untitled_fragment_is_titled_by_how_it_opens(html: str, title: str) -> None:
    assert article_from_document(html.encode(), filename="post.html").title == title


def test_article_from_entry_with_empty_title_takes_its_first_words() -> None:
    a = article_from_entry(_entry(title="", summary_html="<p>" + "word " * 20 + "</p>"))
    assert a.title == " ".join(["word"] * 12) + " …"
    assert article_from_entry(_entry(title="", summary_html="")).title == ""


PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8">
<title>FP8 training | PyTorch</title>
<meta property="og:title" content="FP8 Training on AMD GPUs">
<meta name="author" content="AMD &amp; Meta">
<meta property="article:published_time" content="2026-08-20T10:00:00+02:00">
<script>window.x = 1</script></head>
<body><nav><a>Home</a><a>Blog 2026</a></nav>
<header><h1>Site header</h1></header>
<article><h1>FP8 Training on AMD GPUs</h1><p>A 13.4%\u00a0gain.</p>
<div class="sharedaddy">Share 5</div></article>
<aside>Related: 3 posts</aside><footer>&copy; 2026</footer></body></html>"""


def test_article_from_html_document() -> None:
    a = article_from_document(PAGE.encode("utf-8"), filename="post.html", url="https://x/p")
    assert a.title == "FP8 Training on AMD GPUs"
    assert a.text == "# FP8 Training on AMD GPUs\n\nA 13.4% gain."
    assert a.author == "AMD & Meta"
    assert a.published == datetime(2026, 8, 20, 8, tzinfo=UTC)
    assert a.url == "https://x/p" and a.content_source == "file"


def test_article_from_html_document_without_article_uses_body_minus_chrome() -> None:
    page = PAGE.replace("<article>", "<div>").replace("</article>", "</div>")
    page = page.replace('<meta property="og:title" content="FP8 Training on AMD GPUs">', "")
    a = article_from_document(page, kind="html")
    assert a.title == "FP8 training | PyTorch"
    assert a.text == "# Site header\n\n# FP8 Training on AMD GPUs\n\nA 13.4% gain."


def test_article_from_document_guesses_the_kind() -> None:
    md = article_from_document(b"# Hardware-agnostic models\n\nWithin [3.4%](x) of native.")
    assert (md.title, md.text) == (
        "Hardware-agnostic models", "# Hardware-agnostic models\n\nWithin 3.4% of native.",
    )  # fmt: skip
    txt = article_from_document("Incident report\n\nErrors rose to 5% for 20 minutes.")
    assert txt.title == "Incident report"
    frag = article_from_document("<p>Just a fragment with 2 numbers: 3</p>")
    assert frag.text == "Just a fragment with 2 numbers: 3"
    given = article_from_document("Some text.", title="Given\u00a0title")
    assert given.title == "Given title"


def test_article_from_document_decodes_bytes() -> None:
    latin = '<html><head><meta charset="iso-8859-1"></head><body><p>Caf\xe9 5</p></body></html>'
    assert article_from_document(latin.encode("latin-1")).text == "Café 5"
    assert article_from_document("Caf\xe9 6".encode("cp1252"), kind="text").text == "Café 6"
    assert article_from_document("\ufeffBOM 7".encode(), kind="text").text == "BOM 7"


def test_article_from_document_rejects_empty_and_unknown() -> None:
    with pytest.raises(Unprocessable):
        article_from_document("<html><body><script>1</script></body></html>")
    with pytest.raises(Unprocessable):
        article_from_document(b"")
    with pytest.raises(InputError):
        article_from_document("x", kind="pdf")  # type: ignore[arg-type]


def test_corpus_posts_as_documents() -> None:
    for path in sorted((CORPUS / "posts").iterdir()):
        a = article_from_document(path.read_bytes(), filename=path.name)
        assert a.title and a.words > 500, path.name
    flydsl = article_from_document(
        (
            CORPUS / "posts" / "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"
        ).read_bytes()
    )
    assert flydsl.title == "Accelerating PyTorch on AMD GPUs with FlyDSL"


# --- excerpts -------------------------------------------------------------------------------------


def _feed(name: str) -> list[FeedEntry]:
    [path] = (CORPUS / "feeds").glob(name + "*")
    return list(parse_feed(path.read_bytes()).entries)


def test_is_excerpt_on_the_corpus() -> None:
    assert not any(is_excerpt(e) for e in _feed("pytorch-blog"))
    assert not any(is_excerpt(e) for e in _feed("openai-status"))
    assert not any(is_excerpt(e) for e in _feed("claude-status"))
    assert all(is_excerpt(e) for e in _feed("ollama-blog"))
    assert all(is_excerpt(e) for e in _feed("together-blog"))
    assert all(is_excerpt(e) for e in _feed("deepmind-blog"))


@pytest.mark.parametrize(
    ("summary", "content", "excerpt"),
    [
        ("<p>The first lines&#8230;</p>", "<p>The first lines [&#8230;]</p>", True),
        ("", "<p>The first lines [...]</p>", True),
        ("", "<p>The first lines …</p>", True),
        ("", '<p>Intro. <a class="more-link">Continue reading <span>Post</span></a></p>', True),
        ("<p>Intro...</p>", "<p>" + "full text " * 150 + "to be continued...</p>", False),
        ("<p>Intro...</p>", "<p>The whole post, 2 sentences. Done.</p>", False),
        ("<p>" + "a whole post in the description " * 50 + "</p>", None, False),
        ("<p>" + "a long cut description " * 50 + "[&hellip;]</p>", None, True),
        ("<p>A short description.</p>", None, True),
        ("", None, True),
    ],
)
def test_is_excerpt(summary: str, content: str | None, excerpt: bool) -> None:
    assert is_excerpt(_entry(summary_html=summary, content_html=content)) is excerpt


def test_real_status_feed_entry_reads_as_text() -> None:
    [entry] = [e for e in _feed("claude-status") if "\u2236" in (e.content_html or "")]
    text = article_from_entry(entry).text
    assert text.startswith("Aug 31, 20:36 UTC\nResolved - The issue affecting Claude Code")
    assert "Impact occurred from 16:55 to 19:16 UTC." in text
    assert "\u2236" not in text


def test_real_feed_item_drops_images_and_keeps_code() -> None:
    article = article_from_entry(_feed("pytorch-blog")[6])
    assert article.title == "Harnessing AI for Day-One Model Enablement"
    assert "wp-content/uploads" not in article.text and "<img" not in article.text
    code = [b for b in split_blocks(article.text) if b.kind == "code"]
    assert len(code) == 2 and code[0].text.startswith("def gelu_forward(self, x):")
