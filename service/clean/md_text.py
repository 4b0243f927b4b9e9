"""Markdown -> cleaned text: scraped ``.md`` posts lose images, link targets, comments
and emphasis markers, and keep headings, lists, pipe tables and fenced code."""

from __future__ import annotations

import re

from service.clean.chars import code_text, fence_for, normalize_text, squeeze_blank_lines

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
# A blank line right after an inline code span, before text that cannot start a
# paragraph (a lowercase word, or ".", ",", ";", ":", ")"): a scraper's break inside a
# sentence (HTML <code> written as a block), not the author's.
_BROKEN_AFTER_SPAN = re.compile(r"(?<=`)[ \t]*\n(?:[ \t]*\n)+[ \t]*(?=([.,;:)])|[a-z])")
_SPAN_MARK = re.compile("\ue000([0-9]+)\ue001")


def _md_prose(chunk: str) -> str:
    """Markdown outside code fences: images, links and markup out, text in."""
    # Code spans are set aside first so that nothing below rewrites code ("`**kwargs`",
    # "`<br>`"); they come back as their bare text, like HTML <code> (no backticks).
    spans: list[str] = []
    if "`" in chunk:
        chunk = _BROKEN_AFTER_SPAN.sub(lambda m: "" if m.group(1) else " ", chunk)

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
    body = code_text("\n".join(lines[1:-1]))
    fence = fence_for(body)
    return f"{fence}{lang}\n{body}\n{fence}"


def clean_markdown(md: str) -> str:
    """A Markdown post (scraped ``.md``) to cleaned text: images, link targets, comments
    and emphasis markers out; headings, lists, tables and code kept."""
    md = md.replace("\r\n", "\n").replace("\r", "\n")
    if md.startswith("\ufeff"):
        md = md[1:]
    md = _FRONT_MATTER.sub("", md, count=1)
    parts = [_md_code(chunk) if is_code else _md_prose(chunk) for is_code, chunk in _split_md(md)]
    return squeeze_blank_lines("\n".join(parts))


def front_matter_title(md: str) -> str | None:
    """The ``title:`` of a Markdown document's YAML front matter, if it has one."""
    fm = _FRONT_MATTER.match(md.lstrip("\ufeff"))
    title = _FM_TITLE.search(fm.group(1)) if fm else None
    return title.group(1).strip("\"' ") if title else None
