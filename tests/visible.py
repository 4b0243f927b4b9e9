"""What a browser shows: the oracle the cleaning test and benchmark measure against.

Written independently of :mod:`service.clean` (BeautifulSoup, not the cleaner's lxml
walk): the text of every element a browser renders, with block boundaries as line
breaks. Not shown: script/style/template/head, comments, images and other embedded
media, ``hidden`` and display:none elements. The WordPress "The post ... appeared first
on ..." footer is dropped on purpose by the cleaner, so the oracle leaves it out too.
Superscripts follow the plain-text convention both sides share: a number is written
"^9" ("10^9", not "109") and a linked footnote mark " [1]" ("96% [1]", not "96%1").
Only the character normalisation (:func:`service.clean.normalize_text`) is shared, so
that both sides compare "21:23" with "21:23" and not with "21∶23".
"""

from __future__ import annotations

import re
import unicodedata

from bs4 import BeautifulSoup, Comment, NavigableString, Tag
from markdown_it import MarkdownIt

from service.clean import normalize_text

_INVISIBLE = {
    *("script", "style", "noscript", "template", "head", "title", "iframe", "img", "svg"),
    *("picture", "video", "audio", "canvas", "object", "embed"),
}
_BLOCKS = {
    *("address", "article", "aside", "blockquote", "body", "caption", "center", "dd"),
    *("details", "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure"),
    *("footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "html"),
    *("legend", "li", "listing", "main", "menu", "nav", "ol", "p", "plaintext", "pre"),
    *("search", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr"),
    *("ul", "xmp", "br"),
}
_FOOTER = re.compile(r"^\s*The post .+ appeared first on .+$", re.S)


def _shown(tag: Tag) -> bool:
    if tag.name in _INVISIBLE or tag.has_attr("hidden"):
        return False
    style = str(tag.get("style") or "").replace(" ", "").lower()
    if "display:none" in style:
        return False
    return not (tag.name == "p" and _FOOTER.match(tag.get_text()))


def _visible(node: Tag, out: list[str], in_pre: bool) -> None:
    for child in node.children:
        if isinstance(child, Comment):
            continue
        if isinstance(child, NavigableString):
            # Entities left after parsing are decoded in prose only, as the cleaner does.
            out.append(str(child) if in_pre else normalize_text(str(child)))
            continue
        if not isinstance(child, Tag) or not _shown(child):
            continue
        if child.name == "sup":
            text = " ".join(normalize_text(child.get_text()).split())
            if child.find("a") is not None and text:
                out.append(f" [{text}] ")
                continue
            if re.fullmatch(r"[-+−]?[0-9][0-9.,]*", text):
                out.append("^" + text)
                continue
        block = child.name in _BLOCKS
        if block:
            out.append("\n")
        _visible(child, out, in_pre or child.name == "pre")
        if block:
            out.append("\n")


def visible_text(html: str) -> str:
    """The text a browser shows for an HTML document or fragment."""
    out: list[str] = []
    _visible(BeautifulSoup(html, "lxml"), out, False)
    return "".join(out)


def render_markdown(md: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(md)


def markdown_visible_text(md: str) -> str:
    return visible_text(render_markdown(md))


def _strip(token: str) -> str:
    start, end = 0, len(token)
    while start < end and unicodedata.category(token[start])[0] in "PS":
        start += 1
    while end > start and unicodedata.category(token[end - 1])[0] in "PS":
        end -= 1
    return token[start:end]


def numeric_tokens(text: str) -> set[str]:
    """Whitespace-delimited tokens holding a digit, surrounding punctuation stripped."""
    out = set()
    for raw in text.split():
        tok = _strip(raw)
        if any(ch.isdigit() for ch in tok):
            out.add(tok)
    return out


def table_rows(html: str) -> list[list[list[str]]]:
    """Every table's rows as shown (cell texts, normalised; rows without text left out)."""
    tables = []
    for table in BeautifulSoup(html, "lxml").find_all("table"):
        rows = []
        for tr in table.find_all("tr"):
            cells = [
                " ".join(normalize_text(c.get_text()).split()) for c in tr.find_all(["td", "th"])
            ]
            if any(cells):
                rows.append(cells)
        tables.append(rows)
    return tables
