"""Explainers as Markdown, plain text, HTML and JSON, and read back from text (pure).

The plain-text layout is the style target's (seed 003): the title line, a blank line,
numbered section headings ("1. Heading"), paragraphs separated by blank lines, code
lines as they are, and the takeaway as the last paragraph. A section's code block goes
after its first paragraph, where 003 has it: the paragraph introduces the code and the
following ones discuss it.

Markdown is the same layout with ``#``/``##`` headings ("## 1. Heading", because a bare
"1. Heading" is an ordered list in Markdown) and fenced code. HTML is a fragment in which
every string is escaped: nothing that came from a feed is trusted.
"""

from __future__ import annotations

import html
import re
from typing import Any

from pydantic import BaseModel

from service.errors import Unprocessable
from service.models import Article, CheckReport, Explainer, ExplainResult, Section

# --- writing ---------------------------------------------------------------------------------


def _section_parts(section: Section, code: str | None) -> list[str]:
    parts = [section.paragraphs[0]]
    if code is not None:
        parts.append(code)
    parts.extend(section.paragraphs[1:])
    return parts


def to_text(explainer: Explainer) -> str:
    """003's plain layout."""
    out = [explainer.title]
    for i, s in enumerate(explainer.sections, 1):
        out.append(f"{i}. {s.heading}")
        out.extend(_section_parts(s, s.code.strip("\n") if s.code else None))
    if explainer.takeaway:
        out.append(explainer.takeaway)
    return "\n\n".join(out) + "\n"


_MD_SPECIAL = re.compile(r"([\\`*<>\[\]])|(?<!\w)_|_(?!\w)")
# re.M: every line of a paragraph (a model's answer may hold a line break), not only its
# first, is where a block ("# ", "- ", "1. ") would start.
_MD_LINE_START = re.compile(r"^(\s*)(#|[-+]\s|>|=+\s*$|-+\s*$|\|)", re.M)
_MD_ORDERED = re.compile(r"^(\s*\d+)([.)]\s)", re.M)


def _md_escape(text: str) -> str:
    """Prose safe to drop into Markdown: no emphasis, links, HTML or block syntax."""
    text = _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), text)
    text = _MD_ORDERED.sub(r"\1\\\2", text)  # "1\. " is not a list item
    return _MD_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), text)


