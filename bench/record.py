"""What the throughput benches (bench/queue.py, bench/scaling.py) write: their settings and
rows as JSON under bench/results/, with the machine they ran on (a shared machine's load
says how far to trust the figures)."""

from __future__ import annotations

import json
import os
import platform
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def write_results(path: Path, settings: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    """``settings``, then the Python version, CPU count and load average, then ``rows``,
    written to ``path`` (a file under the repository), and a line that says so."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps(
            {
                **settings,
                "python": platform.python_version(),
                "cpus": os.cpu_count(),
                "load_avg": os.getloadavg(),
                "rows": rows,
            },
            indent=2,
        )
    )
    print(f"wrote {path.relative_to(ROOT)}")
