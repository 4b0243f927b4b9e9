"""A literal number assigned to a keyword in code ("min=2", "max_tokens=4096",
"--max-model-len=8192"), and the side of it a keyword states ("max=128": a maximum).

Written with spaces ("min = 2", ``"max_len": 4096``) the value is a token of its own, a
quantity already; written without, the token was one identifier ("min=2"), which no
explainer writes: "a minimum of 2" found no 2 in the source. The value is the figure,
the keyword one of the words around it that say what it is of ("min" binds "minimum":
an abbreviation, :func:`service.check.names.noun_pattern`).
"""

from __future__ import annotations

import re

from service.numbers.number import LOWER, NO_HEDGE, UPPER, Hedge, Number

# A keyword of code: lower case first (an argument, a field, a flag's words joined by
# hyphens), letters and underscores only. Settings written in capitals ("TP=1",
# "USE_HW_AGNOSTIC=1") stay identifiers, compared as written; so do names with a digit
# ("fp8=1": a format's name the explainer may write), and a single letter ("n=8", "k=4":
# a formula's variable, no keyword).
_NAME = r"[a-z_][A-Za-z_]+(?:-[a-z_][A-Za-z_]*)*"
_KEYWORD = re.compile(_NAME + r"=(?=[0-9.])")
_ASSIGNED = re.compile(r"(?<!\w)" + _NAME + r"=$")


def keyword_value(token: str) -> int:
    """Where the value starts in a token that assigns it to a keyword ("min=2": 4), 0
    when the token is no such assignment."""
    m = _KEYWORD.match(token)
    return m.end() if m is not None else 0


def with_keyword(text: str, n: Number) -> str:
    """``n``'s text with the keyword assigned it right before it ("min=4" of 4), as a
    code line of the explainer is looked for verbatim: its 4 alone is any 4 of the
    source. Else ``n``'s text."""
    m = _ASSIGNED.search(text, max(0, n.start - 40), n.start)
    return text[m.start() : n.end] if m is not None else n.text


# The keyword right before a value, in any of code's ways: "max=", "max = ", "max: ",
# ``"max": ``, ``'max' : ``. (Not after a count's minutes: "5 min: 30 s".)
_KEYWORD_BEFORE = re.compile(
    r"(?<!\w)(?<!\d\s)(?P<k>[A-Za-z_][A-Za-z_]*(?:-[A-Za-z_]+)*)[\"']?\s?[=:]\s?$"
)
_PARTS = re.compile(r"[-_]+|(?<=[a-z])(?=[A-Z])")  # max_tokens, max-model-len, maxTokens
_SIDES = {"max": UPPER, "maximum": UPPER, "min": LOWER, "minimum": LOWER}


def keyword_side(s: str, n: Number) -> Hedge:
    """The side a value assigned to a keyword is stated as (found in ``s``): UPPER where a
    word of the keyword is "max" or "maximum" ("max=128", "max_tokens: 4096": the most
    there may be, as "has a max of 128" says), LOWER for "min" or "minimum"; else (no
    keyword, both words, neither) no hedge."""
    m = _KEYWORD_BEFORE.search(s, max(0, n.start - 40), n.start)
    if m is None:
        return NO_HEDGE
    sides = {side for p in _PARTS.split(m.group("k")) if (side := _SIDES.get(p.lower()))}
    return sides.pop() if len(sides) == 1 else NO_HEDGE
