"""The extractive engine's definitions for a table read as sentences: none in a row,
where one reads as another cell, but in notes after the rows (two notes of two at most),
the others left for their next use."""

from __future__ import annotations

import re

from service.engines.extractive.definition_tables import table_notes
from service.models import Explainer
from tests.definition_helpers import explain_post, glossary_by_term

FP8 = "pytorch-blog-fp8-training-on-amd-gpus-with-torchtitan-and-torchao.html"
RELEASE = "pytorch-blog-pytorch-2-14-release-blog.html"

ROWS = (
    "Llama3-8B (dense): optimization Rowwise FP8 vs BF16; result +13.4% throughput. "
    "DeepSeek-MoE-16B: optimization Backward transpose removal + fusion; result 4.2x "
    "backward pass. DeepSeek-V3 671B: optimization Colwise scales; result 6.2x per MoE layer."
)


def _paragraphs(e: Explainer) -> list[str]:
    return [p for s in e.sections for p in s.paragraphs]


def test_the_notes_define_the_terms_of_the_rows_in_the_order_met() -> None:
    g = glossary_by_term()
    terms = [g[t] for t in ("throughput", "BF16", "fusion")]
    defined: set[str] = set()
    notes = table_notes(ROWS, terms, defined)
    assert notes == (
        f" (BF16: {g['BF16'].definition}; throughput: {g['throughput'].definition}.)"
        f" (fusion: {g['fusion'].definition}.)"
    )
    assert defined == {"BF16", "throughput", "fusion"}


def test_a_term_defined_before_takes_no_note() -> None:
    g = glossary_by_term()
    defined = {"BF16"}
    notes = table_notes(ROWS, [g["BF16"], g["throughput"]], defined)
    assert "BF16" not in notes and "throughput: " in notes


def test_past_two_notes_of_two_a_term_is_left_for_its_next_use() -> None:
    """Five terms: four in the notes, MoE (met last) left undefined here."""
    g = glossary_by_term()
    terms = [g[t] for t in ("FP8", "BF16", "throughput", "fusion", "MoE")]
    defined: set[str] = set()
    notes = table_notes(ROWS, terms, defined)
    assert len(re.findall(r" \(", notes)) == 2 and "MoE" not in notes
    assert defined == {"FP8", "BF16", "throughput", "fusion"}


def test_no_term_is_defined_past_the_cap() -> None:
    g = glossary_by_term()
    defined: set[str] = set()
    assert table_notes(ROWS, [g["BF16"], g["throughput"]], defined, most=1).count(": ") == 1
    assert len(defined) == 1


def test_the_fp8_explainers_table_has_its_terms_defined_after_the_rows() -> None:
    """Left to their next use, BF16 and throughput were defined a paragraph on, and
    "fusion" never."""
    table = next(p for p in _paragraphs(explain_post(FP8)) if p.startswith("Llama3-8B (dense)"))
    rows, _, notes = table.partition("gap. (")
    assert "(" not in rows.replace("Llama3-8B (dense)", "").replace("(7,290→1,170µs)", "")
    for term in ("BF16", "throughput", "fusion"):
        assert f"{term}: " in notes, table


def test_the_release_explainer_defines_cuda_after_its_table_of_versions() -> None:
    table = next(p for p in _paragraphs(explain_post(RELEASE)) if p.startswith("CUDA: 12.6"))
    assert table.endswith(")") and "(CUDA: " in table, table
