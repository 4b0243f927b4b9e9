"""The extractive engine's glossary definitions over every corpus post and feed item:
which terms an explainer uses and leaves undefined, and which it defines before the
reader meets them.

    PYTHONPATH=. python -m bench.definitions [--json OUT]

A term's use is a match of its glossary pattern in the explainer's paragraphs and
takeaway outside every definition ("dtype: a tensor's number format" uses no "tensor")
and outside its own name before a definition ("(FP4: ..."). A table row read as a
sentence takes no definition by design: its terms count as undefined here.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from bench.titles import articles
from service.engines.base import ExplainOptions
from service.engines.extractive import ExtractiveEngine, GlossaryEntry, load_glossary
from service.errors import EngineError
from service.models import Explainer

ROOT = Path(__file__).resolve().parent.parent


def audit(explainer: Explainer, glossary: tuple[GlossaryEntry, ...]) -> dict[str, list[str]]:
    """The terms ``explainer`` uses undefined, and those defined before their first use."""
    text = "\n".join(
        [p for s in explainer.sections for p in s.paragraphs] + [explainer.takeaway or ""]
    )
    glosses = {d for e in glossary for d in (e.definition, e.plural, e.short) if d}
    bare = text
    for d in sorted(glosses, key=len, reverse=True):
        bare = bare.replace(d, " " * len(d))
    undefined, early = [], []
    for e in glossary:
        uses = [m for m in e.uses(bare) if not bare.startswith(": ", m.end())]
        if not uses:
            continue
        at = [text.find(d) for d in (e.definition, e.plural, e.short) if d and d in text]
        if not at:
            undefined.append(e.term)
        elif min(at) < uses[0].start():
            early.append(e.term)
    return {"undefined": undefined, "early": early}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", type=Path, help="write the terms of each explainer here")
    args = ap.parse_args()
    _, glossary = load_glossary(ROOT / "prompts" / "glossary.yaml")
    engine = ExtractiveEngine()
    rows, explained = {}, 0
    for key, article in articles():
        try:
            explainer = engine.explain(article, ExplainOptions()).explainer
        except EngineError:
            continue  # an item without text
        explained += 1
        found = audit(explainer, glossary)
        if found["undefined"] or found["early"]:
            rows[key] = found
            print(f"{key}: undefined {found['undefined']}, before their use {found['early']}")
    undefined = sum(len(r["undefined"]) for r in rows.values())
    early = sum(len(r["early"]) for r in rows.values())
    print(
        f"\n{explained} explainers: {undefined} terms used undefined, "
        f"{early} defined before their first use"
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
