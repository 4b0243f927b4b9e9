"""The extractive engine's wording on real corpus posts: results attributed, no first
person or hype, figures with their subjects, the subject a title names, plain headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from service import clean
from service.check import check_explainer
from service.engines.base import ExplainOptions
from service.engines.extractive import (
    ExtractiveEngine,
)
from service.engines.extractive.figures import figures
from service.engines.extractive.sections import plain_heading
from service.engines.extractive.sentences import Cand, subject_of, with_subject
from service.engines.extractive.style import dehype, write_sentence
from service.engines.extractive.subject import strip_site_name
from service.engines.extractive.subject import subject as post_subject
from service.engines.extractive.subject import whole_name as _whole_name
from service.engines.extractive.words import case_table
from service.models import Article
from service.text import split_sentences
from tests.extractive_corpus import (
    FLYDSL,
    MD_POSTS,
    PROMPTS,
    _article,
    _explain,
)

# --- style ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", MD_POSTS)
def test_results_are_attributed_and_first_person_is_gone(name: str) -> None:
    text = _explain(name).all_text()
    assert re.search(r"The authors report|According to the post|The post reports", text)
    assert not re.search(r"\b(we|We|our|Our|us)\b", text)
    assert "**" not in text and "](" not in text and "`" not in text


@pytest.mark.parametrize(
    ("sentence", "attribute", "expected"),
    [
        (
            "That flywheel cut costs by 96%.",
            0,
            "According to the post, that flywheel cut costs by 96%.",
        ),
        ("The loop cut costs by 96%.", 0, "The authors report that the loop cut costs by 96%."),
        ("The loop cut costs by 96%.", 2, "The post reports that the loop cut costs by 96%."),
        ("We cut costs by 96%.", None, "The authors cut costs by 96%."),
        # "us" is "them" only once the authors are named in the sentence.
        ("We hope it helps us.", None, "The authors hope it helps them."),
        ("Join us for two days in San Jose.", None, "Join the authors for two days in San Jose."),
        ("Find us at booth B714.", None, "Find the authors at booth B714."),
        # A stop word lower-cases; a word the post never writes mid-sentence is not
        # guessed at: the attribution goes to the end.
        (
            "A tie on pass@1, but GLM-5.3 wins on pass@4.",
            1,
            "According to the post, a tie on pass@1, but GLM-5.3 wins on pass@4.",
        ),
        (
            "Performance is now up to 90% faster.",
            1,
            "Performance is now up to 90% faster, according to the post.",
        ),
        (
            "Triton is 1.2x slower. Then Triton wins.",
            1,
            "According to the post, Triton is 1.2x slower. Then Triton wins.",
        ),
        # A setting closed by a colon before a clause: after "report that", a comma.
        (
            "On 8x MI325X GPU with DeepSeek-V3 671B: this change delivered a 17% gain.",
            0,
            "The authors report that on 8x MI325X GPU with DeepSeek-V3 671B, this change"
            " delivered a 17% gain.",
        ),
        # A colon before a figure or a name is a label's: it stays.
        (
            "The result: 17% more throughput on MI325X.",
            0,
            "The authors report that the result: 17% more throughput on MI325X.",
        ),
    ],
)
def test_an_attribution_reads_as_one_sentence(
    sentence: str, attribute: int | None, expected: str
) -> None:
    assert write_sentence(sentence, attribute, case_table(sentence)) == expected


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Our groundbreaking model is 2x faster.", "Our model is 2x faster."),
        ("It runs an incredibly fast kernel.", "It runs a fast kernel."),
        # A claim about a result, kept whole.
        ("It reaches state-of-the-art accuracy.", "It reaches state-of-the-art accuracy."),
        # Negated: the word carries the meaning ("seamless scaling is not the goal").
        ("Seamless scaling is not the goal.", "Seamless scaling is not the goal."),
        ("It isn't a revolutionary design.", "It isn't a revolutionary design."),
    ],
)
def test_hype_words_go_where_the_sentence_means_the_same_without_them(
    sentence: str, expected: str
) -> None:
    assert dehype(sentence) == expected


@pytest.mark.parametrize(
    ("heading", "subject"),
    [
        ("RMSNorm: Gains Across Hidden Dimensions", "RMSNorm"),
        ("Dense GEMM: Linear-Layer Workloads", "Dense GEMM"),
        ("MXFP8 A8W8.", "MXFP8 A8W8"),
        ("Why FlyDSL as a PyTorch Backend", ""),  # too long to stand for a subject
        ("What's Next", ""),  # names nothing
        ("Results", ""),
    ],
)
def test_a_sub_heading_or_lead_in_gives_the_subject_it_names(heading: str, subject: str) -> None:
    assert subject_of(heading) == subject


@pytest.mark.parametrize(
    ("text", "subject", "written"),
    [
        (
            "Speedups over ATen are about 1.2x–1.5x.",
            "RMSNorm",
            "For RMSNorm, speedups over ATen are about 1.2x–1.5x.",
        ),
        (
            "For small K, FlyDSL achieves 4.82x over ATen.",
            "TopK",
            "For TopK and small K, FlyDSL achieves 4.82x over ATen.",
        ),
        (
            "RMSNorm is 1.2x faster.",  # says its subject already
            "RMSNorm",
            "RMSNorm is 1.2x faster.",
        ),
        ("Each kernel is tuned once.", "RMSNorm", "Each kernel is tuned once."),  # no figure
    ],
)
def test_a_figure_without_its_subject_gets_it(text: str, subject: str, written: str) -> None:
    c = Cand(text, 0, 0, 0, "prose", figures=figures(text), subject=subject)
    assert with_subject(c, case_table("speedups over the baseline")) == written


def test_flydsl_results_name_what_they_measure() -> None:
    """The post says what its figures are of in sub-headings ("RMSNorm: ...") and bold
    lead-ins ("**MXFP8 A8W8.** With ATen ..."): the explainer's sentences say it."""
    text = _explain(FLYDSL).all_text()
    assert "for RMSNorm" in text or "For RMSNorm" in text
    assert re.search(r"[Ff]or MXFP8 A8W8, with ATen \(hipBLASLt\) as the baseline", text)
    assert re.search(r"[Ff]or MXFP4 A4W4, with lm_head left unquantized", text)


