"""The phrases the engine writes itself besides headings (``headings``): the words that
credit the post with a result ("The authors report that ...", "..., according to the
post."), the title's "what the post says" and a caption's "A figure in the post shows
...", in the feed's language where the table
below has it and the post is written in it; English otherwise.

The sentences are the post's own, in its language: an English attribution before a
French sentence read as two languages in one ("The post reports that les noyaux ...").
Each wording takes the sentence as it stands: no "que"/"dass" clause, whose elision
("qu’il") or word order (German and Dutch put the verb last) the engine cannot write.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from service.engines.extractive.tongue import written_in
from service.engines.extractive.words import CaseTable, lower_first, wordset
from service.languages import language_tag


@dataclass(frozen=True)
class Wording:
    """How the engine credits the post, in one language."""

    attributions: tuple[str, str, str]  # the authors', the post's, the post's again
    team: str  # a team's result, where its post speaks as the team
    after: str  # at a sentence's end, for a capital that cannot be lowered after a prefix
    says: str  # the title's "what the post says", for a title with nothing to add
    figure: str  # before a figure's caption ("Une figure de l’article montre : ")
    table: str  # before a table's caption
    about: str  # a sub-heading's subject put before a sentence that names none of it
    joins: str = " and "  # "and", joining a subject to a sentence that opens as ``about``
    lower: bool = True  # whether a sentence's first word is lowered after a prefix
    clause: bool = False  # whether the prefix ends in "that" (English: then a clause)
    tag: str = "en"  # its language (ISO 639-1), for the headings (``headings.heading_in``)


ENGLISH = Wording(
    attributions=("The authors report that ", "According to the post, ", "The post reports that "),
    team="The team reports that ",
    after=", according to the post.",
    says="what the post says",
    # What the caption is of ("figure", "chart") goes in; the caption is lowered, "the"
    # before it (``as_caption``).
    figure="A {} in the post shows ",
    table="A {} in the post shows ",
    about="For {}, ",
    clause=True,
)

# German puts a sentence's verb second: after "Laut dem Beitrag, " a sentence as written
# is ungrammatical, so German introduces it with a colon and keeps its capital. Dutch
# does the same with a colon and lowers the first word, as it writes one mid-sentence.
_TABLE: dict[str, Wording] = {
    "fr": Wording(
        ("Selon les auteurs, ", "Selon l’article, ", "D’après l’article, "),
        "Selon l’équipe, ",
        ", selon l’article.",
        "ce que dit l’article",
        "Une figure de l’article montre : ",
        "Un tableau de l’article montre : ",
        "Pour {}, ",
        joins=" et ",
        tag="fr",
    ),
    "de": Wording(
        ("Die Autoren berichten: ", "Der Beitrag berichtet: ", "Im Beitrag heißt es: "),
        "Das Team berichtet: ",
        ", so der Beitrag.",
        "was der Beitrag sagt",
        "Eine Abbildung im Beitrag zeigt: ",
        "Eine Tabelle im Beitrag zeigt: ",
        "Zu {}: ",
        lower=False,
        joins=" und ",
        tag="de",
    ),
    "es": Wording(
        ("Según los autores, ", "Según la publicación, ", "De acuerdo con la publicación, "),
        "Según el equipo, ",
        ", según la publicación.",
        "lo que dice la publicación",
        "Una figura de la publicación muestra: ",
        "Una tabla de la publicación muestra: ",
        "Para {}, ",
        joins=" y ",
        tag="es",
    ),
    "it": Wording(
        ("Secondo gli autori, ", "Secondo l’articolo, ", "Come riporta l’articolo, "),
        "Secondo il team, ",
        ", secondo l’articolo.",
        "cosa dice l’articolo",
        "Una figura dell’articolo mostra: ",
        "Una tabella dell’articolo mostra: ",
        "Per {}, ",
        joins=" e ",
        tag="it",
    ),
    "pt": Wording(
        ("Segundo os autores, ", "Segundo o artigo, ", "De acordo com o artigo, "),
        "Segundo a equipe, ",
        ", segundo o artigo.",
        "o que diz o artigo",
        "Uma figura do artigo mostra: ",
        "Uma tabela do artigo mostra: ",
        "Para {}, ",
        joins=" e ",
        tag="pt",
    ),
    "nl": Wording(
        ("De auteurs melden: ", "Het bericht meldt: ", "In het bericht staat: "),
        "Het team meldt: ",
        ", aldus het bericht.",
        "wat het bericht zegt",
        "Een figuur in het bericht toont: ",
        "Een tabel in het bericht toont: ",
        "Voor {}: ",
        joins=" en ",
        tag="nl",
    ),
}

# Every language's closing attribution, without its comma and stop: a definition put
# after one is lost (``glossary``), whatever the language.
AFTERS = tuple(w.after.strip(" ,.") for w in (ENGLISH, *_TABLE.values()))


def wording_in(language: str | None, text: str | None = None) -> Wording:
    """The wording for ``language`` (a feed's setting: a name or a tag); English for a
    language the table lacks, or for a post whose ``text`` is not in that language
    (``tongue.written_in``): the engine cannot translate, and its own words in one
    language around the post's sentences in another read as two languages in one."""
    tag = language_tag(language)
    wording = _TABLE.get(tag.split("-", 1)[0], ENGLISH) if tag else ENGLISH
    if text is not None and not written_in(text, wording.tag):
        return ENGLISH
    return wording


class _Caption(Protocol):
    """A candidate sentence, as far as a caption goes (``sentences.Cand``)."""

    text: str
    caption: str  # what the block is a caption of ("figure", "table"), or ""
    first_in_block: bool


def as_caption(c: _Caption, text: str, case: CaseTable, wording: Wording = ENGLISH) -> str:
    """A caption's first sentence, a noun phrase ("Rowwise FP8 training throughput on
    8×MI300X GPU with Llama3-8B (batch size 1, ...)"), as a sentence that says what it
    is: "A figure in the post shows rowwise FP8 training throughput ..."; in another
    language (``wording``), its words before the caption as written, after a colon."""
    if not c.caption or not c.first_in_block or text != c.text:
        return text
    what = {"fig": "figure", "image": "figure"}.get(c.caption, c.caption)
    lead = (wording.table if what == "table" else wording.figure).format(what)
    if wording != ENGLISH:
        return lead + text  # no article to add, no case to guess in another language
    lowered = lower_first(text, case)
    phrase = text if lowered is None else lowered
    first = phrase.split(" ", 1)[0].lower()
    # A caption drops its article ("Muse Glimmer agent pipeline on ..."); a sentence
    # needs it, unless the phrase opens with one or a quantity ("All 24 BF16 cases").
    if first not in _DETERMINERS and not first[:1].isdigit():
        phrase = "the " + phrase
    return lead + phrase


_DETERMINERS = wordset("the a an all each every some no both this these that those its their")
