"""Instructions of a cold number check, counted by valgrind (load-independent).

Wall-clock figures of ``bench.check`` swing with whatever else the machine runs; the
instructions ``valgrind --tool=callgrind`` counts for the same inputs do not. This runs
the cold check of ``bench.check``'s flydsl+executorch material (``index_source`` cleared,
then ``check_explainer``) once and six times under callgrind, and prints the difference
divided by five: one cold check, start-up and imports left out.

    PYTHONPATH=. /work/venv/bin/python -m bench.check_instructions

With ``--split`` it counts the index alone too (``index_source`` cleared and called, no
check), and prints the first check as the cold check minus the index: what the gate pays
after the model's answer (four valgrind runs instead of two).

(``--inner N``: the runs of one process, used by the outer call; ``--index-only``: of
the index alone.)
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile

CASES = ("flydsl+executorch", "pytorch-2.14")


def _inner(runs: int, index_only: bool, case: str) -> None:
    from bench.check import material
    from service.check import check_explainer, index_source

    explainer, sources = material()
    source = next(text for name, text in sources.items() if name.startswith(case))
    for _ in range(runs):
        index_source.cache_clear()
        if index_only:
            index_source(source, "")  # the key check_explainer uses
        else:
            check_explainer(explainer, source)


def _count(runs: int, case: str, index_only: bool = False) -> int:
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
                "--case",
                case,
                *(["--index-only"] if index_only else []),
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
    parser.add_argument("--index-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument(
        "--split", action="store_true", help="count the index alone too: cold = index + first"
    )
    parser.add_argument(
        "--case",
        choices=CASES,
        default=CASES[0],
        help="the source of bench.check (pytorch-2.14: the mostly unsupported case)",
    )
    args = parser.parse_args()
    if args.inner:
        _inner(args.inner, args.index_only, args.case)
        return
    one, six = _count(1, args.case), _count(6, args.case)
    cold = (six - one) / 5
    print(f"cold check, {args.case}: {cold / 1e6:.1f}M instructions")
    if args.split:
        index = (_count(6, args.case, index_only=True) - _count(1, args.case, index_only=True)) / 5
        first = cold - index
        print(f"  index {index / 1e6:.1f}M, first check (cold minus index) {first / 1e6:.1f}M")


if __name__ == "__main__":
    main()
