"""The evaluation set and its runner: case files, annotations, metrics, the CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from service import evaluate as ev
from service.errors import EvalCaseError
from service.models import CheckReport, CheckStatus, Explainer, NumberVerdict, Section

ROOT = Path(__file__).resolve().parent.parent
CASES_DIR = ROOT / "eval" / "cases"
CASES = ev.load_cases(CASES_DIR)


# --- the case files ---------------------------------------------------------------------------


def test_the_set_has_at_least_twelve_real_posts() -> None:
    assert len(CASES) >= 12
    slugs = {c.slug for c in CASES}
    for wanted in (
        "flydsl-amd-gpus",
        "fp8-training-amd-torchtitan",
        "pytorch-2-14-release",
        "vllm-hardware-agnostic-models",
        "shopify-continual-learning",
        "day-one-model-enablement",
        "executorch-muse-glimmer",
    ):
        assert wanted in slugs


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.slug)
def test_case_file_is_complete(case: ev.Case) -> None:
    spec = case.spec
    assert spec.url.startswith("https://")
    keys = [f for f in spec.facts if f.key]
    assert len(keys) >= spec.min_key_facts
    if spec.min_key_facts < 8:
        assert spec.notes, "a case with fewer than 8 key facts says why"
    values = [f.value for f in spec.facts]
    assert len(values) == len(set(values)), "a fact is annotated twice"


def test_long_pytorch_posts_have_eight_key_facts_or_say_why() -> None:
    eight = [c for c in CASES if sum(f.key for f in c.spec.facts) >= 8]
    assert len(eight) >= 8


def test_flydsl_reference_is_the_style_target() -> None:
    case = next(c for c in CASES if c.slug == "flydsl-amd-gpus")
    assert case.reference_path is not None
    seed = ROOT / "tests" / "data" / "seeds" / "003_9f84147b1b26c099.txt"
    if seed.is_file():
        assert case.reference_path.read_bytes() == seed.read_bytes()
    assert {k.value for k in case.spec.reference_unsupported} >= {"0.92–2.34 times", "0.14.2b"}


GOOD_YAML = """\
title: A post
url: https://example.com/post
notes: tiny
min_key_facts: 1
facts:
  - value: "1.5x"
    about: speedup
    keywords: [faster]
    key: true
