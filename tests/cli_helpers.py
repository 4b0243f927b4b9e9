"""What the tests of bad input on the command line (tests/test_cli_bad_input_*.py) share:
``plainfeed`` run as a real process, as a user or a script would, and what its answer to
bad input must be (a one-line message on stderr and exit status 2)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).parent / "data"
FLYDSL = DATA / "corpus" / "posts" / "pytorch-blog-accelerating-pytorch-on-amd-gpus-with-flydsl.md"
CASES = ROOT / "eval" / "cases"

# Random-looking bytes (an image, a PDF stream, an archive), the same on every run.
BINARY = bytes((i * 7919 + (i >> 3) * 104729) % 256 for i in range(8192))


def plainfeed(
    tmp_path: Path,
    *args: str | Path,
    env: dict[str, str] | None = None,
    stdout: IO[str] | int = subprocess.PIPE,
    preexec_fn: Callable[[], object] | None = None,
) -> subprocess.CompletedProcess[str]:
    full_env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("PLAINFEED_", "OPENAI_"))},
        "PYTHONPATH": str(ROOT),
        "PLAINFEED_DATABASE_URL": f"sqlite:///{tmp_path / 'cli.db'}",
        "PLAINFEED_ENGINE": "extractive",
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "service", *map(str, args)],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
        timeout=120,
        cwd=tmp_path,
        preexec_fn=preexec_fn,
    )


def assert_bad_input(done: subprocess.CompletedProcess[str], message: str) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 2, done.stderr
    # Progress lines may come first; the error is the last line (or click's usage box).
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("plainfeed: error:") or "Invalid value" in done.stderr
    assert message in done.stderr, done.stderr


def boxed(stderr: str) -> str:
    """The text of click's error box, its lines joined (it wraps at 80 columns)."""
    return " ".join(re.sub("[\u2500-\u257f]", " ", stderr).split())


def one_case(tmp_path: Path) -> Path:
    """A copy of the FlyDSL evaluation case under ``tmp_path``, for a test to spoil."""
    cases = tmp_path / "cases"
    shutil.copytree(CASES / "flydsl-amd-gpus", cases / "flydsl-amd-gpus")
    return cases
