"""``plainfeed eval``: run the evaluation set, print a table, write JSON, gate on thresholds."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from service import evaluate
from service.config import PROJECT_ROOT, get_settings
from service.errors import EvalCaseError, InputError

DEFAULT_CASES = PROJECT_ROOT / "eval" / "cases"
DEFAULT_THRESHOLDS = PROJECT_ROOT / "eval" / "thresholds.yaml"
DEFAULT_RECORDINGS = PROJECT_ROOT / "eval" / "recordings"


def register(app: typer.Typer) -> None:
    app.command("eval")(eval_command)


def eval_command(
    cases: Annotated[
        Path, typer.Option("--cases", help="Directory of cases (one sub-directory per case).")
    ] = DEFAULT_CASES,
    engine: Annotated[
        str, typer.Option("--engine", "-e", help="extractive, llm or reference")
    ] = "extractive",
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Write per-case and overall metrics here.")
    ] = None,
    thresholds: Annotated[
        Path, typer.Option("--thresholds", help="Minimums per engine (YAML).")
    ] = DEFAULT_THRESHOLDS,
    recordings: Annotated[
        Path | None,
        typer.Option(
            "--recordings",
            help="llm: replay recorded answers from this directory instead of an endpoint "
            "(the default when no endpoint is configured: eval/recordings).",
        ),
    ] = None,
) -> None:
    """Explain and check every case; exit 1 below the engine's thresholds, 2 on bad input."""
    if engine not in evaluate.ENGINES:
        raise EvalCaseError(
            f"unknown engine {engine!r}; choose one of {', '.join(evaluate.ENGINES)}"
        )
    if json_out is not None:
        _check_writable(json_out)
    limits = evaluate.load_thresholds(thresholds)
    if engine not in limits.engines:
        raise EvalCaseError(f"{thresholds}: no thresholds for engine {engine!r}")
    err = Console(stderr=True)
    if engine == "llm" and recordings is None and not get_settings().llm_configured:
        recordings = DEFAULT_RECORDINGS
        err.print(f"no LLM endpoint configured: replaying the recorded answers of {recordings}")
    result = evaluate.run(
        cases,
        engine,  # type: ignore[arg-type]  # checked against ENGINES above
        recordings=recordings if engine == "llm" else None,
        short_source_words=limits.short_source_words,
        progress=lambda slug: err.print(f"[dim]{engine}: {slug}[/dim]"),
    )
    if not result.scores:
        raise EvalCaseError(f"{cases}: no case can be run with engine {engine!r}")
    failures = evaluate.threshold_failures(result.scores, limits.engines[engine])
    data = result.as_dict() | {"thresholds": {"passed": not failures, "failures": failures}}
    # Piped output gets the full table, not one squeezed to 80 columns.
    Console(width=None if sys.stdout.isatty() else 140).print(_table(data))
    if json_out is not None:
        try:
            json_out.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", "utf-8")
        except OSError as exc:
            raise InputError(f"cannot write --json {json_out}: {exc.strerror or exc}") from exc
    for line in failures:
        err.print(f"[red]below threshold:[/red] {line}", highlight=False)
    if failures:
        raise typer.Exit(1)


def _check_writable(path: Path) -> None:
    """Fail before the run, not after it, when the metrics could not be written."""
    if path.is_dir():
        raise InputError(f"--json {path} is a directory; give a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # A probe file in the same folder: os.access says yes to root on a read-only mount.
        with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=True):
            pass
    except (FileExistsError, NotADirectoryError) as exc:
        raise InputError(f"cannot write --json {path}: a part of its folder is a file") from exc
    except OSError as exc:
        raise InputError(f"cannot write --json {path}: {exc.strerror or exc}") from exc


def _table(data: dict[str, Any]) -> Table:
    title = f"plainfeed eval, engine {data['engine']} ({data['detail']})"
    if data["skipped"]:
        title += f", {len(data['skipped'])} cases skipped"
    table = Table(title=title)
    for name, justify in (
        ("case", "left"),
        ("precision", "right"),
        ("misattached", "right"),
        ("key-fact recall", "right"),
        ("structure", "center"),
        ("grade", "right"),
        ("words", "right"),
        ("source words", "right"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for c in data["cases"]:
        precision = f"{c['number_precision']:.3f}"
        if c["known_unsupported"]:
            precision += f" ({c['number_precision_adjusted']:.3f} excl. known)"
        table.add_row(
            c["slug"] + (" [red](error)[/red]" if c["error"] else ""),
            precision,
            str(c["misattached"]),
            f"{c['key_fact_recall']:.2f}",
            "ok" if c["structure_ok"] else "[red]no[/red]",
            f"{c['reading_grade']:.1f}",
            str(c["words"]),
            str(c["source_words"]),
        )
    o = data["overall"]
    precision = f"{o['number_precision']:.3f}"
    if o["number_precision_adjusted"] != o["number_precision"]:
        precision += f" ({o['number_precision_adjusted']:.3f} excl. known)"
    table.add_section()
    table.add_row(
        f"overall ({o['cases']} cases)",
        precision,
        str(o["misattached_total"]),
        f"{o['key_fact_recall']:.2f}",
        f"{o['structure_ok']:.0%}",
        f"{o['reading_grade']:.1f}",
        f"{o['words']:.0f}",
        f"{o['source_words']:.0f}",
    )
    return table
