"""Posts as clean text: HTML, Markdown or plain text -> the cleaned-text format.

The cleaned-text format is the light Markdown that :mod:`service.text` reads back:
``#`` headings, paragraphs separated by blank lines, ``-``/``1.`` list items, fenced
code blocks and pipe tables with a header row. Every number the reader sees must
survive, because the number check proves explainers against this text.

HTML goes through one lxml parse and one walk of the tree (the cleaner sits in the
worker's hot path); lxml is used directly rather than through BeautifulSoup, whose
tree building alone costs about twenty times lxml's parse on a 110 KB post.
"""

from __future__ import annotations

import html as _html
import re
from datetime import UTC, datetime
from html.entities import html5
from typing import Literal

from lxml import etree

from service.errors import InputError, Unprocessable
from service.models import Article, FeedEntry

DocumentKind = Literal["html", "md", "text"]

# --- characters -------------------------------------------------------------------------

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


def _prose(text: str) -> str:
    """One line of prose: normalised, whitespace collapsed."""
    text = normalize_text(text)
    if "\\$" in text:
        # A Markdown escape leaked into HTML by the feed generator ("\$3.99").
        text = text.replace("\\$", "$")
    return " ".join(text.split())


def _code(text: str) -> str:
    """A code block's text: characters normalised, lines kept, outer blank lines gone."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_CHAR_MAP)
    lines = [line.rstrip() for line in text.split("\n")]
    while lines and not lines[0]:
        lines.pop(0)
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines)


def _fence_for(code: str) -> str:
    return "~~~" if "```" in code else "```"


_FENCE_START = re.compile(r"^(\s*)(```|~~~)", re.M)


def _guard_fences(text: str) -> str:
    # Prose that starts a line with a fence would swallow the rest of the text as code.
    return _FENCE_START.sub(r"\1\\\2", text)


# --- HTML ---------------------------------------------------------------------------------

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
        parts = [_prose("".join(pieces)) for pieces in lines]
        return "\n".join(p for p in parts if p)

    def flush(self) -> None:
        text = self.take()
        if not text:
            return
        if "```" in text or "~~~" in text:
            text = _guard_fences(text)
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
        text = _prose(_gather(el))
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
        code = _code(raw)
        if not code:
            return
        lang = ""
        for node in (el, *el.iterchildren("code")):
            cls = node.get("class")
            m = _CODE_LANG.search(cls) if cls else None
            if m:
                lang = m.group(1)
                break
        fence = _fence_for(code)
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


# huge_tree lifts libxml2's nesting cap from 256 to 2048: past the cap the parser stops and
# everything after the deep element is lost, not only the deep part.
_PARSER = etree.HTMLParser(remove_comments=True, remove_pis=True, no_network=True, huge_tree=True)
_XML_DECL = re.compile(r"^\s*<\?xml[^>]*\?>")


def _parse_html(html: str) -> etree._Element | None:
    if html.startswith("\ufeff"):
        html = html[1:]
    if html.lstrip().startswith("<?xml"):
        # lxml refuses str input that declares an encoding; the str is decoded already.
        html = _XML_DECL.sub("", html, count=1)
    if not html.strip():
        return None
    return etree.fromstring(html, _PARSER)


def clean_html(html: str) -> str:
    """HTML (a feed item's content or a page fragment) to cleaned text."""
    root = _parse_html(html)
    if root is None:
        return ""
    w = _Writer()
    w.walk(root)
    return w.text()


# --- Markdown ----------------------------------------------------------------------------

_MD_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
_MD_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)
_MD_URL = r"\((?:[^()\s]|\([^()\s]*\))*(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^()]*\)))?\s*\)"
_MD_IMAGE = re.compile(r"!\[[^\]]*\](?:" + _MD_URL + r"|\[[^\]]*\])")
_MD_LINK = re.compile(r"\[((?:[^\[\]]|\[[^\[\]]*\])*)\](?:" + _MD_URL + r"|\[[^\]]*\])")
_MD_REF_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+\S+.*$", re.M)
_MD_AUTOLINK = re.compile(r"<((?:https?|ftp|mailto):[^<>\s]+)>")
_MD_DROP_BLOCK = re.compile(
    r"<(script|style|iframe|video|audio|svg|noscript|template)\b[^>]*>.*?</\1\s*>", re.S | re.I
)
_MD_TAG = re.compile(
    r"</?(?:img|span|div|p|sup|sub|b|i|em|strong|a|u|small|mark|del|ins|s|font|center|figure"
    r"|figcaption|picture|source|video|audio|iframe|br|hr|section|article|details|summary"
    r"|kbd|abbr|cite|q|time)\b[^<>]*>",
    re.I,
)
_MD_BR = re.compile(r"<br\s*/?>", re.I)
_MD_SUP = re.compile(r"<sup>\s*([-+−]?[0-9][0-9.,]*)\s*</sup>", re.I)
_MD_STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)", re.S)
_MD_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!$<>~])")
_MD_SPACES = re.compile(r"(?<=\S)[ \t]{2,}")
_MD_HR = re.compile(r"^\s{0,3}([-*_])(?:\s*\1){2,}\s*$")
_MD_SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
_MD_SEP = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(?:\|\s*:?-{2,}:?\s*)+\|?\s*$")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)
_FM_TITLE = re.compile(r"^title:\s*(.+?)\s*$", re.M)


