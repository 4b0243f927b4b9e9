"""Rendering explainers and reading them back (service/render.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from service.errors import Unprocessable
from service.models import Explainer, ExplainResult, Section, Usage
from service.render import (
    looks_like_code,
    parse_explainer,
    to_html,
    to_json,
    to_markdown,
    to_text,
)

SEED_003 = Path(__file__).parent / "data" / "seeds" / "003_9f84147b1b26c099.txt"


@pytest.fixture(scope="module")
def seed() -> str:
    return SEED_003.read_text(encoding="utf-8")


def _hostile() -> Explainer:
    """Every field carries markup that must not survive as markup."""
    return Explainer(
        title='Eve\'s <script>alert("t")</script>: a "quoted" title & more',
        sections=[
            Section(
                heading="<img src=x onerror=alert(1)> heading",
                paragraphs=[
                    "A paragraph with <b>tags</b>, *stars*, _under_ and [a link](http://x).",
                    "1. Not a heading, just a paragraph that starts with a number.",
                    "<a href=\"javascript:alert(1)\" title='x'>click</a> # not a heading",
                ],
                code='print("</code><script>bad()</script>")\n\nx = 1',
            ),
            Section(heading="Second", paragraphs=["Plain text: 1.10x and 8–256."]),
        ],
        takeaway="Takeaway with <em>markup</em>.",
    )


# --- 003, the style target ----------------------------------------------------------------


def test_003_parses_into_its_five_sections(seed: str) -> None:
    e = parse_explainer(seed)
    assert e.title == "PyTorch FlyDSL: Operator support, performance gains"
    assert [s.heading for s in e.sections] == [
        "More options in existing operator paths",
        "Measurement ranges differ by operator",
        "Results for attention and model inference",
        "Requirements and performance trade-offs",
        "Broader support is in progress",
    ]
    code = e.sections[3].code
    assert code is not None
    assert code.startswith("import torch\nimport torch._inductor.config as config")
    assert 'config.max_autotune_gemm_backends = "ATEN,TRITON,FLYDSL"' in code
    # The unfenced code lines did not leak into the paragraphs.
    assert not any("import torch" in p for s in e.sections for p in s.paragraphs)
    assert e.takeaway is not None and e.takeaway.startswith("FlyDSL adds optimization options")
    assert e.sections[4].paragraphs == [
        "The current integration targets the gfx950-based MI350 series. The source says work "
        "is underway on MI450 support, more low-precision and attention kernels, "
        "post-processing fusion that combines subsequent computations, and broader "
        "backward-pass support."
    ]


def test_003_round_trips_through_text(seed: str) -> None:
    out = to_text(parse_explainer(seed))
    assert out.split() == seed.split()
    assert out.rstrip() == seed.rstrip()  # same line layout, blank lines included


def test_003_round_trips_through_markdown(seed: str) -> None:
    e = parse_explainer(seed)
    md = to_markdown(e)
    assert md.startswith("# PyTorch FlyDSL: Operator support, performance gains\n\n## 1. ")
    assert "\n```\nimport torch\n" in md
    assert parse_explainer(md) == e


# --- layouts --------------------------------------------------------------------------------


def test_text_layout_puts_code_after_the_first_paragraph() -> None:
    e = Explainer(
        title="T: x",
        sections=[Section(heading="H", paragraphs=["First.", "Second."], code="pip install x")],
        takeaway="Done.",
    )
    assert to_text(e) == "T: x\n\n1. H\n\nFirst.\n\npip install x\n\nSecond.\n\nDone.\n"


def test_markdown_escapes_markup_and_reads_back_the_same() -> None:
    e = _hostile()
    md = to_markdown(e)
    # Markup is escaped in prose; code is fenced and stays verbatim.
    assert md.count("<script>") == 1 and '\n```\nprint("</code><script>' in md
    prose = re.sub(r"\n```\n.*?\n```\n", "\n", md, flags=re.S)
    assert re.search(r"(?<!\\)<[a-z/]", prose) is None  # every tag opener escaped
    assert "\\<script\\>" in prose
    assert "\\[a link\\](http://x)" in md
    assert "\n1\\. Not a heading" in md
    plain = Explainer(title="a: b", sections=[Section(heading="h", paragraphs=["lm_head stays."])])
    assert "lm_head stays." in to_markdown(plain)  # no noise inside identifiers
    back = parse_explainer(md)
    assert back.title == e.title
    assert back.sections[0].paragraphs == e.sections[0].paragraphs
    assert back.sections[0].code == e.sections[0].code
    assert back.takeaway is None or back.takeaway == e.takeaway


def test_html_escapes_every_string() -> None:
    out = to_html(_hostile())
    assert "<script" not in out
    assert "<img" not in out and "<b>" not in out and "<em>" not in out and "<a " not in out
    assert "&lt;script&gt;alert(&quot;t&quot;)&lt;/script&gt;" in out
    assert "Eve&#x27;s" in out  # quotes are escaped too: safe inside attributes
    assert "href=&quot;javascript:alert(1)&quot;" in out
    assert "&lt;/code&gt;&lt;script&gt;bad()&lt;/script&gt;" in out
    # The structure is the renderer's own markup.
    assert out.startswith('<article class="explainer">\n<h1>')
    assert out.count("<section>") == 2 and out.count("<pre><code>") == 1
    assert '<p class="takeaway">Takeaway with &lt;em&gt;markup&lt;/em&gt;.</p>' in out


def test_json_of_explainer_and_of_result() -> None:
    e = _hostile()
    assert Explainer.model_validate(json.loads(to_json(e))) == e
    r = ExplainResult(
        explainer=e, engine="extractive", model="extractive", prompt_version="v", usage=Usage()
    )
    data = json.loads(to_json(r))
    assert data["engine"] == "extractive" and data["explainer"]["title"] == e.title


# --- reading ----------------------------------------------------------------------------------


def test_markdown_headings_without_numbers() -> None:
    md = "# Title: what\n\n## First part\n\nOne.\n\n### Second part\n\nTwo.\n\nThree.\n"
    e = parse_explainer(md)
    assert [s.heading for s in e.sections] == ["First part", "Second part"]
    assert e.sections[1].paragraphs == ["Two.", "Three."]


def test_numbered_line_out_of_order_stays_a_paragraph() -> None:
    text = (
        "T: x\n\n1. Heading one\n\n5. Items are not headings when out of order.\n\n"
        "2. Heading two\n\nBody.\n"
    )
    e = parse_explainer(text)
    assert [s.heading for s in e.sections] == ["Heading one", "Heading two"]
    assert e.sections[0].paragraphs == ["5. Items are not headings when out of order."]


def test_takeaway_label_is_read() -> None:
    e = parse_explainer("T: x\n\n1. H\n\nBody.\n\nTakeaway: it works.\n")
    assert e.takeaway == "it works." and e.sections[0].paragraphs == ["Body."]


def test_wrapped_paragraph_lines_are_joined() -> None:
    e = parse_explainer("T: x\n\n1. H\n\nA sentence that\nwraps over lines.\n")
    assert e.sections[0].paragraphs == ["A sentence that wraps over lines."]


@pytest.mark.parametrize(
    "text",
    ["", "   \n\n", "Just a title\n\nAnd a paragraph without any section.\n", "```\ncode\n```\n"],
)
def test_unreadable_explainers_are_refused(text: str) -> None:
    with pytest.raises(Unprocessable):
        parse_explainer(text)


def test_section_without_paragraph_is_refused() -> None:
    with pytest.raises(Unprocessable, match="no paragraph"):
        parse_explainer("T: x\n\n1. Empty\n\n2. Full\n\nText.\n")


@pytest.mark.parametrize(
    "line",
    [
        "import torch",
        "from torch import nn",
        'config.max_autotune_gemm_backends = "ATEN,TRITON,FLYDSL"',
        "python -m pip install --upgrade flydsl",
        "$ cd examples",
        "out = mm(a, b)",
        "torch.compile(model)",
        "def mm(a, b):",
    ],
)
def test_code_lines(line: str) -> None:
    assert looks_like_code(line)


def test_prose_of_003_is_not_code(seed: str) -> None:
    e = parse_explainer(seed)
    for s in e.sections:
        for p in s.paragraphs:
            assert not looks_like_code(p), p


@pytest.mark.parametrize(
    "line", ["# Not a heading", "> not a quote", "- not a list", "1. not a list", "| a | b |"]
)
def test_a_paragraph_line_after_an_embedded_newline_is_no_markdown_block(line: str) -> None:
    """The block escapes held for the paragraph's first line only: "…\\n# x" became a
    heading in any Markdown reader."""
    para = f"The model writes a line break.\n{line}"
    e = Explainer(title="T", sections=[Section(heading="H", paragraphs=[para])])
    tokens = MarkdownIt("commonmark").enable("table").parse(to_markdown(e))
    kinds = [tok.type for tok in tokens if tok.nesting == 1]
    assert kinds == ["heading_open", "heading_open", "paragraph_open"], kinds
