"""The names an explainer gives its figures that the source never writes (:mod:`.absent`),
per sentence: bound to its figures in the windows the known names bind in. A figure the
source would back, said of such a name, is misattached (``report._check_sentences``)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from service.check.absent import (
    Prose,
    absent_name,
    initials,
    plain_word,
    says_who,
    spelled_acronym,
    title_cased,
    written_anyhow,
)
from service.check.bind import bind_numbers
from service.check.index import SourceIndex
from service.check.names import Name, name_key, name_pattern
from service.numbers import Number
from service.numbers.number import QUANTITY, RANGE, WORD

# What stands between a maker's name and its product's: "AWS Graviton", "Meta's Llama".
_OWNED = re.compile(r"(?:['\u2019]s)?\s+")


def _maker(s: str, x: Name, names: Sequence[Name]) -> bool:
    """Whether the name ``x`` of sentence ``s`` stands right before a name the source
    writes, as a maker's before its product ("AWS Graviton3e", "Meta's Llama 3"): it
    says whose the product is (world knowledge, as a chip vendor's name is:
    :data:`~service.check.names.VENDORS`), not another thing the figure is of."""
    after = next((y for y in names if y.start >= x.end), None)
    return after is not None and _OWNED.fullmatch(s, x.end, after.start) is not None


# The capitalised words right after a bare count: what it counts ("8 LLMs", "40 PRs",
# "256 Prompt Tokens"), which the check reads as nouns (abbreviations of "large language
# models", "pull requests"; a title-case phrase): no things the figure is said of.
_COUNTED = re.compile(r"(?:[ \t-]+[A-Z][\w'\u2019]*)+")


def _counted_phrases(s: str, nums: Sequence[Number]) -> list[tuple[int, int]]:
    out = []
    for n in nums:
        m = _COUNTED.match(s, n.end) if not n.unit and n.kind in (QUANTITY, RANGE, WORD) else None
        if m is not None:
            out.append(m.span())
    return out


def strays_of(
    idx: SourceIndex,
    s: str,
    text: str,
    nums: Sequence[Number],
    names: Sequence[Name],
    lacked: Sequence[tuple[int, int, bool]],
    prose: bool,
    explainer: Prose,
    context: str = "",
) -> dict[int, list[Name]]:
    """Per figure (by start), the names within its words (the window its known names
    bind in, :func:`bind_numbers`) that the source never writes (:mod:`.absent`), of the
    name words of sentence ``s`` (``text`` as written) the source lacks (``lacked``, each
    with whether it is a name only where the explainer writes it so inside a sentence: a
    plain first word; ``prose``: the sentence is prose; ``explainer``: the explainer's
    prose; ``context``: the names of the post's context, :func:`~.absent.context_text`).
    Read cheapest first: most are words the source writes in lower case."""
    found: list[Name] = []
    counted: list[tuple[int, int]] | None = None
    for a, b, first in lacked:
        word = s[a:b]
        if word.lower() in idx.source_words:
            continue  # most: a capitalised word the source writes in lower case
        key = name_key(word)
        if not absent_name(word, key):
            continue
        x = Name(a, b, key, name_pattern(key))
        if plain_word(word):
            # A capital says a name only inside English prose (title case read in the
            # sentence as written: a count's title-case phrase is lowered in ``s``).
            if not prose or title_cased(text) or not explainer.english():
                continue
            if first and not explainer.named(word):
                continue  # a sentence's first word: a name only where the explainer says so
        if counted is None:
            counted = _counted_phrases(s, nums)
        if any(c <= a < d for c, d in counted):
            continue  # "8 LLMs", "256 Prompt Tokens": what a count counts
        if _maker(s, x, names) or says_who(s, x):
            continue  # "AWS Graviton3e", "the PyTorch team reports": whose, who says
        if spelled_acronym(s, a, b, idx.source_words):
            continue  # "Large Language Model" of the source's "LLM": its words spelt out
        spelt = initials(word)
        if idx.written_anyhow(key, spelt):
            continue  # it searches the whole source (once per name, memoised)
        if context and written_anyhow(context, key, initials=spelt):
            continue  # "PyTorch" of the feed "PyTorch Blog": the post's own context
        found.append(x)
    if not found:
        return {}
    # Bound with the known names, as they are: the same windows, a "respectively" list's
    # pairs (its names all counted, or the pairs would shift).
    strays = set(found)
    both = sorted([*names, *found], key=lambda x: x.start)
    bound = bind_numbers(s, nums, both, leading=True)
    return {at: mine for at, b in bound.items() if (mine := [x for x in b.names if x in strays])}
