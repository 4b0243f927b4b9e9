"""The extractive engine on short, empty and odd input, tables, sentence order, the
number check over its explainers, and who speaks in a post nobody signs."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from service import clean, parse
from service.check import check_explainer
from service.engines.base import ExplainOptions
from service.engines.extractive import (
    ExtractiveEngine,
    build_explainer,
    number_tokens,
    paragraphs,
)
from service.engines.extractive.blocks import table_sentences
from service.engines.extractive.figures import figures
from service.engines.extractive.fragments import has_no_finite_verb, is_noun_phrase
from service.engines.extractive.plan import _with_antecedent
from service.engines.extractive.sentences import Cand, Draft
from service.engines.extractive.style import third_person, voice_of, write_sentence
from service.engines.extractive.words import case_table
from service.errors import EngineError
from service.models import Article, CheckReport
from service.render import parse_explainer, to_text
from service.text import split_blocks
from tests.extractive_corpus import (
    ALL_POSTS,
    DATA,
    FLYDSL,
    PROMPTS,
    S,
    _article,
    _explain,
)

# --- short, empty and odd input ---------------------------------------------------------------


def test_excerpt_gives_a_short_explainer() -> None:
    article = Article(
        title="Gemma 4 on MLX",
        text="Gemma 4 now runs on Apple silicon with MLX. Decoding is 2.1x faster with "
        "multi-token prediction on an M4 Max.",
    )
    e = ExtractiveEngine(PROMPTS).explain(article, ExplainOptions()).explainer
    assert 1 <= len(e.sections) <= 3
    assert "2.1x" in e.all_text()
    assert ":" in e.title


@pytest.mark.parametrize("text", ["", "   \n\n  ", "```\nprint(1)\n```\n"])
def test_no_text_is_an_engine_error(text: str) -> None:
    with pytest.raises(EngineError):
        ExtractiveEngine(PROMPTS).explain(Article(title="Something", text=text), ExplainOptions())


def test_post_without_headings_is_split_into_sections() -> None:
    paragraphs = [
        f"Paragraph {i} says the system handled {i}0 requests per second on the test rig "
        f"while keeping latency under control for the users."
        for i in range(1, 10)
    ]
    article = Article(title="Serving: a plain post", text="\n\n".join(paragraphs))
    e = ExtractiveEngine(PROMPTS).explain(article, ExplainOptions()).explainer
    assert len(e.sections) == 3
    assert e.sections[0].heading == "What is new"


def test_feed_items_never_crash_and_pass_the_number_check() -> None:
    engine = ExtractiveEngine(PROMPTS)
    explained = 0
    flagged = []
    for feed in sorted((DATA / "feeds").glob("*.xml")):
        doc = parse.parse_feed(feed.read_bytes())
        for entry in doc.entries:
            article = clean.article_from_entry(entry)
            if not article.text.strip():
                with pytest.raises(EngineError):
                    engine.explain(article, ExplainOptions())
                continue
            e = engine.explain(article, ExplainOptions()).explainer
            for tok in number_tokens(e.all_text()):
                assert tok in article.text or tok in article.title, (feed.name, tok)
            report = check_explainer(e, article.text, title=article.title)
            flagged += [(article.title, n.text, n.status) for n in report.numbers if n.status != S]
            explained += 1
    assert explained > 100
    assert flagged == []


@pytest.mark.parametrize("name", ALL_POSTS)
def test_every_number_passes_the_check(name: str) -> None:
    """Not only verbatim: each figure stands with what the post says it of (no table row
    losing its header, no range end alone, no pronoun without its sentence)."""
    article, e = _article(name), _explain(name)
    report = check_explainer(e, article.text, title=article.title)
    assert [(n.text, n.status, n.sentence) for n in report.numbers if n.status != S] == []


def test_table_rows_read_as_label_column_cell() -> None:
    (versions,) = split_blocks(
        "| Component | 2.13 | 2.14 |\n| --- | --- | --- |\n"
        "| ROCm | 7.1, 7.2 | 7.2, 7.14. 7.1 dropped; 7.14 via TheRock |\n"
        "| Python | 3.10 to 3.15, incl. 3.14t | unchanged |\n"
    )
    assert table_sentences(versions) == [
        "ROCm: 7.1, 7.2 in 2.13; 7.2, 7.14, 7.1 dropped, 7.14 via TheRock in 2.14.",
        "Python: 3.10 to 3.15, incl. 3.14t in 2.13; unchanged in 2.14.",
    ]
    (results,) = split_blocks(
        "| Workload | Optimization | Result | PR |\n| --- | --- | --- | --- |\n"
        "| Llama3-8B (dense) | Rowwise FP8 vs BF16 | +13.4% throughput | #2736 |\n"
    )
    assert table_sentences(results) == [
        "Llama3-8B (dense): optimization Rowwise FP8 vs BF16; result +13.4% throughput."
    ]


def _cand(text: str, block: int, index: int) -> Cand:
    c = Cand(text, 0, block, index, "prose")
    c.figures = figures(text)
    c.words = len(text.split())
    c.bare = not any(w[:1].isupper() for w in text.split()[1:])
    c.leans = text.startswith("They ")
    return c


def test_a_sentence_whose_figures_name_nothing_never_follows_another_topic() -> None:
    backward = _cand("On MI300X with DeepSeek-MoE-16B, fusions gave 4.2x.", 0, 0)
    forward = _cand("Quantizing weights added ~90 ms/step of overhead per call.", 1, 1)
    after = _cand("A fused kernel cut it to 7 ms in the forward pass overall.", 1, 2)
    assert paragraphs([backward, forward, after]) == [[backward], [forward, after]]


def test_a_pronoun_sentence_comes_with_its_antecedent() -> None:
    tpu = _cand("This demo shows TorchTPU on Cloud TPUs for serving.", 0, 0)
    flag = _cand("The speakers report testing FlagOS on many AI chips.", 1, 1)
    they = _cand("They report 5–40% inference performance improvement.", 1, 2)
    draft = Draft(sections=[], cands=[tpu, flag, they], codes={}, headline=set())
    flag.base = -100.0  # when the sentence it leans on cannot be kept, neither can it
    assert _with_antecedent(draft, they, [tpu]) == []
    flag.base = 0.0
    assert _with_antecedent(draft, they, [tpu]) == [flag, they]
    assert _with_antecedent(draft, they, [tpu, flag]) == [they]
    (para,) = paragraphs([tpu, flag, they])  # short sentences share a paragraph ...
    assert para[para.index(they) - 1] is flag  # ... and the pronoun follows its sentence


def test_title_claims_keep_ranges_whole_and_versions_with_their_names() -> None:
    doc = parse.parse_feed((DATA / "feeds" / "pytorch-blog-2026-09-02-397d8ac.xml").read_bytes())
    titles = {}
    for entry in doc.entries:
        article = clean.article_from_entry(entry)
        titles[article.title] = ExtractiveEngine(PROMPTS).explain(article, ExplainOptions())
    vllm = titles["vLLM Sessions at PyTorch Conference North America 2026"].explainer.title
    assert "7.5x" not in vllm or "4.8x to 7.5x" in vllm


def test_repair_is_not_offered() -> None:
    engine = ExtractiveEngine(PROMPTS)
    result = engine.explain(_article(FLYDSL), ExplainOptions())
    assert engine.repair(_article(FLYDSL), result, CheckReport(), ExplainOptions()) is None
    assert result.engine == "extractive" and result.model == "extractive"
    assert result.prompt_version == engine.identity(ExplainOptions())[1]


@pytest.mark.parametrize("name", ALL_POSTS)
def test_explainers_round_trip_through_text(name: str) -> None:
    e = _explain(name)
    assert to_text(parse_explainer(to_text(e))) == to_text(e)


def test_hype_words_go_and_a_promotional_excerpt_still_explains() -> None:
    article = Article(
        title="Putting sign language AI into users’ hands",
        text="Introducing sign-language-to-text (SL2T), our breakthrough model powering new "
        "sign language features for Deaf and hard of hearing users.",
    )
    e = ExtractiveEngine(PROMPTS).explain(article, ExplainOptions()).explainer
    text = e.all_text()
    assert "breakthrough" not in text and "our " not in text
    assert "their model powering new sign language features" in text


def test_a_single_long_sentence_is_still_explained() -> None:
    text = (
        "Avanika Narayan, Dan Biderman, and Sabri Eyuboglu from Christopher Ré's Stanford "
        "Hazy Research lab, along with Avner May, Scott Linderman, James Zou, have developed "
        "a way to shift a substantial portion of LLM workloads to consumer devices by having "
        "small on-device models (such as Llama 3.2 with Ollama) collaborate with larger "
        "models in the cloud (such as GPT-4o)."
    )
    article = Article(title="Minions: where local and cloud LLMs meet", text=text)
    e = ExtractiveEngine(PROMPTS).explain(article, ExplainOptions()).explainer
    assert len(e.sections) == 1 and "Llama 3.2" in e.all_text()
    assert e.title.startswith("Minions: ")


def test_a_kept_caption_says_what_it_is() -> None:
    """A caption is a noun phrase ("Figure 1: Rowwise FP8 training throughput on ..."):
    kept, it reads as a sentence that says a figure of the post shows it."""
    prose = _explain(
        "pytorch-blog-fp8-training-on-amd-gpus-with-torchtitan-and-torchao.html"
    ).all_text()
    # ("throughput" is defined after the table of results before it.)
    assert "A figure in the post shows the Rowwise FP8 training throughput on 8×MI300X GPU" in prose
    assert "on 8×MI300X GPU with Llama3-8B" in prose
    assert "\nRowwise FP8 training throughput" not in prose


def test_a_list_fragment_without_a_verb_of_its_own_is_no_sentence() -> None:
    """A scraped list item that is a noun phrase was kept as a sentence: "Today, vLLM
    offers three flavours of model definitions. The new “flat” models which live under
    vllm/models/." (a status page's "Codex Web (Operational)." too)."""
    text = _explain("pytorch-blog-hardware-agnostic-models-in-vllm.md").all_text()
    assert "three flavours of model definitions" in text
    assert "models which live under" not in text
    for fragment in (
        "The new “flat” models which live under vllm/models/.",
        "The transformers modeling backend, which imports models from transformers.",
        "Models which run on GPUs.",
    ):
        assert is_noun_phrase(fragment), fragment
    for sentence in (
        "The models which live there are new.",
        "Those who use it see gains.",
        "It supports models which run on GPUs.",
        "Our models run fast, which helps.",
        "Where possible, the layers fall back to torch ops.",
        "vLLM offers three flavours of model definitions.",
    ):
        assert not is_noun_phrase(sentence), sentence
    assert has_no_finite_verb("Codex Web (Operational).")
    assert has_no_finite_verb("Python 3.14 support.")
    for item in ("GPUs share memory.", "The kernel improved throughput by 2x.", "It's faster."):
        assert not has_no_finite_verb(item), item
    status = Article(
        title="Elevated errors",
        text=(
            "Elevated errors on ChatGPT for some users. All impacted services have now fully"
            " recovered.\n\nAffected components\n\n- Codex Web (Operational)\n"
            "- Image Generation (Operational)\n"
        ),
    )
    assert "(Operational)" not in build_explainer(status).all_text()


