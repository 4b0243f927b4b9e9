"""HTML -> cleaned text: one lxml parse and one walk of the tree.

lxml is used directly rather than through BeautifulSoup, whose tree building alone costs
about twenty times lxml's parse on a 110 KB post; the cleaner sits in the worker's hot
path.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import NamedTuple

from lxml import etree

from service.clean.chars import code_text, fence_for, guard_fences, prose
from service.clean.html_parse import parse_html
from service.dates import utc_from_iso

_DROP, _BLOCK, _HEADING, _LIST, _ITEM, _PRE, _TABLE, _BR, _IMG, _CHROME, _SUP = range(11)

_DROP_TAGS = (
    *("script", "style", "noscript", "template", "head", "title", "meta", "link", "base"),
    *("iframe", "frame", "frameset", "object", "embed", "applet", "picture", "source", "track"),
    *("svg", "video", "audio", "canvas", "map", "area"),
    *("input", "select", "option", "textarea", "button"),
)
_BLOCK_TAGS = (
    *("p", "div", "section", "article", "main", "header", "hgroup", "blockquote", "figure"),
    *("figcaption", "address", "dl", "dt", "dd", "hr", "center", "details", "summary"),
    *("fieldset", "legend", "form", "dialog", "search", "body", "html"),
    *("tr", "td", "th", "thead", "tbody", "tfoot", "caption"),
)
_KIND: dict[str, int] = dict.fromkeys(_DROP_TAGS, _DROP) | dict.fromkeys(_BLOCK_TAGS, _BLOCK)
for _t in ("nav", "aside", "footer"):
    _KIND[_t] = _CHROME  # page chrome: dropped from whole documents, kept inside feed items
for _n in range(1, 7):
    _KIND[f"h{_n}"] = _HEADING
_KIND.update(
    ul=_LIST, ol=_LIST, menu=_LIST, li=_ITEM, pre=_PRE, listing=_PRE, xmp=_PRE, plaintext=_PRE,
    table=_TABLE, br=_BR, img=_IMG, sup=_SUP,
)  # fmt: skip

# Share widgets and related-post boxes, by the class names of the common WordPress and
# CMS plugins (class tokens, so "shared-memory" is not a share widget).
_WIDGET_CLASS = re.compile(
    r"(?:^|\s)(?:sharedaddy|sd-sharing[\w-]*|sd-social[\w-]*|share(?:$|[-_]\w*|daddy|this|bar"
    r"|box|buttons?|links?)|social[-_](?:share|links?|icons?|buttons?|media)[\w-]*"
    r"|addtoany[\w-]*|a2a_kit[\w-]*|jp-relatedposts[\w-]*|wp-block-social-links|heateor[\w-]*"
    r"|ss-inline-share[\w-]*|(?:post|entry)-share[\w-]*|related-posts[\w-]*)(?=\s|$)"
)
_INVISIBLE_STYLE = re.compile(r"display\s*:\s*none|visibility\s*:\s*hidden", re.I)
_EMOJI_CLASS = re.compile(r"(?:^|\s)(?:wp-smiley|emoji)(?:\s|$)")
# A superscript that is a number ("10<sup>9</sup>", "x<sup>-1</sup>") is written "^9" as
# plain text does, so "10^9" does not read as 109; a footnote mark (a linked superscript)
# becomes " [1]" so "96%<sup>1</sup>" does not read as "96%1". "2<sup>nd</sup>" stays "2nd".
_SUP_NUMBER = re.compile(r"^[-+−]?[0-9][0-9.,]*$")
_CODE_LANG = re.compile(r"(?:^|\s)(?:language|lang)-([\w+#.-]+)")

# WordPress appends "The post <a>Title</a> appeared first on <a>Site</a>." to feed items.
_WP_FOOTER = re.compile(r"^The post .+ appeared first on .+$", re.S)

# Below this depth the walk recurses (three Python frames a level); deeper subtrees (only
# pathological pages nest this far) are read as flat text.
_MAX_DEPTH = 150


class _Writer:
    """One walk over a parsed tree, writing cleaned-text blocks."""

    __slots__ = ("blocks", "document", "flat", "in_item", "item", "lines", "list_depth")

    def __init__(self, *, document: bool = False) -> None:
        self.blocks: list[tuple[str, str]] = []  # (kind, text); kind "li" joins tighter
        self.lines: list[list[str]] = [[]]  # the pending paragraph, split at <br>
        self.flat = 0  # > 0 inside headings and table cells: blocks become spaces
        self.in_item = 0  # > 0 inside a list item: paragraphs join the item's line
        self.item: str | None = None  # the list marker waiting for its item's text
        self.list_depth = 0
        self.document = document

    # -- output --------------------------------------------------------------------------

    def text(self) -> str:
        self.flush()
        out: list[str] = []
        prev = ""
        for kind, text in self.blocks:
            if out:
                out.append("\n" if kind == "li" and prev == "li" else "\n\n")
            out.append(text)
            prev = kind
        return "".join(out)

    def take(self) -> str:
        """The pending inline text as normalised lines, and reset it."""
        lines = self.lines
        self.lines = [[]]
        parts = [prose("".join(pieces)) for pieces in lines]
        return "\n".join(p for p in parts if p)

    def flush(self) -> None:
        text = self.take()
        if not text:
            return
        if "```" in text or "~~~" in text:
            text = guard_fences(text)
        if self.item is not None:
            self.blocks.append(("li", self.item + text.replace("\n", " ")))
            self.item = None
        elif "appeared first on" in text and _WP_FOOTER.match(text):
            return
        else:
            self.blocks.append(("p", text))

    def add(self, s: str) -> None:
        self.lines[-1].append(s)

    # -- the walk ------------------------------------------------------------------------

    def walk(self, el: etree._Element, depth: int = 0) -> None:
        if el.text:
            self.lines[-1].append(el.text)
        if depth > _MAX_DEPTH:
            self.add(" ".join(el.itertext()))
            return
        for child in el:
            if isinstance(child.tag, str):
                self.node(child, depth + 1)
            if child.tail:
                self.lines[-1].append(child.tail)

    def node(self, el: etree._Element, depth: int) -> None:
        """Write one element (not its tail)."""
        tag: str = el.tag  # type: ignore[assignment]
        kind = _KIND.get(tag, -1)
        attrib = el.attrib
        if attrib and kind != _DROP and self._invisible(attrib):
            return
        # Inline: spans, links, emphasis, inline code, unknown elements. Inline code gets no
        # backticks: "`matmul2d`-based" would glue marks into the words and numbers
        # ("C00–C11") that readers and the number check compare.
        if kind == -1:
            self.walk(el, depth)
        elif kind == _BLOCK or (kind == _CHROME and not self.document):
            self._block(el, depth)
        elif kind == _BR:
            self._br()
        elif kind == _IMG:
            cls = el.get("class")
            if cls and _EMOJI_CLASS.search(cls):
                self.add(el.get("alt") or "")
        elif kind == _SUP:
            self._sup(el, depth)
        elif kind == _HEADING:
            self._heading(el, depth)
        elif kind == _LIST:
            self._list(el, depth)
        elif kind == _ITEM:
            self._item(el, "  " * self.list_depth + "- ", depth)
        elif kind == _PRE:
            self._pre(el)
        elif kind == _TABLE:
            self._table(el, depth)
        # _DROP, and _CHROME in whole documents: nothing

    def _block(self, el: etree._Element, depth: int) -> None:
        if self.flat or self.in_item:
            self.add(" ")
            self.walk(el, depth)
            self.add(" ")
        else:
            self.flush()
            self.walk(el, depth)
            self.flush()

    @staticmethod
    def _invisible(attrib: etree._Attrib) -> bool:
        if "hidden" in attrib:
            return True
        style = attrib.get("style")
        if style and ("none" in style or "hidden" in style) and _INVISIBLE_STYLE.search(style):
            return True
        cls = attrib.get("class")
        return bool(cls and _WIDGET_CLASS.search(cls))

    def _br(self) -> None:
        if self.flat or self.in_item:
            self.add(" ")
        elif not "".join(self.lines[-1]).strip() and len(self.lines) > 1:
            self.flush()  # <br><br>: a paragraph break written the lazy way
        else:
            self.lines.append([])

    def _sup(self, el: etree._Element, depth: int) -> None:
        text = prose(_gather(el))
        if el.find(".//a") is not None and text:
            self.add(f" [{text}] ")
        elif _SUP_NUMBER.match(text):
            self.add("^" + text)
        else:
            self.walk(el, depth)

    def _heading(self, el: etree._Element, depth: int) -> None:
        if self.flat or self.in_item:
            self._block(el, depth)
            return
        self.flush()
        self.flat += 1
        self.walk(el, depth)
        self.flat -= 1
        text = self.take()
        if text:
            level = int(str(el.tag)[1])
            self.blocks.append(("h", "#" * level + " " + text.replace("\n", " ")))

    def _list(self, el: etree._Element, depth: int) -> None:
        if self.flat:
            self._block(el, depth)
            return
        self.flush()
        ordered = el.tag == "ol"
        try:
            n = int(el.get("start") or 1)
        except ValueError:
            n = 1
        indent = "  " * self.list_depth
        self.list_depth += 1
        if el.text:
            self.add(el.text)
        for child in el:
            if child.tag == "li":
                self.flush()
                self._item(child, f"{indent}{n}. " if ordered else f"{indent}- ", depth + 1)
                n += 1
            elif isinstance(child.tag, str):
                self.node(child, depth + 1)  # stray content directly in the list
            if child.tail:
                self.add(child.tail)
        self.list_depth -= 1
        self.flush()

    def _item(self, el: etree._Element, marker: str, depth: int) -> None:
        if self.flat:
            self._block(el, depth)
            return
        self.flush()
        self.item = marker
        self.in_item += 1
        self.walk(el, depth)
        self.flush()
        self.in_item -= 1
        self.item = None

    def _pre(self, el: etree._Element) -> None:
        raw = _gather(el)
        if self.flat:
            self.add(" " + raw + " ")
            return
        self.flush()
        code = code_text(raw)
        if not code:
            return
        lang = ""
        for node in (el, *el.iterchildren("code")):
            cls = node.get("class")
            m = _CODE_LANG.search(cls) if cls else None
            if m:
                lang = m.group(1)
                break
        fence = fence_for(code)
        self.blocks.append(("code", f"{fence}{lang}\n{code}\n{fence}"))

    def _cell(self, el: etree._Element, depth: int) -> str:
        saved = self.lines
        self.lines = [[]]
        self.flat += 1
        self.walk(el, depth)
        self.flat -= 1
        text = self.take().replace("\n", " ")
        self.lines = saved
        return text.replace("|", "\\|")

    def _table(self, el: etree._Element, depth: int) -> None:
        if self.flat:
            self._block(el, depth)
            return
        self.flush()
        rows: list[list[str]] = []
        caption = ""
        for part in el:
            tag = part.tag
            if tag == "tr":
                trs: list[etree._Element] = [part]
            elif tag in ("thead", "tbody", "tfoot"):
                trs = [tr for tr in part if tr.tag == "tr"]
            elif tag == "caption":
                caption = self._cell(part, depth).replace("\\|", "|")
                continue
            else:
                continue
            for tr in trs:
                row: list[str] = []
                for cell in tr:
                    if cell.tag not in ("td", "th"):
                        continue
                    row.append(self._cell(cell, depth + 2))
                    try:
                        span = min(max(int(cell.get("colspan") or 1), 1), 64)
                    except ValueError:
                        span = 1
                    row.extend([""] * (span - 1))
                if any(row):
                    rows.append(row)
        if caption:
            self.blocks.append(("p", caption))
        if not rows:
            return
        width = max(len(r) for r in rows)
        lines = []
        for i, row in enumerate(rows):
            row += [""] * (width - len(row))
            lines.append("| " + " | ".join(row) + " |")
            if i == 0:
                lines.append("|" + " --- |" * width)
        self.blocks.append(("table", "\n".join(lines)))


def _gather(el: etree._Element) -> str:
    """The text a browser shows for an element, <br> as a newline, dropped elements out."""
    out: list[str] = []

    def rec(node: etree._Element, depth: int) -> None:
        if node.text:
            out.append(node.text)
        for c in node:
            tag = c.tag
            if isinstance(tag, str):
                kind = _KIND.get(tag)
                if tag == "br":
                    out.append("\n")
                elif kind in (_DROP, _IMG):
                    pass
                elif depth >= _MAX_DEPTH:
                    out.append("".join(c.itertext()))
                elif kind == _BLOCK:
                    # Highlighters write one <div> per line of code.
                    if out and not out[-1].endswith("\n"):
                        out.append("\n")
                    rec(c, depth + 1)
                    out.append("\n")
                else:
                    rec(c, depth + 1)
            if c.tail:
                out.append(c.tail)

    rec(el, 0)
    return "".join(out)


def clean_html(html: str) -> str:
    """HTML (a feed item's content or a page fragment) to cleaned text."""
    root = parse_html(html)
    if root is None:
        return ""
    w = _Writer()
    w.walk(root)
    return w.text()


class Page(NamedTuple):
    """A whole HTML page, cleaned, with what its head says about it."""

    text: str
    title: str
    author: str | None
    published: datetime | None
    site_name: str | None = None


def html_document(text: str) -> Page:
    """A whole HTML page: the cleaned text of its first <article>, else its <main>, else
    its body (nav, aside and footer left out); its title from og:title, <title> or <h1>;
    the site it is on from og:site_name, else application-name."""
    root = parse_html(text)
    if root is None:
        return Page("", "", None, None)
    meta: dict[str, str] = {}
    head = root.find("head")
    page_title = ""
    if head is not None:
        for el in head:
            if el.tag == "meta":
                key = (el.get("property") or el.get("name") or "").strip().lower()
                value = el.get("content")
                if key and value and key not in meta:
                    meta[key] = value
            elif el.tag == "title":
                page_title = prose(el.text or "")
    body = root.find("body")
    if body is None:
        body = root
    main = next(body.iter("article"), None)
    if main is None:
        main = next(body.iter("main"), None)
    w = _Writer(document=True)
    w.walk(main if main is not None else body)
    cleaned = w.text()
    if not cleaned and main is not None:
        w = _Writer(document=True)
        w.walk(body)
        cleaned = w.text()
    title = prose(meta.get("og:title") or meta.get("twitter:title") or "") or page_title
    if not title:
        h1 = next(body.iter("h1"), None)
        title = prose(_gather(h1)) if h1 is not None else ""
    author = meta.get("author") or meta.get("article:author") or None
    published = utc_from_iso(
        meta.get("article:published_time") or meta.get("date") or meta.get("dc.date")
    )
    site = meta.get("og:site_name") or meta.get("application-name")
    return Page(
        cleaned, title, prose(author) if author else None, published, prose(site) if site else None
    )
