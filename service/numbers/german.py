"""German number forms: a decimal comma ("2,5-mal", "2,5 %", "12,5 ms").

The extractor is never told a text's language (the check compares two texts; a feed's
``language`` reaches the engines, not the check), so German is told, number by number,
by a form English does not write, not by the words around it (a German sentence
"TopK braucht 12,5 ms" holds no word a list of German words would know): a comma
before a German multiplier word ("mal", "Mal", "fach"), a percent sign or "Prozent",
or a unit symbol ("ms", "GB", "GHz", "W", "bit", an attached "x"). An English list has
its spaces ("2, 5 ms"), so an English "12,5 ms" (rare) is read as 12.5 ms too; not
where English has a reading of it: thousands ("2,500%", "1,500 ms": three digits after
a lead of one to three), a year's clause comma ("In 2024,10% of users"), a later group
of thousands ("1,362,5%").
"""

from __future__ import annotations

import re

# Unit symbols a decimal comma may stand before: times, sizes, rates of clocks, power,
# bits (symbols only: a German text writes "Sekunden", which the extractor reads as no
# unit anyway). An "x" only joined to the digits: "2,5 x 4" is a shape.
_UNIT = r"(?:[nµum]?s|sec|min|h|[KMGTP]i?B|kB|[KMG]b|bits?|[kMG]?Hz|[kM]?W)(?!\w)"

# A German decimal comma: "2,5-mal", "2,5 mal", "2,5mal", "2,5 Mal", "2,5-fach",
# "2,5fache" (2.5 times), and the first end of a range of them ("1,17- bis 3,66-mal");
# before a percent sign ("2,5 %", "2,5%", "1,79 Prozent") or a unit ("12,5 ms",
# "2,5GB", "1,5x"). The digits after the comma are group "d" in the second branch:
# :func:`decimal_point` tells thousands there. (The comma first, a literal: the regex
# engine skips ahead to one in C, where a pattern opening with a look-behind and digits
# is tried at every position.)
DECIMAL_COMMA = re.compile(
    r",(?<=\d,)(?:(?=\d+(?:-? (?:bis|und|oder) \d+,\d+)?(?:-| )?(?:[mM]al|fach)"
    r"(?:e[mnrs]?)?(?![a-zäöüß]))"
    r"|(?=(?P<d>\d+)(?:[x×](?![\w×])| ?(?:%|Prozent\b|" + _UNIT + r"))))"
)


def decimal_point(m: re.Match[str]) -> str:
    """A point for the comma ``m`` of :data:`DECIMAL_COMMA`, or the comma kept."""
    s, k = m.string, m.start()
    while k > 0 and s[k - 1].isdigit():
        k -= 1
    lead = m.start() - k
    if k > 0 and s[k - 1] in ",.":
        return ","  # not the start of the number: "1,362,5-mal", "1.2,5"
    if lead == 4 and s[k : k + 2] in ("19", "20"):
        # "In 2024,10% of users": an English clause's comma with its space left out, 2024
        # and 10%, where a German figure of 1900 to 2099 with a fraction is rare.
        return ","
    after = m.group("d")
    if after is not None and len(after) == 3 and lead <= 3:
        return ","  # "2,500%", "1,500 ms": English thousands
    return "."
