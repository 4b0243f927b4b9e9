"""plainfeed check: the number check from the command line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from service.cli import app
from service.errors import InputError, NotFound
from service.models import Explainer, Section

DATA = Path(__file__).parent / "data"
POSTS = DATA / "corpus" / "posts"
FLYDSL = POSTS / "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"
FP8 = POSTS / "pytorch-blog-fp8-training-on-amd-gpus-with-torchtitan-and-torchao.html"
SEED_003 = DATA / "seeds" / "003_9f84147b1b26c099.txt"
FP8_EXPLAINER = DATA / "explainers" / (FP8.stem + ".txt")

runner = CliRunner()


def check(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, ["check", *map(str, args)])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout


def check_texts(tmp_path: Path, explainer: str, source: tuple[str, str]) -> tuple[int, Any]:
    """`plainfeed check --json` of an explainer text against a source (file name, text)."""
    explainer_file, source_file = tmp_path / "explainer.md", tmp_path / source[0]
    explainer_file.write_text(explainer, encoding="utf-8")
    source_file.write_text(source[1], encoding="utf-8")
    code, out = check("--explainer", explainer_file, "--source", source_file, "--json")
    return code, json.loads(out)


def test_unsupported_numbers_fail_with_status_1_and_a_table() -> None:
    code, out = check("--explainer", SEED_003, "--source", FLYDSL)
    assert code == 1
    assert "0.14.2b" in out and "unsupported" in out
    assert "59 numbers: 53 supported, 5 unsupported, 0 misattached, 1 derived." in out
    assert "Check failed." in out


def test_json_report() -> None:
    code, out = check("--explainer", SEED_003, "--source", FLYDSL, "--json")
    assert code == 1
    report = json.loads(out)
    assert report["ok"] is False
    assert report["counts"] == {
        "supported": 53,
        "unsupported": 5,
        "misattached": 0,
        "derived": 1,
        "dropped": 0,
    }
    flagged = [n["text"] for n in report["numbers"] if n["status"] == "unsupported"]
    assert flagged == ["0.92–2.34 times", "0.93–2.47 times", "0.14.2b", "0.13b", "0.14.2b"]
    first = report["numbers"][0]
    assert set(first) == {"text", "kind", "status", "sentence", "source", "source_block", "reason"}


def test_a_faithful_explainer_against_an_html_source_passes() -> None:
    code, out = check("--explainer", FP8_EXPLAINER, "--source", FP8, "--json")
    assert code == 0
    report = json.loads(out)
    assert report["ok"] is True
    assert report["counts"]["unsupported"] == report["counts"]["misattached"] == 0


def test_explainer_as_json(tmp_path: Path) -> None:
    explainer = Explainer(
        title="FlyDSL: faster GEMM on AMD GPUs",
        sections=[
            Section(heading="Dense GEMM", paragraphs=["BF16 dense GEMM ran 1.10 times faster."]),
            Section(heading="TopK", paragraphs=["TopK ran 4.82 times faster than ATen."]),
        ],
    )
    path = tmp_path / "explainer.json"
    path.write_text(json.dumps({"explainer": explainer.model_dump(), "engine": "llm"}))
    code, out = check("--explainer", path, "--source", FLYDSL, "--json")
    assert code == 0
    assert [n["text"] for n in json.loads(out)["numbers"]] == ["BF16", "1.10 times", "4.82 times"]


def test_bad_input_raises_errors_of_the_tree(tmp_path: Path) -> None:
    with pytest.raises(NotFound, match="explainer file not found"):
        check("--explainer", tmp_path / "missing.txt", "--source", FLYDSL)
    with pytest.raises(NotFound, match="source file not found"):
        check("--explainer", SEED_003, "--source", tmp_path / "missing.md")
    binary = tmp_path / "explainer.txt"
    binary.write_bytes(bytes((i * 7919 + (i >> 3) * 104729) % 256 for i in range(8192)))
    with pytest.raises(InputError, match=r"explainer file .* is binary data"):
        check("--explainer", binary, "--source", FLYDSL)
    broken = tmp_path / "explainer.json"
    broken.write_text('{"title": ""}')
    with pytest.raises(InputError, match="not an explainer in JSON") as raised:
        check("--explainer", broken, "--source", FLYDSL)
    # One line naming what is wrong, not pydantic's multi-line text with its links.
    assert str(raised.value).endswith(
        "JSON: title: String should have at least 1 character; sections: Field required"
    )
    assert "\n" not in str(raised.value) and "pydantic.dev" not in str(raised.value)
    with pytest.raises(InputError, match="is not a file"):
        check("--explainer", tmp_path, "--source", FLYDSL)


@pytest.mark.slow
def test_console_script_exit_status_2_on_bad_input(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)}
    empty = tmp_path / "empty.md"
    empty.write_text("   \n")
    for args, message in (
        (["--explainer", str(tmp_path / "nope.txt"), "--source", str(FLYDSL)], "not found"),
        (["--explainer", str(SEED_003), "--source", str(empty)], "holds no text"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "service", "check", *args],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        assert done.returncode == 2
        assert done.stderr.startswith("plainfeed: error:") and message in done.stderr
        assert done.stdout == ""


def test_the_check_command_loads_no_web_stack_database_or_model_client() -> None:
    """``plainfeed check`` imports what the check needs: the other commands' modules
    (FastAPI, SQLAlchemy, the openai client) cost over a second of start-up."""
    probe = (
        "import sys\n"
        "from service.cli import main\n"
        "try:\n"
        f"    main(['check', '--explainer', {str(SEED_003)!r}, '--source', {str(FLYDSL)!r}])\n"
        "except SystemExit as exc:\n"
        "    print('exit', exc.code)\n"
        "heavy = ('fastapi', 'sqlalchemy', 'openai', 'uvicorn')\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
        check=False,
    ).stdout.splitlines()
    assert out[-2:] == ["exit 1", "[]"]


def test_the_source_title_is_source_too(tmp_path: Path) -> None:
    """As in the service's gate: a figure only the page's <title> gives is the post's own."""
    page = (
        "<html><head><title>Gemini 3.5 Flash: frontier intelligence</title></head><body>"
        "<article><p>It is the fastest model of the series yet, and cheaper to run. It "
        "answers questions, writes code and reads long documents for its users.</p>"
        "</article></body></html>"
    )
    explainer = "Gemini 3.5 Flash is the fastest of the series."
    code, report = check_texts(tmp_path, explainer, ("post.html", page))
    assert code == 0, report
    assert report["numbers"][0]["status"] == "supported"