@pytest.mark.parametrize(
    ("word", "text", "name"),
    [
        (
            "Northern",
            "Teachers in Northern Ireland. The Northern Ireland pilot.",
            "Northern Ireland",
        ),
        ("Hugging", "Hugging Face hosts it. Hugging Face Hub.", "Hugging Face"),
        ("Northern", "Northern Ireland once.", "Northern"),  # one sighting: no evidence
        ("Triton", "Triton Inference. Triton kernels.", "Triton"),  # not always followed
    ],
)
def test_a_subject_of_several_words_is_named_whole(word: str, text: str, name: str) -> None:
    assert _whole_name(word, text) == name


STATUS_TEXT = (
    "Oct 1, 22:36 UTC\nResolved - This issue has been resolved.\n\n"
    "Oct 1, 16:20 UTC\nInvestigating - We are investigating delays in credit purchases.\n\n"
    "Status: Resolved\n\nAll impacted services have now fully recovered.\n\n"
    "Affected components\n\n- Chat Completions (Operational)\n- Responses (Operational)"
)


@pytest.mark.parametrize(
    ("title", "text", "subject"),
    [
        # A status update's labels, time zones and determiners name nothing: the title
        # stands alone (it was "UTC: ...", "Operational: ...", "All: ...").
        ("Delays in credit purchases", STATUS_TEXT, ""),
        (
            "Elevated errors for Claude Sonnet 5",
            "Investigating - Errors for Claude Sonnet 5.\n\n" + STATUS_TEXT,
            "Claude Sonnet 5",
        ),
        # A word capitalised only where a Title Case title or a sentence starts.
        ("Piloting the world's first evaluations", "Piloting new evaluations helps.", ""),
        ("Faster kernels", "The fused kernel runs faster than the old one.", ""),
        # A compound adjective is no name, nor a word written after a version.
        ("Key announcements", "Tools for AI-native teams. More AI-native apps.", ""),
        (
            "",
            "We ran 900 DeepSWE rollouts on GLM-5.3 and GLM-5.3 Flash. Flash gives up 5.6 points.",
            "GLM-5.3 Flash",
        ),
        # One side of a comparison is not the subject; what both are run on is.
        (
            "GLM-5.3 vs. Claude Fable 5 on DeepSWE",
            "GLM-5.3 wins on DeepSWE. GLM-5.3 is cheap.",
            "DeepSWE",
        ),
        # The name the title opens with, whole.
        (
            "How Together AI built a stack",
            "Together AI built a stack with Together AI.",
            "Together AI",
        ),
        ("Together AI at ICML", "Research from Together AI. Together AI at ICML.", "Together AI"),
        ("Adaptive Learning Speculator System (ATLAS): a paradigm", "It adapts.", "ATLAS"),
    ],
)
def test_a_subject_is_a_name_the_post_is_about(title: str, text: str, subject: str) -> None:
    intro = split_sentences(text.replace("\n", " "))
    assert post_subject(title, intro, text, f"{title}\n{text}") == subject