"""


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("title: [unclosed", "not valid YAML"),
        ("- a list", "expected a mapping"),
        (GOOD_YAML.replace("url: https://example.com/post\n", ""), "url: Field required"),
        (GOOD_YAML.replace('"1.5x"', '"fast"'), "has no digit"),
        (GOOD_YAML.replace("keywords: [faster]", "keyword: [faster]"), "keyword: Extra inputs"),
        (GOOD_YAML.replace("keywords: [faster]", "keywords: [2026]"), "keywords.0"),
        (GOOD_YAML.replace("keywords: [faster]", "keywords: []"), "keywords"),
        (GOOD_YAML.replace("min_key_facts: 1", "min_key_facts: 2"), "fewer than min_key_facts"),
        (GOOD_YAML.replace("notes: tiny\n", ""), "needs notes"),
        (GOOD_YAML.replace("url: https://example.com/post", "url: example.com"), "url"),
        (GOOD_YAML + "reference_unsupported:\n  - {value: '1', why: x}\n", "without a reference"),
    ],
)
def test_bad_case_file_gives_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(EvalCaseError) as err:
        ev.parse_case_file(text, "x/case.yaml")
    assert str(err.value).startswith("x/case.yaml: ")
    assert message in str(err.value)


def test_case_directory_problems_are_reported(tmp_path: Path) -> None:
    case = tmp_path / "one"
    case.mkdir()
    with pytest.raises(EvalCaseError, match=r"no case\.yaml"):
        ev.load_case(case)
    (case / "case.yaml").write_text(GOOD_YAML)
    with pytest.raises(EvalCaseError, match="found 0"):
        ev.load_case(case)
    (case / "source.md").write_text("# A post\n\nIt is 1.5x faster.\n")
    (case / "source.txt").write_text("It is 1.5x faster.\n")
    with pytest.raises(EvalCaseError, match="found 2"):
        ev.load_case(case)
    (case / "source.txt").unlink()
    (case / "case.yaml").write_text(GOOD_YAML + "reference: reference.md\n")
    with pytest.raises(EvalCaseError, match=r"reference reference\.md does not exist"):
        ev.load_case(case)
    with pytest.raises(EvalCaseError, match="no case directories"):
        ev.load_cases(tmp_path / "one")
    with pytest.raises(EvalCaseError, match="not a directory"):
        ev.load_cases(tmp_path / "missing")


# --- the annotations against the cleaned sources -------------------------------------------


def _loose(text: str) -> str:
    """Dash and space styles unified (the only liberty a fact value may take)."""
    text = unicodedata.normalize("NFKC", text)
    text = re.sub("[\u2010-\u2015\u2212]", "-", text)
    return " ".join(text.split()).lower()


@pytest.fixture(scope="module")
def articles() -> dict[str, str]:
    return {c.slug: ev.load_article(c).text for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.slug)
def test_every_fact_occurs_verbatim_with_its_keywords(
    case: ev.Case, articles: dict[str, str]
) -> None:
    text = _loose(articles[case.slug])
    for fact in case.spec.facts:
        value = _loose(fact.value)
        spots = [m.start() for m in re.finditer(re.escape(value), text)]
        assert spots, f"{fact.value!r} is not in the cleaned source"
        for keyword in fact.keywords:
            near = any(_loose(keyword) in text[max(0, i - 300) : i + 300] for i in spots)
            assert near, f"keyword {keyword!r} is not near {fact.value!r}"


# --- metrics on hand-made explainers ----------------------------------------------------------


def _explainer(
    *paragraphs: str, sections: int = 3, title: str = "FlyDSL: faster kernels"
) -> Explainer:
    body = [Section(heading=f"Point {i}", paragraphs=list(paragraphs)) for i in range(sections)]
    return Explainer(title=title, sections=body)


FACTS = [
    ev.CaseFact(value="1.10x", about="dense speedup", keywords=["dense", "BF16"], key=True),
    ev.CaseFact(value="1.17x–3.66x", about="RMSNorm range", keywords=["RMSNorm"], key=True),
    ev.CaseFact(value="1.58x", about="MXFP8", keywords=["MXFP8"], key=True),
    ev.CaseFact(value="4.02x", about="TopK", keywords=["TopK"], key=True),
    ev.CaseFact(value="22", about="cases", keywords=["RMSNorm"]),
]


def test_recall_needs_value_and_keyword_in_one_sentence() -> None:
    ex = _explainer(
        "The companies reported a 1.10 times speedup for BF16 dense matrix multiplication. "
        "RMSNorm gained 1.17–3.66 times over ATen. "
        "Speedups of 1.58 and 1.68 times came for MXFP8 and MXFP4. "
        "TopK is a selection operator. With them enabled, the speedup was 4.02 times."
    )
    recall, dropped = ev.key_fact_recall(ex, FACTS)
    assert dropped == ["4.02x"]  # its keyword sits in the sentence before
    assert recall == pytest.approx(0.75)


def test_recall_does_not_match_inside_another_number() -> None:
    ex = _explainer("The dense BF16 kernel ran 11.10x faster and 1.100 times later.")
    assert ev.key_fact_recall(ex, FACTS[:1]) == (0.0, ["1.10x"])
    assert ev.key_fact_recall(ex, []) == (1.0, [])


@pytest.mark.parametrize(
    ("text", "value", "found"),
    [
        ("from 8 to 256 requests", "8–256", True),
        ("1.31 to 2.23 times", "1.31x to 2.23x", True),
        ("costs \\$3.99 per rollout", "$3.99", True),
        ("a 96 percent cut", "96%", True),
        ("7,290µs per layer", "7,290μs", True),  # micro sign vs Greek mu
        ("from 16:55 UTC", "16∶55", True),  # ratio sign used as a colon
        ("about 39 GB", "~39 GB", True),
        ("torchvision 0.29.0", "0.29", False),
        ("Opus 4.8 and Opus 5", "Opus 4.6", False),
        ("on 1,000 GPUs", "1000 GPUs", True),
    ],
)
def test_figure_matching(text: str, value: str, found: bool) -> None:
    assert ev.contains_figure(text, value) is found


def test_keyword_matches_at_a_word_start() -> None:
    assert ev.contains_keyword("eight GPUs ran", "GPU")
    assert not ev.contains_keyword("a condensed view", "dense")


def _report(*statuses: CheckStatus, texts: tuple[str, ...] = ()) -> CheckReport:
    names = texts or tuple(f"{i}.5x" for i in range(len(statuses)))
    return CheckReport(
        numbers=[
            NumberVerdict(text=t, kind="quantity", status=s, sentence=f"It was {t}.")
            for t, s in zip(names, statuses, strict=True)
        ]
    )


def test_number_precision_and_known_unsupported() -> None:
    s, u, m = CheckStatus.SUPPORTED, CheckStatus.UNSUPPORTED, CheckStatus.MISATTACHED
    assert ev.number_precision(_report()) == 1.0
    assert ev.number_precision(_report(s, s, u, m)) == 0.5
    report = _report(s, u, texts=("1.10x", "0.92–2.34"))
    assert ev.number_precision(report) == 0.5
    assert ev.number_precision(report, ["0.92-2.34"]) == 1.0


def test_structure_problems() -> None:
    good = _explainer("One paragraph.")
    assert ev.structure_problems(good) == []
    assert ev.structure_problems(_explainer("P.", sections=2)) == ["2 sections, want 3..7"]
    assert ev.structure_problems(_explainer("P.", sections=2), min_sections=1) == []
    assert ev.structure_problems(_explainer("P.", sections=8)) == ["8 sections, want 3..7"]
    five = _explainer("a.", "b.", "c.", "d.", "e.")
    assert ev.structure_problems(five)[0] == "section 1 has 5 paragraphs, want 1..4"
    assert ev.title_ok("PyTorch FlyDSL: Operator support, performance gains")
    assert ev.title_ok("Shopify cuts serving costs with a learning loop")
    assert not ev.title_ok("Update")
    assert not ev.title_ok("Is this the fastest GEMM ever?")
    assert ev.structure_problems(_explainer("P.", title="News"))[0].startswith("title 'News'")


def test_score_case_and_overall() -> None:
    ex = _explainer("The dense BF16 kernel was 1.10x faster on 22 RMSNorm cases.")
    report = _report(CheckStatus.SUPPORTED, CheckStatus.MISATTACHED, texts=("1.10x", "22"))
    score = ev.score_case("demo", ex, report, FACTS, source_words=3000)
    assert (score.number_precision, score.misattached, score.structure_ok) == (0.5, 1, True)
    assert score.key_fact_recall == pytest.approx(0.25)
    assert score.unsupported == ["22"]
    assert score.words == len(ev.prose(ex).split())
    assert 0 < score.reading_grade < 20
    failed = ev.failed_score("broken", 100, "engine error")
    total = ev.overall([score, failed])
    assert total["number_precision"] == 0.25
    assert total["structure_ok"] == 0.5
    assert total["misattached_total"] == 1
    assert total["errors"] == 1
    assert set(ev.OVERALL_KEYS) <= set(total)


def test_threshold_failures() -> None:
    limits = ev.EngineThresholds(key_fact_recall=0.8, words=(10, 900))
    ex = _explainer("The dense BF16 kernel was 1.10x faster than before in every test.")
    ok = ev.score_case("ok", ex, _report(CheckStatus.SUPPORTED), FACTS[:1], 3000)
    assert ev.threshold_failures([ok], limits) == []
    bad = ev.score_case("bad", ex, _report(CheckStatus.UNSUPPORTED), FACTS, 3000)
    messages = ev.threshold_failures([ok, bad], limits)
    assert any(m.startswith("bad: number precision 0.000 < 1.0") for m in messages)
    assert any(m.startswith("overall key-fact recall") for m in messages)
    short = ev.score_case("short", ex, _report(), FACTS[:1], 50, short=True)
    assert ev.threshold_failures([short], ev.EngineThresholds(short_words=(20, 30))) == [
        f"short: {short.words} words, want 20..30"
    ]


def test_repository_thresholds_cover_every_engine() -> None:
    limits = ev.load_thresholds(ROOT / "eval" / "thresholds.yaml")
    assert set(limits.engines) == set(ev.ENGINES)
    assert limits.engines["extractive"].number_precision == 1.0
    assert limits.engines["extractive"].key_fact_recall == 0.80
    with pytest.raises(EvalCaseError, match="engines"):
        ev.parse_thresholds("short_source_words: 10\n")


# --- the command line on a tiny case directory -------------------------------------------------

TINY_SOURCE = """\
# Faster matrix multiplication on the MI355X

