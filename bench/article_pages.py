"""Article-page benchmark: which main-content extractor to put in front of Plainfeed's
cleaner when an excerpt-only feed sends us to the post's page.

Each corpus post (the 3 Markdown posts rendered to HTML) is placed in the page around
``tests/data/webhooks/article-page.html`` (site header and navigation, entry meta, share
widget, sidebar, footer). Each extractor's main-content HTML goes through
``service.clean.clean_html``; measured: numbers of the post's visible text kept (the oracle
of ``tests/visible.py``), page chrome that leaks in, sentences broken by inline code turned
into code blocks, and time.

    PYTHONPATH=. /work/venv/bin/python -m bench.article_pages

Prints a table and writes ``bench/results/pages.json``.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path

import trafilatura
from readability import Document

from service.clean import clean_html
from service.fetch import main_content
from tests.visible import numeric_tokens, render_markdown, visible_text

ROOT = Path(__file__).resolve().parent.parent
POSTS = ROOT / "tests" / "data" / "corpus" / "posts"
PAGE = ROOT / "tests" / "data" / "webhooks" / "article-page.html"
FP8 = POSTS / "pytorch-blog-fp8-training-on-amd-gpus-with-torchtitan-and-torchao.html"
RESULTS = ROOT / "bench" / "results" / "pages.json"
CHROME = ("Get Started", "Share this post", "Latest posts", "Letterman", "newsletter", "By AMD")


def _trafilatura(html: bytes) -> str:
    out = trafilatura.extract(
        html,
        output_format="html",
        include_tables=True,
        include_comments=False,
        include_images=False,
        include_formatting=True,
        include_links=False,
        deduplicate=False,
    )
    return clean_html(out or "")


def _readability(html: bytes) -> str:
    return clean_html(Document(html).summary(html_partial=True))


def _whole_page(html: bytes) -> str:
    return clean_html(html.decode("utf-8"))


TOOLS: dict[str, Callable[[bytes], str]] = {
    "plainfeed (readability-lxml + clean)": main_content,
    "trafilatura html + clean": _trafilatura,
    "readability-lxml + clean": _readability,
    "whole page, clean only": _whole_page,
}


def pages() -> list[tuple[str, str, bytes]]:
    """(name, post html, page bytes) for every corpus post."""
    template = PAGE.read_text(encoding="utf-8")
    fp8 = FP8.read_text(encoding="utf-8")
    assert fp8 in template
    out = []
    for path in sorted(POSTS.iterdir()):
        text = path.read_text(encoding="utf-8")
        post = render_markdown(text) if path.suffix == ".md" else text
        out.append((path.name, post, template.replace(fp8, post).encode("utf-8")))
    return out


def main() -> None:
    corpus = pages()
    rows = []
    for name, tool in TOOLS.items():
        want_all = kept_all = leaks = broken = 0
        seconds = 0.0
        for _, post, page in corpus:
            want = numeric_tokens(visible_text(post))
            t0 = time.perf_counter()
            text = tool(page)
            seconds += time.perf_counter() - t0
            want_all += len(want)
            kept_all += len(want & numeric_tokens(text))
            leaks += sum(1 for c in CHROME if c in text)
            # A code block that holds a single short token is inline code torn out of
            # its sentence.
            blocks = text.split("```")[1::2]
            broken += sum(1 for b in blocks if len(b.split()) <= 2)
        row = {
            "tool": name,
            "numbers_kept": kept_all / want_all,
            "numbers": f"{kept_all}/{want_all}",
            "chrome_leaks": leaks,
            "inline_code_torn_out": broken,
            "ms_per_page": seconds / len(corpus) * 1000,
        }
        rows.append(row)
    print(f"{len(corpus)} posts in a page with site chrome")
    print(f"{'tool':38} {'numbers kept':>16} {'chrome':>7} {'torn code':>10} {'ms/page':>8}")
    for r in rows:
        print(
            f"{r['tool']:38} {r['numbers']:>8} {r['numbers_kept']:7.2%} {r['chrome_leaks']:7d}"
            f" {r['inline_code_torn_out']:10d} {r['ms_per_page']:8.1f}"
        )
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    versions = {p: version(p) for p in ("trafilatura", "readability-lxml", "lxml")}
    RESULTS.write_text(
        json.dumps({"pages": len(corpus), "versions": versions, "rows": rows}, indent=2) + "\n"
    )
    print(f"wrote {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
