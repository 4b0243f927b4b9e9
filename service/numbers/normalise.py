"""The text as the extractor reads it, and the folded forms names are compared in."""

from __future__ import annotations

import re

from service.numbers.german import DECIMAL_COMMA, decimal_point

# One character for one character, so that positions survive.
_CHAR_MAP = str.maketrans(
    {
        "\u2010": "-",
        "\u2011": "-",  # non-breaking hyphen
        "\u2012": "-",
        "\u2013": "-",  # en dash
        "\u2014": "-",  # em dash
        "\u2015": "-",
        "\u2212": "-",  # minus sign
        "\ufe63": "-",
        "\uff0d": "-",
        "\u2236": ":",  # ratio sign used as a colon
        "\u00a0": " ",
        "\u202f": " ",
        "\u2007": " ",
        "\u2009": " ",
        "\u200a": " ",
        "\uff05": "%",
        "\u2715": "×",
        "\u2a09": "×",
        "\u2019": "'",
        "\u03bc": "µ",  # Greek mu written for the micro sign
        "\u2192": "→",
    }
)

# Link targets, bare URLs, inline-code ticks and emphasis markers: blanked, not removed.
# Its first character read as a set, each alternative then told by it (a look-behind of
# one): a pattern that starts with a set is skipped ahead in C to where the set matches,
# where one that starts with a look-ahead is tried at every position.
_SCRUB = re.compile(
    r"[\]<h`*](?:(?<=\])\([^()\s\[\]]*\)|(?<=<)https?://[^\s)>\]]+>?"
    r"|(?<=h)ttps?://[^\s)>\]]+>?|(?<=[`*])[`*]*)"
)


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group(0))


# "8xMI300X", "8x MI325X": eight of a named thing, not a multiplier.
_COUNT_OF = re.compile(r"(?<![\d.])(\d+)[x×](?=\s?[A-Z][A-Za-z]*\d)")
# Whether _COUNT_OF can match, one pattern per sign: a pattern that starts with a literal
# is searched for with a fast scan, one that starts with a class ("\d", "[x×]") is not.
_COUNT_HINT_X = re.compile(r"x(?<=\dx)(?=\s?[A-Z][A-Za-z]*\d)")
_COUNT_HINT_TIMES = re.compile(r"×(?<=\d×)(?=\s?[A-Z][A-Za-z]*\d)")


def _count_of(m: re.Match[str]) -> str:
    return m.group(1) + " "


_SPECIAL = re.compile("[" + "".join(chr(c) for c in _CHAR_MAP) + "]")


def _special(m: re.Match[str]) -> str:
    return str(_CHAR_MAP[ord(m.group(0))])


def prepare(text: str) -> str:
    """The text as the extractor reads it: same length, same positions."""
    # Each pattern runs only where it can match (a test in C on the whole string is far
    # cheaper than a regex scan): every special character is outside ASCII (isascii()
    # reads a flag); _SCRUB needs "](", "http", a tick or a star; _COUNT_OF an x or ×.
    if not text.isascii():
        # A regex finds the few special characters faster than str.translate walks them.
        text = _SPECIAL.sub(_special, text)
    if "](" in text or "http" in text or "`" in text or "*" in text:
        text = _SCRUB.sub(_blank, text)
    # A German decimal comma ("2,5mal", "2,5 %", "12,5 ms"; service.numbers.german): the
    # regex looks at commas only, each rejected at the digit before or after it.
    if "," in text:
        text = DECIMAL_COMMA.sub(decimal_point, text)
    if ("x" in text and _COUNT_HINT_X.search(text)) or (
        "×" in text and _COUNT_HINT_TIMES.search(text)
    ):
        return _COUNT_OF.sub(_count_of, text)
    return text


_SEPARATORS = re.compile(r"[\s_\-][\s_\-]*")  # a set first: skipped ahead in C


def fold(text: str) -> str:
    """Lower case with runs of spaces, hyphens and underscores folded to one NUL, so that
    ``Llama 3.1 8B``, ``llama-3.1-8b`` and ``Llama_3.1_8B`` compare equal."""
    lower = text.lower()
    # A name of letters and digits only ("BF16", most of them) has no separator to fold.
    return lower if lower.isalnum() else _SEPARATORS.sub("\x00", lower)


def identifier_key(text: str) -> str:
    """The verbatim-compare form of an identifier or version."""
    return key_of(prepare(text).strip())


def key_of(prepared: str) -> str:
    """The verbatim-compare form of an identifier already read by :func:`prepare`."""
    key = fold(prepared)
    if len(key) > 2 and key[-1] == "s" and key[-2].isdigit():
        key = key[:-1]  # H100s -> h100
    return key
