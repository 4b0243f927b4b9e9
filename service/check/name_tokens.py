"""The tokens of a text that can be names (a word token with a capital), for
:func:`~service.check.known_names.known_names`."""

from __future__ import annotations

import re
from collections.abc import Iterator

# A word token (\w runs joined by . = +) that can be a name: one with a capital (or a
# letter outside ASCII) in it. The lookbehinds start it where a scan of all tokens would
# (not inside one); the lookahead skips in C the lower-case words, most of a text. It
# starts at a word character and looks 256 characters ahead at most: unbounded, it read
# to the end of a run of joiners from each of them ("=" * 100_000, "a..a..a...": minutes
# of CPU for 100 KB of an explainer or a post); no name waits that long for its capital.
NAME_TOKEN = re.compile(
    r"(?<!\w)(?<!\w[.=+])(?=\w)(?=[\w.=+]{0,256}[^\W\d_a-z])\w(?:\w|[.=+](?=\w))*"
)
# The same for ASCII text, where \w, \d and [^\W\d_a-z] hold the same characters: tested
# by a table look-up, not by calls into the Unicode database for each character.
_NAME_TOKEN_ASCII = re.compile(NAME_TOKEN.pattern, re.ASCII)
# For ASCII text the tokens are found from their capitals: a pattern that starts with a
# set is skipped ahead in C to the next capital, where NAME_TOKEN (look-behinds first)
# is tried at every position, some 630 instructions a character of lower-case prose.
_CAPITAL = re.compile(r"[A-Z]")
_WORD_TOKEN_ASCII = re.compile(r"\w(?:\w|[.=+](?=\w))*", re.ASCII)


def _word_char(c: str) -> bool:
    return c.isalnum() or c == "_"  # \w, for an ASCII character


def name_tokens(s: str, start: int, end: int) -> Iterator[re.Match[str]]:
    """``_NAME_TOKEN_ASCII.finditer(s, start, end)`` of an ASCII ``s``, but its tokens
    that hold no capital (it yields those only when its look-ahead reaches a capital past
    them: "abc..Def" gives "abc"; a name never holds none). From each capital not inside
    a token already read: back to its token's start (a word character or a joiner
    between two, as the pattern's look-behinds refuse to start within), the token read
    from there by the same steps. The pattern's look-ahead reaches a capital 256
    characters from the start at most, and its look-behinds see before ``start``: a
    token whose first capital lies further, or that starts before ``start``, is none."""
    pos = start
    while True:
        cap = _CAPITAL.search(s, pos, end)
        if cap is None:
            return
        first = t = cap.start()
        while t > 0 and (
            _word_char(s[t - 1]) or (s[t - 1] in ".=+" and t > 1 and _word_char(s[t - 2]))
        ):
            t -= 1
        token = _WORD_TOKEN_ASCII.match(s, t, end)
        assert token is not None  # s[t] is a word character, and t < end
        if t >= start and first - t <= 256:
            yield token
        pos = token.end()
