"""Inline Markdown out of the post's text, and pointers to what the reader cannot see."""

from __future__ import annotations

import re

_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)")
# A link's text is read up to 300 characters: unbounded, each "[" of a run without a
# "]" ("[" * 100_000 in a post) read to the end of the text, minutes of CPU.
_LINK = re.compile(r"\[([^\]]{1,300})\]\((?:[^()]|\([^)]*\))*\)")
_REF_LINK = re.compile(r"\[([^\]]{1,300})\]\[[^\]]*\]")
_CITATION = re.compile(r"\s?\[\d+(?:\s*[,–-]\s*\d+)*\]")  # [1,2] reference markers
_AUTOLINK = re.compile(r"<https?://[^>]+>")
# Emphasis ends at the next marker it could end at, not past it: ".+?" read from each "*"
# of "*a *a *a ..." (no "*" there closes, a space before it) to the end of the text,
# minutes of CPU for 100 KB.
_BOLD = re.compile(r"\*\*((?:[^*]|\*(?!\*))+?)\*\*|__((?:[^_]|_(?!_))+?)__")
_ITALIC = re.compile(
    r"(?<![\w*])\*(?=\S)([^*]+?)(?<=\S)\*(?![\w*])|(?<!\w)_(?=\S)([^_]+?)(?<=\S)_(?!\w)"
)
_CODE = re.compile(r"`+([^`]+?)`+")
_ESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!$|])")
_STRAY = re.compile(r"\*\*|(?<!\w)\*(?!\w)")


_REFS = re.compile(
    r",?\s+as (?:shown|seen|illustrated) in (?:Figure|Fig\.|Table) \d+[a-z]?"
    r"|\s*\((?:see )?(?:Figure|Fig\.|Table) \d+[a-z]?\)"
    r"|\s*\((?:PRs?\s*)?#\s?\d+(?:(?:,\s*|\s+and\s+|\s*→\s*)#?\s?\d+)*\)"
    r"|\s+See #\d+(?:,\s*#\d+)*\.?$"
    r"|\s*\(#\d+[^()]*\bby\b[^()]*\)"  # "(#189411 by Edward Yang, Meta)": a credit
)


def strip_refs(sentence: str) -> str:
    """Pointers to figures, tables and pull requests the reader cannot see."""
    return _REFS.sub("", sentence)


def clean_inline(text: str) -> tuple[str, list[str]]:
    """Markdown inline syntax out of ``text``; returns the text and its bold spans."""
    text = _IMAGE.sub("", text)
    text = _AUTOLINK.sub("", text)
    text = _LINK.sub(r"\1", text)
    text = _REF_LINK.sub(r"\1", text)
    text = _CITATION.sub("", text)
    text = _CODE.sub(r"\1", text)
    bold: list[str] = []

    def _b(m: re.Match[str]) -> str:
        inner = m.group(1) or m.group(2) or ""
        bold.append(inner.strip())
        return inner

    text = _BOLD.sub(_b, text)
    text = _ITALIC.sub(lambda m: m.group(1) or m.group(2) or "", text)
    text = _STRAY.sub("", text)
    text = _ESCAPE.sub(r"\1", text)
    text = " ".join(text.split())
    text = re.sub(r"\s+([,.;:!?)])", r"\1", text)
    text = re.sub(r"\(\s+", "(", text)
    return text, bold
