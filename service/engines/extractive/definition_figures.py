"""Definitions beside a figure: a definition right after a term that a figure follows
closely stands between the figure and the name it is said of ("the Helion backend (...)
can reduce latency by up to 50%"), unless the figure is a condition's or of the noun an
of-phrase qualifies; a short gloss parts nothing where the term is what the figure is
said of ("time-to-first-token (the wait before output starts) dropped about 19%")."""

from __future__ import annotations

import re

from service.engines.extractive.glossary import GlossaryEntry
from service.engines.extractive.term_phrase import OPENERS, VERB
from service.engines.extractive.words import wordset

_FIGURE_AHEAD = 8  # words
# A phrase that says where or what on ("on 8×MI300X GPU", "with 24 calls"): a figure in
# it is the condition's, not said of the term before it. Past a figure in the one after
# "Rowwise FP8 training throughput", FP8, throughput, batch size and torch.compile went
# to one note of four after the sentence.
_CONDITION = re.compile(r"\s(?:on|with|across)\s")
# A definition at the end of an of-phrase ("a later regression check of the current
# all-layout kernel | over the same shapes reported a 1.12x aggregate speedup"): the
# figure is said of the noun before "of", which the phrase parts from its verb already;
# refused there, "kernel" went to a note after the FlyDSL explainer's sentence.
_OF_PHRASE = re.compile(r"\sof\s+(?:[^\s,;:()—]+\s+){0,3}[^\s,;:()—\d]+$")


def before_a_figure(text: str, pos: int, end: int) -> bool:
    """Whether a figure follows within a few words of ``pos`` in its sentence: a definition
    there would stand between the figure and the name it is said of ("the Helion backend
    (...) can reduce latency by up to 50%"). A figure is a word that starts with a digit
    once its opening marks are off ("50%", "(1.5x", "~85.6%", "$5"); a name with digits in
    it ("MXFP8", "H100") is none, and a definition before it parts nothing."""
    if _CONDITION.match(text, pos):
        return False  # the figure is of a condition ("throughput (...) on 8×MI300X GPU")
    if _OF_PHRASE.search(text, max(0, pos - 80), pos):
        return False  # the figure is said of the noun the of-phrase qualifies
    ahead = re.split(r"[,;]\s|\s—", text[pos:end], maxsplit=1)[0]
    # Past a comma the figure is said of what follows it: the definition parts nothing
    # ("over BF16 (...), with peak memory nearly identical (~39 GB)").
    return any(w.lstrip(OPENERS)[:1].isdigit() for w in ahead.split()[:_FIGURE_AHEAD])


# Words: a gloss this short right after its term parts no figure from the name it is said
# of ("time-to-first-token (the wait for the first output) dropped about 19%"). Refused
# there, the Shopify explainer left latency, throughput and time-to-first-token undefined:
# each was first said right before its figure, and every use after was too.
_SHORT_ASIDE = 7


def short_aside(
    text: str, end: int, entry: GlossaryEntry, placed: tuple[int, str]
) -> tuple[int, str] | None:
    """The definition of a term that a figure follows closely: its short gloss, in
    parentheses right after the term (not after a noun it modifies, not inside
    parentheses), else none."""
    short = entry.short
    if short is None or len(short.split()) > _SHORT_ASIDE or placed[0] != end:
        return None
    if not placed[1].startswith(" (") or not _names_its_figure(text, end):
        return None
    return end, f" ({short})"


# Words that lead to a figure without naming what it is of ("dropped about 19%").
# Not "on", "with", "for": they lead to a condition ("throughput on 8×MI300X GPU").
_TO_A_FIGURE = wordset(
    "about up nearly roughly approximately around almost only just some more less fewer "
    "than by to a an the is are was were be been has have had can could may might will "
    "would"
)
_ANOTHER_PHRASE = wordset("and or but while whereas")


def _names_its_figure(text: str, end: int) -> bool:
    """Whether the term ending at ``end`` is the name the figure after it is said of: only
    verbs and small words between ("time-to-first-token dropped about 19%", "raises
    throughput: about 16%"), or another phrase starts before the figure with a name of
    its own ("reducing latency and cutting costs by 96%"). Not "the Helion backend can
    cut latency by up to 50%", where the figure is said of latency: an aside after
    "backend" parts the claim."""
    for word in text[end:].split()[:_FIGURE_AHEAD]:
        bare = word.strip(OPENERS + ".,:;)!?").lower()
        if not bare or bare in _TO_A_FIGURE:
            continue
        if bare[:1].isdigit() or bare in _ANOTHER_PHRASE:
            return True
        if VERB.match(f" {bare}") is None:
            return False  # a noun of its own comes first: the figure is said of that
    return False
