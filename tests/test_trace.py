"""The layout of an explainer's numbers against its source (pure functions)."""

from __future__ import annotations

from service.models import CheckReport, CheckStatus, Explainer, NumberVerdict, Section
from service.web.trace import inline_html, plain_text, source_blocks, trace

SOURCE = """# Faster kernels

The new kernel is **1.10x** faster on MI355X. It was measured on 8 GPUs.

- Memory fell by 40% in the [second run](https://example.org/run).

| Model | Speedup |
| --- | --- |
| Llama-3.1-8B | 1.13x |
| Qwen3-32B | 1.06x |

```
speed = 1.10
```
"""


def verdict(text: str, sentence: str, status: str = "supported", **kw: object) -> NumberVerdict:
    return NumberVerdict(
        text=text, kind="quantity", status=CheckStatus(status), sentence=sentence, **kw
    )


def test_source_blocks_give_every_sentence_and_row_an_id() -> None:
    blocks = source_blocks(SOURCE)
    assert [b.kind for b in blocks] == ["heading", "paragraph", "list_item", "table", "code"]
    assert [s.id for s in blocks[1].sentences] == ["b1-s0", "b1-s1"]
    assert blocks[1].sentences[1].text == "It was measured on 8 GPUs."
    assert [r.id for r in blocks[3].rows] == ["b3-r0", "b3-r1"]
    assert blocks[3].rows[1].cells == ("Qwen3-32B", "1.06x")
    assert blocks[4].code == "speed = 1.10"


def test_a_sentence_starting_with_a_code_name_is_its_own_as_the_check_quotes_it() -> None:
    # The check's index starts a sentence at a code name in lower case; the page's did
    # not, and lit "Cholesky gets faster on MPS." with the sentence the 2x is of.
    source = "# MPS\n\nCholesky gets faster on MPS. lu_factor moves to Metal and is 2x faster.\n"
    quoted = "lu_factor moves to Metal and is 2x faster."
    blocks = source_blocks(source)
    assert [s.text for s in blocks[1].sentences] == ["Cholesky gets faster on MPS.", quoted]
    said = "On Apple GPUs, lu_factor is 2x faster."
    ex = Explainer(title="MPS", sections=[Section(heading="Results", paragraphs=[said])])
    report = CheckReport(numbers=[verdict("2x", said, source=quoted, source_block=1)])
    t = trace(ex, report, source)
    assert [n.target for n in t.numbers] == ["b1-s1"]
    assert t.cited == frozenset({"b1-s1"})


def test_numbers_point_at_their_sentence_row_or_nothing() -> None:
    s1 = "The kernel is 1.10x faster, measured on 8 GPUs."
    s2 = "Qwen3-32B gained 1.06x and memory fell 40%."
    s4 = "Llama-3.1-8B gained 1.13x."
    s3 = "It is 42 times better."
    ex = Explainer(
        title="Kernels: 1.10x faster",
        sections=[Section(heading="Results", paragraphs=[s1, s2 + " " + s3, s4])],
    )
    report = CheckReport(
        numbers=[
            verdict(
                "1.10x",
                "Kernels: 1.10x faster",
                source="The new kernel is **1.10x** faster on MI355X.",
                source_block=1,
            ),
            verdict(
                "1.10x", s1, source="The new kernel is **1.10x** faster on MI355X.", source_block=1
            ),
            verdict("8", s1, "derived", source="It was measured on 8 GPUs.", source_block=1),
            verdict("1.06x", s2, source="| Qwen3-32B | 1.06x |", source_block=3),
            verdict(
                "40%",
                s2,
                "misattached",
                source="Memory fell by 40% in the [second run](https://example.org/run).",
                source_block=2,
            ),
            verdict("42", s3, "unsupported"),
            # a row quoted with its column labels, as the check writes rows
            verdict("1.13x", s4, source="Model: Llama-3.1-8B | Speedup: 1.13x", source_block=3),
        ]
    )
    t = trace(ex, report, SOURCE)
    assert [n.target for n in t.numbers] == [
        "b1-s0",
        "b1-s0",
        "b1-s1",
        "b3-r1",
        "b2-s0",
        None,
        "b3-r0",
    ]
    assert t.placed == frozenset(range(7))
    assert "".join(p.text for p in t.title) == "Kernels: 1.10x faster"
    assert [p.number for p in t.title if p.number is not None] == [0]
    para = t.sections[0].paragraphs[1]
    marked = [(p.text, t.numbers[p.number].status) for p in para if p.number is not None]
    assert marked == [("1.06x", "supported"), ("40%", "misattached"), ("42", "unsupported")]
    assert t.count("supported") == 4
    # only supported and derived numbers make a source sentence "cited"
    assert t.cited == frozenset({"b1-s0", "b1-s1", "b3-r1", "b3-r0"})


def test_a_number_written_twice_in_a_sentence_gets_both_verdicts_in_order() -> None:
    s = "It ran 2 ways on 2 GPUs, 12 times."
    ex = Explainer(title="T", sections=[Section(heading="H", paragraphs=[s])])
    report = CheckReport(
        numbers=[verdict("2", s), verdict("2", s, "unsupported"), verdict("12", s)]
    )
    pieces = trace(ex, report, "It ran 2 ways on 2 GPUs, 12 times.").sections[0].paragraphs[0]
    assert [(p.text, p.number) for p in pieces if p.number is not None] == [
        ("2", 0),
        ("2", 1),
        ("12", 2),
    ]
    # "2" never matches inside "12": numbers are whole tokens
    assert "".join(p.text for p in pieces) == s


def test_a_number_the_explainer_does_not_show_stays_in_the_list_unplaced() -> None:
    ex = Explainer(title="T", sections=[Section(heading="H", paragraphs=["Nothing here."])])
    report = CheckReport(numbers=[verdict("3.5", "A sentence the explainer lacks 3.5.")])
    t = trace(ex, report, SOURCE)
    assert t.placed == frozenset()
    assert len(t.numbers) == 1


def test_without_a_sentence_match_the_number_points_at_its_block() -> None:
    ex = Explainer(title="T", sections=[Section(heading="H", paragraphs=["About 77 of them."])])
    report = CheckReport(
        numbers=[verdict("77", "About 77 of them.", source="77 (paraphrased)", source_block=1)]
    )
    assert trace(ex, report, SOURCE).numbers[0].target == "b1"


def test_inline_html_keeps_links_bold_and_code_and_nothing_else() -> None:
    html = inline_html(
        "See [the run](https://example.org/a?b=1&c=2), **bold** and `x < y`. "
        '<script>alert(1)</script> [bad](javascript:alert(1)) <img src=x onerror="alert(1)"> '
        "![chart](https://example.org/c.png)"
    )
    assert (
        '<a href="https://example.org/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">the run</a>'
        in html
    )
    assert "<strong>bold</strong>" in html
    assert "<code>x &lt; y</code>" in html
    assert "<script" not in html and "&lt;script&gt;" in html
    assert "<img" not in html and 'href="javascript' not in html
    assert "[bad](javascript:alert(1))" in html  # left as text
    assert "[image: chart]" in html


def test_plain_text_drops_inline_markup() -> None:
    assert plain_text(
        "A **1.10x** gain in [the run](https://x.example) with `code` ![c](i.png)"
    ) == ("A 1.10x gain in the run with code c")
