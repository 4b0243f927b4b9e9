"""Instructions of a cold number check, counted by valgrind (load-independent).

Wall-clock figures of ``bench.check`` swing with whatever else the machine runs; the
instructions ``valgrind --tool=callgrind`` counts for the same inputs do not. This runs
the cold check of ``bench.check``'s flydsl+executorch material (``index_source`` cleared,
then ``check_explainer``) once and six times under callgrind, and prints the difference
divided by five: one cold check, start-up and imports left out.

    PYTHONPATH=. /work/venv/bin/python -m bench.check_instructions

(``--inner N``: the runs of one process, used by the outer call.)
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile


def _inner(runs: int) -> None:
    from bench.check import material
    from service.check import check_explainer, index_source

    explainer, sources = material()
    source = sources["flydsl+executorch"]
    for _ in range(runs):
        index_source.cache_clear()
        check_explainer(explainer, source)


def _count(runs: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                sys.executable,
                "-m",
                "bench.check_instructions",
                "--inner",
                str(runs),
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    m = re.search(r"Collected : (\d+)", done.stderr)
    if m is None:
        raise SystemExit(f"callgrind printed no count:\n{done.stderr[-2000:]}")
    return int(m.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inner", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        _inner(args.inner)
        return
    one, six = _count(1), _count(6)
    print(f"cold check, flydsl+executorch: {(six - one) / 5 / 1e6:.1f}M instructions")


if __name__ == "__main__":
    main()