_MD_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
_SPAN_MARK = re.compile("\ue000([0-9]+)\ue001")


def _md_prose(chunk: str) -> str:
    """Markdown outside code fences: images, links and markup out, text in."""
    # Code spans are set aside first so that nothing below rewrites code ("`**kwargs`",
    # "`<br>`"); they come back as their bare text, like HTML <code> (no backticks).
    spans: list[str] = []
    if "`" in chunk:

        def keep(m: re.Match[str]) -> str:
            code = m.group(2).replace("\n", " ")
            if code.startswith(" ") and code.endswith(" ") and code.strip():
                code = code[1:-1]
            spans.append(code)
            return f"\ue000{len(spans) - 1}\ue001"

        chunk = _MD_CODE_SPAN.sub(keep, chunk)
    if "<" in chunk:
        chunk = _MD_COMMENT.sub("", chunk)
        chunk = _MD_DROP_BLOCK.sub("", chunk)
        chunk = _MD_BR.sub("\n", chunk)
        chunk = _MD_SUP.sub(r"^\1", chunk)
        chunk = _MD_TAG.sub("", chunk)
        chunk = _MD_AUTOLINK.sub(r"\1", chunk)
    if "](" in chunk or "][" in chunk:
        chunk = _MD_IMAGE.sub("", chunk)
        # Links nest one level at most in practice ([a [b] c](u)); one pass each way.
        chunk = _MD_LINK.sub(r"\1", chunk)
    if "]:" in chunk:
        chunk = _MD_REF_DEF.sub("", chunk)
    if "**" in chunk or "__" in chunk:
        chunk = _MD_STRONG.sub(lambda m: m.group(1) or m.group(2), chunk)
    if "\\" in chunk:
        chunk = _MD_ESCAPE.sub(r"\1", chunk)
    if spans:
        chunk = _SPAN_MARK.sub(lambda m: spans[int(m.group(1))], chunk)
    chunk = normalize_text(chunk)
    out: list[str] = []
    lines = chunk.split("\n")
    for i, line in enumerate(lines):
        line = _MD_SPACES.sub(" ", line.rstrip())
        if _MD_SETEXT.match(line) and out and out[-1].strip() and "|" not in line:
            prev = out[-1].strip()
            if not prev.startswith(("#", "-", "*", "+", "|")):
                out[-1] = ("# " if line.strip()[0] == "=" else "## ") + prev
                continue
        if _MD_HR.match(line):
            out.append("")
            continue
        # A pipe table written without outer pipes: give it the pipes the reader expects.
        if (
            "|" in line
            and _MD_SEP.match(line)
            and out
            and "|" in out[-1]
            and not out[-1].lstrip().startswith("|")
        ):
            out[-1] = "| " + out[-1].strip() + " |"
            line = "| " + line.strip().strip("|").strip() + " |"
            out.append(line)
            j = i + 1
            while j < len(lines) and "|" in lines[j] and not lines[j].lstrip().startswith("|"):
                lines[j] = "| " + lines[j].strip() + " |"
                j += 1
            continue
        out.append(line)
    return "\n".join(out)


