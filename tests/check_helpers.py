"""What the tests of the number check (tests/test_check_*.py) share: the statuses by
letter, the verdict of one number, the FlyDSL post and its explainer 003."""

from __future__ import annotations

from pathlib import Path

from service.check import check_explainer
from service.models import CheckStatus, NumberVerdict

DATA = Path(__file__).parent / "data"
FLYDSL = DATA / "corpus" / "posts" / "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"
SEED_003 = DATA / "seeds" / "003_9f84147b1b26c099.txt"

S = CheckStatus.SUPPORTED
U = CheckStatus.UNSUPPORTED
M = CheckStatus.MISATTACHED
D = CheckStatus.DERIVED

SPEEDUP = "FlyDSL delivers a 1.10x speedup over ATen on MI355X."


def verdict(explainer: str, source: str, text: str) -> NumberVerdict:
    """The verdict of the number written ``text`` in the explainer."""
    found = [n for n in check_explainer(explainer, source).numbers if n.text == text]
    assert len(found) == 1, check_explainer(explainer, source).numbers
    return found[0]


def status(explainer: str, source: str, text: str) -> CheckStatus:
    return verdict(explainer, source, text).status


def figures(explainer: str, source: str) -> list[tuple[str, str, str | None]]:
    """The explainer's figures (not its identifiers), with their statuses and reasons."""
    return [
        (v.text, v.status.value, v.reason)
        for v in check_explainer(explainer, source).numbers
        if v.kind != "identifier"
    ]
