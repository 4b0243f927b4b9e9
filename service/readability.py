"""Reading level and length, computed offline.

textstat 0.7.4 is pinned on purpose: it counts syllables with pyphen's bundled
dictionaries, while later versions fetch nltk data at run time. It measures the style
target 003 at grade 11.3, the figure the project's design quotes for it.
"""

from __future__ import annotations

import textstat


def word_count(text: str) -> int:
    return len(text.split())


def flesch_kincaid_grade(text: str) -> float:
    """Flesch-Kincaid grade level of prose."""
    if not text.strip():
        return 0.0
    return float(textstat.flesch_kincaid_grade(text))
