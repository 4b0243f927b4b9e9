"""The extractive engine's glossary definitions over every corpus post and feed item:
which terms an explainer uses and leaves undefined, which it defines before the reader
meets them, and which it defines late: the reader meets the term bare and has it
defined only in a later sentence (of the same paragraph, a later paragraph or a later
section), not in the sentence of its first use nor in a note right after it; a term
first met in a table's rows, which take no definition, and defined in the notes after
them is counted apart ("after the rows").

    PYTHONPATH=. python -m bench.definitions [--json OUT]

A term's use is a match of its glossary pattern in the explainer's paragraphs and
takeaway outside every definition ("dtype: a tensor's number format" uses no "tensor")
and outside its own name before a definition ("(FP4: ..."). A table row read as a
sentence takes no definition by design: its terms count as undefined here.
"""

from __future__ import annotations

import argparse
import json
import re
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
# Not late: a term first met in a paragraph without a definition of its own, defined in the
# notes that end it: a table read as sentences, whose rows take none (definition_tables).
ROWS = "after the rows"


Spans = list[tuple[int, int, int, int]]


def _places(explainer: Explainer) -> tuple[str, Spans, list[tuple[int, int]]]:
    """The explainer's paragraphs and takeaway as one text, each sentence's start, end,
    paragraph and section there (the takeaway a section of its own), and each
    paragraph's start and end; a note after a sentence ("... TopK. (RMSNorm: ....)") is
    part of that sentence."""
    paras = [(i, p) for i, s in enumerate(explainer.sections) for p in s.paragraphs]
    paras.append((len(explainer.sections), explainer.takeaway or ""))
    spans: Spans = []
    bounds = []
    at = 0
    for n, (section, para) in enumerate(paras):
        bounds.append((at, at + len(para)))
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
    return "\n".join(p for _, p in paras), spans, bounds


def _after_rows(text: str, bare: str, para: tuple[int, int], pos: int) -> bool:
    """Whether ``pos`` is in the notes that end the paragraph at ``para``, and nothing
    before them there is a definition (``bare`` is ``text`` with them blanked)."""
    a, b = para
    notes = re.search(r"(?:\s*\([^()]*\.\))+$", text[a:b])
    if notes is None or pos < a + notes.start():
        return False
    return text[a : a + notes.start()] == bare[a : a + notes.start()]


def _where(spans: Spans, pos: int) -> tuple[int, int, int]:
    """The sentence, paragraph and section at ``pos``."""
    for i, (a, b, para, section) in enumerate(spans):
        if a <= pos < b:
            return i, para, section
    return -1, -1, -1


def audit(explainer: Explainer, glossary: tuple[GlossaryEntry, ...]) -> dict[str, list[str]]:
    """The terms ``explainer`` uses undefined, those defined before their first use, and
    those defined late, by how far (``LATE``), but those in the notes after a table's
    rows (``ROWS``)."""
    text, spans, bounds = _places(explainer)
    glosses = {d for e in glossary for d in (e.definition, e.plural, e.short) if d}
    bare = text
    for d in sorted(glosses, key=len, reverse=True):
        bare = bare.replace(d, " " * len(d))
    found: dict[str, list[str]] = {k: [] for k in ("undefined", "early", *LATE, ROWS)}
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
            if defined[0] == used[0]:
                continue
            far = 0 if defined[1] == used[1] else 1 if defined[2] == used[2] else 2
            if far == 0 and _after_rows(text, bare, bounds[used[1]], min(at)):
                found[ROWS].append(e.term)
            else:
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
                + (f", {ROWS} {found[ROWS]}" if found[ROWS] else "")
            )
    keys = ("undefined", "early", *LATE, ROWS)
    count = {k: sum(len(r[k]) for r in rows.values()) for k in keys}
    print(
        f"\n{explained} explainers: {count['undefined']} terms used undefined, "
        f"{count['early']} defined before their first use, "
        f"{sum(count[k] for k in LATE)} defined late ("
        + ", ".join(f"{count[k]} {k}" for k in LATE)
        + f"), {count[ROWS]} in the notes {ROWS} of a table"
    )
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
