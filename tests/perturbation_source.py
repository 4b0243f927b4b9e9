"""The perturbation suite's references and what their sources say, read independently of
the checker; the explainer's figures and names, and how to edit them in place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from pathlib import Path

from service.clean import article_from_document
from service.evaluate.cases import load_article, load_cases
from service.models import CheckStatus
from service.numbers import Kind, Number, extract_numbers, fold
from service.text import split_blocks, split_sentences

DATA = Path(__file__).parent / "data"
POSTS = DATA / "corpus" / "posts"
FEEDS = DATA / "corpus" / "feeds"
EVAL_CASES = Path(__file__).parent.parent / "eval" / "cases"
FLAGGED = {CheckStatus.UNSUPPORTED, CheckStatus.MISATTACHED}
U = frozenset({CheckStatus.UNSUPPORTED})
MOVED = frozenset({CheckStatus.MISATTACHED, CheckStatus.UNSUPPORTED})


@dataclass(frozen=True)
class Reference:
    name: str
    explainer: str
    source: str
    title: str  # the post's title, as its eval case (its feed) gives it


# The titles of the reference posts, as their eval cases give them (a post's own page
# does not always say it where the cleaner finds it).
_CASE_OF_POST = {
    "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl": "flydsl-amd-gpus",
    "pytorch-blog-fast-ondevice-agentic-ai-with-executorch": "executorch-muse-glimmer",
    "pytorch-blog-fp8-training-on-amd-gpus-with-torchtitan-and-torchao": (
        "fp8-training-amd-torchtitan"
    ),
    "pytorch-blog-how-shopify-built-a-continual-learning-loop": "shopify-continual-learning",
}


@cache
def _title(post: str) -> str:
    slug = _CASE_OF_POST[post]
    case = next(c for c in load_cases(EVAL_CASES) if c.slug == slug)
    return load_article(case).title or ""


@dataclass(frozen=True)
class Mutant:
    kind: str
    reference: str
    text: str
    expect: frozenset[CheckStatus]
    change: str  # what was changed, for the failure message


def _source(slug: str) -> str:
    path = next(POSTS.glob(slug + ".*"))
    return article_from_document(path.read_bytes(), filename=path.name).text


def _without_attention(text: str) -> str:
    """003 minus the sentences about attention results, which this post does not have."""
    lines = []
    for line in text.split("\n"):
        kept = [s for s in split_sentences(line) if not re.search(r"0\.92|0\.14\.2b", s)]
        lines.append(" ".join(kept) if kept or not line.strip() else "")
    return "\n".join(lines)


@cache
def references() -> tuple[Reference, ...]:
    flydsl = "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl"
    seed = (DATA / "seeds" / "003_9f84147b1b26c099.txt").read_text(encoding="utf-8")
    refs = [Reference("003-flydsl", _without_attention(seed), _source(flydsl), _title(flydsl))]
    for path in sorted((DATA / "explainers").glob("*.txt")):
        text = path.read_text(encoding="utf-8")
        refs.append(Reference(path.stem, text, _source(path.stem), _title(path.stem)))
    return tuple(refs)


# --- what the source says, read independently of the checker --------------------------------------


@dataclass(frozen=True)
class SourceFacts:
    values: frozenset[Decimal]  # every value written (quantities, range ends, words)
    percents: frozenset[Decimal]
    keys: str  # folded text, for "is this name anywhere"
    blocks: tuple[tuple[str, frozenset[Decimal]], ...]  # (block + headings, lower; values)
    sentences: tuple[str, ...]


def _values(numbers: list[Number]) -> set[Decimal]:
    out: set[Decimal] = set()
    for n in numbers:
        if n.value is not None:
            out.add(n.value)
        if n.high is not None:
            out.add(n.high)
    return out


@cache
def source_facts(source: str) -> SourceFacts:
    numbers = extract_numbers(source)
    blocks = []
    sentences: list[str] = []
    headings: list[tuple[int, str]] = []
    for block in split_blocks(source):
        if block.kind == "heading":
            headings = [h for h in headings if h[0] < block.level] + [(block.level, block.text)]
        context = " \n ".join([block.text, *(h for _, h in headings)])
        blocks.append((context.lower(), frozenset(_values(extract_numbers(block.text)))))
        if block.kind == "table":
            sentences.extend(" | ".join(row) for row in block.rows)
        else:
            sentences.extend(split_sentences(block.text))
    return SourceFacts(
        values=frozenset(_values(numbers)),
        percents=frozenset(n.value for n in numbers if n.unit == "%" and n.value is not None),
        keys=fold(source),
        blocks=tuple(blocks),
        sentences=tuple(sentences),
    )


def _name_forms(name: str) -> list[str]:
    """A name and its shorter forms ("Llama-3.1-8B-Instruct", "Llama-3.1-8B")."""
    parts = name.split("-")
    return ["-".join(parts[:k]).lower() for k in range(len(parts), 1, -1)] or [name.lower()]


def _mentions(context: str, name: str) -> bool:
    return any(
        re.search(r"(?<![a-z0-9])" + re.escape(form) + r"s?(?![a-z0-9])", context)
        for form in _name_forms(name)
    )


def _together(facts: SourceFacts, name: str, *values: Decimal) -> bool:
    """Whether some source block (with its headings) has the name and all the values."""
    return any(
        _mentions(ctx, name) and all(v in vals for v in values) for ctx, vals in facts.blocks
    )


# --- the explainer's figures and names ------------------------------------------------------------

_CORE = re.compile(r"\d[\d,]*(?:\.\d+)?")
_NAME = re.compile(r"[A-Za-z][\w.=+]*(?:-[\w.=+]+)*")
_NOT_NAMES = {"The", "This", "That", "These", "Those", "It", "Its", "A", "An", "In", "On", "For"}


def figures(text: str) -> list[Number]:
    """Quantities and ranges of an explainer, without its section numbers."""
    out = []
    for n in extract_numbers(text):
        if n.kind not in (Kind.QUANTITY, Kind.RANGE):
            continue
        at_line_start = n.start == 0 or text[n.start - 1] == "\n"
        if at_line_start and text[n.end : n.end + 2] == ". ":
            continue
        out.append(n)
    return out


def names(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int, str]]:
    """Names (models, formats, operators, products) in text[start:end], with positions."""
    out = []
    for m in _NAME.finditer(text, start, len(text) if end is None else end):
        word = m.group(0).rstrip(".")
        if word in _NOT_NAMES or len(word) < 2:
            continue
        initial = re.search(r"(?:^|[.:!?]\s+|\n)$", text[max(0, m.start() - 3) : m.start()])
        digit = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
        caps = any(c.isupper() for c in word[1:])
        if digit or caps or (word[0].isupper() and not initial):
            out.append((m.start(), m.start() + len(word), word))
    return out


def _sentence_span(text: str, pos: int) -> tuple[int, int]:
    start = max(text.rfind("\n", 0, pos), text.rfind(". ", 0, pos) + 1, 0)
    ends = [i for i in (text.find(". ", pos), text.find("\n", pos)) if i >= 0]
    return start, min(ends) if ends else len(text)


def _near(text: str, n: Number, words: int = 4) -> list[tuple[int, int, str]]:
    """Names within a few words of a figure, inside its sentence, not across a comma."""
    s_start, s_end = _sentence_span(text, n.start)
    before = text[s_start : n.start]
    cut = max(before.rfind(","), before.rfind(";"), before.rfind(":"))
    left = s_start + cut + 1 if cut >= 0 else s_start
    tokens = list(re.finditer(r"\S+", text[left : n.start]))
    if len(tokens) > words:
        left += tokens[-words].start()
    after = text[n.end : s_end]
    cut = min([i for i in (after.find(","), after.find(";")) if i >= 0] or [len(after)])
    right = n.end + cut
    tokens = list(re.finditer(r"\S+", text[n.end : right]))
    if len(tokens) > words:
        right = n.end + tokens[words - 1].end()
    return [x for x in names(text, left, right) if not (n.start <= x[0] < n.end)]


def _replace(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _core(n: Number, text: str) -> tuple[int, int]:
    """Span of the first numeral of a figure (its low end for a range)."""
    m = _CORE.search(text, n.start, n.end)
    assert m is not None
    return m.start(), m.end()


def _value_of(numeral: str) -> Decimal:
    return Decimal(numeral.replace(",", ""))


def _scale(n: Number, numeral: str) -> int:
    """Powers of ten between the numeral written and the value (27M -> 6)."""
    assert n.value is not None
    raw = _value_of(numeral)
    return 0 if raw == 0 else (n.value / raw).adjusted()