The new kernels make dense BF16 matrix multiplication 1.10x faster than the old ones
across 15 shapes. Grouped matrix multiplication improves by 1.20x over Triton.

## How it was measured

All measurements ran on one MI355X GPU with the gfx950 architecture. Compilation was
excluded from timing.

## What comes next

Support for the MI450 series is in progress.
"""

TINY_REFERENCE = """\
Faster kernels: dense and grouped matrix multiplication speed up

1. Dense matrix multiplication is faster

The team reported that dense BF16 matrix multiplication became 1.10x faster across 15 shapes.

2. Grouped matrix multiplication also gains

Grouped matrix multiplication improved by 1.20x over Triton.

3. The measurements ran on one GPU

All measurements ran on one MI355X GPU. Compilation was excluded from timing.

4. More hardware comes next

Support for the MI450 series is in progress.
"""

TINY_CASE = """\
title: Faster matrix multiplication on the MI355X
url: https://example.com/tiny
notes: a made-up post for the CLI test
min_key_facts: 2
reference: reference.md
facts:
  - {value: "1.10x", about: dense speedup, keywords: [dense, BF16], key: true}
  - {value: "1.20x", about: grouped speedup, keywords: [grouped, Triton], key: true}
  - {value: "MI355X", about: the GPU, keywords: [measurements], key: true}
