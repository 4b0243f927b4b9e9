"""The extractive engine's definitions on real corpus posts: a glossary term the
explainer uses is defined where the reader first meets it in prose, even where it only
modifies a noun ("per MoE layer", "BF16 dense GEMM") or stands inside parentheses
("(geometric mean across three recent models)"), places where no definition went."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

from service import clean, parse
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
from service.engines.extractive.definitions import define
from service.engines.extractive.glossary import GlossaryEntry, load_glossary
from service.errors import TemplateError
from service.models import Explainer
from service.text import split_sentences
from tests.definition_helpers import CORPUS, POSTS, PROMPTS, explain_post, glossary_by_term

FP8 = "pytorch-blog-fp8-training-on-amd-gpus-with-torchtitan-and-torchao.html"


@cache
def _explain_item(feed: str, title: str) -> Explainer:
    entries = parse.parse_feed((CORPUS / "feeds" / feed).read_bytes()).entries
    article = next(a for a in map(clean.article_from_entry, entries) if a.title.startswith(title))
    return ExtractiveEngine(PROMPTS).explain(article, ExplainOptions()).explainer


def _prose(e: Explainer) -> str:
    return "\n".join([p for s in e.sections for p in s.paragraphs] + [e.takeaway or ""])


def _defined(text: str, term: str) -> bool:
    """Whether ``term`` is defined in ``text``, at full length or by its short gloss."""
    e = glossary_by_term()[term]
    return any(d in text for d in (e.definition, e.plural, e.short) if d)


@pytest.mark.parametrize(
    ("explainer", "terms"),
    [
        (lambda: explain_post(FP8), ("BF16", "MoE")),
        (
            lambda: explain_post("pytorch-blog-hardware-agnostic-models-in-vllm.md"),
            ("geometric mean",),
        ),
        (
            lambda: explain_post("pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"),
            ("geometric mean",),
        ),
        (
            lambda: _explain_item(
                "pytorch-blog-2026-09-02-397d8ac.xml", "FP8 Training on AMD GPUs"
            ),
            ("BF16", "MoE"),
        ),
    ],
)
def test_a_term_used_is_defined(explainer: object, terms: tuple[str, ...]) -> None:
    """They were used and left undefined: every use modified a noun, stood inside
    parentheses or shared its sentence with another definition."""
    assert callable(explainer)
    text = _prose(explainer())
    for term in terms:
        assert glossary_by_term()[term].pattern.search(text), term
        assert _defined(text, term), term


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A term that modifies a noun is defined after the noun phrase, named again.
        (
            "The speedup came from one MoE layer.",
            "The speedup came from one MoE layer (MoE: a mixture-of-experts model, where"
            " each input uses only some sub-networks).",
        ),
        (
            "They measured the BF16 dense GEMM over the faster of ATen and Triton.",
            "They measured the BF16 dense GEMM (BF16: a compact number format that keeps the"
            " range of full precision with fewer digits) over the faster of ATen and Triton.",
        ),
        # Inside parentheses, a comma sets it apart: parentheses within parentheses
        # would not read.
        (
            "Throughput is close (geometric mean across three recent models).",
            "Throughput is close (geometric mean, an average suited to ratios such as"
            " speedups, across three recent models).",
        ),
    ],
)
def test_a_definition_finds_a_place_where_the_term_is_first_used(text: str, expected: str) -> None:
    glossary = [glossary_by_term()[t] for t in ("MoE", "BF16", "geometric mean")]
    assert define(text, glossary, set()) == expected


def test_two_terms_of_one_noun_phrase_share_a_parenthesis() -> None:
    """ "the kernel launches and HBM round-trips around it" (the FP8 post): two
    definitions four words apart read as a list of asides, so "kernel" took the
    sentence's and HBM went undefined. Joined by "and" in one noun phrase, the two share
    one parenthesis; FP8 and quantization are defined earlier in that explainer."""
    post = clean.article_from_document((POSTS / FP8).read_bytes(), filename=FP8).text
    sentence = next(s for s in split_sentences(post) if "HBM round-trips" in s)
    assert define(sentence, list(glossary_by_term().values()), {"FP8", "quantization"}).endswith(
        "but the kernel launches and HBM round-trips (kernel: code containing the computation"
        " steps to execute on a chip; HBM: high-bandwidth memory stacked next to the chip)"
        " around it are not."
    )
    # Not across a clause: a comma between them parts two phrases, each defined in its own.
    glossary = [glossary_by_term()[t] for t in ("kernel", "HBM")]
    text = "The kernel launches are costly, and HBM round-trips are too."
    assert define(text, glossary, set()) == (
        "The kernel launches (kernel: code containing the computation steps to execute on a"
        " chip) are costly, and HBM round-trips (HBM: high-bandwidth memory stacked next to"
        " the chip) are too."
    )


def test_a_participle_after_a_term_is_no_noun_it_modifies() -> None:
    """ "the baseline built to get in front of users quickly": "built" starts a clause,
    so the definition does not go between it and "baseline" as after a noun."""
    prose = _prose(explain_post("pytorch-blog-how-shopify-built-a-continual-learning-loop.md"))
    assert "the baseline built to get in front of users quickly" in prose
    assert "built (baseline:" not in prose


def test_a_term_inside_a_capitalised_name_is_not_that_term() -> None:
    """ "dispatch for AMD via the Composable Kernel backend (...; kernel: code containing
    the computation steps ...)": the name of AMD's kernel library is no use of "kernel".
    A capital that only starts a sentence, or beside a stop word, is the term still."""
    glossary = [glossary_by_term()["kernel"]]
    text = "They dispatch for AMD via the Composable Kernel backend."
    assert define(text, glossary, set()) == text
    assert define("Kernel launches are costly.", glossary, set()) != "Kernel launches are costly."
    assert define("The Kernel launches are costly.", glossary, set()).count("(") == 1
    prose = _prose(explain_post(FP8))
    assert "Composable Kernel backend" in prose
    assert not re.search(r"Composable Kernel backend \([^)]*kernel:", prose)


FLYDSL = "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"
SHOPIFY = "pytorch-blog-how-shopify-built-a-continual-learning-loop.md"


def test_a_term_said_right_before_its_figure_gets_its_short_gloss() -> None:
    """ "time-to-first-token dropped about 19%": every use of latency, throughput and
    time-to-first-token in the Shopify explainer stood right before a figure, where a
    definition parts the figure from its name, and all three went undefined. A gloss of a
    few words right after the term parts nothing."""
    prose = _prose(explain_post(SHOPIFY))
    short = {
        t: glossary_by_term()[t].short for t in ("latency", "throughput", "time-to-first-token")
    }
    assert f"reducing latency ({short['latency']}) and cutting costs by 96%" in prose
    assert f"time-to-first-token ({short['time-to-first-token']}) dropped about 19%" in prose
    assert f"raises throughput ({short['throughput']}): about 16% more" in prose
    # Without a short gloss, the rule stands: no definition right before a figure. Nor
    # past it, where it reads as said of the figure: after the sentence, named.
    e = glossary_by_term()["latency"]
    bare = GlossaryEntry(e.term, e.definition, e.pattern)
    text = "It cut latency by 38%."
    assert define(text, [bare], set()) == f"{text} (latency: {e.definition}.)"


def test_a_long_explainer_defines_its_jargon_in_short_glosses_within_its_words() -> None:
    """At full length the FlyDSL explainer's definitions ran past the words an explainer
    has (900): DSL, MLIR and nightly were cut, and FP8, FP4, ROCm and vLLM found no place
    (they modify "E4M3", "PyTorch nightly", "A/B tests")."""
    explainer = explain_post(FLYDSL)
    prose = _prose(explainer)
    for term in ("FP8", "FP4", "ROCm", "vLLM", "MLIR", "DSL", "nightly"):
        assert _defined(prose, term), term
    words = [s.heading for s in explainer.sections] + [explainer.title, prose]
    assert len(" ".join(words).split()) <= 900
    assert "ROCm PyTorch nightly (ROCm: AMD's GPU software stack; nightly:" in prose


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Two terms modifying one noun phrase share the parenthesis after it.
        (
            "Use a recent ROCm PyTorch nightly for new GPUs.",
            "Use a recent ROCm PyTorch nightly (ROCm: AMD's software platform for programming"
            " its GPUs; nightly: a build published every day from the latest code) for new GPUs.",
        ),
        # A code of capitals and digits is a noun a term modifies, not a figure.
        (
            "It accepts FP8 E4M3 operands.",
            "It accepts FP8 E4M3 operands (FP8: a very compact number format that uses fewer"
            " bits per value).",
        ),
    ],
)
def test_a_term_modifying_a_name_is_defined_after_it(text: str, expected: str) -> None:
    glossary = [glossary_by_term()[t] for t in ("ROCm", "nightly", "FP8")]
    assert define(text, glossary, set()) == expected


@pytest.mark.parametrize(
    ("text", "defined"),
    [
        # A plain word capitalised after the name, outside title case: a longer name.
        ("NVIDIA's Triton Inference Server serves the model over HTTP.", False),
        ("Their Triton Kernel Library ships next month.", False),
        # Title case capitalises every word: the capital tells nothing. A real title of
        # the PyTorch blog, about Triton the language.
        (
            "Portable PyTorch Across AI Accelerators: A Triton Operator Stack from Eager"
            " Mode to vLLM",
            True,
        ),
        ("Making vLLM Faster on Intel GPUs with Triton Kernels", True),
        # A longer name the glossary knows is something else, title case or not.
        ("Deploying Models with Triton Inference Server", False),
        # An acronym or a name with a capital inside is what the name qualifies.
        ("The Triton GEMM kernels are fast.", True),
        ("They compared it with Triton. Inference is fast.", True),
    ],
)
def test_a_capitalised_term_is_not_a_word_of_a_longer_name(text: str, defined: bool) -> None:
    """ "Triton" matched inside "Triton Inference Server" and took the language's
    definition. Whether the next word's capital makes one longer name depends on title
    case: reading only the next word ("in the definition?") also unmatched "A Triton
    Operator Stack", a title about Triton the language."""
    triton = glossary_by_term()["Triton"]
    assert (define(text, [triton], set()) != text) is defined
    assert bool(list(triton.uses(text))) is defined


