"""The glossary and the extractive explainers of corpus posts, shared by the tests of the
extractive engine's definitions (test_extractive_definitions,
test_extractive_definition_crowding). Cached: an explainer takes a while to make, and
the tests only read it."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from service import clean
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine
from service.engines.extractive.glossary import GlossaryEntry, load_glossary
from service.models import Explainer

CORPUS = Path(__file__).parent / "data" / "corpus"
POSTS = CORPUS / "posts"
PROMPTS = Path(__file__).parent.parent / "prompts"


@cache
def glossary_by_term() -> dict[str, GlossaryEntry]:
    """The project's glossary (prompts/glossary.yaml), by term."""
    return {e.term: e for e in load_glossary(PROMPTS / "glossary.yaml")[1]}


@cache
def explain_post(name: str) -> Explainer:
    """The extractive explainer of the corpus post ``name`` (tests/data/corpus/posts)."""
    article = clean.article_from_document((POSTS / name).read_bytes(), filename=name)
    return ExtractiveEngine(PROMPTS).explain(article, ExplainOptions()).explainer
