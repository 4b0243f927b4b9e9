"""Output the command line cannot write: a one-line message on stderr and exit status 2,
never a traceback, nor an exit status that reads as the command's answer (check's 1 is
"a number is unsupported").

Each case runs ``plainfeed`` as a real process, with stdout where a script might leave it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli_helpers import FLYDSL, ROOT, assert_bad_input, plainfeed

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args",
    [
        ("explain", str(FLYDSL)),
        ("check", "--explainer", str(FLYDSL), "--source", str(FLYDSL)),
        ("check", "--json", "--explainer", str(FLYDSL), "--source", str(FLYDSL)),
        ("feeds", "add", "https://example.org/feed.xml"),
        ("eval", "--engine", "reference"),
    ],
)
def test_output_to_a_full_disk_is_reported(tmp_path: Path, args: tuple[str, ...]) -> None:
    # A write's ENOSPC was a traceback, exit status 1.
    with open("/dev/full", "w") as full:
        done = plainfeed(tmp_path, *args, stdout=full)
    assert_bad_input(done, "cannot write the output: No space left on device")
    assert len(done.stderr.strip().splitlines()) <= 10, done.stderr  # eval's progress lines


def test_a_closed_stdout_is_refused_before_any_work(tmp_path: Path) -> None:
    # Started with ">&-": explain failed with an AttributeError traceback, feeds add
    # registered the feed and dropped its id unsaid.
    def close_stdout() -> None:
        os.close(1)

    done = plainfeed(tmp_path, "explain", FLYDSL, preexec_fn=close_stdout)
    assert_bad_input(done, "standard output is closed")
    done = plainfeed(
        tmp_path, "feeds", "add", "https://example.org/feed.xml", preexec_fn=close_stdout
    )
    assert_bad_input(done, "standard output is closed")
    assert plainfeed(tmp_path, "feeds", "list").stdout == ""


def test_a_reader_gone_before_the_last_flush_is_exit_1_without_a_traceback(
    tmp_path: Path,
) -> None:
    # Output still buffered when the command ends, its pipe's reader gone: the flush
    # main() adds was a BrokenPipeError traceback; before it, Python's own flush at exit
    # printed "Exception ignored" and exited 120.
    probe = (
        "import io, os, sys\n"
        "r, w = os.pipe()\n"
        "os.close(r)\n"
        "raw = io.BufferedWriter(io.FileIO(w, 'w'), buffer_size=1 << 20)\n"
        "sys.stdout = io.TextIOWrapper(raw, write_through=False)\n"
        "sys.stdout.write('buffered\\n')\n"
        "from service.cli import main\n"
        "main(['items', 'list'])\n"  # writes nothing of its own: an empty database
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "PLAINFEED_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
        },
        timeout=120,
    )
    assert done.stderr == ""
    assert done.returncode == 1