def test_the_pages_author_is_the_posts_context(tmp_path: Path) -> None:
    """As in the service's gate: a name only the page's author writes ("PyTorch Team")
    is no invented one; it backs no figure."""
    text = "<p>The new kernel is 2x faster than the old one.</p>"
    explainer = "For PyTorch users, the new kernel is 2x faster."
    for head, status in (
        ("", "misattached"),
        ('<meta name="author" content="PyTorch Team">', "supported"),
    ):
        page = f"<html><head>{head}</head><body><article>{text}</article></body></html>"
        _, report = check_texts(tmp_path, explainer, ("post.html", page))
        assert [n["status"] for n in report["numbers"]] == [status]


def test_the_pages_site_is_the_posts_context(tmp_path: Path) -> None:
    """A page's og:site_name (else its application-name) is read as its author is: the
    site a post is on names it as a feed's title does ("PyTorch" of a PyTorch page that
    never writes it was flagged, whatever the meta said)."""
    text = "<p>The new kernel is 2x faster than the old one.</p>"
    explainer = "For PyTorch users, the new kernel is 2x faster."
    for head, status in (
        ('<meta property="og:site_name" content="Kernel Notes">', "misattached"),
        ('<meta property="og:site_name" content="PyTorch">', "supported"),
        ('<meta name="application-name" content="PyTorch Blog">', "supported"),
    ):
        page = f"<html><head>{head}</head><body><article>{text}</article></body></html>"
        _, report = check_texts(tmp_path, explainer, ("post.html", page))
        assert [n["status"] for n in report["numbers"]] == [status], head


def test_the_json_document_of_plainfeed_explain_is_an_explainer_file(tmp_path: Path) -> None:
    """`plainfeed explain -f json > e.json && plainfeed check --explainer e.json ...`: the
    document carries its metadata (source, engine, check, ...) beside the explainer."""
    explained = runner.invoke(app, ["explain", str(FP8), "-f", "json", "--engine", "extractive"])
    assert explained.exit_code == 0, explained.output
    document = tmp_path / "explainer.json"
    document.write_text(explained.stdout, encoding="utf-8")
    assert {"source", "engine", "check"} <= json.loads(explained.stdout).keys()
    code, out = check("--explainer", document, "--source", FP8)
    assert code == 0, out
    assert "Check passed." in out
    # Any other key is still a mistake in a hand-written file, and says so.
    document.write_text(json.dumps({**json.loads(explained.stdout), "titel": "x"}), "utf-8")
    with pytest.raises(InputError, match="titel"):
        check("--explainer", document, "--source", FP8)


