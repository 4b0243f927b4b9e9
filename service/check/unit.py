"""A unit of the source: the place one or more source numbers stand."""

from __future__ import annotations

import re

from service.check.names import Name, split_forms
from service.numbers import Number
from service.numbers.number import IDENTIFIER

# Possessive: nothing after a token can fail, so giving back characters never helps.
WORD_TOKEN = re.compile(r"[a-z0-9]++(?:[.=+:][a-z0-9]++)*+")


class Unit:
    """A place a source number stands: a clause of a sentence, a table row, a code line.

    Its ``context`` and ``near`` strings are built on first use from where they lie in
    ``text``: a check reads them for the few units its numbers are found in, and a source
    has hundreds of units (a plain class with slots: one is made per unit, cold)."""

    __slots__ = (
        "_before",
        "_context",
        "_extra",
        "_listed",
        "_near",
        "_paragraph",
        "_sentence",
        "_words",
        "block",
        "cased",
        "display",
        "end",
        "header",
        "marks",
        "numbers",
        "start",
        "text",
    )

    block: int
    display: str  # the sentence or table row as a reader sees it
    numbers: tuple[Number, ...]
    text: str  # the text of its block (or line) as the extractor read it, lower case
    cased: str  # the same in its own case (where names are told from ordinary words)
    start: int  # where the unit's own clause lies in ``text``
    end: int

    def __init__(
        self,
        block: int,
        display: str,
        numbers: tuple[Number, ...],
        text: str,
        cased: str,
        start: int,
        end: int,
        extra: str,
        before: tuple[int, int] | None = None,
        sentence: tuple[int, int] = (0, 0),
    ) -> None:
        """``extra``: what the context goes on with after the clause, each part after a
        NUL ("\x00label\x00heading"). ``before`` and ``sentence``: where the sentence
        before and the unit's sentence lie in ``text`` (a clause of a sentence has a
        ``near``; a line has None, its ``near`` is its context)."""
        self.block = block
        self.display = display
        self.numbers = numbers
        self.text = text
        self.cased = cased
        self.start = start
        self.end = end
        self._extra = extra
        self._before = before
        self._sentence = sentence
        self._context: str | None = None
        self._near: str | None = None
        self._paragraph: str | None = None
        self._words: frozenset[str] | None = None
        self._listed: frozenset[str] | None = None
        # The opposite-pair words of its figures' clauses (check.scope), by figure start
        # (-1: the whole clause's), read once per source.
        self.marks: dict[int, frozenset[tuple[int | str, int]]] | None = None
        # A table row's header row, lower case, its cells " | "-separated ("" for a unit
        # of another kind): what each of its cells is (:meth:`cell_words`).
        self.header = ""

    def cell_words(self, pos: int) -> str:
        """Of a table row (``header`` set), what its cell at ``pos`` in ``text`` is said
        of: the row's label (its first cell) and the cell's column header; "" for a unit
        of another kind."""
        if not self.header or not self.start <= pos < self.end:
            return ""
        row = self.text[self.start : self.end]
        j = row.count(" | ", 0, pos - self.start)
        cells, heads = row.split(" | "), self.header.split(" | ")
        head = heads[j] if 0 < j < len(heads) else ""
        return f"{cells[0]} {head}" if j else ""

    @property
    def context(self) -> str:
        """Lower-case text the binding looks names and nouns up in: the clause, then the
        parts of ``extra`` (the parts that are not empty, NUL-separated)."""
        if self._context is None:
            clause = self.text[self.start : self.end]
            self._context = clause + self._extra if clause else self._extra[1:]
        return self._context

    @property
    def near(self) -> str:
        """The context plus the sentence before (for names carried from a sentence)."""
        if self._near is None:
            self._near = self._with_before(whole_paragraph=False)
        return self._near

    @property
    def paragraph(self) -> str:
        """The context plus its paragraph up to and with the unit's sentence (for names
        carried from further back: an explainer keeps the topic of the last sentence that
        named one, and a copied paragraph must find it where the source has it)."""
        if self._paragraph is None:
            self._paragraph = self._with_before(whole_paragraph=True)
        return self._paragraph

    def _with_before(self, *, whole_paragraph: bool) -> str:
        if self._before is None:
            return self.context
        text, (b0, b1), (s0, s1) = self.text, self._before, self._sentence
        before = text[:b1] if whole_paragraph else text[b0:b1]
        return f"{self.context}\x00{before}\x00{text[s0:s1]}"

    @property
    def before(self) -> tuple[int, int] | None:
        """Where the sentence before the unit's lies in ``text`` (None for a line; (0, 0)
        for a paragraph's first sentence)."""
        return self._before

    @property
    def sentence(self) -> tuple[int, int]:
        """Where the unit's sentence lies in ``text`` ((0, 0) for a line)."""
        return self._sentence

    @property
    def listed(self) -> frozenset[str]:
        """The models its clause names by their digits alone, after their line's plural
        (numbers.plural: "3090s" of "RTX 4090s and 3090s"), by key without separators
        ("rtx3090"), as :attr:`~service.check.index.SourceIndex.listed` files them."""
        if self._listed is None:
            self._listed = frozenset(
                n.key.replace("\x00", "")
                for n in self.numbers
                if n.kind == IDENTIFIER and n.text[:1].isdigit() and "\x00" in n.key
            )
        return self._listed

    @property
    def words(self) -> frozenset[str]:
        """The words of ``context`` (most names are looked up here), split on first use."""
        if self._words is None:
            self._words = frozenset(WORD_TOKEN.findall(self.context))
        return self._words

    def mentions(self, name: Name, *, near: bool = False, paragraph: bool = False) -> bool:
        """Whether the clause's context (``near``: with the sentence before; ``paragraph``:
        with its paragraph up to it) writes the name; or its clause names the model by its
        digits alone ("3090s" of "RTX 4090s reach 50 and 3090s reach 30": "RTX 3090")."""
        if self.listed and name.key.replace("\x00", "") in self.listed:
            return True
        if paragraph:
            return name.pattern.search(self.paragraph) is not None
        if not near and "\x00" not in name.key:
            words = self.words
            if name.key in words or name.key + "s" in words:
                return True
            if not split_forms(name.key):
                return False
        return name.pattern.search(self.near if near else self.context) is not None


