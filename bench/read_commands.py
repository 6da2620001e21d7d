"""Benchmark: the commands that read a large run (cases, evidence, report, site), this code beside an older one.

`python bench/read_commands.py [REV] [CLAIMS]` (default: the commit in BASELINE below, 1,000,000 claims
over 250,000 chunks with 2,000 questions, the run bench/claims.py generates) loads one generated run
twice, with `--no-metrics` so that every command computes its views live: once with the package as it
is at REV (assembled as bench/same_results.py does) into one warehouse, once with the package here into
another. Then it runs each command on each side's own warehouse, each in its own process measured by the
kernel (bench/measure.py), and prints its wall and CPU seconds and peak RSS on both sides, and whether
both wrote the same bytes (the report and the site name their files alike on both sides; a
report's claims CSV, the same lines).

The golds of that run are six to nine words drawn mostly from a few dozen common words, so the gold
search of `cases` (the view gold_matches) has tens of millions of candidate chunks to check.

Then, with this code only, it loads a second run of the same size (another seed: other chunks, other
statuses) into the working tree's warehouse as "base", created before "big", and measures the commands
that compare two runs: `diff base big`, `check` of big against base with --max-regressions for
questions and claims (limits it stays within, so that it exits 0), and `report` of big against base.
Each reads the views question_changes and claim_changes for the pair, so each computes both runs'
cases.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from claims import generate
from measure import measured
from same_results import package_at

# the code before gold_matches looked its candidates' texts up by key and the site reused the report's statuses
BASELINE = "f26dae3"
# both runs created at the same time, which the report and the site print
LOAD = r'''
import datetime, sys
from pathlib import Path
from evalwh.loader import load_run
load_run(Path(sys.argv[1]), Path(sys.argv[2]), run="big", metrics=False,
         overrides={"created_at": datetime.datetime(2026, 1, 1)})
'''
# each command's arguments after `evalwh --db <warehouse>`; {out} is the side's output folder
COMMANDS = {
    "cases": ["cases", "-r", "big", "-f", "csv", "-o", "{out}/cases.csv"],
    "evidence": ["evidence", "-r", "big", "-o", "{out}/evidence.txt"],
    "report": ["report", "-r", "big", "-o", "{out}/report.html"],
    "site": ["site", "{out}/site"],
}
# the commands that compare big with a baseline run, base, in the working tree's warehouse
TWO_RUNS = {
    "diff": ["diff", "base", "big", "-f", "csv"],
    "check": ["check", "-r", "big", "-b", "base", "--max-regressions", "questions=1000000",
              "--max-regressions", "claims=100000000"],
    "report": ["report", "-r", "big", "-b", "base", "-o", "{out}/report.html"],
}
LOAD_BASE = LOAD.replace('run="big"', 'run="base"').replace("2026, 1, 1", "2025, 12, 31")


def same_lines(old: Path, new: Path) -> bool:
    """Whether two text files hold the same lines, in any order."""
    return sorted(old.read_bytes().splitlines()) == sorted(new.read_bytes().splitlines())


def differing_files(old: Path, new: Path) -> list[str]:
    """The files two output folders do not hold alike (in one only, or with other bytes), by relative path.
    A report's claims CSV only needs the same lines: code before f4ad814 wrote some of a large one's rows
    out of order (their order is tested in tests/test_report.py)."""
    compared = filecmp.dircmp(old, new)
    _, mismatch, errors = filecmp.cmpfiles(old, new, compared.common_files, shallow=False)
    mismatch = [name for name in mismatch
                if not (name.endswith(".claims.csv") and same_lines(old / name, new / name))]
    found = [*compared.left_only, *compared.right_only, *compared.funny_files, *mismatch, *errors]
    for folder in compared.common_dirs:
        found += [f"{folder}/{name}" for name in differing_files(old / folder, new / folder)]
    return sorted(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", nargs="?", default=BASELINE, help=f"the older code's git revision (default {BASELINE})")
    parser.add_argument("claims", type=int, nargs="?", default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "run"
        folder.mkdir()
        generate(folder, args.claims, max(1, args.claims // 4), max(1, args.claims // 500))
        # the older package first on the path; the working tree's is the installed (editable) one
        sides = {"old": {**os.environ, "PYTHONPATH": str(package_at(args.rev, root / "old"))}, "new": dict(os.environ)}
        for name, env in sides.items():
            subprocess.run([sys.executable, "-c", LOAD, str(root / f"{name}.duckdb"), str(folder)], env=env,
                           check=True)
        print(f"{args.claims:,} claims: {args.rev} against the working tree, each on its own load of the run "
              f"(no stored metrics); load average {os.getloadavg()[0]:.2f}")
        print(f"  {'command':<10}{'old wall s':>11}{'CPU s':>8}{'MiB':>7}{'new wall s':>12}{'CPU s':>8}{'MiB':>7}"
              f"{'same bytes':>12}")
        differing = []
        for command, arguments in COMMANDS.items():
            figures = []
            for name, env in sides.items():
                # the same path on both sides, for the file names a report and a site print
                out = root / "out"
                out.mkdir()
                argv = [a.format(out=out) for a in arguments]
                figures.append(measured([sys.executable, "-m", "evalwh", "-q", "--db", str(root / f"{name}.duckdb"),
                                         *argv], env=env))
                out.rename(root / f"out-{command}-{name}")
            unlike = differing_files(root / f"out-{command}-old", root / f"out-{command}-new")
            same = not unlike
            if unlike:
                differing.append(f"{command} ({', '.join(unlike[:3])}{', ...' if len(unlike) > 3 else ''})")
            old, new = figures
            print(f"  {command:<10}{old.wall:>11.2f}{old.cpu:>8.2f}{old.peak_mib:>7.0f}"
                  f"{new.wall:>12.2f}{new.cpu:>8.2f}{new.peak_mib:>7.0f}{str(same):>12}")
        if differing:
            sys.exit(f"the two codes wrote different files: {', '.join(differing)}")
        two_runs(root, args.claims)


def two_runs(root: Path, claims: int) -> None:
    """Load a second run as "base" into the working tree's warehouse and measure the commands comparing
    big with it."""
    folder = root / "base"
    folder.mkdir()
    generate(folder, claims, max(1, claims // 4), max(1, claims // 500), seed=8)
    db = root / "new.duckdb"
    subprocess.run([sys.executable, "-c", LOAD_BASE, str(db), str(folder)], check=True)
    print(f"two runs in one warehouse, big against base ({claims:,} claims each), this code; "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"  {'command':<10}{'wall s':>8}{'CPU s':>8}{'MiB':>7}")
    for command, arguments in TWO_RUNS.items():
        out = root / f"two-{command}"
        out.mkdir()
        figures = measured([sys.executable, "-m", "evalwh", "-q", "--db", str(db),
                            *[a.format(out=out) for a in arguments]])
        print(f"  {command:<10}{figures.wall:>8.2f}{figures.cpu:>8.2f}{figures.peak_mib:>7.0f}")


if __name__ == "__main__":
    main()
