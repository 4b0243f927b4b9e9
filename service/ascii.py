"""Patterns for ASCII text: most texts the check reads are ASCII, and there the regex
engine tests ``\\w``, ``\\d`` and letters ignoring case by a table look-up, where a
pattern compiled for any text calls into the Unicode database for each character."""

from __future__ import annotations

import re

# Unicode's \s holds four ASCII characters that ASCII's \s does not (the information
# separators \x1c-\x1f, which str.isspace() takes too): written out, the twin's \s is
# the original's on ASCII text.
_SPACE = r"\s\x1c-\x1f"


def ascii_twin(pattern: re.Pattern[str]) -> re.Pattern[str]:
    """``pattern`` compiled with ``re.ASCII``: on ASCII text it matches where ``pattern``
    does (\\w, \\d, \\b and case-blind letters hold the same ASCII characters either way;
    \\s is widened to Unicode's). A pattern with \\S or \\W is refused: its twin would
    need the same care, and none needs one yet."""
    source = pattern.pattern
    if "\\S" in source or "\\W" in source:
        raise ValueError(f"no ASCII twin for a pattern with \\S or \\W: {source!r}")
    out: list[str] = []
    i, in_set = 0, False
    while i < len(source):
        c = source[i]
        if c == "\\" and i + 1 < len(source):
            pair = source[i : i + 2]
            if pair == "\\s":
                out.append(_SPACE if in_set else f"[{_SPACE}]")
            else:
                out.append(pair)
            i += 2
            continue
        if c == "[" and not in_set:
            in_set = True
            out.append(c)
            # A "]" right after "[" or "[^" is a member, not the end of the set.
            for lead in ("^", "]"):
                if source.startswith(lead, i + 1):
                    out.append(lead)
                    i += 1
        elif c == "]" and in_set:
            in_set = False
            out.append(c)
        else:
            out.append(c)
        i += 1
    flags = (pattern.flags & ~re.UNICODE) | re.ASCII
    return re.compile("".join(out), flags)
