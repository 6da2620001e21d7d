"""Benchmark: a warehouse in a DuckLake with a Postgres catalog, beside the same work in a file.

`.ci/with-postgres python bench/lake.py [--claims N] [--big N] [--runs N] [--repeat N]` (``make bench-lake``
runs it in .venv-lake, the lake extra) needs EVALWH_TEST_POSTGRES (a libpq connection string without
dbname), which .ci/with-postgres sets for a throwaway server. It prints, with the machine's load average:

1. concurrent writers: 8 loads of N-claim runs (default 5,000) and 4 imports of 1,000 log requests
   started at once into one lake; every exit code, the wall time, whether every run and batch is there,
   and whether every view of the lake equals (EXCEPT ALL both ways) the same runs loaded one after
   another into a file, each at the created_at the lake gave it (the columns an import stamps,
   log_batch_id and loaded_at, left out);
2. a query on one run as the lake grows: `evalwh metrics -r r0` and `evalwh status -r r0 -f csv` on a lake
   of one run and on the same lake holding --runs runs (default 50), the minimum wall of five each;
3. a large load: one load of --big claims (default 1,000,000) into a new file and into a new lake, each in
   its own process measured by the kernel, --repeat times (default 2): the minimum CPU and wall of each,
   their ratio (target: CPU at most 1.5x the file's), and peak RSS.

--parts picks some of them (concurrent,grow,large).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from claims import generate as generate_run
from logs_1m import generate as generate_log
from measure import measured

EVALWH = str(Path(sys.executable).with_name("evalwh"))
STAMPED = {"log_batch_id", "loaded_at", "materialized_at"}


def new_database() -> str:
    """A new Postgres database on the benchmark's server; its libpq connection string."""
    import duckdb

    from evalwh.location import Lake
    from evalwh.warehouse.lake import load_extensions

    server = os.environ["EVALWH_TEST_POSTGRES"]
    name = "bench_" + uuid.uuid4().hex[:10]
    con = duckdb.connect()
    load_extensions(con, Lake("postgres:"))
    con.execute(f"ATTACH '{server} dbname=postgres' AS pg (TYPE postgres)")
    con.execute(f"CALL postgres_execute('pg', 'CREATE DATABASE {name}', use_transaction := false)")
    con.close()
    return f"ducklake:postgres:{server} dbname={name}"


def run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([EVALWH, "-q", *args], env=env, capture_output=True, text=True)
    if done.returncode:
        print(f"  evalwh {' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}", flush=True)
    return done