def _fence(code: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", code)), default=2)
    fence = "`" * (longest + 1)
    return f"{fence}\n{code.strip(chr(10))}\n{fence}"


def to_markdown(explainer: Explainer) -> str:
    """003's layout in Markdown: ``# Title``, ``## 1. Heading``, fenced code."""
    out = [f"# {_md_escape(explainer.title)}"]
    for i, s in enumerate(explainer.sections, 1):
        out.append(f"## {i}. {_md_escape(s.heading)}")
        parts = [_md_escape(p) for p in s.paragraphs]
        if s.code:
            parts.insert(1, _fence(s.code))
        out.extend(parts)
    if explainer.takeaway:
        out.append(_md_escape(explainer.takeaway))
    return "\n\n".join(out) + "\n"


def _e(text: str) -> str:
    return html.escape(text, quote=True)


def to_html(explainer: Explainer) -> str:
    """An HTML fragment (``<article>``); every string escaped."""
    out = ['<article class="explainer">', f"<h1>{_e(explainer.title)}</h1>"]
    for i, s in enumerate(explainer.sections, 1):
        out.append("<section>")
        out.append(f"<h2>{i}. {_e(s.heading)}</h2>")
        code = f"<pre><code>{_e(s.code.strip(chr(10)))}</code></pre>" if s.code else None
        for part_i, p in enumerate(s.paragraphs):
            out.append(f"<p>{_e(p)}</p>")
            if part_i == 0 and code:
                out.append(code)
        out.append("</section>")
    if explainer.takeaway:
        out.append(f'<p class="takeaway">{_e(explainer.takeaway)}</p>')
    out.append("</article>")
    return "\n".join(out) + "\n"


def to_json(value: BaseModel) -> str:
    """An explainer, or an explain result with its metadata, as indented JSON."""
    return value.model_dump_json(indent=2) + "\n"


# --- reading ---------------------------------------------------------------------------------

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_NUMBERED = re.compile(r"^(?:#{1,6}\s+)?(?:\*\*)?(\d+)[.)]\s+(.+?)(?:\*\*)?\s*$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_UNESCAPE = re.compile(r"\\([\\`*_{}\[\]()#+\-.!<>|=])")
_TAKEAWAY_LABEL = re.compile(
    r"^(?:\*\*)?(?:takeaway|bottom line|in short)(?:\*\*)?\s*[:.-]\s*", re.IGNORECASE
)

# Lines that are code when a whole paragraph is made of them (003 shows code unfenced).
_CODE_LINE = [
    re.compile(r"^\s*(import|from)\s+[\w.]+(\s+import\s+.+|\s+as\s+\w+)?\s*$"),
    re.compile(r"^\s*[\w.\[\]'\"]+\s*(=|\+=|-=|\*=|/=|:=)\s*\S.*$"),
    re.compile(r"^\s*(def|class|async def)\s+\w+.*:\s*$"),
    re.compile(r"^\s*(return|yield|raise|assert|await|print|del|pass|break|continue)\b.*$"),
    re.compile(r"^\s*(if|elif|else|for|while|with|try|except|finally)\b.*:\s*$"),
    re.compile(r"^\s*@[\w.]+(\(.*\))?\s*$"),
    re.compile(r"^\s*\$\s+\S"),
    re.compile(
        r"^\s*(pip3?|python3?|uv|conda|docker|git|curl|wget|npm|npx|yarn|cargo|go|make|cmake|"
        r"export|cd|sudo|apt|apt-get|brew|ollama|vllm|torchrun|kubectl|helm|plainfeed)\s+\S"
    ),
    re.compile(r"^\s*[\w.]+(\[[^\]]*\])?\(.*\)\s*[;,]?\s*$"),
    re.compile(r"^\s*[)}\]]+[,;]?\s*$"),
    re.compile(r"^\s*//.*$|^\s*/\*.*$|^\s*\*/\s*$"),
    re.compile(r"^.*[{;]\s*$"),
]


def document(result: ExplainResult, report: CheckReport | None, source: Article) -> dict[str, Any]:
    """The explainer's JSON document: its content plus where it came from and how it was
    made (the JSON shape of README's "The explainer"). One definition for the API and the CLI."""
    return {
        **result.explainer.model_dump(mode="json"),
        "source": {
            "title": source.title,
            "url": source.url,
            "author": source.author,
            "published": source.published.isoformat() if source.published else None,
        },
        "engine": result.engine,
        "model": result.model,
        "prompt_version": result.prompt_version,
        "usage": result.usage.model_dump(),
        "cost_usd": result.cost_usd,
        "check": report.model_dump(mode="json") if report else None,
    }


def looks_like_code(line: str) -> bool:
    """A line that reads as source code or a shell command, not as prose."""
    return any(p.match(line) for p in _CODE_LINE)


def _is_code_paragraph(lines: list[str]) -> bool:
    if not lines or not looks_like_code(lines[0]):
        return False
    for ln in lines[1:]:
        if looks_like_code(ln) or ln.startswith((" ", "\t")) or ln.lstrip().startswith("#"):
            continue
        return False
    return True


def _groups(text: str) -> list[tuple[str, list[str]]]:
    """Blank-line separated groups of lines: ``("fenced", lines)`` or ``("lines", lines)``."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff").split("\n")
    out: list[tuple[str, list[str]]] = []
    cur: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i].rstrip()
        m = _FENCE.match(line)
        if m:
            if cur:
                out.append(("lines", cur))
                cur = []
            fence = m.group(1)
            body: list[str] = []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith(fence):
                body.append(lines[i].rstrip())
                i += 1
            out.append(("fenced", body))
            i += 1
            continue
        if not line.strip():
            if cur:
                out.append(("lines", cur))
                cur = []
        else:
            cur.append(line)
        i += 1
    if cur:
        out.append(("lines", cur))
    return out


def _unescape(text: str) -> str:
    return _UNESCAPE.sub(r"\1", text)


def _heading(lines: list[str], expected: int) -> str | None:
    """The section heading a one-line group introduces, if it is one."""
    if len(lines) != 1:
        return None
    line = lines[0].strip()
    m = _NUMBERED.match(line)
    if m and int(m.group(1)) == expected and len(line) <= 160:
        return m.group(2).strip()
    m = _MD_HEADING.match(line)
    if m and len(m.group(1)) >= 2:
        return re.sub(r"^\d+[.)]\s+", "", m.group(2)).strip()
    m = re.match(r"^\*\*(.+?)\*\*$", line)
    if m and len(line) <= 120 and not m.group(1).rstrip().endswith((".", ":")):
        return re.sub(r"^\d+[.)]\s+", "", m.group(1)).strip()
    return None


def parse_explainer(text: str) -> Explainer:
    """Read an explainer written as Markdown or as 003-style plain text.

    The title is the first line; sections start at "1. Heading" (numbered in order) or a
    Markdown heading; paragraphs are separated by blank lines; code is fenced, or unfenced
    lines that all look like code. The last paragraph of the last section is the takeaway
    when it carries a "Takeaway:" label, or when that section has more than one paragraph
    and the last one opens with the title's subject (as 003's does).
    """
    groups = _groups(text)
    if not groups:
        raise Unprocessable("the explainer is empty")
    kind, first = groups[0]
    if kind != "lines":
        raise Unprocessable("the explainer starts with code, not with a title line")
    title_line = first[0].strip()
    m = _MD_HEADING.match(title_line)
    title = _unescape(m.group(2) if m else title_line).strip()
    rest = [("lines", first[1:])] if len(first) > 1 else []
    groups = rest + groups[1:]

    sections: list[dict[str, object]] = []
    preamble: list[str] = []
    for kind, lines in groups:
        if kind == "lines":
            heading = _heading(lines, len(sections) + 1)
            if heading is not None:
                sections.append({"heading": _unescape(heading), "parts": []})
                continue
        target: list[tuple[str, str]]
        if not sections:
            if kind == "lines" and not _is_code_paragraph(lines):
                preamble.append(" ".join(ln.strip() for ln in lines))
            continue
        target = sections[-1]["parts"]  # type: ignore[assignment]
        if kind == "fenced" or _is_code_paragraph(lines):
            code = "\n".join(lines)
            if target and target[-1][0] == "code":
                target[-1] = ("code", target[-1][1] + "\n\n" + code)
            else:
                target.append(("code", code))
        else:
            target.append(("para", _unescape(" ".join(ln.strip() for ln in lines))))
    if not sections:
        raise Unprocessable(
            "no sections found: expected numbered headings ('1. Heading') or '## Heading' lines"
        )

    built: list[Section] = []
    for s in sections:
        parts: list[tuple[str, str]] = s["parts"]  # type: ignore[assignment]
        paragraphs = [t for k, t in parts if k == "para" and t.strip()]
        codes = [t for k, t in parts if k == "code"]
        if not paragraphs:
            raise Unprocessable(f"section {s['heading']!r} has no paragraph")
        built.append(
            Section(
                heading=str(s["heading"]),
                paragraphs=paragraphs,
                code="\n\n".join(codes) if codes else None,
            )
        )

    takeaway = _split_takeaway(title, built)
    return Explainer(title=title, sections=built, takeaway=takeaway)


def _split_takeaway(title: str, sections: list[Section]) -> str | None:
    last = sections[-1]
    final = last.paragraphs[-1]
    label = _TAKEAWAY_LABEL.match(final)
    if label and final[label.end() :].strip():
        takeaway = final[label.end() :].strip()
    elif len(last.paragraphs) > 1 and _opens_with_subject(title, final):
        takeaway = final
    else:
        return None
    if len(last.paragraphs) == 1:
        return None  # a section keeps at least one paragraph
    last.paragraphs = last.paragraphs[:-1]
    return takeaway


def _opens_with_subject(title: str, paragraph: str) -> bool:
    subject = title.split(":", 1)[0] if ":" in title else ""
    names = {w for w in re.findall(r"[\w\-.]+", subject) if len(w) > 2 and w[:1].isupper()}
    first = re.match(r"[\w\-.]+", paragraph)
    return bool(first and first.group(0) in names)