def test_a_site_name_after_the_title_is_not_the_explainers() -> None:
    assert strip_site_name("Faster kernels | Example Blog") == "Faster kernels"
    assert strip_site_name("Faster kernels - The Acme Blog") == "Faster kernels"
    kept = "Research POV: Yes, AGI Can Happen – A Computational Perspective"
    assert strip_site_name(kept) == kept
    article = Article(
        title="Faster kernels | Example Blog",
        text="The fused kernel runs 2.5x faster than the old one on 8 GPUs.\n\n"
        "On the larger model the gain was 17% end to end.",
    )
    title = ExtractiveEngine(PROMPTS).explain(article, ExplainOptions()).explainer.title
    assert "Blog" not in title and not title.startswith("Faster:"), title


def test_flydsl_title_and_code() -> None:
    e = _explain(FLYDSL)
    assert e.title.startswith("FlyDSL: ")
    assert "1.10x" in e.title
    codes = [s.code for s in e.sections if s.code]
    assert codes == ['python -m pip install --upgrade "flydsl>=0.3.0,<0.4"']
    assert e.sections[-1].heading == "What comes next"
    assert e.takeaway and e.takeaway.startswith("The current integration connects FlyDSL")


def test_a_time_in_the_post_title_is_not_taken_for_a_subject_colon() -> None:
    """ "Aug 31, 20:36 UTC Resolved - ..." (a status page) has no subject before a colon:
    split at "20:36", the title wrote "20: 36" and the check failed its own engine."""
    source = Path(__file__).parent.parent / "eval/cases/claude-status-2026-08-31-claude-code"
    article = clean.article_from_document((source / "source.html").read_bytes())
    assert article.title.startswith("Aug 31, 20:36 UTC")
    e = ExtractiveEngine(PROMPTS).explain(article, ExplainOptions()).explainer
    assert "20:36 UTC" in e.title
    assert check_explainer(e.title, article.text, title=article.title).ok


def test_an_untitled_post_is_titled_by_its_subject_and_claim_not_its_first_sentence() -> None:
    # The corpus copy of the 2.14 release notes is the feed's HTML body: no title of its own.
    article = _article("pytorch-blog-pytorch-2-14-release-blog.html")
    assert article.title.startswith("We are excited to announce")
    title = _explain("pytorch-blog-pytorch-2-14-release-blog.html").title
    assert title == "PyTorch: 2,995 commits from 487 contributors since PyTorch 2.13"


@pytest.mark.parametrize(
    ("title", "author", "expected"),
    [
        ("Our approach to bioresilience", "Ann Lee", "Their approach to bioresilience"),
        ("We ran 900 DeepSWE rollouts on GLM-5.3", "Ann Lee", "The authors ran 900 DeepSWE"),
        # The DeepMind and Together feeds sign none of their posts: the publisher speaks.
        ("Our approach to bioresilience", None, "The team's approach to bioresilience"),
        ("We ran 900 DeepSWE rollouts on GLM-5.3", None, "The team ran 900 DeepSWE rollouts"),
    ],
)
def test_a_title_in_the_first_person_is_told_in_the_third(
    title: str, author: str | None, expected: str
) -> None:
    text = (
        "The team compared two coding agents on the same tasks over several weeks. "
        "The smaller model solved fewer tasks but cost far less per solved task overall."
    )
    article = Article(title=title, text=text, author=author)
    e = ExtractiveEngine(PROMPTS).explain(article, ExplainOptions())
    assert expected in e.explainer.title
    assert not re.search(r"\b(we|our|us)\b", e.explainer.title, re.I)


def test_headings_are_plain_statements() -> None:
    vllm = [s.heading for s in _explain(MD_POSTS[2]).sections]
    assert "How model definitions work in vLLM" in vllm  # was "How do ... work in vLLM?"
    assert "The solution" in vllm  # was "What is our solution?"
    flydsl = [s.heading for s in _explain(FLYDSL).sections]
    assert "Kernel-level performance" in flydsl  # sentence case, names kept
    assert "End-to-end vLLM inference" in flydsl


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("Compiler, Runtime, Tensor, and Observability Work", "Compiler, runtime, tensor, and"),
        ("vLLM at the Frontier", "vLLM at the"),  # an identifier keeps its case
    ],
)
def test_a_heading_opens_with_a_capital_unless_a_name_opens_it(heading: str, expected: str) -> None:
    prose = "The compiler, the runtime and the tensor work of vLLM are at the frontier."
    assert plain_heading(heading, case_table(prose)).startswith(expected)