def test_the_posts_headline_figures_the_explainer_dropped_are_reported(tmp_path: Path) -> None:
    post = (
        "# FlyDSL\n\nFlyDSL delivers a 1.10x speedup and 35% lower latency on MI355X.\n\n"
        "It is written in Python.\n"
    )
    explainer = "FlyDSL delivers a 1.10x speedup on MI355X."
    code, report = check_texts(tmp_path, explainer, ("post.md", post))
    assert code == 0, report
    assert report["dropped"] == [
        {
            "value": "35%",
            "about": "the first paragraph: FlyDSL delivers a 1.10x speedup and "
            "35% lower latency on MI355X.",
        }
    ]


def test_the_markdown_of_plainfeed_explain_passes_its_check(tmp_path: Path) -> None:
    """Its sections are numbered ("## 1. What is new"): those numbers are the explainer's
    own, not the post's (they were reported misattached and failed the check)."""
    explained = runner.invoke(app, ["explain", str(FP8), "-f", "md", "--engine", "extractive"])
    assert explained.exit_code == 0, explained.output
    assert "## 1. What is new" in explained.stdout
    markdown = tmp_path / "explainer.md"
    markdown.write_text(explained.stdout, encoding="utf-8")
    code, out = check("--explainer", markdown, "--source", FP8)
    assert code == 0, out
    # A heading's own figure is still checked.
    markdown.write_text("## 7 new kernels\n\nThey are fast.\n", encoding="utf-8")
    code, out = check("--explainer", markdown, "--source", FP8, "--json")
    assert [n["text"] for n in json.loads(out)["numbers"]] == ["7"]


def test_the_html_of_plainfeed_explain_passes_its_check(tmp_path: Path) -> None:
    """``explain -f html`` written to a file and checked: read as text, its tags ("h1",
    "h2") were numbers the post does not have and the check failed; read as the text
    of the HTML, it finds what the Markdown of the same explainer finds."""
    reports = {}
    for fmt in ("html", "md"):
        explained = runner.invoke(app, ["explain", str(FP8), "-f", fmt, "--engine", "extractive"])
        assert explained.exit_code == 0, explained.output
        written = tmp_path / f"explainer.{fmt}"
        written.write_text(explained.stdout, encoding="utf-8")
        code, out = check("--explainer", written, "--source", FP8, "--json")
        assert code == 0, out
        reports[fmt] = json.loads(out)
    assert reports["html"]["counts"] == reports["md"]["counts"]
    assert [n["text"] for n in reports["html"]["numbers"]] == [
        n["text"] for n in reports["md"]["numbers"]
    ]
    assert not any(n["text"] in ("h1", "h2") for n in reports["html"]["numbers"])


# A post and its explainer whose figures are written with a non-ASCII sign ("×", "é").
ENCODED_POST = (
    "# Café kernels\n\nOn the MI355X the BF16 dense GEMM ran 1.10× faster than before, "
    "and the TopK kernel 4.82× faster than ATen.\n"
)
ENCODED_EXPLAINER = "Café kernels: the BF16 GEMM ran 1.10× faster, TopK 4.82× faster."


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "utf-16", "latin-1", "cp1252"])
@pytest.mark.parametrize("which", ["explainer", "source"])
def test_check_reads_the_encodings_explain_reads(tmp_path: Path, encoding: str, which: str) -> None:
    """`plainfeed explain` reads a UTF-16 (with its BOM) or latin-1 file; the check refused
    such an explainer as "not UTF-8 text". Both files are decoded as explain decodes."""
    explainer, source = tmp_path / "explainer.md", tmp_path / "post.md"
    explainer.write_text(ENCODED_EXPLAINER, encoding="utf-8")
    source.write_text(ENCODED_POST, encoding="utf-8")
    (explainer if which == "explainer" else source).write_bytes(
        (ENCODED_EXPLAINER if which == "explainer" else ENCODED_POST).encode(encoding)
    )
    code, out = check("--explainer", explainer, "--source", source, "--json")
    assert code == 0, out
    report = json.loads(out)
    assert [(n["text"], n["status"]) for n in report["numbers"]] == [
        ("BF16", "supported"),
        ("1.10×", "supported"),
        ("4.82×", "supported"),
    ]
    assert "Café" in report["numbers"][0]["sentence"] or which == "source"


def test_explain_reads_the_same_encodings(tmp_path: Path) -> None:
    """What the check reads is what explain reads: the same post in UTF-16 and latin-1."""
    texts = set()
    for encoding in ("utf-16", "latin-1"):
        post = tmp_path / f"post-{encoding}.md"
        post.write_bytes(ENCODED_POST.encode(encoding))
        done = runner.invoke(app, ["explain", str(post), "-f", "text", "--engine", "extractive"])
        assert done.exit_code == 0, done.output
        texts.add(done.stdout)
    assert len(texts) == 1 and "1.10×" in texts.pop()
