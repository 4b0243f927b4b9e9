"""``plainfeed explain SOURCE``: explain a feed (every item) or one article, offline
by default, and print the explainer(s)."""

from __future__ import annotations

import json
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated, NamedTuple

import typer
from rich.console import Console

from service import clean, fetch, parse, render
from service.cli.inputs import read_input
from service.config import get_settings
from service.engines.base import ExplainOptions
from service.errors import (
    AnswerTruncated,
    InputError,
    InvalidAnswer,
    NothingToExplain,
    PostTooLong,
)
from service.gate import Outcome, explain_and_check
from service.models import Article
from service.pipeline.entries import feed_title


class Format(StrEnum):
    json = "json"
    md = "md"
    html = "html"
    text = "text"


# Failures that belong to one item (its text, or the model's answer about it): a feed run
# names the item and goes on with the others, as the service fails that item alone. Any
# other error (a refused key, a dead endpoint) would fail every item the same: it stops.
ITEM_FAILURES = (NothingToExplain, PostTooLong, InvalidAnswer, AnswerTruncated)


class EngineName(StrEnum):
    extractive = "extractive"
    llm = "llm"


def register(app: typer.Typer) -> None:
    app.command()(explain)


def _read_source(source: str) -> tuple[bytes, str | None, str | None]:
    """(bytes, content type, url) of a file path or an http(s) URL."""
    if source.startswith(("http://", "https://")):
        got = fetch.fetch_url(source, get_settings())
        return got.body, got.content_type, got.url
    if not source.strip():
        raise InputError("SOURCE is empty: give a feed or article file, or an http(s) URL")
    path = Path(source)
    if "://" in source and not path.exists():
        raise InputError(f"only http(s) URLs are fetched, and no file is named {source}")
    return read_input(path, "source"), None, None


class Read(NamedTuple):
    """An article of the source, with the names its feed gives it (the check's context)."""

    article: Article
    feed_names: tuple[str | None, ...] = ()


def articles_of(source: str) -> list[Read]:
    data, content_type, url = _read_source(source)
    if not data.strip():
        raise InputError(f"{source} is empty")
    try:
        if parse.sniff(data, content_type) is not None:
            doc = parse.parse_feed(data, content_type=content_type, url=url)
            # The feed's title goes with each item, as the worker's check reads it: a
            # "PyTorch" the post never writes, of a "PyTorch Blog" item, was flagged here
            # and passed by the service.
            names = (feed_title(doc),)
            return [Read(clean.article_from_entry(e), names) for e in doc.entries]
        if url is not None:
            # A web page: its main content, as POST /explain {"url"} and the pages of
            # excerpt-only items read it; the whole page explained its menus and footer.
            return [Read(fetch.article_from_page(data, content_type, url))]
        return [Read(clean.article_from_document(data, filename=source))]
    except InputError as exc:
        raise type(exc)(f"{source}: {exc.detail}") from exc


def render_outcome(outcome: Outcome, fmt: Format, article: Article) -> str:

    r = outcome.result
    if fmt is Format.json:
        doc = render.document(r, outcome.report, article)
        return json.dumps(doc, ensure_ascii=False, indent=2)
    if fmt is Format.md:
        return render.to_markdown(r.explainer)
    if fmt is Format.html:
        return render.to_html(r.explainer)
    return render.to_text(r.explainer)


def explain(
    source: Annotated[str, typer.Argument(help="Feed or article: a file path or an http(s) URL")],
    format: Annotated[Format, typer.Option("--format", "-f")] = Format.md,
    engine: Annotated[EngineName | None, typer.Option(help="Default: PLAINFEED_ENGINE")] = None,
) -> None:
    """Explain every item of a feed, or one article (HTML, Markdown or text).

    Exit status 1 when some items of a feed could not be explained (each is named on
    stderr; the others are), 2 on bad input.
    """
    from rich.progress import Progress

    from service.engines import get_engine, require_endpoint

    settings = get_settings()
    require_endpoint(settings, engine.value if engine else None)
    eng = get_engine(settings, name=engine.value if engine else None)
    read = articles_of(source)
    articles = [r for r in read if r.article.text.strip()]
    if not articles:
        raise InputError(f"{source}: nothing to explain (no item has text)")
    err = Console(stderr=True)
    # Several items (a feed): one that fails is named and the others go on, and the
    # output is their list; a feed's textless items count, or 2 items were "one article".
    many = len(read) > 1
    unchecked = skipped = 0
    # An item whose feed carries no text at all (an empty description) is named, as any
    # item that cannot be explained is: left out silently, "75 explainers" of a feed of
    # 100 said nothing of the other 25. The service reads such an item's page.
    for article, _ in read:
        if not article.text.strip():
            skipped += 1
            page = f"; its page: plainfeed explain {article.url}" if article.url else ""
            _say_skipped(err, article, f"the feed carries no text for it{page}")
    # Progress only on a terminal: in a pipe or a log it would be noise (and rich ends a
    # disabled-by-pipe display with a stray blank line).
    show = many and err.is_terminal
    # Each explainer is written as it is done: one item that fails (or a Ctrl-C) must not
    # throw away the ones already paid for.
    out = _Output(format, many=many)
    # rich moves what is written to stdout above its display, to the display's terminal:
    # right when stdout is that terminal, wrong when it is a pipe or a file.
    with Progress(
        console=err, transient=True, disable=not show, redirect_stdout=sys.stdout.isatty()
    ) as progress:
        task = progress.add_task("explaining", total=len(articles))
        try:
            for article, feed_names in articles:
                progress.update(task, description=article.title[:60] or "(untitled)")
                try:
                    outcome = explain_and_check(
                        eng,
                        article,
                        ExplainOptions(),
                        repair_rounds=settings.repair_rounds,
                        review_derived=settings.review_derived,
                        feed_names=feed_names,
                    )
                except ITEM_FAILURES as exc:
                    if not many:
                        raise
                    skipped += 1
                    _say_skipped(err, article, exc.detail)
                    progress.advance(task)
                    continue
                unchecked += 0 if outcome.publishable else 1
                out.write(render_outcome(outcome, format, article))
                progress.advance(task)
        finally:
            out.close()
    if many:
        done = (
            f"{out.written} explainer{'' if out.written == 1 else 's'}, "
            f"{unchecked} with numbers that need review"
        )
        err.print(done + (f", {skipped} skipped" if skipped else ""), highlight=False)
    if skipped:
        raise typer.Exit(1)


def _say_skipped(err: Console, article: Article, why: str) -> None:
    name = article.title or article.url or "(untitled)"
    err.print(f"plainfeed: skipped {name!r}: {why}", markup=False, highlight=False, soft_wrap=True)


class _Output:
    """Explainers to stdout one by one, as they are done: several in JSON make one array
    (closed over those written, whatever stops the run), in Markdown or text they stand
    between rules."""

    def __init__(self, fmt: Format, *, many: bool) -> None:
        self.array = fmt is Format.json and many
        self.sep = "\n\n" + ("-" * 72) + "\n\n" if fmt in (Format.md, Format.text) else "\n"
        self.written = 0

    def write(self, text: str) -> None:
        if self.array:
            sys.stdout.write(("[\n" if not self.written else ",\n") + text.rstrip("\n"))
        else:
            sys.stdout.write((self.sep if self.written else "") + text.rstrip("\n"))
        sys.stdout.flush()
        self.written += 1

    def close(self) -> None:
        if self.written:
            sys.stdout.write("\n]\n" if self.array else "\n")
        elif self.array:
            # No item explained: still one array, empty (an empty stdout is no JSON).
            sys.stdout.write("[]\n")
        sys.stdout.flush()
