"""The extractive engine's glossary definitions over every corpus post and feed item:
which terms an explainer uses and leaves undefined, which it defines before the reader
meets them, and which it defines late: the reader meets the term bare and has it
defined only in a later sentence (of the same paragraph, a later paragraph or a later
section), not in the sentence of its first use nor in a note right after it.

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
from service.text import split_sentences

ROOT = Path(__file__).resolve().parent.parent


# How far a late definition comes after the term's first use.
LATE = ("same paragraph", "later paragraph", "later section")


def _places(explainer: Explainer) -> tuple[str, list[tuple[int, int, int, int]]]:
    """The explainer's paragraphs and takeaway as one text, and each sentence's start,
    end, paragraph and section there (the takeaway a section of its own); a note after a
    sentence ("... TopK. (RMSNorm: ....)") is part of that sentence."""
    paras = [(i, p) for i, s in enumerate(explainer.sections) for p in s.paragraphs]
    paras.append((len(explainer.sections), explainer.takeaway or ""))
    spans: list[tuple[int, int, int, int]] = []
    at = 0
    for n, (section, para) in enumerate(paras):
        pos = at
        for sentence in split_sentences(para):
            found = para.find(sentence[:20], pos - at)
            start = at + found if found >= 0 else pos
            end = start + len(sentence)
            if sentence.startswith("(") and spans and spans[-1][2] == n:
                spans[-1] = (spans[-1][0], end, n, section)
            else:
                spans.append((start, end, n, section))
            pos = end
        at += len(para) + 1
    return "\n".join(p for _, p in paras), spans


def _where(spans: list[tuple[int, int, int, int]], pos: int) -> tuple[int, int, int]:
    """The sentence, paragraph and section at ``pos``."""
    for i, (a, b, para, section) in enumerate(spans):
        if a <= pos < b:
            return i, para, section
    return -1, -1, -1


def audit(explainer: Explainer, glossary: tuple[GlossaryEntry, ...]) -> dict[str, list[str]]:
    """The terms ``explainer`` uses undefined, those defined before their first use, and
    those defined late, by how far (``LATE``)."""
    text, spans = _places(explainer)
    glosses = {d for e in glossary for d in (e.definition, e.plural, e.short) if d}
    bare = text
    for d in sorted(glosses, key=len, reverse=True):
        bare = bare.replace(d, " " * len(d))
    found: dict[str, list[str]] = {k: [] for k in ("undefined", "early", *LATE)}
    for e in glossary:
        uses = [m for m in e.uses(bare) if not bare.startswith(": ", m.end())]
        if not uses:
            continue
        at = [text.find(d) for d in (e.definition, e.plural, e.short) if d and d in text]
        if not at:
            found["undefined"].append(e.term)
        elif min(at) < uses[0].start():
            found["early"].append(e.term)
        else:
            used, defined = _where(spans, uses[0].start()), _where(spans, min(at))
            if defined[0] != used[0]:
                far = 0 if defined[1] == used[1] else 1 if defined[2] == used[2] else 2
                found[LATE[far]].append(e.term)
    return found


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
        if any(found.values()):
            rows[key] = found
            late = "; ".join(f"{k} {found[k]}" for k in LATE if found[k])
            print(
                f"{key}: undefined {found['undefined']}, before their use {found['early']}"
                + (f", defined late: {late}" if late else "")
            )
    count = {k: sum(len(r[k]) for r in rows.values()) for k in ("undefined", "early", *LATE)}
    print(
        f"\n{explained} explainers: {count['undefined']} terms used undefined, "
        f"{count['early']} defined before their first use, "
        f"{sum(count[k] for k in LATE)} defined late ("
        + ", ".join(f"{count[k]} {k}" for k in LATE)
        + ")"
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
