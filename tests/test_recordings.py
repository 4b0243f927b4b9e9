"""eval/recordings: each is a valid explainer, and the hand-written ones carry only
numbers that their post has."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from service.models import Explainer
from tests.stub_llm import load_recordings

ROOT = Path(__file__).resolve().parent.parent
RECORDINGS = ROOT / "eval" / "recordings"
POSTS = ROOT / "tests" / "data" / "corpus" / "posts"
FILES = sorted(RECORDINGS.glob("*.json"))


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
    explainer = Explainer.model_validate(data["answer"])
    assert ":" in explainer.title
    assert 3 <= len(explainer.sections) <= 7
    assert 400 <= len(explainer.all_text().split()) <= 900


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
