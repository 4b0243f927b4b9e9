"""A count of products: "8 H100s", "8 NVIDIA H100s", "8x A100 80GB" count GPUs, a
model's name standing for its kind. The explainer's plain hardware noun ("8 GPUs")
is backed by such a source count, whatever kind the model is of (a name does not
say it: "8 CPUs" for "8 H100s" passes too, a known limit), where the name has a digit
or is a capitalised plural ("16 Blackwells", "4 Xeons"; a title-case "8 Nodes" passes
too, a known limit) and has no noun of its own after it ("8 H100 nodes" counts
nodes)."""

from __future__ import annotations

import re

from service.check.names import STOP_WORDS
from service.check.scope import AFTER_NOUN, HEAD_WORDS, noun_phrase
from service.check.unit import Unit
from service.numbers import Number

# The kinds a model's name stands for (no "node": a machine, not a chip's model).
PRODUCT_KINDS = frozenset({"gpu", "cpu", "tpu", "npu"})

# After a count, in the source's own case: up to two words of its maker or line
# ("NVIDIA", "AMD Instinct"), then the model's name with a digit ("H100s", "MI300X"),
# a capitalised plural ("Blackwells"), or digits after a word of its line ("RTX
# 4090s"). "8x A100": the "x" of a count.
_PRODUCT = re.compile(
    r"x?[ \t]+(?:[A-Z][A-Za-z-]*[ \t]+){0,2}?"
    r"(?:[A-Z][A-Za-z]*\d[\w.-]*|[A-Z][a-z]+s|(?<=[A-Za-z][ \t])\d+[A-Za-z]*)(?![\w-])"
)


def product_kind(noun: str) -> bool:
    """Whether an explainer's noun ("gpus", "GPUs") is a kind a model's name stands for."""
    return noun.lower().removesuffix("s") in PRODUCT_KINDS


def counts_products(unit: Unit, number: Number) -> bool:
    """Whether the source's count ``number`` counts a model's name: its name right after
    it (:data:`_PRODUCT`), and no noun after that name."""
    m = _PRODUCT.match(unit.cased, number.end)
    if m is None:
        return False
    return not noun_phrase(unit.text, m.end(), STOP_WORDS, HEAD_WORDS, AFTER_NOUN)
