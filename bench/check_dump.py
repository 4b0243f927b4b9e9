"""Dump what the number check decides over the whole corpus, for before/after comparison
of a change that must not change behaviour (a speed-up, a refactoring).

Written: the extractor's output for every corpus post, eval case and feed item (15 per
feed); the extractive engine's explainer of each; and the check report of every
explainer (the eval references, the extractive explainers, ``tests/data/explainers``)
against its own source and against three others (most of their numbers unsupported:
the roundings-and-arithmetic path). Deterministic: two runs write the same bytes.

    PYTHONPATH=. python -m bench.check_dump /tmp/before.json
    ... change ...
    PYTHONPATH=. python -m bench.check_dump /tmp/after.json && cmp /tmp/before.json /tmp/after.json
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from service import clean
from service.check import check_explainer
from service.config import Settings
from service.engines import get_engine
from service.engines.base import ExplainOptions
from service.errors import PlainfeedError
from service.evaluate.cases import Case, load_article, load_cases
from service.models import Article
from service.numbers import Number, extract_numbers
from service.parse import parse_feed
from service.render import to_markdown

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "data" / "corpus"


def _number(n: Number) -> list[Any]:
    return [
        n.text, n.start, n.end, str(n.kind), str(n.value), str(n.high), n.exp, n.high_exp,
        n.unit, str(n.hedge), n.key, n.noun, n.change,
    ]  # fmt: skip


def _articles() -> dict[str, tuple[Article, Case | None]]:
    arts: dict[str, tuple[Article, Case | None]] = {}
    for case in load_cases(ROOT / "eval" / "cases"):
        arts["case:" + case.slug] = (load_article(case), case)
    for p in sorted((CORPUS / "posts").iterdir()):
        arts["post:" + p.name] = (
            clean.article_from_document(p.read_bytes(), filename=p.name),
            None,
        )
    for f in sorted((CORPUS / "feeds").iterdir()):
        for e in parse_feed(f.read_bytes()).entries[:15]:
            arts[f"item:{f.name}:{e.key}"] = (clean.article_from_entry(e), None)
    return arts


def dump() -> dict[str, Any]:
    out: dict[str, Any] = {}
    arts = _articles()
    for key, (article, _) in arts.items():
        out["nums:" + key] = [_number(n) for n in extract_numbers(article.text)]
    engine = get_engine(Settings(), "extractive")
    explainers: dict[str, str] = {}
    for key, (article, case) in arts.items():
        if case is not None and case.reference_path is not None:
            explainers["ref:" + key] = case.reference_path.read_text(encoding="utf-8")
        try:
            result = engine.explain(article, ExplainOptions())
            explainers["ext:" + key] = to_markdown(result.explainer)
        except PlainfeedError as exc:  # an item with no text to explain
            explainers["ext:" + key] = "ERR " + type(exc).__name__
    for p in sorted((ROOT / "tests" / "data" / "explainers").iterdir()):
        explainers["file:" + p.name] = p.read_text(encoding="utf-8")
    out["explainers"] = explainers
    others = [k for k in arts if "pytorch-2-14" in k][:1] + [k for k in arts if k[:5] == "item:"][
        :2
    ]
    for ek, text in explainers.items():
        if text.startswith("ERR"):
            continue
        own = ek.split(":", 1)[1]
        targets = [own] if own in arts else []
        if ek.startswith("file:"):
            stem = ek[5:].rsplit(".", 1)[0]
            targets = [k for k in arts if k.startswith("post:") and stem in k]
        for target in targets + others:
            article, case = arts[target]
            facts = case.spec.facts if case is not None else None
            report = check_explainer(text, article.text, facts, title=article.title or "")
            out[f"check:{ek}@{target}"] = report.model_dump(mode="json")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    args = ap.parse_args()
    data = dump()
    args.out.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
    checks = sum(k.startswith("check:") for k in data)
    print(f"{len(data['explainers'])} explainers, {checks} check reports -> {args.out}")


if __name__ == "__main__":
    main()