def _split_md(md: str) -> list[tuple[bool, str]]:
    """Markdown as alternating (is_code, chunk) pieces, split at fenced code blocks."""
    pieces: list[tuple[bool, str]] = []
    buf: list[str] = []
    fence: str | None = None
    for line in md.split("\n"):
        if fence is None:
            m = _MD_FENCE.match(line)
            if m:
                if buf:
                    pieces.append((False, "\n".join(buf)))
                buf = [line]
                fence = m.group(1)
            else:
                buf.append(line)
        else:
            buf.append(line)
            if line.strip().startswith(fence[0] * len(fence)) and not line.strip().strip(fence[0]):
                pieces.append((True, "\n".join(buf)))
                buf = []
                fence = None
    if buf:
        pieces.append((fence is not None, "\n".join(buf) + ("\n" + fence if fence else "")))
    return pieces


def _md_code(block: str) -> str:
    lines = block.split("\n")
    opening = lines[0].strip()
    char = opening[0]
    lang = opening.lstrip(char).strip().split(" ")[0]
    body = _code("\n".join(lines[1:-1]))
    fence = _fence_for(body)
    return f"{fence}{lang}\n{body}\n{fence}"


def _squeeze_blank_lines(text: str) -> str:
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def clean_markdown(md: str) -> str:
    """A Markdown post (scraped ``.md``) to cleaned text: images, link targets, comments
    and emphasis markers out; headings, lists, tables and code kept."""
    md = md.replace("\r\n", "\n").replace("\r", "\n")
    if md.startswith("\ufeff"):
        md = md[1:]
    md = _FRONT_MATTER.sub("", md, count=1)
    parts = [_md_code(chunk) if is_code else _md_prose(chunk) for is_code, chunk in _split_md(md)]
    return _squeeze_blank_lines("\n".join(parts))


def clean_plain(text: str) -> str:
    """Plain text to cleaned text: characters normalised, line breaks and paragraphs kept."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").translate(_CHAR_MAP)
    text = "\n".join(line.rstrip() for line in text.split("\n"))
    return _guard_fences(_squeeze_blank_lines(text))


# --- articles ----------------------------------------------------------------------------


def _first_heading(text: str) -> str:
    for line in text.split("\n"):
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return ""


def _fallback_title(text: str) -> str:
    """A title for an untitled item: its first heading, else its first words."""
    heading = _first_heading(text)
    if heading:
        return heading
    words = text.split()
    if not words:
        return ""
    return " ".join(words[:12]) + (" …" if len(words) > 12 else "")


def article_from_entry(entry: FeedEntry) -> Article:
    """A feed entry as an article: its full content when the feed carries it, else its
    summary."""
    text = clean_html(entry.content_html) if entry.content_html else ""
    if not text and entry.summary_html:
        text = clean_html(entry.summary_html)
    title = _prose(entry.title) or _fallback_title(text)
    return Article(
        title=title,
        text=text,
        url=entry.link,
        author=entry.author,
        published=entry.published or entry.updated,
        content_source="feed",
    )


_HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".shtml")
_MD_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd", ".mdx")
_TEXT_SUFFIXES = (".txt", ".text")
_HTML_START = re.compile(
    r"\A\s*<(?:!doctype\s+html|html|head|body|meta|[a-z][a-z0-9]*[\s>/])", re.I
)
_HTML_BLOCKS = re.compile(r"<(?:p|div|br|h[1-6]|ul|ol|li|table|article|section)\b[^>]*>", re.I)
_MD_SIGNALS = re.compile(
    r"^(?:#{1,6}\s|```|~~~|\|.*\|\s*$|\s*[-*+]\s|\s*\d+\.\s)|\]\([^)]+\)|\*\*\S", re.M
)
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9._:-]+)""", re.I)


