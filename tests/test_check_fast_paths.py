"""The check's fast paths in C (a substring found by `in`, a byte translation, a pattern
that starts with a literal) give what the patterns they stand in front of give."""

from __future__ import annotations

import re

import pytest

from service.check.names import find_noun, name_pattern, noun_pattern
from service.check.scope import opposite_marks
from service.check.table import _WORDS, norm_words


def _norm_by_pattern(text: str) -> str:
    return " " + _WORDS.sub(" ", text.lower().replace(". ", " ")).strip(" .") + " "


@pytest.mark.parametrize(
    "text",
    [
        "The FlyDSL kernel reaches 1.58x and 1.68x over Triton, on MI355X GPUs.",
        "  **Dense GEMM** | 1.10x | (BF16; 15 shapes) . . ",
        "a+b = 12.5% -- ok...",
        "",
        "Llama-3.1-8B: 2×faster — per GPU",  # not ASCII: the pattern itself
    ],
)
def test_table_norm_is_the_pattern_substitution(text: str) -> None:
    assert norm_words(text, text) == _norm_by_pattern(text)


@pytest.mark.parametrize(
    ("noun", "text"),
    [
        ("tokens", "512 output tokens per second"),
        ("tokens", "512-token prompt"),
        ("latency", "p99 latencies fell"),
        ("sequence", "seq len 4096"),
        ("speedup", "the speed-up was 2x"),
        ("tokens", "no such word here"),
        ("ab", "a lab"),
    ],
)
def test_find_noun_is_the_noun_pattern(noun: str, text: str) -> None:
    found, expected = find_noun(noun, text), noun_pattern(noun).search(text)
    assert (found and found.span()) == (expected and expected.span())


def _behind_first(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """The name's pattern as it was written: the look-behind before the first letter."""
    text = pattern.pattern
    c = text[0]
    assert text.startswith(c + "(?<![a-z0-9]" + c + ")")
    return re.compile("(?<![a-z0-9])" + c + text[len(c + "(?<![a-z0-9]" + c + ")") :])


@pytest.mark.parametrize(
    "key", ["llama3", "mi355x", "bf16", "q4\x00k", "llama\x003.1\x008b\x00instruct", "gemm"]
)
def test_name_pattern_letter_first_finds_what_look_behind_first_did(key: str) -> None:
    texts = [
        "on llama 3 and llama3, llama-3.1-8b and llama-3.1-70b",
        "the mi355x gpus; xmi355x, mi355xs",
        "bf16-bf16 xbf16 bf16s",
        "q4_k and q4 k, q4k",
        "xgemm gemms grouped gemm",
    ]
    pattern = name_pattern(key)
    before = _behind_first(pattern)
    for text in texts:
        for pos in (0, 1, 5):
            assert [m.span() for m in pattern.finditer(text, pos)] == [
                m.span() for m in before.finditer(text, pos)
            ]
    assert pattern.search("xgemm", 1) is None or key != "gemm"


@pytest.mark.parametrize(
    "text",
    [
        "4.82x with deterministic algorithms disabled, and 4.02x with them enabled",
        "Forward fusion added 17% on small batches",
        "the kernel reaches 6.2x on MI325X",  # no word of a pair: no mark
        "using CUDA graphs, the prefill was faster",
    ],
)
def test_opposite_marks_of_clauses_with_and_without_pair_words(text: str) -> None:
    marks = opposite_marks(text, 0, len(text))
    words = {"disabled", "enabled", "forward", "small", "using", "prefill", "with"}
    assert bool(marks) == any(w in text.lower().split() for w in words)
