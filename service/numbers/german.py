"""German number forms: a decimal comma ("2,5-mal", "2,5 %", "12,5 ms") and thousands
grouped by points ("1.362.998", "1.362.998,5 ms").

The extractor is never told a text's language (the check compares two texts; a feed's
``language`` reaches the engines, not the check), so German is told, number by number,
by a form English does not write, not by the words around it (a German sentence
"TopK braucht 12,5 ms" holds no word a list of German words would know):

- a comma before a German multiplier word ("mal", "Mal", "fach"), a percent sign,
  "Prozent" or "Prozentpunkte", a unit symbol ("ms", "GB", "GHz", "W", "bit", an
  attached "x") or a German word of time or scale ("Sekunden", "Stunden", "Mio.",
  "Milliarden"): an English list has its spaces ("2, 5 ms"), so an English "12,5 ms"
  (rare) is read as 12.5 ms too; not where English has a reading of it: thousands
  ("2,500%", "1,500 ms": three digits after a lead of one to three), a year's clause
  comma ("In 2024,10% of users"), a later group of thousands ("1,362,5%"). A bare "1,5"
  (no such word after it) stays 1 and 5: an English list ("layers 1,5 and 7") writes it
  as German writes 1.5, and nothing in the number tells them apart; nor does a German
  word that names no unit ("um 12,5 schneller": 12,5 what?), left as it was rather than
  guessed;
- a comma after thousands grouped by points ("1.362,5", "1.362.998,5", whatever follows):
  English writes no point before a group of three then a comma, but for a list of
  decimals without spaces, "1.125,2.5" (a point and a digit after the figure: a list);
- points grouping a number in threes, more than one of them ("1.362.998", no lead
  zero): English writes thousands with commas, and a version whose every part after
  the first has three digits is rarer than a German figure; one point ("1.362") stays
  the English decimal unless a decimal comma follows ("1.362,5 ms"). Still a version:
  "v1.362.998", and one after "version" or "release" (:func:`.context.version_by_context`;
  not after any capitalised word, as "2.14" is in "PyTorch 2.14": German capitalises its
  nouns, "Insgesamt 1.362.998"); still an address, as it was: a lead of 255 at most and
  three groups of 100 to 255 ("169.254.169.254").
"""

from __future__ import annotations

import re

# Unit symbols a decimal comma may stand before: times, sizes, rates of clocks, power,
# bits; and the German words of times and scales (units.SPACED_UNITS reads them after a
# number), which no English text writes after a number: "12,5 Sekunden", "1,2 Mio.",
# "3,5 Milliarden" (not "Billion": English capitalises it in a title, "1,5 Billion"
# would be a list of 1 and 5 billion; "Billionen", 10^12, is German only). An "x" only
# joined to the digits: "2,5 x 4" is a shape.
_UNIT = (
    r"(?:[nµum]?s|sec|min|h|[KMGTP]i?B|kB|[KMG]b|bits?|[kMG]?Hz|[kM]?W"
    r"|(?:Milli|Mikro|Nano)?[Ss]ekunden?|Minuten|Stunden|Tagen?|Wochen"
    r"|Millionen|Milliarden?|Billionen|Tausend)(?!\w)|(?:Mio|Mrd|Tsd|Bio|Std|Sek)\."
)

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
    r"|(?=(?P<d>\d+)(?:[x×](?![\w×])| ?(?:%|Prozent(?:punkte?n?)?\b|" + _UNIT + r")))"
    # After thousands grouped by points, whatever follows: "1.362,5" (decimal_point
    # tells the points thousands). Not before a point or comma and a digit: the third
    # figure of a list written without spaces ("1.125,2.5").
    r"|(?<=\.\d{3},)(?=\d+(?![\d.,]\d|\d)))"
)

# A number grouped by points ending right before a comma: "1.362" of "1.362,5 ms".
_GROUPED_BEFORE = re.compile(r"(?:^|[^\w.,])[1-9]\d{0,2}(?:\.\d{3})+\Z")


def decimal_point(m: re.Match[str]) -> str:
    """A point for the comma ``m`` of :data:`DECIMAL_COMMA`, or the comma kept."""
    s, k = m.string, m.start()
    while k > 0 and s[k - 1].isdigit():
        k -= 1
    lead = m.start() - k
    if k > 0 and s[k - 1] == ".":
        # "1.362,5 ms", "1.362.998,5 %": German thousands before it; not "1.2,5".
        grouped = _GROUPED_BEFORE.search(s[max(0, k - 40) : m.start()]) is not None
        return "." if grouped else ","
    if k > 0 and s[k - 1] == ",":
        return ","  # not the start of the number: the thousands of "1,362,5-mal"
    if lead == 4 and s[k : k + 2] in ("19", "20"):
        # "In 2024,10% of users": an English clause's comma with its space left out, 2024
        # and 10%, where a German figure of 1900 to 2099 with a fraction is rare.
        return ","
    after = m.group("d")
    if after is not None and len(after) == 3 and lead <= 3:
        return ","  # "2,500%", "1,500 ms": English thousands
    return "."


# Thousands grouped by points, and a decimal comma after them, as written (a point may
# stand for that comma in the prepared text: :func:`decimal_point`).
_GROUPED = re.compile(r"[$€£]?([1-9]\d{0,2}(?:\.\d{3})+)(,\d+)?")


def english_numeral(written: str, prepared: str) -> str | None:
    """``prepared`` (a token's core read by ``prepare``) with a German numeral at its
    start in English form, from ``written`` (the same characters as given): "1,362,998"
    for "1.362.998", "1,362.5" for "1.362,5"; None when it starts with none."""
    m = _GROUPED.match(written)
    if m is None:
        return None
    whole, fraction = m.group(1), m.group(2)
    if fraction is None:
        if whole.count(".") < 2:
            return None  # "1.362": the English decimal
        lead, *groups = whole.split(".")
        if len(groups) == 3 and int(lead) <= 255 and all(100 <= int(g) <= 255 for g in groups):
            return None  # an address (its groups of three at most 255): "169.254.169.254"
    numeral = whole.replace(".", ",") + ("." + fraction[1:] if fraction else "")
    return prepared[: m.start(1)] + numeral + prepared[m.end() :]


def grouped(written: str) -> bool:
    """Whether a quantity as written is a German numeral with points grouping its
    thousands ("1.362.998", "1.362,5"), not an English one ("1.362", "1,362.5")."""
    m = _GROUPED.match(written)
    return m is not None and (m.group(2) is not None or m.group(1).count(".") > 1)
