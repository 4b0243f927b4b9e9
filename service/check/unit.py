"""A unit of the source: the place one or more source numbers stand."""

from __future__ import annotations

import re
from dataclasses import dataclass

from service.check.names import Name
from service.numbers import Number

# Possessive: nothing after a token can fail, so giving back characters never helps.
WORD_TOKEN = re.compile(r"[a-z0-9]++(?:[.=+:][a-z0-9]++)*+")


@dataclass(slots=True)
class Unit:
    """A place a source number stands: a clause of a sentence, a table row, a code line."""

    block: int
    display: str  # the sentence or table row as a reader sees it
    context: str  # lower-case text the binding looks names and nouns up in
    numbers: tuple[Number, ...]
    near: str  # the context plus the sentence before (for names carried from a sentence)
    text: str  # the text of its block (or line) as the extractor read it, lower case
    start: int  # where the unit's own clause lies in ``text``
    end: int
    _words: frozenset[str] | None = None

    @property
    def words(self) -> frozenset[str]:
        """The words of ``context`` (most names are looked up here), split on first use."""
        if self._words is None:
            self._words = frozenset(WORD_TOKEN.findall(self.context))
        return self._words

    def mentions(self, name: Name, *, near: bool = False) -> bool:
        if not near and "\x00" not in name.key:
            words = self.words
            return name.key in words or name.key + "s" in words
        return name.pattern.search(self.near if near else self.context) is not None


Hit = tuple[int, Number]  # (unit index, number)