def test_a_name_with_a_capital_inside_after_a_term_is_no_longer_name() -> None:
    """ "ROCm PyTorch nightly" is PyTorch built for ROCm: the term is defined there."""
    rocm = glossary_by_term()["ROCm"]
    text = "Use a recent ROCm PyTorch build for new GPUs."
    assert define(text, [rocm], set()) == (
        f"Use a recent ROCm PyTorch build (ROCm: {rocm.definition}) for new GPUs."
    )


def test_a_glossary_names_the_longer_names_a_term_is_not(tmp_path: Path) -> None:
    (tmp_path / "glossary.yaml").write_text(
        "terms:\n  Gemma:\n    define: a family of open models\n    others: [Gemma Scope]\n",
        encoding="utf-8",
    )
    (gemma,) = load_glossary(tmp_path / "glossary.yaml")[1]
    assert gemma.others == ("Gemma Scope",)
    assert not list(gemma.uses("They trained Gemma Scope on it."))
    assert list(gemma.uses("They trained Gemma on it."))
    (tmp_path / "bad.yaml").write_text(
        "terms:\n  Gemma:\n    define: a family of open models\n    others: Gemma Scope\n",
        encoding="utf-8",
    )
    with pytest.raises(TemplateError, match="others of 'Gemma'"):
        load_glossary(tmp_path / "bad.yaml")


