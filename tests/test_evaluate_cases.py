"""The evaluation set: its case files, their errors, and the annotations against the cleaned
sources. The metrics: ``test_evaluate_metrics.py``; the runner: ``test_evaluate_runs.py``."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from service import evaluate as ev
from service.errors import EvalCaseError
from tests.evaluate_helpers import CASES, ROOT

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
