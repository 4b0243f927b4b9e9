"""The paraphrase tests' eval-case posts and how a sentence is checked against one."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from service.check import check_explainer
from service.evaluate.cases import load_article, load_cases
from service.models import CheckStatus

CASES = Path(__file__).parent.parent / "eval" / "cases"
FLAGGED = {CheckStatus.UNSUPPORTED, CheckStatus.MISATTACHED}


@cache
def article(slug: str) -> tuple[str, str]:
    """The case's post: its text and its title (checked with it, as the service does)."""
    case = next(c for c in load_cases(CASES) if c.slug == slug)
    post = load_article(case)
    return post.text, post.title or ""


FLY, FP8 = "flydsl-amd-gpus", "fp8-training-amd-torchtitan"
SHOP, PT = "shopify-continual-learning", "pytorch-2-14-release"
VLLM = "vllm-hardware-agnostic-models"


def flagged(slug: str, sentence: str) -> list[tuple[str, str]]:
    text, title = article(slug)
    report = check_explainer(sentence, text, title=title)
    return [(n.text, n.status.value) for n in report.numbers if n.status in FLAGGED]


def limit(slug: str, sentence: str, why: str) -> object:
    return pytest.param(slug, sentence, marks=pytest.mark.xfail(strict=True, reason=why))