def test_a_status_page_or_an_unsigned_notice_speaks_as_the_team_not_the_authors() -> None:
    """A status page's "We will provide an update" was "The authors will provide an
    update": no one authored it. The publisher's "we" is "the team", its verb agreeing;
    a signed post and a document given as a file keep "the authors"."""
    feed = (DATA / "feeds" / "claude-status-history-atom-2026-10-08-012672d.xml").read_bytes()
    status = [clean.article_from_entry(e) for e in parse.parse_feed(feed).entries]
    texts = [build_explainer(a).all_text() for a in status]
    assert not any("authors" in t for t in texts)
    said = " ".join(texts)
    for phrase in (
        "The team is investigating elevated errors",
        "The team will provide an update as soon as possible.",
        "The team has identified the cause of elevated errors",
        "and is working on a fix",  # the second verb of the same subject agrees too
    ):
        assert phrase in said, phrase
    post = (
        "# Faster kernels\n\nWe rewrote the attention kernels. We are measuring a 1.5x"
        " speedup over the old kernels on MI355X. Our next step is FP8.\n"
    )
    unsigned = Article(title="Faster kernels", text=post, content_source="feed")
    signed = Article(title="Faster kernels", text=post, author="Ann Lee", content_source="feed")
    as_file = Article(title="Faster kernels", text=post, content_source="file")
    assert [voice_of(a) for a in (unsigned, signed, as_file)] == ["team", "authors", "authors"]
    incident = Article(title="Errors", text=post, url="https://status.example.com/incidents/x1")
    assert voice_of(incident) == "team"
    team = " ".join(p for sec in build_explainer(unsigned).sections for p in sec.paragraphs)
    assert "The team rewrote the attention kernels." in team and "authors" not in team
    assert "The team reports that" in team or "the team is measuring" in team.lower()
    assert "The authors rewrote the attention kernels." in build_explainer(signed).all_text()
    # The team is one: its verbs agree, and "our" is its own.
    for we, team_says in (
        ("We're seeing elevated latency.", "The team is seeing elevated latency."),
        ("We continue to monitor closely.", "The team continues to monitor closely."),
        (
            "While we work on a fix, we now expect delays.",
            "While the team works on a fix, the team now expects delays.",
        ),
        ("We have refreshed our visual identity.", "The team has refreshed its visual identity."),
        (
            "Our team will post an update when we have more to share.",
            "The team will post an update when the team has more to share.",
        ),
        (
            "Our newest model is out. Find us at booth B714.",
            "The team's newest model is out. Find the team at booth B714.",
        ),
        (
            "We ran 904 rollouts and will publish them.",
            "The team ran 904 rollouts and will publish them.",
        ),
        (
            "We introduce gist tokens and show a 3x saving, and release notes follow.",
            "The team introduces gist tokens and shows a 3x saving, and release notes follow.",
        ),
    ):
        assert third_person(we, "team") == team_says
    case = case_table(post)
    said = write_sentence("It is 1.5x faster than before on MI355X.", 0, case, "team")
    assert said.startswith("The team reports that ")


def test_a_title_claim_keeps_the_article_of_who_speaks() -> None:
    """ "Autotuning did not help, team tried 8–16 configurations": the claim lost the
    "the" of its subject, as "authors tried ..." did in a signed post."""
    doc = parse.parse_feed((Path(__file__).parent / "data" / "feeds" / "rdf.xml").read_bytes())
    entry = next(e for e in doc.entries if e.title == "Autotuning did not help")
    for author, who in ((None, "the team"), ("Ann Lee", "the authors")):
        article = replace(clean.article_from_entry(entry), author=author)
        title = build_explainer(article).title
        assert title == f"Autotuning did not help, {who} tried 8–16 configurations"
