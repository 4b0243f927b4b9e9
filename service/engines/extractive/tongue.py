"""Whether a post is written in a language: a cheap guess from its commonest function
words, offline, with no model or download.

The engine cannot translate: its sentences are the post's own. Its words around them
(headings, attributions, captions) in the feed's language read well only when the post is
in that language too; over an English post a French frame read as two languages in one
("Pour dense GEMM, across 15 BF16 NT shapes, FlyDSL delivers ..., selon l’article.").
"""

from __future__ import annotations

import re

from service.engines.extractive.words import wordset

# The commonest function words of each language the wording tables have, none of them an
# English word too ("a", "in", "on", "is", "as", "do", "no" are left out), so that an English post
# scores near nothing whatever its names ("de" of a surname is one word in hundreds).
_FUNCTION_WORDS: dict[str, frozenset[str]] = {
    "en": wordset("the of and to is are was were that with for this from by it be has have"),
    "fr": wordset("le la les des du et est une un pour dans qui que sur avec par pas au aux ce"),
    "de": wordset("der das und ist nicht ein eine mit den dem zu auf für von sich auch es im"),
    "es": wordset("el la los las del y es una un para por con que se en al su lo como"),
    "it": wordset("il la le gli di e è una un per con che del della non sono si nel al"),
    "pt": wordset("o os da dos das e é uma um para com que não em na ao se pelo"),
    "nl": wordset("de het een en van dat niet met voor op zijn er te ook aan bij wordt"),
}
_WORD = re.compile(r"[^\W\d_]+")
_SAMPLE = 4000  # words: the text's start says its language; the rest costs time
_SHARE = 0.12  # of its words: well-written prose in a language passes a fifth of them


def written_in(text: str, tag: str) -> bool:
    """Whether ``text`` reads as written in the language ``tag`` (an ISO 639-1 code):
    its function words are a good share of the words, more than English's. True for a
    language with no list here (the caller's setting stands: no guess against it)."""
    words = _FUNCTION_WORDS.get(tag)
    if words is None or tag == "en":
        return True
    sample = [w.lower() for w in _WORD.findall(text)[:_SAMPLE]]
    if not sample:
        return False
    share = sum(w in words for w in sample) / len(sample)
    english = sum(w in _FUNCTION_WORDS["en"] for w in sample) / len(sample)
    return share >= _SHARE and share > english
