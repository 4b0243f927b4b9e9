"""clean: a plain-text source's first line is its title only where it reads as one (a
Markdown heading, or one short line of one sentence); a first paragraph is no title. The
check reads the title as the post's own words for every figure: a first line taken whole
made the names of its sentences the whole post's (clean.text_title)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from service.clean import article_from_document, text_title

ROOT = Path(__file__).parent.parent

# A first paragraph of two sentences on one line, naming the MI300X; the kernel's 50
# tokens/s is said of no GPU.
PARAGRAPH = (
    "We ran the first tests on the MI300X last week. The numbers below are from the "
    "second round.\n\nThe kernel reached 50 tokens/s.\n"
)
TITLED = "MI300X tests\n\nThe kernel reached 50 tokens/s.\n"
EXPLAINER = "The MI300X reaches 50 tokens/s.\n"


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Incident report\n\nErrors rose to 5% for 20 minutes.", "Incident report"),
        ("# Incident report\n\nErrors rose to 5%.", "Incident report"),
        ("## Foo 2.1 is out ##\nIt is 2x faster.", "Foo 2.1 is out"),
        # A short line the body follows directly, or one sentence standing alone.
        ("Introducing Foo 2.0\nFoo 2.0 is 3x faster.", "Introducing Foo 2.0"),
        ("What is new in Foo v2.1?\n\nIt is faster.", "What is new in Foo v2.1?"),
        ("Foo 2.0 is out.\n\nIt is 3x faster.", "Foo 2.0 is out."),
        ("Foo vs. Bar: 2x faster\n\nThe body.", "Foo vs. Bar: 2x faster"),
    ],
)
def test_a_first_line_that_reads_as_a_title_is_the_title(text: str, title: str) -> None:
    assert text_title(text) == title
    assert article_from_document(text, filename="post.txt").title == title


@pytest.mark.parametrize(
    "text",
    [
        # Two sentences: a paragraph (was the title whole, as it was <= 200 characters).
        PARAGRAPH,
        'Use ShapeVar("batch", min=2, max=128) for the batch dimension. The cache holds 64.',
        "Ollama 0.31 is out! It is up to 90% faster on Apple Silicon.\n\nMore.",
        # One long line (was titled by its first sentence or its first 12 words).
        "A six-month long pilot program with the Northern Ireland Education Authority's "
        "C2k initiative found that integrating Gemini and other generative AI tools saved "
        "participating teachers an average of 10 hours per week.",
        # A sentence that runs on to the next line, or a line the next one continues.
        "The kernel reached 50 tokens/s on the MI300X.\nThe H100 reached 60 tokens/s.",
        "We ran the kernel on the MI300X and\nthe H100 for 3 hours.",
        # A lead-in, a list's first item, a table's first row.
        "The results:\n\n- 50 tokens/s on the MI300X",
        "Summary\n\nThe kernel reached 50 tokens/s.",
        "- 50 tokens/s on the MI300X\n- 60 tokens/s on the H100",
        "| GPU | tokens/s |\n|---|---|\n| MI300X | 50 |",
    ],
)
def test_a_first_line_that_reads_as_no_title_gives_none(text: str) -> None:
    assert text_title(text) == ""
    assert article_from_document(text, filename="post.txt").title == ""


def test_a_given_title_and_other_kinds_are_as_before() -> None:
    assert article_from_document(PARAGRAPH, kind="text", title="Given").title == "Given"
    # Markdown and HTML still fall back to their first sentence.
    md = article_from_document("Foo 2.1 is out. It is 2x faster.", filename="post.md")
    assert md.title == "Foo 2.1 is out."


def _check(tmp_path: Path, source: str) -> tuple[int, dict[str, Any]]:
    (tmp_path / "explainer.md").write_text(EXPLAINER, encoding="utf-8")
    (tmp_path / "post.txt").write_text(source, encoding="utf-8")
    args = ["--explainer", "explainer.md", "--source", "post.txt", "--json"]
    done = subprocess.run(
        [sys.executable, "-m", "service", "check", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


@pytest.mark.slow
def test_plainfeed_check_reads_a_first_paragraph_as_no_title(tmp_path: Path) -> None:
    # Was exit 0: the paragraph was the title, its MI300X the post's subject, and the
    # kernel's 50 tokens/s passed for the MI300X.
    code, report = _check(tmp_path, PARAGRAPH)
    figure = [n for n in report["numbers"] if n["text"] == "50 tokens/s"]
    assert code == 1
    assert [n["status"] for n in figure] == ["misattached"]
    # A title line names the post's subject, as before.
    code, report = _check(tmp_path, TITLED)
    assert code == 0, report
