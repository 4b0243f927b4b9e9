"""A title's claim that says again the noun what the title adds ends on: "Together AI
delivers fastest inference, up to 2x faster inference" reads the noun twice in a few
words. The claim drops it where what is left still says what the figure is ("up to 2x
faster": a comparison, of what the title just named)."""

from __future__ import annotations

import re

from service.engines.extractive.words import STOPWORDS, wordset

_NEAR = 4  # words: the noun this close to the end of what the title adds is said again
# Words a claim may end on once its noun is gone: a comparison needs no noun after it
# when the title names it just before ("up to 2x faster").
_COMPARATIVES = wordset("more less fewer better worse")
# After one of these the last noun is no longer the claim's head but what it is measured
# against or said of: "Faster kernels, 1.5x speedup over the old kernels" says two things.
_PREPOSITIONS = wordset("over than of for in on at by to from with against compared relative")


def _bare(word: str) -> str:
    """A word without its marks and plural "s", lower-cased: "Inference," -> "inference"."""
    w = word.strip(".,;:!?()“”\"'‘’").lower()
    return w[:-1] if w.endswith("s") and not w.endswith("ss") else w


def _comparative(word: str) -> bool:
    w = word.lower()
    return w in _COMPARATIVES or (w.isalpha() and len(w) > 4 and w.endswith("er"))


def without_repeat(new: str, claim: str) -> str | None:
    """``claim`` as the title says it after ``new``: whole when its last word, a noun,
    is not one of the last few of ``new``; without that noun when a comparison is left
    ("up to 2x faster"); None when the claim can only say the noun again."""
    words = claim.split()
    head = _bare(words[-1]) if words else ""
    if not head.isalpha() or head in STOPWORDS or len(words) < 2:
        return claim
    if head not in {_bare(w) for w in new.split()[-_NEAR:]}:
        return claim
    lead = re.sub(r"^(?:up to|by)\s", "", " ".join(words[:-1]), flags=re.IGNORECASE)
    if any(w.lower() in _PREPOSITIONS for w in lead.split()):
        return claim  # the noun of its baseline ("1.5x speedup over the old kernels")
    rest = " ".join(words[:-1]).rstrip(",;:")
    if _comparative(words[-2]) and re.search(r"\d", rest):
        return rest
    return None
