"""The headings the engine writes itself ("What is new", "What comes next"), in the
feed's language where the table below has it; English otherwise.

The engine's sentences are the post's own, so they are in the post's language already;
only the headings it makes up (the parts of a split post, a post's rewritten stock
headings) were English whatever the feed's ``language`` (README: the setting the prompt
gets). They are in that language only for a post written in it (``phrases.wording_in``);
the post's own headings are kept as it writes them, in its language, even one that is
a stock heading ("Background").
"""

from __future__ import annotations

from service.languages import language_tag

_ENGLISH = (
    "What is new",
    "What the post reports",
    "Other points in the post",
    "What comes next",
    "Where the work stands and what comes next",
    "What it adds up to",
    "What was measured",
    "How it works",
    "How to get started",
    "How to install it",
    "Background",
)

# Each language's headings, in the order of ``_ENGLISH``. A language not here keeps
# the English ones: a guessed translation misleads more than a plain English heading.
_TABLE: dict[str, tuple[str, ...]] = {
    "fr": (
        "Ce qui est nouveau",
        "Ce que rapporte l’article",
        "Autres points de l’article",
        "La suite",
        "Où en est le travail et la suite",
        "Ce qu’il faut en retenir",
        "Ce qui a été mesuré",
        "Comment cela fonctionne",
        "Pour commencer",
        "Comment l’installer",
        "Contexte",
    ),
    "de": (
        "Was ist neu",
        "Was der Beitrag berichtet",
        "Weitere Punkte des Beitrags",
        "Wie es weitergeht",
        "Stand der Arbeit und wie es weitergeht",
        "Was unterm Strich bleibt",
        "Was gemessen wurde",
        "Wie es funktioniert",
        "Erste Schritte",
        "Wie man es installiert",
        "Hintergrund",
    ),
    "es": (
        "Qué hay de nuevo",
        "Qué informa la publicación",
        "Otros puntos de la publicación",
        "Lo que viene",
        "Estado del trabajo y lo que viene",
        "En resumen",
        "Qué se midió",
        "Cómo funciona",
        "Cómo empezar",
        "Cómo instalarlo",
        "Contexto",
    ),
    "it": (
        "Cosa c’è di nuovo",
        "Cosa riporta l’articolo",
        "Altri punti dell’articolo",
        "Cosa viene dopo",
        "A che punto è il lavoro e cosa viene dopo",
        "In sintesi",
        "Cosa è stato misurato",
        "Come funziona",
        "Come iniziare",
        "Come installarlo",
        "Contesto",
    ),
    "pt": (
        "O que há de novo",
        "O que o artigo relata",
        "Outros pontos do artigo",
        "O que vem a seguir",
        "Onde o trabalho está e o que vem a seguir",
        "Em resumo",
        "O que foi medido",
        "Como funciona",
        "Como começar",
        "Como instalá-lo",
        "Contexto",
    ),
    "nl": (
        "Wat er nieuw is",
        "Wat het bericht meldt",
        "Andere punten uit het bericht",
        "Wat er volgt",
        "Waar het werk staat en wat er volgt",
        "Wat het oplevert",
        "Wat er gemeten is",
        "Hoe het werkt",
        "Hoe te beginnen",
        "Hoe het te installeren",
        "Achtergrond",
    ),
}
assert all(len(row) == len(_ENGLISH) for row in _TABLE.values())


def heading_in(heading: str, language: str | None) -> str:
    """``heading`` in ``language`` (a feed's setting: a name or a tag) when it is one the
    engine writes and the table has that language; ``heading`` as it is otherwise. Only
    for a heading the engine made up: a post's own "Background" is the post's word."""
    tag = language_tag(language)
    row = _TABLE.get(tag.split("-", 1)[0]) if tag else None
    if row is None or heading not in _ENGLISH:
        return heading
    return row[_ENGLISH.index(heading)]