"""


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PLAINFEED_ENGINE": "extractive"}
    return subprocess.run(
        [sys.executable, "-m", "service", "eval", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=120,
    )


@pytest.fixture
def tiny_cases(tmp_path: Path) -> Path:
    case = tmp_path / "cases" / "tiny"
    case.mkdir(parents=True)
    (case / "source.md").write_text(TINY_SOURCE)
    (case / "reference.md").write_text(TINY_REFERENCE)
    (case / "case.yaml").write_text(TINY_CASE)
    return tmp_path / "cases"


@pytest.mark.slow
def test_cli_reference_run_writes_the_json_of_design_md(tiny_cases: Path, tmp_path: Path) -> None:
    out = tmp_path / "out" / "eval.json"
    thresholds = tmp_path / "t.yaml"
    thresholds.write_text("engines:\n  reference:\n    words: [20, 900]\n")
    done = _cli("--cases", str(tiny_cases), "--engine", "reference", "--json", str(out),
                "--thresholds", str(thresholds))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tiny" in done.stdout and "overall" in done.stdout
    data = json.loads(out.read_text())
    keys = {"slug", "number_precision", "key_fact_recall", "misattached", "structure_ok",
            "reading_grade", "words", "source_words"}  # fmt: skip
    assert keys <= set(data["cases"][0])
    assert keys - {"slug"} <= set(data["overall"])
    case = data["cases"][0]
    assert (case["slug"], case["number_precision"], case["key_fact_recall"]) == ("tiny", 1.0, 1.0)
    assert case["structure_ok"] is True
    assert data["thresholds"] == {"passed": True, "failures": []}


@pytest.mark.slow
def test_cli_exits_1_below_thresholds_and_2_on_bad_input(tiny_cases: Path, tmp_path: Path) -> None:
    thresholds = tmp_path / "t.yaml"
    thresholds.write_text("engines:\n  reference:\n    short_words: [100, 300]\n")
    done = _cli(
        "--cases", str(tiny_cases), "--engine", "reference", "--thresholds", str(thresholds)
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "below threshold" in done.stderr and "words, want 100..300" in done.stderr

    assert _cli("--cases", str(tiny_cases), "--engine", "magic").returncode == 2
    assert _cli("--cases", str(tmp_path / "nowhere")).returncode == 2
    (tiny_cases / "tiny" / "case.yaml").write_text("title: x\nfacts: []\n")
    done = _cli("--cases", str(tiny_cases), "--engine", "reference")
    assert done.returncode == 2
    assert "case.yaml" in done.stderr


# --- recorded LLM answers through the real llm engine --------------------------------------------


def test_recorded_answers_replay_through_the_llm_engine(tmp_path: Path) -> None:
    from service.config import Settings
    from service.engines import get_engine
    from service.engines.base import ExplainOptions
    from service.errors import LLMError
    from service.models import Article

    answer = json.loads(TINY_REFERENCE_JSON)
    (tmp_path / "tiny.json").write_text(
        json.dumps({"slug": "tiny", "match": ["https://example.com/tiny"], "answer": answer})
    )
    recordings = ev.load_recordings(tmp_path)
    assert ev.recording_for("Link: HTTPS://EXAMPLE.COM/tiny", recordings) is recordings[0]
    assert ev.recording_for("another post", recordings) is None

    settings = Settings(model="recorded", llm_max_attempts=1)
    engine = get_engine(settings, "llm", client=ev.replay_client(recordings))
    article = Article(title="Tiny", text=TINY_SOURCE, url="https://example.com/tiny")
    result = engine.explain(article, ExplainOptions())
    assert result.explainer == Explainer.model_validate(answer)
    assert result.usage.calls >= 1 and result.usage.prompt_tokens > 0

    other = Article(title="Other", text=TINY_SOURCE, url="https://example.com/other")
    with pytest.raises(LLMError):
        engine.explain(other, ExplainOptions())


def test_a_repair_request_gets_the_recorded_repair(tmp_path: Path) -> None:
    """The gate's repair round replays the recording's ``repair`` answer: an answer with a
    figure the post lacks is flagged, repaired once, and ends clean."""
    from service.config import Settings
    from service.engines import get_engine
    from service.engines.base import ExplainOptions
    from service.gate import explain_and_check
    from service.models import Article

    repair = json.loads(TINY_REFERENCE_JSON)
    answer = json.loads(TINY_REFERENCE_JSON)
    answer["sections"][2]["paragraphs"] = ["All measurements ran on one MI355X GPU at 750 W."]
    (tmp_path / "tiny.json").write_text(
        json.dumps(
            {
                "slug": "tiny",
                "match": ["https://example.com/tiny"],
                "answer": answer,
                "repair": repair,
            }
        )
    )
    recordings = ev.load_recordings(tmp_path)
    assert not ev.asks_repair("Post title: Tiny\nLink: https://example.com/tiny")
    settings = Settings(model="recorded", llm_max_attempts=1)
    engine = get_engine(settings, "llm", client=ev.replay_client(recordings))
    article = Article(title="Tiny", text=TINY_SOURCE, url="https://example.com/tiny")
    outcome = explain_and_check(engine, article, ExplainOptions(), repair_rounds=2)
    assert outcome.repairs == 1 and outcome.report.ok
    assert outcome.result.explainer == Explainer.model_validate(repair)


def test_a_bad_recording_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"slug": "x", "match": [], "answer": {}}')
    with pytest.raises(EvalCaseError, match=r"bad\.json: not a recording"):
        ev.load_recordings(tmp_path)
    with pytest.raises(EvalCaseError, match="no directory"):
        ev.load_recordings(tmp_path / "missing")


TINY_REFERENCE_JSON = """\
{"title": "Faster kernels: dense and grouped matrix multiplication speed up",
 "sections": [
  {"heading": "Dense matrix multiplication is faster",
   "paragraphs": ["Dense BF16 matrix multiplication became 1.10x faster across 15 shapes."]},
  {"heading": "Grouped matrix multiplication also gains",
   "paragraphs": ["Grouped matrix multiplication improved by 1.20x over Triton."]},
  {"heading": "The measurements ran on one GPU",
   "paragraphs": ["All measurements ran on one MI355X GPU."]},
  {"heading": "More hardware comes next",
   "paragraphs": ["Support for the MI450 series is in progress."]}]}
