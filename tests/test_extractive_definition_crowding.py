"""The extractive engine's definitions, crowded and hidden: a parenthesis in a sentence
holds at most two definitions (three read as a glossary dropped into the sentence, not an
aside), and a term one of a slash pair ("MXFP8/MXFP4 scaled GEMM") is a use of it, the
first the reader meets, where its definition goes."""

from __future__ import annotations

import re

import pytest

from service.engines.extractive.definitions import define
from service.models import Explainer
from service.text import split_sentences
from tests.definition_helpers import POSTS, explain_post, glossary_by_term

FLYDSL = "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"
FP8 = "pytorch-blog-fp8-training-on-amd-gpus-with-torchtitan-and-torchao.html"


def _paragraphs(e: Explainer) -> list[str]:
    return [p for s in e.sections for p in s.paragraphs] + [e.takeaway or ""]


def _labels(inside: str) -> list[str]:
    """The glossary terms named in a parenthesis ("MXFP8: ...; MXFP4: ...")."""
    return [t for t in glossary_by_term() if re.search(rf"(?:^|; ){re.escape(t)}: ", inside)]


@pytest.mark.parametrize("name", sorted(p.name for p in POSTS.iterdir()))
def test_no_parenthesis_in_a_sentence_holds_three_definitions(name: str) -> None:
    """A note after a sentence ("(kernel: ...; FP8: ....)") is set apart; one inside it
    is read through. The FlyDSL explainer's second sentence held "(speedup: ...;
    geometric mean: ...; baseline: ...)" and the FP8 one "fused Triton quantization
    kernels (kernel: ...; quantization: ...; Triton: ...)"."""
    for para in _paragraphs(explain_post(name)):
        for m in re.finditer(r"\(([^()]*)\)", para):
            if m.group(1).endswith("."):
                continue  # a note after the sentence
            assert len(_labels(m.group(1))) <= 2, m.group(0)


def test_the_fp8_explainers_kernels_share_a_parenthesis_of_two() -> None:
    sentence = (
        "Through fused Triton quantization kernels, the authors recovered 89% of the FP8 "
        "quantization overhead on DeepSeek-V3 671B MoE shapes, with individual kernel "
        "optimizations delivering up to a 6.2× speedup."
    )
    out = define(sentence, tuple(glossary_by_term().values()), set())
    groups = [m.group(1) for m in re.finditer(r"\(([^()]*)\)", out)]
    assert all(len(_labels(g)) <= 2 for g in groups), out
    # Each of the six is still defined, in the sentence or the note right after it.
    for term in ("Triton", "quantization", "kernel", "FP8", "MoE", "speedup"):
        assert f"{term}: " in out, term


@pytest.mark.parametrize(
    ("text", "term", "found"),
    [
        ("for MXFP8/MXFP4 scaled GEMM, RMSNorm", "MXFP8", ["MXFP8"]),
        ("for MXFP8/MXFP4 scaled GEMM, RMSNorm", "MXFP4", ["MXFP4"]),
        ("over the faster ATen/Triton baseline", "Triton", ["Triton"]),
        ("modern LLM/VLM-based agent applications", "LLM", ["LLM"]),
        ("trading latency/throughput at will", "latency", ["latency"]),
        # A path or a unit is no use of its words.
        ("see github.com/ROCm/aiter for it", "ROCm", []),
        ("in the repository (ROCm/aiter)", "ROCm", []),
        ("at 5,996 tokens/s", "token", []),
        ("one of ATen/Triton/CUDA", "Triton", []),
    ],
)
def test_a_term_of_a_slash_pair_is_a_use(text: str, term: str, found: list[str]) -> None:
    assert [m.group(0) for m in glossary_by_term()[term].uses(text)] == found


def test_mxfp8_is_defined_in_the_first_sentence_that_says_it() -> None:
    """The FlyDSL explainer's first sentence lists "MXFP8/MXFP4 scaled GEMM": the reader
    met MXFP8 there, bare, and had it defined two sentences on, with its 2.04x. Now the
    note right after that sentence defines both ("scaled" is no noun a definition goes
    after, and one between the pair would part it)."""
    sentences = [s for p in _paragraphs(explain_post(FLYDSL)) for s in split_sentences(p)]
    i = next(i for i, s in enumerate(sentences) if "MXFP8" in s)
    assert "MXFP8/MXFP4 scaled GEMM" in sentences[i]
    short = {t: glossary_by_term()[t].short for t in ("MXFP8", "MXFP4")}
    assert sentences[i + 1] == f"(MXFP8: {short['MXFP8']}; MXFP4: {short['MXFP4']}.)"


def test_a_slash_pair_takes_the_definitions_after_the_noun_it_modifies() -> None:
    text = "The team compared MXFP8/MXFP4 kernels on MI355X for a day."
    g = glossary_by_term()
    out = define(text, (g["MXFP8"], g["MXFP4"]), set())
    both = f"MXFP8: {g['MXFP8'].definition}; MXFP4: {g['MXFP4'].definition}"
    assert out == text.replace("kernels", f"kernels ({both})")


def test_a_figure_of_a_condition_parts_nothing_from_the_term_before_it() -> None:
    """ "throughput on 8×MI300X GPU": the figure is the condition's, and a definition
    after "throughput" parts nothing; refused, four definitions went to one note after
    the FP8 explainer's figure caption."""
    g = glossary_by_term()
    text = "A figure shows the training throughput on 8×MI300X GPU with Llama3-8B."
    out = define(text, (g["throughput"],), set())
    assert out == text.replace("throughput", f"throughput ({g['throughput'].definition})")
    # A figure said of the term still keeps a long definition away from it.
    said = "The new backend reduces latency by up to 50% on H100."
    assert f"latency ({g['latency'].definition})" not in define(said, (g["latency"],), set())
    notes = [
        m.group(1)
        for p in _paragraphs(explain_post(FP8))
        for m in re.finditer(r"\. \(([^()]*)\.\)", p)
    ]
    assert notes and all(len(_labels(n)) <= 2 for n in notes), notes


def test_a_term_ending_an_of_phrase_is_defined_in_place_before_a_figure() -> None:
    """ "a later regression check of the current all-layout kernel over the same shapes
    reported a 1.12x aggregate speedup": the figure is said of the check, not of the
    kernel its of-phrase names, and the FlyDSL explainer had "kernel" in a note after
    the sentence."""
    g = glossary_by_term()
    text = (
        "For dense GEMM, a later regression check of the current all-layout kernel over "
        "the same shapes reported a 1.12x aggregate speedup."
    )
    out = define(text, (g["kernel"],), set())
    assert out == text.replace("kernel ", f"kernel ({g['kernel'].definition}) ")
    # Said of the term, not an of-phrase's, a figure still keeps the definition away.
    said = "The current all-layout kernel over the same shapes reported a 1.12x speedup."
    assert f"kernel ({g['kernel'].definition})" not in define(said, (g["kernel"],), set())
    paragraphs = _paragraphs(explain_post(FLYDSL))
    assert not any("(kernel: " in p for p in paragraphs), paragraphs
    assert any("all-layout kernel (" in p for p in paragraphs)
