"""Benchmark check: a large run loaded by this code and by an older one gives the same rows in every view.

`python bench/same_results.py [REV] [CLAIMS] [--questions N]` (default: the commit in BASELINE below,
1,000,000 claims over 250,000 chunks, 2,000 questions per 1,000,000 claims, the run bench/claims.py
generates) loads one generated run twice, in separate processes: with the package as it is at REV
(taken from git, assembled as setuptools lays it out) and with the package here. Then it compares
the two warehouses view by view with EXCEPT ALL in both directions (the rows each has that the other
lacks, duplicates counted) and prints, for each view, its rows and the two differences, with each
load's wall and CPU seconds and peak RSS. It exits non-zero if any view differs.

A rewrite of how the load computes (the overlap scores by a semi-join, the stored metrics reading
what the load computed) or of how a view searches (gold_matches) must not change one row: the generated run is large enough for the spilling,
batching and parallel paths the tests' small runs never take.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import duckdb

from claims import generate
from measure import measured

# the code before the load's semi-join overlap scores and its reuse of them for the stored metrics
BASELINE = "ba50b49"
ROOT = Path(__file__).resolve().parent.parent
# the views a load's results are read from, each compared whole, and what the load stored (the stored
# metrics without the time they were stored at)
VIEWS = {"citation_pairs": "*", "claim_status": "*", "run_metrics_long": "*", "threshold_sweep": "*",
         "question_best_score": "*", "question_chunk_scores": "*", "builtin_retrieval": "*", "retrievals": "*",
         "gold_matches": "*", "cases": "*", "metrics_history": "run_id, position, metric, value"}
# what the package holds beside its code, each at evalwh/<name> (pyproject's package-dir)
DATA_PACKAGES = ("sql", "models", "seeds", "reports")

LOAD = r'''
import json, sys
from pathlib import Path
import evalwh
from evalwh.loader import load_run
load_run(Path(sys.argv[1]), Path(sys.argv[2]), run="big")
print(json.dumps({"package": str(Path(evalwh.__file__).parent)}))
'''


def package_at(rev: str, target: Path) -> Path:
    """The evalwh package as of ``rev`` under ``target`` (the folder to put on sys.path)."""
    source = target / "source"
    source.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "cli", *DATA_PACKAGES],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    site = target / "site"
    shutil.copytree(source / "cli" / "evalwh", site / "evalwh")
    for name in DATA_PACKAGES:
        shutil.copytree(source / name, site / "evalwh" / name)
    return site


def differences(old: Path, new: Path) -> list[tuple[str, int, int, int]]:
    """(view, rows, rows only in the old, rows only in the new) for every view."""
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute(f"ATTACH '{old}' AS old (READ_ONLY)")
    con.execute(f"ATTACH '{new}' AS new (READ_ONLY)")
    found = []
    for view, columns in VIEWS.items():
        old_rows, new_rows = f"SELECT {columns} FROM old.{view}", f"SELECT {columns} FROM new.{view}"
        count = con.execute(f"SELECT count(*) FROM ({new_rows})").fetchone()
        only_old = con.execute(f"SELECT count(*) FROM ({old_rows} EXCEPT ALL {new_rows})").fetchone()
        only_new = con.execute(f"SELECT count(*) FROM ({new_rows} EXCEPT ALL {old_rows})").fetchone()
        assert count and only_old and only_new
        found.append((view, count[0], only_old[0], only_new[0]))
    con.close()
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", nargs="?", default=BASELINE, help=f"the older code's git revision (default {BASELINE})")
    parser.add_argument("claims", type=int, nargs="?", default=1_000_000)
    parser.add_argument("--questions", type=int, default=None, help="default: 2,000 per 1,000,000 claims")
    args = parser.parse_args()
    questions = args.questions if args.questions is not None else max(1, args.claims // 500)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "run"
        folder.mkdir()
        generate(folder, args.claims, max(1, args.claims // 4), questions)
        # the older package first on the path; the working tree's is the installed (editable) one
        sides = {"old": {**os.environ, "PYTHONPATH": str(package_at(args.rev, root / "old"))}, "new": None}
        print(f"{args.claims:,} claims, {questions:,} questions: {args.rev} against the working tree; "
              f"load average {os.getloadavg()[0]:.2f}")
        for name, env in sides.items():
            run = measured([sys.executable, "-c", LOAD, str(root / f"{name}.duckdb"), str(folder)], env=env)
            print(f"  load with {name:<4} {run.wall:6.2f} s wall {run.cpu:6.2f} s CPU {run.peak_mib:6.0f} MiB peak  "
                  f"({run.output['package']})")
        rows = differences(root / "old.duckdb", root / "new.duckdb")
        print(f"  {'view':<24}{'rows':>12}{'only old':>10}{'only new':>10}")
        for view, count, only_old, only_new in rows:
            print(f"  {view:<24}{count:>12,}{only_old:>10}{only_new:>10}")
        if any(only_old or only_new for _, _, only_old, only_new in rows):
            sys.exit("the views differ between the two loads")
        print("every view identical (EXCEPT ALL both ways)")


if __name__ == "__main__":
    main()