def test_every_term_the_flydsl_explainer_uses_is_defined() -> None:
    """ "In end-to-end vLLM A/B tests (vLLM: ...; MXFP8: ...)": the one place after "A/B
    tests" went to vLLM, MXFP8 (met a few words on) took a seat beside it, and A/B test,
    used nowhere else, was never defined. The cap was not the cause: 26 terms were placed,
    under its 40. Each term of the glossary the explainer uses is defined now, in the
    sentence the reader first meets it in (a table row read as a sentence aside)."""
    prose = _prose(explain_post(FLYDSL))
    # In the order the reader meets them: vLLM, then A/B test.
    assert "In end-to-end vLLM A/B tests (vLLM: a model-serving engine; A/B test: a side" in prose
    for e in glossary_by_term().values():
        if e.pattern.search(_without_definitions(prose)):
            assert _defined(prose, e.term), e.term


def _without_definitions(text: str) -> str:
    """``text`` with every definition blanked out ("dtype: a tensor's number format" uses
    no "tensor" the reader meets bare), each character where it was."""
    glosses = {
        d for e in glossary_by_term().values() for d in (e.definition, e.plural, e.short) if d
    }
    for d in sorted(glosses, key=len, reverse=True):
        text = text.replace(d, " " * len(d))
    return text


def test_a_definition_comes_after_the_term_it_defines() -> None:
    """ "accepts FP8 E4M3 (FP8: ...; FP4: ...) or packed FP4 E2M1 operands": FP4's gloss
    joined FP8's, before the reader met FP4. Two terms of one phrase share the parenthesis
    after both; a term that finds no room joins the next definition of its sentence."""
    prose = _prose(explain_post(FLYDSL))
    fp8, fp4 = glossary_by_term()["FP8"].short, glossary_by_term()["FP4"].short
    assert f"accepts FP8 E4M3 or packed FP4 E2M1 operands (FP8: {fp8}; FP4: {fp4})," in prose
    # MXFP8 and MXFP4 of the results: each defined in the sentence, after its name (in
    # the explainer, the first sentence's "MXFP8/MXFP4 scaled GEMM" defines them now).
    results = (
        "In end-to-end vLLM A/B tests, whole-request speedup reaches 1.13x for BF16, 2.04x "
        "for MXFP8, and 3.01x for MXFP4, with the result depending on model and concurrency."
    )
    out = define(results, tuple(glossary_by_term().values()), set())
    for term in ("MXFP8", "MXFP4"):
        assert out.index(f" {term}") < out.index(glossary_by_term()[term].definition), out
    text = "It accepts FP8 E4M3 or packed FP4 E2M1 operands, with one scale per block."
    glossary = [glossary_by_term()[t] for t in ("FP8", "FP4")]
    assert define(text, glossary, set()) == text.replace(
        "operands,",
        f"operands (FP8: {glossary[0].definition}; FP4: {glossary[1].definition}),",
    )
    # Across the corpus posts: no definition before the first use of its term (its name
    # in a parenthesis, "(FP4: ...", is none).
    names = [p.name for p in POSTS.iterdir()]
    for name in names:
        text = _prose(explain_post(name))
        bare = _without_definitions(text)
        for e in glossary_by_term().values():
            glosses = [text.find(d) for d in {e.definition, e.plural, e.short} if d and d in text]
            uses = [m for m in e.uses(bare) if not bare.startswith(": ", m.end())]
            if glosses and uses:
                assert uses[0].start() < min(glosses), (name, e.term)
