"""Characters and whitespace of cleaned text, shared by the HTML, Markdown and plain-text
cleaners."""

from __future__ import annotations

import html as _html
import re
from html.entities import html5

# No-break spaces become spaces, the non-breaking hyphen and the ratio sign (used by some
# status pages as a colon in times) become their ASCII look-alikes, and zero-width
# characters go: readers and the number check must see "21:23", not "21∶23".
_CHAR_MAP = str.maketrans(
    {
        "\u00a0": " ",
        "\u202f": " ",
        "\u2007": " ",
        "\u2010": "-",
        "\u2011": "-",
        "\u2236": ":",
        "\u200b": None,
        "\u200c": None,
        "\u200d": None,
        "\u2060": None,
        "\ufeff": None,
        "\u00ad": None,
        # NUL is invisible and PostgreSQL refuses it in text columns.
        "\x00": None,
    }
)

# An entity still visible after the HTML parser decoded the markup: the feed escaped it
# twice (``&amp;#8217;``). Decoding it again is what the author meant.
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[a-zA-Z][a-zA-Z0-9]{1,31});")


def _unescape_entity(m: re.Match[str]) -> str:
    ref = m.group(0)
    if ref[1] == "#":
        return _html.unescape(ref)
    # Only whole known names: html.unescape would read "&notanentity;" as "¬anentity;".
    return html5.get(ref[1:], ref)


def normalize_text(text: str) -> str:
    """Decode entities left over from double escaping and normalise special characters.

    Whitespace is not collapsed here (code keeps its lines); prose collapses it later.
    """
    if "&" in text:
        for _ in range(3):  # triple escaping exists in the wild; more is noise
            decoded = _ENTITY.sub(_unescape_entity, text)
            if decoded == text:
                break
            text = decoded
    return text.translate(_CHAR_MAP)


def prose(text: str) -> str:
    """One line of prose: normalised, whitespace collapsed."""
    text = normalize_text(text)
    if "\\$" in text:
        # A Markdown escape leaked into HTML by the feed generator ("\$3.99").
        text = text.replace("\\$", "$")
    return " ".join(text.split())


def code_text(text: str) -> str:
    """A code block's text: characters normalised, lines kept, outer blank lines gone."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_CHAR_MAP)
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def fence_for(code: str) -> str:
    return "~~~" if "```" in code else "```"


_FENCE_START = re.compile(r"^(\s*)(```|~~~)", re.M)


def guard_fences(text: str) -> str:
    # Prose that starts a line with a fence would swallow the rest of the text as code.
    return _FENCE_START.sub(r"\1\\\2", text)


def squeeze_blank_lines(text: str) -> str:
    return re.sub(r"\n{3,}", "\n\n", text).strip()
