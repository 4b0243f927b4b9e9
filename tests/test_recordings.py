"""eval/recordings: each is a valid explainer, and the hand-written ones carry only
numbers that their post has."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from service.check import check_explainer
from service.clean import article_from_document
from service.models import CheckStatus, Explainer
from service.text import split_sentences
from tests.stub_llm import load_recordings

ROOT = Path(__file__).resolve().parent.parent
RECORDINGS = ROOT / "eval" / "recordings"
POSTS = ROOT / "tests" / "data" / "corpus" / "posts"
FILES = sorted(RECORDINGS.glob("*.json"))
FLYDSL = "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl"
FLAGGED = {CheckStatus.UNSUPPORTED, CheckStatus.MISATTACHED}


def _plain(text: str) -> str:
    # A crude stand-in for the number check's normalization: enough for a verbatim test.
    text = text.replace("\u00a0", " ").replace("×", "x").replace("µ", "μ")
    return re.sub(r"\s+", " ", text)


def _source_text(slug: str) -> str:
    (path,) = [p for p in POSTS.glob(f"{slug}.*")]
    raw = path.read_text(encoding="utf-8")
    if path.suffix == ".html":
        raw = BeautifulSoup(raw, "lxml").get_text(" ")
    return _plain(raw)


def test_there_are_the_three_recordings() -> None:
    assert {r.slug for r in load_recordings(RECORDINGS)} == {
        "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl",
        "pytorch-blog-fp8-training-on-amd-gpus-with-torchtitan-and-torchao",
        "pytorch-blog-how-shopify-built-a-continual-learning-loop",
    }


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_recording_is_a_valid_explainer_in_the_house_shape(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["slug"] == path.stem
    assert data["match"] and all(isinstance(m, str) and m for m in data["match"])
    answers = [data["answer"]] + ([data["repair"]] if "repair" in data else [])
    for answer in answers:
        explainer = Explainer.model_validate(answer)
        assert ":" in explainer.title
        assert 3 <= len(explainer.sections) <= 7
        assert all(1 <= len(s.paragraphs) <= 4 for s in explainer.sections)
        assert 400 <= len(explainer.all_text().split()) <= 900


def test_the_flydsl_repair_drops_only_the_sentences_the_check_flags() -> None:
    """003 carries attention figures this version of the post lacks; its recorded repair is
    what prompts/repair.md asks for: those sentences gone, every other one word for word."""
    data = json.loads((RECORDINGS / f"{FLYDSL}.json").read_text(encoding="utf-8"))
    answer = Explainer.model_validate(data["answer"])
    repair = Explainer.model_validate(data["repair"])
    path = POSTS / f"{FLYDSL}.md"
    source = article_from_document(path.read_bytes(), filename=path.name).text
    flagged = [n for n in check_explainer(answer, source).numbers if n.status in FLAGGED]
    assert {n.text for n in flagged} == {"0.92–2.34 times", "0.93–2.47 times", "0.14.2b", "0.13b"}
    report = check_explainer(repair, source)
    assert report.numbers and all(n.status == CheckStatus.SUPPORTED for n in report.numbers)
    kept = [s for sec in repair.sections for p in sec.paragraphs for s in split_sentences(p)]
    before = [s for sec in answer.sections for p in sec.paragraphs for s in split_sentences(p)]
    dropped = [s for s in before if s not in kept]
    assert [s for s in kept if s not in before] == []
    assert all(re.search(r"0\.1[34]|AOTriton version|[Aa]ttention", s) for s in dropped)
    assert {n.sentence for n in flagged} <= set(dropped)


@pytest.mark.parametrize(
    "slug",
    [
        "pytorch-blog-fp8-training-on-amd-gpus-with-torchtitan-and-torchao",
        "pytorch-blog-how-shopify-built-a-continual-learning-loop",
    ],
)
def test_hand_written_recordings_copy_every_number_from_the_post(slug: str) -> None:
    data = json.loads((RECORDINGS / f"{slug}.json").read_text(encoding="utf-8"))
    assert data["origin"].startswith("hand-written")
    source = _source_text(slug)
    text = _plain(Explainer.model_validate(data["answer"]).all_text())
    numbers = {t.strip(".,;:()\"'") for t in re.findall(r"\S*\d\S*", text)}
    assert numbers  # they do carry numbers
    missing = sorted(n for n in numbers if n not in source)
    assert missing == []
