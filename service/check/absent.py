"""Names the source never writes: an explainer's figure said of an entity the post does
not mention anywhere ("The Triton kernel is 2x faster" of "The FlyDSL kernel is 2x
faster") is not backed by the source's figure, however it matches.

The binding (:func:`~service.check.known_names.known_names`) keeps only the names the source
has: a name it lacks was dropped, and its figure bound the names left, or none, and
passed. The words dropped so are gathered here and read again, conservatively: only
words the check treats as names (a capital inside the word, "FlexAttention", "MXFP",
"vLLM"; else a capitalised word inside a sentence of English prose, "Triton", not in a
heading, a table, a title-case line or a German text, whose nouns are capitalised),
within the figure's own words (the window of :func:`~service.check.bind.bind_numbers`:
no aside, no other clause); neither a chip vendor's, a maker's before a product the
source names ("AWS Graviton3e"), a plain hardware noun ("AMD's MI300X GPUs": what a
product is), a month, a field ("AI"), what a bare count counts ("8 LLMs"), nor a name
before a word of authorship ("the PyTorch team reports"); and none the source writes in
any form: case, spaces, hyphens and underscores aside, singular or plural, as part of a
longer word ("Flash Attention", "flex-attention" for "FlashAttention"; "Flex" of
"FlexAttention", "Triton" of "AOTriton": a miss rather than a false alarm), or an
acronym spelt out ("LLM" of "large language model"); nor one the post's context writes
so, its feed's title or name, its author ("PyTorch" of the feed "PyTorch Blog":
:func:`context_text`). A sentence's first word is such a name only where the
explainer's prose writes it capitalised inside a sentence and never in lower case, as
the source must for a known one (:func:`~service.check.names.named_inside`): "Training
is 2x faster" is no name, and a lone "Triton is 2x faster" is read as it, a known limit
(no word list tells a product from an English word: "Widening the Triton autotuning
search ..." opens a sentence of a faithful explainer in tests/data)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache

from service.check.names import (
    GERMAN_STOP_WORDS,
    HARDWARE_NOUNS,
    STOP_WORDS,
    VENDORS,
    Name,
    named_inside,
)
from service.check.unit import word_set
from service.numbers import prepare

# Between two letters of a name the source may write a separator the explainer does not
# ("flex-attention", "Flash Attention", "flash_attention" for "FlashAttention"), and the
# reverse: each letter is looked for with an optional one after it.
_LOOSE_SEP = r"[\s\x00_\-]?"
# A key this long is found inside a longer word too ("flex" of "flexattention"); a
# shorter one (an acronym: "tpu" is in "output", "moe" in "some") only as a word.
_PART = 4


@lru_cache(maxsize=1024)
def _loose(key: str) -> re.Pattern[str]:
    body = _LOOSE_SEP.join(map(re.escape, key))
    if len(key) >= _PART:
        return re.compile(body)
    # The look-behind after the first letter (none before it): a pattern that starts
    # with a literal is skipped ahead to it in C, a leading look-behind is tried at every
    # position of the source ("pro" took 1.1 ms of the 50 KB PyTorch 2.14 post so).
    first = re.escape(key[0])
    body = first + rf"(?<![a-z0-9]{first})" + body[len(first) :]
    return re.compile(body + r"(?:e?s)?(?![a-z0-9])")


# What _LOOSE_SEP matches: the characters ``\s`` does (``str.isspace``), NUL, "_", "-".
_SEPARATORS = tuple(
    [c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace()] + ["\x00", "_", "-"]
)


def squeezed(text: str) -> str:
    """``text`` without the separators a loose name skips: a name :func:`_loose` finds
    is in it letter to letter, so a name not in it is found by no pattern (a substring
    test in C for each name the explainer gives a figure, where the pattern searched the
    whole source: 0.6 ms once per source, then some 25 us a name, against 0.2 to 1.2 ms a
    name of the 50 KB PyTorch 2.14 post)."""
    for c in _SEPARATORS:
        if c in text:
            text = text.replace(c, "")
    return text


def _forms(key: str) -> list[str]:
    """A folded name word and its singulars ("tritons", "triton"; "boxes", "box")."""
    forms = [key]
    if len(key) > 3 and key.endswith("s"):
        forms.append(key[:-1])
        if key.endswith("es") and len(key) > 4:
            forms.append(key[:-2])
    return forms


# Between the words an acronym's letters start: separators, and the few function words
# an acronym skips ("common vulnerabilities and exposures", "mixture of experts").
_SPELLED_SEP = r"[\s\x00/-]+(?:(?:and|of|the|for|&)[\s\x00/-]+)*"


@lru_cache(maxsize=256)
def _spelled(letters: str) -> re.Pattern[str]:
    # Each word of three letters or more, read by its own group. The pattern starts with
    # the first letter, its look-behind after it (no letter or digit before that letter):
    # a pattern that starts with a literal is skipped ahead to it in C, where a leading
    # look-behind is tried at every position of the source (a third of a first check
    # against the 50 KB PyTorch 2.14 post).
    first, rest = re.escape(letters[:1]), letters[1:]
    head = f"({first}(?<![a-z0-9]{first})[a-z]{{2,}})"
    return re.compile(_SPELLED_SEP.join([head, *(f"({c}[a-z]{{2,}})" for c in rest)]))


def written_anyhow(text: str, key: str, *, initials: str = "", bare: str = "") -> bool:
    """Whether ``text`` (the source's lower-case text) writes the name of folded ``key``
    in any form (:mod:`this module <.absent>`); an acronym also spelt out, its
    ``initials`` starting content words in a row ("LLM" of "large language models",
    "MoE" of "mixture-of-experts": an abbreviation of plain words is a paraphrase, as
    "40 PRs" is of "40 pull requests" to a count's noun; not "automatically when the
    shape" for "AWS")."""
    letters = key.replace("\x00", "")
    for form in _forms(letters):
        if bare and squeezed(form) not in bare:
            continue  # ``bare``: :func:`squeezed` of ``text``, where the form is not
        if _loose(form).search(text) is not None:
            return True
    if not initials:
        return False
    return any(STOP_WORDS.isdisjoint(m.groups()) for m in _spelled(initials).finditer(text))


def context_text(names: Iterable[str | None]) -> str:
    """The lower-case text of the names a post's context gives it (its feed's title and
    name, its author or publisher: "PyTorch Blog"), one a block, for
    :func:`written_anyhow`; "" for none. A post's cleaned text often never writes what
    its feed is named for ("For PyTorch users, the kernel is 2x faster" of a PyTorch
    blog post), and such a name is no entity the explainer made up. Read for that alone:
    these words are no source text, and back no figure (the index never holds them).
    ``None`` or a blank name: one the post's context does not give."""
    blocks = (prepare(" ".join(n.split())).lower() for n in names if n and not n.isspace())
    # "\x01" between them, as between the source's blocks: no separator a loose name or
    # a spelt-out acronym skips, so no name is read across two of them.
    return "\x01".join(b for b in blocks if b)


# A run of capitalised words, with the few function words an acronym skips or takes
# between them ("Large Language Model", "Mixture of Experts", "Mixture-of-Experts").
_CAPITALISED_RUN = re.compile(
    r"(?<![\w-])[A-Z][a-z]+(?:[ -]+(?:(?:of|and|the|for)[ -]+)?[A-Z][a-z]+)+(?![\w-])"
)
_RUN_WORD = re.compile(r"[A-Za-z]+")


def spelled_acronym(s: str, start: int, end: int, source_words: frozenset[str]) -> bool:
    """Whether the word at ``start``-``end`` of ``s`` stands in a run of capitalised words
    that spells out an acronym the source writes ("Large Language Model" of the source's
    "LLM" or "LLMs", "Mixture of Experts" of "MoE"): a plain-language explainer writes
    the words for the letters, the reverse of :func:`written_anyhow`'s spelt-out names."""
    for m in _CAPITALISED_RUN.finditer(s, max(0, start - 80), min(len(s), end + 80)):
        if not (m.start() <= start and end <= m.end()):
            continue
        words = [(w.start(), w.group(0)) for w in _RUN_WORD.finditer(s, m.start(), m.end())]
        # Any stretch of the run holding the word: a capital before the acronym's words
        # starts the sentence ("The Mixture of Experts layers").
        for i, (at, _) in enumerate(words):
            for j in range(i + 1, len(words)):
                if not at <= start < words[j][0] + len(words[j][1]):
                    continue
                stretch = [w for _, w in words[i : j + 1]]
                caps = "".join(w[0] for w in stretch if w[0].isupper()).lower()
                every = "".join(w[0] for w in stretch).lower()
                if len(caps) >= 2 and any(
                    a in source_words for a in (caps, caps + "s", every, every + "s")
                ):
                    return True
        return False
    return False


def initials(word: str) -> str:
    """The initials of an acronym, its capitals in lower case ("llm" of "LLM" and
    "LLMs", "me" of "MoE"): a word that starts with a capital, has two or more, and
    one lower-case letter at most but a plural's "s" (not "ATen", "FlexAttention",
    "vLLM": names, no words spelt short). Else ""."""
    core = word[:-1] if len(word) > 2 and word.endswith("s") else word
    caps = [c for c in core if c.isupper()]
    if not core[:1].isupper() or len(caps) < 2 or len(core) - len(caps) > 1:
        return ""
    return "".join(caps).lower() if "".join(caps).isascii() else ""


def plain_word(word: str) -> bool:
    """A capitalised word with no other capital ("Triton", "Llama"): a name only by
    where it stands."""
    return not any(map(str.isupper, word[1:]))


# A plain word of four letters or more (no capital inside, no digit, not part of a
# hyphenated or dotted word: "FlexAttention", "MI300X", "Llama-based" are none).
_TITLE_WORD = re.compile(r"(?<![\w.-])[A-Za-z][a-z]{3,}(?![\w-])")
_FIRST = re.compile(r"[\W_]*")


def title_cased(s: str) -> bool:
    """Whether a sentence is written in title case ("FlyDSL Delivers 2x Faster GEMM"):
    two thirds of its plain words of four letters or more, but one starting it, are
    capitalised, two at least, so that a capital says no name there ("The Triton and
    Pallas kernels are 2x faster" is no title: two of four)."""
    start = _FIRST.match(s)
    first = start.end() if start is not None else 0
    words = [m.group(0) for m in _TITLE_WORD.finditer(s) if m.start() != first]
    caps = sum(w[0].isupper() for w in words)
    return caps >= 2 and 3 * caps >= 2 * len(words)


# English function words that no German text writes (not "in", "so", "was", "die").
_ENGLISH = frozenset(
    "the is are of and with for than this that its from by to has have were which it "  # noqa: SIM905
    "on at or into over their these those while when but".split()
)


class Prose:
    """The explainer's prose (not its headings, tables or code), read on first use, once a
    check meets a plain capitalised word of a figure that the source lacks (few do):
    whether it is English (a German text's nouns are capitalised), and which words it
    writes as names inside its sentences."""

    def __init__(self, sentences: Callable[[], Iterable[str]]) -> None:
        self._sentences = sentences
        self._text = ""
        self._words: frozenset[str] | None = None
        self._english = False

    def _read(self) -> frozenset[str]:
        if self._words is None:
            # One a line: a sentence's first word follows no space (named_inside reads a
            # word after a space and a letter as inside a sentence, and a list item's
            # sentence may end in one).
            self._text = "\n".join(self._sentences())
            self._words = word_set(self._text.lower())
            # English: a capital inside its sentences is a name's. A German explainer's
            # nouns are capitalised ("Die Latenz sinkt um 10 %", "FlyDSL verarbeitete
            # 1.362,5 Zeilen": a feed set to "de", the check never told), and so it must
            # write English function words and none of German's (GERMAN_STOP_WORDS: no
            # English text writes them).
            self._english = not self._words.isdisjoint(_ENGLISH) and self._words.isdisjoint(
                GERMAN_STOP_WORDS
            )
        return self._words

    def english(self) -> bool:
        self._read()
        return self._english

    def named(self, word: str) -> bool:
        """Whether the explainer's prose writes ``word`` capitalised inside a sentence,
        and nowhere in lower case."""
        return named_inside(self._text, self._read(), word)


# Who says a figure, not what it is of: a name before a word of authorship ("the PyTorch
# team reports", "in a PyTorch blog post", "Meta engineers say"), a post's publisher or
# its authors' employer, which the cleaned text of a post often never writes.
_SAYS = re.compile(
    r"(?:['\u2019]s)?(?:\s+[A-Z][\w.-]*)*\s+(?i:teams?|engineers?|researchers?|authors?|"
    r"blogs?|posts?|papers?|articles?|developers?|maintainers?|announcements?|docs|"
    r"documentation|community|contributors?|staff|website|newsletter)(?![\w-])"
)
# Acronyms of no thing a figure is of: fields ("AI models run 2x faster"), places, and a
# summary's mark.
_GENERIC = frozenset({"ai", "ml", "us", "uk", "eu", "ok", "faq", "tl", "dr", "tldr"})
# Times, not things: "In March, the kernel was 2x faster" names no entity the figure is
# of (a date the source lacks is another error than a name).
_TIMES = frozenset(
    "january february march april may june july august september october november "  # noqa: SIM905
    "december monday tuesday wednesday thursday friday saturday sunday".split()
)


def says_who(s: str, x: Name) -> bool:
    """Whether name ``x`` of sentence ``s`` stands before a word of authorship (:data:`_SAYS`)."""
    return _SAYS.match(s, x.end) is not None


def absent_name(word: str, key: str) -> bool:
    """Whether a name word of an explainer sentence that the source lacks (its folded
    ``key``) may be one the source never writes, by its shape alone. Where it stands,
    the explainer's other sentences and the source are asked after this (:class:`Prose`,
    :func:`written_anyhow`)."""
    if not word.isalpha() or key in VENDORS or key in HARDWARE_NOUNS:
        return False
    return key not in _TIMES and key not in _GENERIC


def quoted(names: Sequence[Name]) -> str:
    """The reason of a figure said of ``names`` the source never writes."""
    keys = list(dict.fromkeys(x.key.replace("\x00", "-") for x in names))
    said = ", ".join(f'"{k}"' for k in keys)
    return f"{said} {'is' if len(keys) == 1 else 'are'} not in the source"
