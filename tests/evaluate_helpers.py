"""The evaluation tests' repository root and the repository's eval cases."""

from __future__ import annotations

from pathlib import Path

from service import evaluate as ev

ROOT = Path(__file__).resolve().parent.parent
CASES_DIR = ROOT / "eval" / "cases"
CASES = ev.load_cases(CASES_DIR)
