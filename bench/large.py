"""Benchmark: memory bounded by the machine, not the run: a 10M-claim load and a 10M-request log import.

`python bench/large.py [CLAIMS] [--requests N] [--keep DIR]` (default 10,000,000 claims over a quarter as
many chunks with 2,000 questions per 1,000,000 claims, the run bench/claims.py generates; and 10,000,000
requests of bench/logs_1m.py's log) loads the run into a new warehouse, then imports the log into another,
each in its own process measured by the kernel (wait4), and prints wall and CPU seconds and peak RSS beside the
target (1.5 GiB). Both work under evalwh's default memory limits (the load's 1GB, the import's 1200MB),
past which DuckDB spills to its temporary files: what stays in memory is the limit, Python and the
buffers DuckDB does not count. Generating takes longer than loading; ``--keep DIR`` keeps (and reuses)
the generated files there.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from claims import EVALWH_LOAD, generate
from logs_1m import IMPORT
from logs_1m import generate as generate_log
from measure import measured

TARGET_MIB = 1.5 * 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claims", type=int, nargs="?", default=10_000_000)
    parser.add_argument("--requests", type=int, default=10_000_000)
    parser.add_argument("--keep", type=Path, default=None, help="generate into (or reuse) this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = args.keep or Path(tmp)
        run, log = data / f"run-{args.claims}", data / f"requests-{args.requests}.jsonl"
        start = time.perf_counter()
        if not run.exists():
            run.mkdir(parents=True)
            generate(run, args.claims, max(1, args.claims // 4), max(1, args.claims // 500))
        if args.requests and not log.exists():
            generate_log(log, args.requests)
        os.sync()
        print(f"{args.claims:,} claims over {args.claims // 4:,} chunks, {args.claims // 500:,} questions; "
              f"{args.requests:,} requests ({time.perf_counter() - start:.0f} s to generate); "
              f"load average {os.getloadavg()[0]:.2f}")
        sides = {"evalwh load": [EVALWH_LOAD, str(Path(tmp) / "load.duckdb"), str(run), "big"]}
        if args.requests:
            sides["evalwh logs import"] = [IMPORT, str(Path(tmp) / "logs.duckdb"), "strict", str(log)]
        failed = False
        print(f"{'':<20}{'wall s':>9}{'CPU s':>9}{'peak RSS MiB':>14}{'target MiB':>12}")
        for name, program in sides.items():
            got = measured([sys.executable, "-c", *program])
            failed = failed or got.peak_mib > TARGET_MIB
            print(f"{name:<20}{got.wall:>9.1f}{got.cpu:>9.1f}{got.peak_mib:>14,.0f}{TARGET_MIB:>12,.0f}")
        if failed:
            sys.exit("a peak is above the target")


if __name__ == "__main__":
    main()