def _decode(data: bytes) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", errors="replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", errors="replace")
    m = _META_CHARSET.search(data[:4096])
    if m:
        try:
            return data.decode(m.group(1).decode("ascii"), errors="replace")
        except LookupError:
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def guess_kind(text: str, filename: str | None = None) -> DocumentKind:
    """Whether a document is HTML, Markdown or plain text: by file name, else by content."""
    if filename:
        name = filename.lower()
        if name.endswith(_HTML_SUFFIXES):
            return "html"
        if name.endswith(_MD_SUFFIXES):
            return "md"
        if name.endswith(_TEXT_SUFFIXES):
            return "text"
    head = text[:8192]
    if _HTML_START.match(head):
        return "html"
    if _MD_SIGNALS.search(head):
        return "md"
    if _HTML_BLOCKS.search(head):
        return "html"
    return "text"


def _parse_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        dt = datetime.fromisoformat(value.strip())
    except ValueError:
        return None
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def _html_document(text: str) -> tuple[str, str, str | None, datetime | None]:
    """(cleaned text, title, author, published) of a whole HTML page."""
    root = _parse_html(text)
    if root is None:
        return "", "", None, None
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
                page_title = _prose(el.text or "")
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
    title = _prose(meta.get("og:title") or meta.get("twitter:title") or "") or page_title
    if not title:
        h1 = next(body.iter("h1"), None)
        title = _prose(_gather(h1)) if h1 is not None else ""
    author = meta.get("author") or meta.get("article:author") or None
    published = _parse_date(
        meta.get("article:published_time") or meta.get("date") or meta.get("dc.date")
    )
    return cleaned, title, _prose(author) if author else None, published


def article_from_document(
    data: bytes | str,
    *,
    kind: DocumentKind | None = None,
    filename: str | None = None,
    url: str | None = None,
    title: str | None = None,
) -> Article:
    """A document given whole (an HTML page, a Markdown post, plain text) as an article.

    Raises :class:`InputError` for an unknown ``kind`` and :class:`Unprocessable` when
    the document holds no text.
    """
    text = _decode(data) if isinstance(data, bytes) else data
    if kind is None:
        kind = guess_kind(text, filename)
    author: str | None = None
    published: datetime | None = None
    if kind == "html":
        cleaned, found_title, author, published = _html_document(text)
    elif kind == "md":
        fm = _FRONT_MATTER.match(text.lstrip("\ufeff"))
        fm_title = _FM_TITLE.search(fm.group(1)) if fm else None
        cleaned = clean_markdown(text)
        found_title = fm_title.group(1).strip("\"' ") if fm_title else _first_heading(cleaned)
    elif kind == "text":
        cleaned = clean_plain(text)
        first = cleaned.split("\n", 1)[0].strip()
        found_title = first if len(first) <= 200 else ""
    else:
        raise InputError(f"unknown document kind {kind!r}: expected html, md or text")
    if not cleaned.strip():
        raise Unprocessable(f"the {kind} document holds no text")
    return Article(
        title=_prose(title) if title else (found_title or _fallback_title(cleaned)),
        text=cleaned,
        url=url,
        author=author,
        published=published,
        content_source="file",
    )


# --- excerpts ----------------------------------------------------------------------------

# The endings that mark a cut description: "...", "…", "[…]", "[...]", "[&#8230;]" (the
# entity decoded or not), and the "Continue reading" / "Read more" links of blog engines.
_CUT = re.compile(
    r"(?:\.\.\.|…|\[\s*(?:…|\.\.\.|&#8230;|&hellip;)\s*\]|(?:continue reading|read more)\b.{0,200})"
    r"\s*$",
    re.I | re.S,
)
# A summary at least this long that is not cut is a whole post carried in the summary
# field (common in RSS 2.0 without content:encoded).
_FULL_WORDS = 200
_LONG_CONTENT = 20_000  # characters of HTML; no feed cuts an excerpt this long


def is_excerpt(entry: FeedEntry) -> bool:
    """Whether the feed carries only an excerpt of the post (so the page must be fetched)."""
    content_html = entry.content_html or ""
    if len(content_html) > _LONG_CONTENT:
        return False
    content = clean_html(content_html) if content_html else ""
    summary = clean_html(entry.summary_html) if entry.summary_html else ""
    if not content:
        if not summary:
            return True
        return bool(_CUT.search(summary)) or len(summary.split()) < _FULL_WORDS
    if not _CUT.search(content):
        return False
    return len(content.split()) < _FULL_WORDS or content == summary
