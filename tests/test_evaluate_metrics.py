"""The evaluation's metrics and thresholds on hand-made explainers."""

from __future__ import annotations

import pytest

from service import evaluate as ev
from service.errors import EvalCaseError
from service.models import CheckReport, CheckStatus, Explainer, NumberVerdict, Section
from tests.evaluate_helpers import ROOT

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
