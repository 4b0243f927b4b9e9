"""The evaluation's runner: the command line on a tiny case directory, and recorded LLM
answers through the real llm engine."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from service import evaluate as ev
from service.errors import EvalCaseError
from service.models import Explainer
from tests.evaluate_helpers import ROOT

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
