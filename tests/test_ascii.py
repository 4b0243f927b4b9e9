"""ASCII twins of the check's patterns (service.ascii): on ASCII text they match exactly
where the patterns they stand in for do."""

from __future__ import annotations

import random
import re

import pytest

from service.ascii import ascii_twin
from service.check import condition, marks, name_tokens, scope
from service.numbers import tokens

# Fragments the twins' patterns look for, the four separators Unicode's \s holds and
# ASCII's does not, and other ASCII characters.
_FRAGMENTS = [
    *"aAbBdeEfFiIknNoOrsStTuUwWxX019_-.,;:=+()[]'\" \t\n",
    *(chr(c) for c in range(0x1C, 0x20)),
    "\x0b", "\x0c", "\r", "\x7f", "with", "WITHOUT", "using", "not", "n't", "never", "been",
    "enabled", "Disabled", "sync", "and", "or", "vs.", "compared", "to", "MI355X", "1,024",
    "v1.2", "4x4", "×",
]  # fmt: skip

_TWINS = [
    (condition._WITH, condition._WITH_ASCII),
    (condition._NEGATION, condition._NEGATION_ASCII),
    (marks.COORDINATOR, marks._COORDINATOR_ASCII),
    (scope._OPPOSITE, scope._OPPOSITE_ASCII),
    (tokens._TAIL, tokens._TAIL_ASCII),
    (name_tokens.NAME_TOKEN, name_tokens._NAME_TOKEN_ASCII),
]


def _texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    texts = ["".join(rng.choice(_FRAGMENTS) for _ in range(rng.randint(1, 12))) for _ in range(n)]
    return [t for t in texts if t.isascii()]


@pytest.mark.parametrize(("pattern", "twin"), _TWINS, ids=lambda p: p.pattern[:30])
def test_twin_matches_where_the_pattern_does_on_ascii_text(
    pattern: re.Pattern[str], twin: re.Pattern[str]
) -> None:
    for text in _texts(sum(map(ord, pattern.pattern)), 20000):
        for pos in (0, 1):
            assert [m.span() for m in twin.finditer(text, pos)] == [
                m.span() for m in pattern.finditer(text, pos)
            ], text


def test_space_is_unicode_space_in_and_out_of_sets() -> None:
    twin = ascii_twin(re.compile(r"a\s+b[\s,]c[^\s]"))
    for sep in ("\x1c", "\x1f", " ", "\t"):
        assert twin.fullmatch(f"a{sep}b{sep}cd")
        assert not twin.fullmatch(f"a b,c{sep}")


def test_patterns_with_negated_classes_are_refused() -> None:
    with pytest.raises(ValueError):
        ascii_twin(re.compile(r"\S+"))
    with pytest.raises(ValueError):
        ascii_twin(re.compile(r"\W"))


def test_name_tokens_from_capitals_are_the_name_token_scan_with_a_capital() -> None:
    rng = random.Random(7)
    pieces = [*_FRAGMENTS, "a" * 250, "B" + "c" * 260, "x.y", "a..B", "_.=Z", "=+", "v1.2"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 10)))
        if not text.isascii():
            continue
        for start, end in ((0, len(text)), (1, len(text)), (2, max(2, len(text) - 2))):
            scan = name_tokens._NAME_TOKEN_ASCII.finditer(text, start, end)
            expected = [m.span() for m in scan if any(c.isupper() for c in m.group(0))]
            found = [m.span() for m in name_tokens.name_tokens(text, start, end)]
            assert found == expected, (text, start, end)