"""


@pytest.mark.slow
@pytest.mark.parametrize("engine", ["extractive", "llm"])
def test_cli_runs_the_engines_through_the_gate(
    engine: str, tiny_cases: Path, tmp_path: Path
) -> None:
    recordings = tmp_path / "recordings"
    recordings.mkdir()
    answer = json.loads(TINY_REFERENCE_JSON)
    (recordings / "tiny.json").write_text(
        json.dumps({"slug": "tiny", "match": ["https://example.com/tiny"], "answer": answer})
    )
    thresholds = tmp_path / "t.yaml"
    thresholds.write_text(f"engines:\n  {engine}:\n    short_words: [10, 300]\n")
    out = tmp_path / "eval.json"
    done = _cli("--cases", str(tiny_cases), "--engine", engine, "--json", str(out),
                "--thresholds", str(thresholds), "--recordings", str(recordings))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text())
    assert data["engine"] == engine and data["skipped"] == []
    case = data["cases"][0]
    assert (case["number_precision"], case["misattached"], case["error"]) == (1.0, 0, None)
    assert case["key_fact_recall"] == 1.0 and case["structure_ok"] is True
    if engine == "llm":
        assert "recorded answers" in data["detail"]
        assert case["words"] == len(ev.prose(Explainer.model_validate(answer)).split())
