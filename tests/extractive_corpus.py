"""The corpus posts the extractive engine's tests read, and how they read them: cleaned
as the pipeline cleans them, explained with the shipped glossary (cached: one explainer
a post per test session)."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from service import clean
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
from service.models import Article, CheckStatus, Explainer
from service.text import split_sentences

DATA = Path(__file__).parent / "data" / "corpus"
POSTS = DATA / "posts"
PROMPTS = Path(__file__).parent.parent / "prompts"
FLYDSL = "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"
MD_POSTS = [
    FLYDSL,
    "pytorch-blog-how-shopify-built-a-continual-learning-loop.md",
    "pytorch-blog-hardware-agnostic-models-in-vllm.md",
]
HTML_POSTS = [
    "pytorch-blog-fp8-training-on-amd-gpus-with-torchtitan-and-torchao.html",
    "pytorch-blog-harnessing-ai-for-day-one-model-enablement.html",
    "pytorch-blog-fast-ondevice-agentic-ai-with-executorch.html",
    "pytorch-blog-pytorch-2-14-release-blog.html",
]

NUMBER_WORDS = re.compile(
    r"\b(zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|"
    r"thirty|hundred|thousand|million|billion|trillions?|dozen|half|twice|double|triple|"
    r"single|first|second|third)\b",
    re.IGNORECASE,
)


@cache
def _article(name: str) -> Article:
    """A corpus post as the pipeline sees it: cleaned by service.clean."""
    return clean.article_from_document((POSTS / name).read_bytes(), filename=name)


@cache
def _explain(name: str) -> Explainer:
    return ExtractiveEngine(PROMPTS).explain(_article(name), ExplainOptions()).explainer


def _prose(e: Explainer) -> str:
    """Title and headings as sentences of their own, as the evaluation measures."""

    def sentence(t: str) -> str:
        return t if t[-1:] in ".!?:" else t + "."

    parts = [sentence(e.title)]
    for s in e.sections:
        parts.append(sentence(s.heading))
        parts.extend(s.paragraphs)
    if e.takeaway:
        parts.append(e.takeaway)
    return "\n\n".join(parts)


def _sentences(e: Explainer) -> list[str]:
    out = [e.title]
    for s in e.sections:
        out.extend(sp for p in s.paragraphs for sp in split_sentences(p))
    if e.takeaway:
        out.extend(split_sentences(e.takeaway))
    return out


ALL_POSTS = MD_POSTS + HTML_POSTS
S = CheckStatus.SUPPORTED
