"""Benchmark: how a command's rows reach DuckDB's CSV writer, as list parameters or as numpy arrays.

`python bench/rowfiles.py [--repeat N]` (best of 3) writes claim-status-like rows (id, status, cited
ids, a score, a time) as CSV both ways (`evalwh.output.rowfiles.write_file`, ``arrays`` False and
True) at 100 to 1,000,000 rows, side by side in one process, checks that the files are identical,
and prints each way's minimum CPU seconds. Then it prints what importing numpy costs a new process
(`python -c "import numpy"` less `python -c pass`, the minimum of as many runs): the lists need no
numpy, so below some number of rows they win by that import. evalwh sends up to
``rowfiles.LIST_ROWS`` rows as lists.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from evalwh.output import rowfiles
from evalwh.output.rows import Format, Rows

SIZES = (100, 1_000, 10_000, 100_000, 1_000_000)


def claim_rows(n: int) -> Rows:
    start = dt.datetime(2026, 1, 1)
    return Rows(("claim_id", "status", "cited_ids", "score", "at"),
                [(f"c{i}", "SUPPORTED" if i % 3 else "UNCITED", [f"k{i}", f"k{i + 1}"], i / 7,
                  start + dt.timedelta(seconds=i)) for i in range(n)],
                types=("VARCHAR", "VARCHAR", "VARCHAR[]", "DOUBLE", "TIMESTAMP"))


def child_cpu(argv: list[str]) -> float:
    """CPU seconds (user + system) of one child process."""
    before = os.times()
    subprocess.run(argv, check=True)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"rows to CSV, best of {args.repeat}; load average {os.getloadavg()[0]:.2f}; "
          f"evalwh sends up to {rowfiles.LIST_ROWS:,} rows as lists")
    print(f"{'rows':>10} {'lists CPU s':>12} {'arrays CPU s':>13} {'lists / arrays':>15}  identical")
    import numpy  # noqa: F401  (imported once, before timing, so neither side pays for it here)

    with tempfile.TemporaryDirectory() as tmp:
        for n in SIZES:
            rows = claim_rows(n)
            best: dict[bool, float] = {}
            for _ in range(args.repeat):
                for arrays in (False, True):
                    started = time.process_time()
                    rowfiles.write_file(rows, Format.csv, Path(tmp) / f"{arrays}.csv", arrays=arrays)
                    best[arrays] = min(best.get(arrays, float("inf")), time.process_time() - started)
            same = (Path(tmp) / "False.csv").read_bytes() == (Path(tmp) / "True.csv").read_bytes()
            print(f"{n:>10,} {best[False]:>12.3f} {best[True]:>13.3f} {best[False] / best[True]:>15.2f}  {same}")
            if not same:
                sys.exit(f"the two ways wrote different files at {n} rows")
    runs = max(args.repeat, 5)
    bare = min(child_cpu([sys.executable, "-c", "pass"]) for _ in range(runs))
    with_numpy = min(child_cpu([sys.executable, "-c", "import numpy"]) for _ in range(runs))
    print(f"importing numpy costs a new process {with_numpy - bare:.3f} s of CPU (min of {runs})")


if __name__ == "__main__":
    main()
