"""Definitions for the terms of a table read as sentences: none in a row, where one
reads as another cell ("Llama3-8B (dense): optimization Rowwise FP8 vs BF16 (BF16:
...); result ..."), but in notes after the rows, as a table's footnotes."""

from __future__ import annotations

from collections.abc import Sequence

from service.engines.extractive.glossary import MAX_DEFINITIONS, GlossaryEntry

_NOTES = 2  # notes after a table, at most
_IN_NOTE = 2  # definitions to a note, as after a sentence


def table_notes(
    rows: str, glossary: Sequence[GlossaryEntry], defined: set[str], most: int = MAX_DEFINITIONS
) -> str:
    """The notes after ``rows`` (" (BF16: ...; throughput: ....)") that define the terms
    the reader meets there and has not had defined, in the order met, ``_NOTES`` of
    ``_IN_NOTE`` at most; the others are left for their next use. Terms defined go into
    ``defined``. Left to their next use all, the FP8 explainer's BF16 and throughput,
    met in its table of results, were defined a paragraph on, and "fusion" never."""
    firsts = ((next(e.uses(rows), None), e) for e in glossary if e.term not in defined)
    met = sorted((m.start(), e.term, e.definition) for m, e in firsts if m is not None)
    said: list[str] = []
    for _, term, definition in met[: _NOTES * _IN_NOTE]:
        if len(defined) >= most:
            break
        defined.add(term)
        said.append(f"{term}: {definition}")
    return "".join(
        f" ({'; '.join(said[i : i + _IN_NOTE])}.)" for i in range(0, len(said), _IN_NOTE)
    )
