"""Benchmark: a team's history grows. The commands that read one run or one dataset's trend, at N runs.

`python bench/history.py [RUNS] [--repeat N]` (default 10,000 runs) loads the chapter-3 seed and
materialises it, then clones it by SQL into RUNS runs of dataset chapter3 (every table holding rows of
a run, its stored history included; each clone a second after the one before), loads one more run
(unmaterialised) and measures, each command in its own process (bench/measure.py), the minimum wall of
--repeat (default 3):

- `report --dataset chapter3` in Markdown and HTML (the dataset's history page: every run and its trend),
- `report`, `check`, `diff`, `metrics` and `status` of the latest run (one run, against its baseline),
- `materialize`, which stores the one run not yet stored and touches no other (target: each within 5 s).

With --lake (under .ci/with-postgres, in .venv-lake) the same warehouse is copied into a Postgres-catalog
lake and measured there too.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from measure import measured

REPO = Path(__file__).resolve().parent.parent
EVALWH = str(Path(sys.executable).with_name("evalwh"))
COMMANDS = {
    "history page (md)": ["report", "--dataset", "chapter3", "-f", "md"],
    "history page (html)": ["report", "--dataset", "chapter3", "-f", "html", "-o", "{out}/history.html"],
    "report of the latest run": ["report", "-f", "md"],
    "check the latest run": ["check", "--max-regressions", "questions=0", "--min", "supported_share=0"],
    "diff the latest run": ["diff", "-f", "csv"],
    "metrics of the latest run": ["metrics"],
    "status of the latest run": ["status", "-f", "csv"],
}


def clone(db: Path, runs: int) -> None:
    """Clone run chapter3 into runs chapter3-1 .. chapter3-(runs-1) by SQL, history included."""
    con = duckdb.connect(str(db))
    tables = [t for (t,) in con.execute(
        "SELECT DISTINCT table_name FROM duckdb_columns() WHERE column_name = 'run_id' AND schema_name = 'main' "
        "AND table_name IN (SELECT table_name FROM duckdb_tables())").fetchall()]
    con.execute("BEGIN")
    for table in tables:
        extra = ", t.created_at + to_seconds(r.range) AS created_at" if table == "runs" else ""
        con.execute(f"INSERT INTO {table} SELECT t.* REPLACE (t.run_id || '-' || r.range AS run_id{extra}) "
                    f"FROM {table} AS t, range(1, {runs}) AS r WHERE t.run_id = 'chapter3'")
    con.execute("COMMIT")
    con.close()


def measure(env: dict[str, str], out: Path, repeat: int) -> dict[str, float]:
    best = {}
    for name, args in COMMANDS.items():
        walls = []
        for _ in range(repeat):
            argv = [EVALWH, "-q", *(a.replace("{out}", str(out)) for a in args)]
            m = measured(argv, env=env)
            walls.append(m.wall)
        best[name] = min(walls)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=int, nargs="?", default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--lake", action="store_true")
    args = parser.parse_args()
    print(f"DuckDB {duckdb.__version__}; load average {os.getloadavg()[0]:.2f}; {time.strftime('%Y-%m-%d %H:%M')}")
    with tempfile.TemporaryDirectory(prefix="bench-history-") as scratch:
        folder = Path(scratch)
        db = folder / "history.duckdb"
        env = {**os.environ, "EVALWH_DB": str(db)}
        subprocess.run([EVALWH, "-q", "seed", "chapter3"], env=env, check=True)
        subprocess.run([EVALWH, "-q", "materialize"], env=env, check=True)
        start = time.perf_counter()
        clone(db, args.runs)
        print(f"cloned chapter3 into {args.runs:,} runs in {time.perf_counter() - start:.1f} s")
        subprocess.run([EVALWH, "-q", "seed", "chapter3", "--run", "newest"], env=env, check=True)
        homes = {"file": env}
        if args.lake:
            from lake import new_database

            lake = {**os.environ, "EVALWH_DB": new_database(), "EVALWH_DATA_PATH": str(folder / "lake")}
            subprocess.run([EVALWH, "-q", "copy", str(db), lake["EVALWH_DB"]], env=lake, check=True)
            homes["lake"] = lake
        for home, home_env in homes.items():
            # the newest run's metrics were stored by its load: take them out so materialize has one run to do
            con = duckdb.connect(str(db)) if home == "file" else None
            if con is not None:
                con.execute("DELETE FROM claim_status_history WHERE run_id = 'newest'")
                con.close()
            m = measured([EVALWH, "-q", "materialize"], env=home_env)
            figures = measure(home_env, folder, args.repeat)
            print(f"{home}, {args.runs + 1:,} runs, minimum wall of {args.repeat}:")
            for name, wall in figures.items():
                print(f"  {name:28s} {wall:7.2f} s")
            print(f"  {'materialize (one new run)':28s} {m.wall:7.2f} s")
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
