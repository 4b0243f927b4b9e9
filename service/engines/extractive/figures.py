"""Figures: the number-bearing tokens of a text and how much each one says."""

from __future__ import annotations

import re
from collections.abc import Iterator

# A run of text between spaces and dashes, taken whole and kept when it holds a digit:
# "[^\s—]*\d[^\s—]*" found the same tokens but tried every start of a long run without a
# digit (a Markdown quote nested as ">>>...", a rule of "=" signs), minutes of CPU for 100 KB.
_RUN = re.compile(r"[^\s—]+")
_DIGIT = re.compile(r"\d")
_EDGE = "\"'()[]{}.,;:!?*"
_QUANTITY = re.compile(
    r"[~≈+\-−$€£]?\d[\d,]*(?:\.\d+)?(?:[x×%]|[kKMBT])?"
    r"(?:[–—\-]|→)?(?:[$€£]?\d[\d,]*(?:\.\d+)?(?:[x×%]|[kKMBT])?)?"
)
_UNIT_AFTER = re.compile(r"\s*(?:times|percent|×|ms\b|seconds?\b|tok/s|tokens/s|GB|GiB|TB)")
_MONTH = re.compile(
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+$", re.IGNORECASE
)


def _tokens(text: str) -> Iterator[tuple[re.Match[str], str]]:
    """Each token of ``text`` that holds a digit, without surrounding punctuation."""
    for m in _RUN.finditer(text):
        if not _DIGIT.search(m.group(0)):
            continue
        tok = m.group(0).strip(_EDGE)
        if any(c.isdigit() for c in tok):
            yield m, tok


def number_tokens(text: str) -> list[str]:
    """Every token of ``text`` that holds a digit, without surrounding punctuation."""
    return [tok for _, tok in _tokens(text)]


def _figure_weight(tok: str, text: str, end: int) -> float:
    """How much a number says: quantities with units most, identifiers least (``end``:
    where the token ends in ``text``, whose words after it may be its unit)."""
    if _QUANTITY.fullmatch(tok):
        # Matched in place: a slice of the text after each token made a long sentence
        # (a table of 90,000 cells read as one) cost its length times its figures.
        if re.search(r"[x×%$€£]|\d[kKMBT]$", tok) or _UNIT_AFTER.match(text, end):
            return 2.0
        if re.fullmatch(r"(?:19|20)\d\d", tok):
            return 0.3  # a year
        return 1.0
    if (
        re.match(r"[~≈+\-−$€£]?\d", tok)
        and re.search(r"\d(?:x|×|%)", tok)
        and not re.search(r"\d\s?[x×]\s?[A-Za-z]", tok)  # "8xMI325X" is a machine, not a ratio
    ):
        return 2.0
    return 0.4  # identifiers and versions: MI355X, FP8, 0.14.2b


def figures(text: str) -> dict[str, float]:
    """Each figure of ``text`` and its weight (see ``_figure_weight``), lowered for dates,
    labels and runs of plain counts or identifiers."""
    out: dict[str, float] = {}
    for m, tok in _tokens(text):
        weight = _figure_weight(tok, text, m.end())
        if _MONTH.search(text[max(0, m.start() - 12) : m.start()]) or re.fullmatch(
            r"\d{1,2}:\d\d(?:[ap]m)?", tok
        ):
            weight = 0.3  # dates and times say when, not how much
        if weight == 1.0 and re.fullmatch(r"\d", tok):
            weight = 0.3  # "stage 0", "step 2": labels more than amounts
        out[tok] = max(out.get(tok, 0.0), weight)
    # Lists of plain counts ("256, 512, or 1024 threads") are detail, not results.
    plain = [t for t, w in out.items() if w == 1.0]
    for t in plain[2:]:
        out[t] = 0.3
    # So are runs of identifiers ("A0 feeds C00/C01, A1 feeds C10/C11").
    names = [t for t, w in out.items() if w == 0.4]
    for t in names[2:]:
        out[t] = 0.1
    return out
