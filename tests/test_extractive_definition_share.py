"""The extractive engine's definitions, a few a sentence: a sentence carries at most
``IN_SENTENCE`` in itself; the others go to the note after it (two to a note), or to the
term's next use, in the same paragraph or a later one, never before the term."""

from __future__ import annotations

import re

import pytest

from service.engines.extractive.definitions import IN_SENTENCE, define
from service.models import Explainer
from service.text import split_sentences
from tests.definition_helpers import POSTS, explain_post, glossary_by_term

FLYDSL = "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"


def _glosses() -> list[str]:
    """Every definition and gloss of the glossary, longest first."""
    g = glossary_by_term().values()
    return sorted({d for e in g for d in (e.definition, e.plural, e.short) if d}, key=len)[::-1]


def _carried(sentence: str) -> int:
    """The definitions a sentence carries in itself (not a note after it)."""
    if sentence.startswith("("):
        return 0  # a note
    n = 0
    for d in _glosses():
        n += sentence.count(d)
        sentence = sentence.replace(d, "")
    return n


def _split(text: str) -> list[str]:
    """The sentences of ``text``, each note after one apart from it ("... baseline. (speedup:
    ...; BF16: ....)")."""
    return [n for s in split_sentences(text) for n in re.split(r"(?<=[.!?])\s+(?=\()", s)]


def _sentences(e: Explainer) -> list[str]:
    paras = [p for s in e.sections for p in s.paragraphs] + [e.takeaway or ""]
    return [s for p in paras for s in _split(p)]


@pytest.mark.parametrize("name", sorted(p.name for p in POSTS.iterdir()))
def test_no_sentence_of_a_corpus_explainer_carries_more_than_its_share(name: str) -> None:
    for s in _sentences(explain_post(name)):
        assert _carried(s) <= IN_SENTENCE, s


def test_the_flydsl_explainers_second_sentence_carries_three() -> None:
    """It carried geometric mean, ATen, Triton and baseline in itself, and speedup and
    BF16 in the note after it; Triton is defined at its next use now."""
    sentences = _sentences(explain_post(FLYDSL))
    second = next(s for s in sentences if s.startswith("Across the reported"))
    assert _carried(second) == IN_SENTENCE
    assert "1.20x geometric mean over Triton across" in second
    triton = glossary_by_term()["Triton"]
    later = sentences[sentences.index(second) + 1 :]
    assert any(f"Triton ({triton.short})" in s or f"Triton: {triton.short}" in s for s in later)


def test_a_crowded_sentence_moves_a_definition_to_the_terms_next_use() -> None:
    g = glossary_by_term()
    terms = [g[t] for t in ("GPU", "API", "GEMM", "RMSNorm", "TopK", "latency")]
    text = (
        "Users on AMD GPUs can now call existing operator APIs for dense GEMM, RMSNorm, and "
        "TopK. The team measured RMSNorm speed again on a second machine. Latency did not "
        "change."
    )
    defined: set[str] = set()
    out = define(text, terms, defined)
    first, *rest = _split(out)
    assert _carried(first) <= IN_SENTENCE
    # RMSNorm, met fourth, goes to the note after the sentence, or its next use; TopK,
    # said nowhere after, to the note.
    note = " ".join(s for s in rest if s.startswith("("))
    assert "TopK: " in note, out
    assert "RMSNorm" in defined and "TopK" in defined
    assert out.index(g["RMSNorm"].definition) > out.index("RMSNorm")


def test_a_definition_goes_to_a_later_paragraph_that_uses_the_term() -> None:
    """Past the note's two, a term whose next use is in a paragraph after this one is
    left for it (``later``): "define" of that paragraph defines it there."""
    g = glossary_by_term()
    terms = [g[t] for t in ("GPU", "API", "GEMM", "MXFP8", "MXFP4", "RMSNorm", "TopK")]
    text = (
        "Users on AMD GPUs can call operator APIs for dense GEMM, MXFP8/MXFP4 scaled GEMM, "
        "RMSNorm, and TopK."
    )
    later = "RMSNorm cases improve by a little on the larger shapes of the suite."
    defined: set[str] = set()
    out = define(text, terms, defined, later=later)
    assert "RMSNorm" not in defined and g["RMSNorm"].definition not in out
    assert all(len(re.findall(r"\w: ", m)) <= 2 for m in re.findall(r"\(([^()]*)\)", out))
    after = define(later, terms, defined)
    assert after.startswith(f"RMSNorm cases ({g['RMSNorm'].definition})") or (
        "RMSNorm: " in after
    ), after
    # Without a later use, the term is defined here: in a second note, two to a note.
    out = define(text, terms, set())
    assert "RMSNorm: " in out and out.count(".) (") >= 1, out