Hit = tuple[int, Number]  # (unit index, number)


# (A pattern that starts with a set of characters, not a repeat of one, lets the regex
# engine skip in C every position whose character is not in it.)
_SQUEEZE = re.compile(r"\s\s*")


def squeeze(line: str) -> str:
    """A line with its runs of white space as one space (code lines compare so)."""
    return _SQUEEZE.sub(" ", line).strip()


# What can stand in a word token (WORD_TOKEN's characters); every other byte, as a space.
_TOKEN_BYTES = b"abcdefghijklmnopqrstuvwxyz0123456789.=+:"
_NOT_TOKEN_AS_SPACE = bytes(c if c in _TOKEN_BYTES else 0x20 for c in range(256))
_PUNCT = ".=+:"


def word_set(text: str) -> frozenset[str]:
    """``frozenset(WORD_TOKEN.findall(text))``, from the runs of token characters.

    A token holds only [a-z0-9.=+:], so the tokens of ``text`` are those of each run of
    such characters (a match never spans another character; WORD_TOKEN looks at nothing
    before a match). The runs are split off in C: each character outside ASCII encoded as
    one "?", every byte that is not a token's as a space. A token starts and ends with a
    letter or digit: a run of letters and digits is one token, itself, as is a run that
    is one once its leading and trailing punctuation is stripped; only the few runs with
    punctuation inside ("torch.compile", "a..b") are read by the pattern."""
    runs = text.encode("ascii", "replace").translate(_NOT_TOKEN_AS_SPACE).decode("ascii")
    words = set(runs.split())
    odd = [w for w in words if not w.isalnum()]
    words.difference_update(odd)
    inner = []
    for run in odd:
        run = run.strip(_PUNCT)
        if run.isalnum():
            words.add(run)
        elif run:
            inner.append(run)
    if inner:
        words.update(WORD_TOKEN.findall(" ".join(inner)))
    return frozenset(words)
