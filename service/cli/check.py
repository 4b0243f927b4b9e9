"""``plainfeed check``: the number check of an explainer file against a source file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from pydantic import ValidationError
from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from service.check import check_explainer, headline_facts
from service.clean import article_from_document, decode_document, guess_kind, looks_binary
from service.cli.inputs import read_input
from service.errors import InputError, too_long_number, validation_problems
from service.models import Article, CheckReport, CheckStatus, Explainer, explainer_fields

_STYLE = {  # status -> rich style
    CheckStatus.SUPPORTED: "green",
    CheckStatus.DERIVED: "yellow",
    CheckStatus.MISATTACHED: "magenta",
    CheckStatus.UNSUPPORTED: "red",
}


def register(app: typer.Typer) -> None:
    app.command("check")(check)


def _decode_explainer(data: bytes, path: Path) -> str:
    # Decoded as the source and `plainfeed explain` decode a document: a UTF-16 or
    # latin-1 explainer was refused as "not UTF-8 text" beside a source read fine.
    text = decode_document(data)
    if looks_binary(text):
        raise InputError(f"explainer file {path} is binary data, not Markdown, text or JSON")
    # The source's cleaning drops NUL; so must the explainer's reading, or "1.5x\0" is
    # a number the source does not have.
    return text.replace("\x00", "")


def load_explainer(path: Path) -> Explainer | str:
    """An explainer file: JSON in the explainer's shape, else HTML (read as text),
    Markdown or plain text."""
    text = _decode_explainer(read_input(path, "explainer"), path)
    if not text.strip():
        # An empty explainer has no number to fail: it would pass the check.
        raise InputError(f"explainer file {path} is empty")
    if path.suffix.lower() == ".json":
        try:
            doc = json.loads(text)
            if isinstance(doc, dict):
                doc = explainer_fields(doc)
            return Explainer.model_validate(doc)
        except json.JSONDecodeError as exc:
            raise InputError(f"explainer file {path} is not an explainer in JSON: {exc}") from exc
        except RecursionError as exc:  # thousands of nested [ or {: no explainer looks so
            raise InputError(
                f"explainer file {path} is not an explainer in JSON: nested too deeply"
            ) from exc
        except ValidationError as exc:
            problems = validation_problems(exc, "(file)")
            raise InputError(
                f"explainer file {path} is not an explainer in JSON: {problems}"
            ) from exc
        except ValueError as exc:  # after ValidationError, one of its kind
            raise InputError(
                f"explainer file {path} is not an explainer in JSON: {too_long_number()}"
            ) from exc
    if guess_kind(text, path.name) == "html":
        # `plainfeed explain -f html`, or an explainer on a web page: read as text, its
        # tags were numbers ("h1", "h2") the source does not have, and the check failed.
        try:
            return article_from_document(text, kind="html").text
        except InputError as exc:
            raise type(exc)(f"explainer file {path}: {exc.detail}") from exc
    return text


def load_source(path: Path) -> Article:
    """A source file (HTML, Markdown or plain text) as a cleaned article: its text, and its
    title, which the check reads as the post's own words (as the service's gate does)."""
    data = read_input(path, "source")
    try:
        return article_from_document(data, filename=path.name)
    except InputError as exc:
        raise type(exc)(f"source file {path}: {exc.detail}") from exc


def _clip(text: str, width: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _print_table(report: CheckReport) -> None:
    console = Console(width=max(Console().width, 160))
    table = Table(box=box.SIMPLE_HEAD, header_style="bold", pad_edge=False)
    table.add_column("#", justify="right", no_wrap=True, min_width=2)
    table.add_column("status", no_wrap=True, min_width=11)
    table.add_column("kind", no_wrap=True, min_width=10)
    table.add_column("number", no_wrap=True, min_width=10)
    table.add_column("in the explainer", no_wrap=True, max_width=44)
    table.add_column("\\[block] source sentence, or why not", no_wrap=True, max_width=60)
    for i, n in enumerate(report.numbers, 1):
        # No block: the post's title (its own words, no block of its text), not "[None]".
        block = "title" if n.source_block is None else n.source_block
        where = f"[{block}] {n.source}" if n.source else ""
        if n.reason:
            where = f"{n.reason}: {where}" if where else n.reason
        table.add_row(
            str(i),
            f"[{_STYLE[n.status]}]{n.status.value}[/]",
            n.kind,
            escape(_clip(n.text, 24)),
            escape(_clip(n.sentence, 44)),
            escape(_clip(where, 60)),
        )
    console.print(table)
    for d in report.dropped:
        console.print(f"[yellow]dropped[/] {escape(d.value)}: {escape(d.about)}")
    counts = ", ".join(f"{report.count(s)} {s.value}" for s in CheckStatus)
    verdict = "[green]passed[/]" if report.ok else "[red]failed[/]"
    console.print(f"{len(report.numbers)} numbers: {counts}. Check {verdict}.")


def _file(value: str, option: str) -> Path:
    """The file an option names. Taken as a string first: as a Path, "https://x/post" was
    "https:/x/post", and the error named a file nobody gave."""
    path = Path(value)
    if "://" in value and not path.exists():
        raise InputError(
            f"{option} {value} is a URL; this command reads files (POST /check takes a url)"
        )
    return path


def check(
    explainer: Annotated[
        str, typer.Option("--explainer", help="The explainer: Markdown, text, HTML or JSON.")
    ],
    source: Annotated[str, typer.Option("--source", help="The source: HTML, Markdown or text.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Check every number of an explainer against its source.

    Exit status 1 when a number is unsupported or misattached, 2 on bad input.
    """
    article = load_source(_file(source, "--source"))
    facts = headline_facts(article.text, article.title)  # as the gate reports them
    written = load_explainer(_file(explainer, "--explainer"))
    # Its author and site (an HTML page's meta), as the gate reads them: the post's context.
    context = (article.author, article.site_name)
    report = check_explainer(
        written, article.text, facts, title=article.title, context_names=context
    )
    if as_json:
        # The shape is the gate's (an item's report); this command checks numbers only.
        numbers = report.model_dump(mode="json", exclude={"shape"})
        payload = {"ok": report.ok, "counts": report.counts()} | numbers
        typer.echo(json.dumps(payload, indent=2, ensure_ascii=False))
    else:
        _print_table(report)
    if not report.ok:
        raise typer.Exit(1)