def concurrent(folder: Path, claims: int) -> None:
    runs = []
    for i in range(8):
        data = folder / f"run{i}"
        data.mkdir()
        generate_run(data, claims, max(claims // 5, 10), questions=max(claims // 50, 10), seed=100 + i)
        runs.append(data)
    logs = []
    for i in range(4):
        log = folder / f"log{i}.jsonl"
        generate_log(log, 1_000, seed=200 + i)
        log.write_text(log.read_text(encoding="utf-8").replace('"req-', f'"f{i}-req-'), encoding="utf-8")
        logs.append(log)
    lake = new_database()
    env = {**os.environ, "EVALWH_DB": lake, "EVALWH_DATA_PATH": str(folder / "lake-data"), "EVALWH_WAIT": "300"}
    assert run(["init"], env).returncode == 0
    commands = [[EVALWH, "-q", "load", str(r), "--run", r.name, "--dataset", "bench"] for r in runs]
    commands += [[EVALWH, "-q", "logs", "import", str(log)] for log in logs]
    start = time.perf_counter()
    started = [subprocess.Popen(c, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for c in commands]
    codes = [p.wait() for p in started]
    wall = time.perf_counter() - start
    errors = [p.stderr.read().strip() for p in started if p.returncode]  # type: ignore[union-attr]
    listed = run(["sql", "SELECT run_id, created_at FROM runs ORDER BY created_at", "-f", "json"], env)
    created = {r["run_id"]: r["created_at"] for r in json.loads(listed.stdout)}
    batches = run(["sql", "SELECT count(*) AS n FROM log_batches", "-f", "json"], env)
    print(f"8 loads of {claims:,} claims and 4 log imports of 1,000 requests at once into a Postgres-catalog lake:")
    print(f"  exit codes {codes}; wall {wall:.1f} s; runs present {len(created)}/8; batches "
          f"{json.loads(batches.stdout)[0]['n']}/4", flush=True)
    for error in errors:
        print(f"  error: {error}")
    # the same runs, one after another, into a file, each at the created_at the lake gave it
    file = folder / "same.duckdb"
    for r in runs:
        (r / "run.toml").write_text(f'[run]\ncreated_at = {created[r.name].replace(" ", "T")}Z\n', encoding="utf-8")
        assert run(["--db", str(file), "load", str(r), "--run", r.name, "--dataset", "bench"], env).returncode == 0
    for log in logs:
        assert run(["--db", str(file), "logs", "import", str(log)], env).returncode == 0
    unequal = compare_views(file, lake)
    print(f"  views equal to the same runs in one file (EXCEPT ALL both ways): "
          f"{'all' if not unequal else 'NOT ' + ', '.join(unequal)}", flush=True)


def compare_views(file: Path, lake: str) -> list[str]:
    from evalwh.location import as_location
    from evalwh.resources import model_sources
    from evalwh.warehouse.connection import attach, new_connection

    con = new_connection()
    con.execute("SET memory_limit = '2GB'")  # past it, DuckDB spills: the score matrices of 8 runs are large
    attach(con, file, read_only=True, alias="f")
    attach(con, as_location(lake), read_only=True, alias="l")
    runs = [r for (r,) in con.execute("SELECT run_id FROM f.runs ORDER BY 1").fetchall()]
    unequal = []
    for view in sorted(model_sources()):
        columns = [c for (c,) in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE database_name = 'f' AND table_name = ? "
            "ORDER BY column_index", [view]).fetchall() if c not in STAMPED]
        listed = ", ".join(f'"{c}"' for c in columns)
        # one run at a time where the view has runs: a filter on one run_id reaches its tables
        filters = [("WHERE run_id = ?", [r]) for r in runs] if "run_id" in columns else [("", [])]
        extra, started = 0, time.perf_counter()
        for where, params in filters:
            for a, b in (("f", "l"), ("l", "f")):
                extra += con.execute(f"SELECT count(*) FROM (SELECT {listed} FROM {a}.{view} {where} EXCEPT ALL "
                                     f"SELECT {listed} FROM {b}.{view} {where})", params * 2).fetchall()[0][0]
        if extra:
            unequal.append(f"{view} ({extra} rows differ)")
        if time.perf_counter() - started > 10:
            print(f"  (comparing {view} took {time.perf_counter() - started:.0f} s)", flush=True)
    con.close()
    return unequal


def large_load(folder: Path, claims: int, repeat: int) -> None:
    data = folder / "big"
    data.mkdir()
    generate_run(data, claims, claims // 4, questions=claims // 500)
    sides: dict[str, list] = {"file": [], "lake": []}
    for attempt in range(repeat):
        for side in ("file", "lake"):
            db = str(folder / f"big{attempt}.duckdb") if side == "file" else new_database()
            env = {**os.environ, "EVALWH_DB": db, "EVALWH_DATA_PATH": str(folder / f"big-lake{attempt}")}
            sides[side].append(measured([EVALWH, "-q", "load", str(data), "--run", "big"], env=env))
    cpu = {s: min(m.cpu for m in ms) for s, ms in sides.items()}
    wall = {s: min(m.wall for m in ms) for s, ms in sides.items()}
    peak = {s: max(m.peak_mib for m in ms) for s, ms in sides.items()}
    print(f"a load of {claims:,} claims ({claims // 500:,} questions), minimum of {repeat}:")
    for side in sides:
        print(f"  {side:5s} CPU {cpu[side]:6.2f} s   wall {wall[side]:6.2f} s   peak {peak[side]:6.0f} MiB")
    print(f"  lake / file: CPU {cpu['lake'] / cpu['file']:.2f}x (target <= 1.5x), wall {wall['lake'] / wall['file']:.2f}x")


def one_run_queries(folder: Path, runs: int, claims: int) -> None:
    data = folder / "small"
    data.mkdir()
    generate_run(data, claims, max(claims // 5, 10), questions=max(claims // 50, 10), seed=300)
    env = {**os.environ, "EVALWH_DB": new_database(), "EVALWH_DATA_PATH": str(folder / "grow-lake")}
    queries = {"metrics -r r0": ["metrics", "-r", "r0"], "status -r r0 -f csv": ["status", "-r", "r0", "-f", "csv"]}

    def timed() -> dict[str, float]:
        best = {}
        for name, args in queries.items():
            walls = []
            for _ in range(5):
                start = time.perf_counter()
                assert run(args, env).returncode == 0
                walls.append(time.perf_counter() - start)
            best[name] = min(walls)
        return best

    assert run(["load", str(data), "--run", "r0"], env).returncode == 0
    one = timed()
    for n in range(1, runs):
        assert run(["load", str(data), "--run", f"r{n}"], env).returncode == 0
    many = timed()
    print(f"a query on one run of {claims:,} claims, minimum of 5:")
    for name in queries:
        print(f"  {name:20s} 1-run lake {one[name]:.3f} s   {runs}-run lake {many[name]:.3f} s   "
              f"({many[name] / one[name]:.2f}x)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=5_000)
    parser.add_argument("--big", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--parts", default="concurrent,grow,large", help="which of the three to run")
    args = parser.parse_args()
    parts = args.parts.split(",")
    if not os.environ.get("EVALWH_TEST_POSTGRES"):
        sys.exit("bench/lake.py: run it under .ci/with-postgres (make bench-lake)")
    import duckdb

    print(f"DuckDB {duckdb.__version__}; load average {os.getloadavg()[0]:.2f} at the start; "
          f"{time.strftime('%Y-%m-%d %H:%M')}")
    with tempfile.TemporaryDirectory(prefix="bench-lake-") as scratch:
        folder = Path(scratch)
        if "concurrent" in parts:
            concurrent(folder, args.claims)
        if "grow" in parts:
            one_run_queries(folder, args.runs, args.claims)
        if "large" in parts:
            large_load(folder, args.big, args.repeat)
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
