"""Lengths said of a thing: "short prompts" and "long prompts" are opposite conditions of
a figure, as "enabled" and "disabled" are (:mod:`.scope`), but only where the two words
qualify the same noun: "long" alone is no condition ("as long as", "how long", "a long
time"), and "long context" says nothing against "short prompts" (another noun)."""

from __future__ import annotations

import re

from service.ascii import ascii_twin
from service.check.condition import negated

LENGTH = "len:"  # a mark's pair: LENGTH and the noun's key; side 0 short, 1 long

# What a length says a figure's condition of: the noun right after it (a hyphen or one
# more of these between: "long-context", "short input prompts"), by its key: a prompt
# is the input, a reply or a completion the output (as scope's counted nouns read them).
_NOUNS = {
    "prompt": "input",
    "input": "input",
    "output": "output",
    "reply": "output",
    "replie": "output",
    "response": "output",
    "completion": "output",
    "generation": "output",
    "answer": "output",
    "sequence": "sequence",
    "context": "context",
    "run": "run",
    "document": "document",
    "text": "text",
    "request": "request",
    "query": "query",
    "querie": "query",
    "conversation": "conversation",
    "video": "video",
    "job": "job",
}
_NOUN = "(" + "|".join(sorted(_NOUNS, key=len, reverse=True)) + ")s?"
# "short prompts", "longer sequences", "long-context", "short and long prompts",
# "short- or long-context", "short/long inputs" (both sides, one noun); not "how long
# prompts get", a question of length.
_LENGTH = re.compile(
    r"(?<![\w-])(?<!\bhow\s)(short|long)(?:er)?"
    r"(?:(?:-?\s+(?:and|or|to|vs\.?|versus)\s+|\s*/\s*)(short|long)(?:er)?)?"
    rf"(?:\s+|-)(?:{_NOUN}(?:\s+|-))?{_NOUN}(?![\w-])",
    re.I,
)
_LENGTH_ASCII = ascii_twin(_LENGTH)  # for ASCII text (most): see service.ascii


def length_marks(s: str, start: int, end: int) -> list[tuple[int, tuple[str, int]]]:
    """Where each length of a noun in ``s[start:end]`` stands ("short prompts"), with its
    marks: (:data:`LENGTH` and the noun's key, side), side 0 for short, 1 for long, of
    each noun of the phrase ("long-context prompts" are long contexts and long inputs);
    both sides where two lengths share the noun ("short and long prompts"); a negation
    before turns it ("not long prompts")."""
    out: list[tuple[int, tuple[str, int]]] = []
    for m in (_LENGTH_ASCII if s.isascii() else _LENGTH).finditer(s, start, end):
        inner, head = m.group(3), m.group(4)
        singular = head.lower() == "run" and m.end() == m.end(4)
        if not inner and singular and s[max(0, m.start() - 4) : m.start()].lower() == "the ":
            continue  # "in the long run": an idiom, no run
        side = 0 if m.group(1).lower() == "short" else 1
        if negated(s, start, m.start()):
            side = 1 - side
        sides = [(m.start(), side)]
        if m.group(2):
            sides.append((m.start(2), 0 if m.group(2).lower() == "short" else 1))
        keys = dict.fromkeys(LENGTH + _NOUNS[noun.lower()] for noun in (inner, head) if noun)
        out.extend((at, (key, side)) for at, side in sides for key in keys)
    return out
