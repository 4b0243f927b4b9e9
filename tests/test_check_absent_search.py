"""absent's searches of the whole source, made cheap, find what the plain patterns find:
the look-behind after a name's first letter (not before it), and the source without
separators as a test a name must pass before its pattern runs."""

from __future__ import annotations

import random
import re

from service.check.absent import _LOOSE_SEP, _loose, _spelled, squeezed, written_anyhow

_PIECES = ["pro", "p", "r", "o", "pte", "flash", "attention", "x", "1", " ", "-", "_", "\x00"]
_PIECES += ["\u00a0", "\n", "s", "es", "large", "language", "model", "of", "and", "ll", "m"]


def _plain_loose(key: str) -> re.Pattern[str]:
    body = _LOOSE_SEP.join(map(re.escape, key))
    if len(key) >= 4:
        return re.compile(body)
    return re.compile(r"(?<![a-z0-9])" + body + r"(?:e?s)?(?![a-z0-9])")


def _texts(seed: int) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 14))) for _ in range(4000)]


def test_a_loose_name_is_found_where_the_plain_pattern_finds_it() -> None:
    for text in _texts(3):
        for key in ("pro", "pte", "ll", "flashattention", "flash"):
            plain = _plain_loose(key).search(text)
            fast = _loose(key).search(text)
            assert (plain and plain.span()) == (fast and fast.span()), (key, text)


def test_a_spelled_acronym_is_found_where_the_plain_pattern_finds_it() -> None:
    sep = r"[\s\x00/-]+(?:(?:and|of|the|for|&)[\s\x00/-]+)*"
    for letters in ("llm", "pte", "me"):
        plain = re.compile(r"(?<![a-z0-9])" + sep.join(f"({c}[a-z]{{2,}})" for c in letters))
        for text in _texts(5):
            got = [m.span() for m in _spelled(letters).finditer(text)]
            assert got == [m.span() for m in plain.finditer(text)], (letters, text)


def test_the_source_without_separators_never_hides_a_name() -> None:
    # The substring test only lets the pattern off where it finds nothing.
    for text in _texts(7):
        bare = squeezed(text)
        for key in ("pro", "pte", "flashattention", "flash", "llm"):
            for initials in ("", "llm"):
                assert written_anyhow(text, key, initials=initials, bare=bare) == written_anyhow(
                    text, key, initials=initials
                ), (key, text)


def test_squeezed_drops_what_the_loose_separator_matches() -> None:
    text = "flash attention\u00a0x\u2009y\x00z_w-v\tu\nt"
    assert squeezed(text) == re.sub(r"[\s\x00_\-]+", "", text) == "flashattentionxyzwvut"
