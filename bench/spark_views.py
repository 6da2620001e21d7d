"""Benchmark: every view on DuckDB and on local Spark over one generated run, side by side.

`python bench/spark_views.py [CLAIMS] [--repeat N]` (default 1,000,000 claims over 250,000 chunks; needs the
``spark`` extra and Java) generates a run with bench/claims.py's generator, loads it with `evalwh load` and
exports it with `evalwh export`. Then, each engine in its own process measured by the kernel (wait4), every view
is computed in full, in dependency order:

  duckdb  on the warehouse file: ``CREATE TEMP TABLE t AS SELECT * FROM view``, per view;
  spark   PySpark ``local[2]`` over the export (``evalwh.spark.register``): each view written to Spark's
          no-op sink, which computes every row and stores none.

It prints, per view, each engine's seconds and rows (which must agree), then the minimum total wall time of
each side over the repeats, their ratio and peak RSS. A reference figure only: Spark's worth is a cluster's
many machines, not one laptop's two cores.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from claims import generate
from measure import measured

DUCKDB_SIDE = r'''
import json, sys, time
import duckdb
from evalwh.resources import model_sources
from evalwh.warehouse.views import dependency_order
con = duckdb.connect(sys.argv[1], read_only=True)
out = {}
for view in dependency_order(model_sources()):
    start = time.perf_counter()
    con.execute(f'CREATE OR REPLACE TEMP TABLE bench_view AS SELECT * FROM "{view}"')
    rows = con.execute("SELECT count(*) FROM bench_view").fetchone()[0]
    out[view] = [time.perf_counter() - start, rows]
print(json.dumps(out))
'''

SPARK_SIDE = r'''
import json, sys, tempfile, time
from pathlib import Path
from pyspark.sql import SparkSession
from evalwh.spark import register
warehouse_dir = tempfile.TemporaryDirectory(prefix="spark-warehouse-")  # removed at exit
spark = (SparkSession.builder.master("local[2]").appName("evalwh-bench").config("spark.ui.enabled", "false")
         .config("spark.sql.session.timeZone", "UTC").config("spark.driver.memory", "4g")
         .config("spark.sql.warehouse.dir", warehouse_dir.name).getOrCreate())
spark.sparkContext.setLogLevel("ERROR")
out = {}
for view in register(spark, Path(sys.argv[1])):
    start = time.perf_counter()
    frame = spark.table(view)
    frame.write.format("noop").mode("overwrite").save()
    seconds = time.perf_counter() - start
    out[view] = [seconds, frame.count()]
spark.stop()
print(json.dumps(out))
'''

LOAD_AND_EXPORT = r'''
import json, sys
from pathlib import Path
from evalwh.export import export_warehouse
from evalwh.loader import load_run
db, folder, target = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
load_run(db, folder, run="bench")
export_warehouse(db, target)
print(json.dumps({}))
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claims", type=int, nargs="?", default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    try:
        import pyspark  # noqa: F401
    except ImportError:
        sys.exit("bench/spark_views.py needs pyspark: pip install -e '.[spark]' (and Java)")
    chunks = max(1, args.claims // 4)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        folder = root / "run"
        folder.mkdir()
        generate(folder, args.claims, chunks)
        db, export_dir = root / "bench.duckdb", root / "export"
        measured([sys.executable, "-c", LOAD_AND_EXPORT, str(db), str(folder), str(export_dir)])
        print(f"{args.claims:,} claims over {chunks:,} chunks; every view computed in full; best of {args.repeat}")
        duck_runs, spark_runs = [], []
        for _ in range(args.repeat):
            duck_runs.append(measured([sys.executable, "-c", DUCKDB_SIDE, str(db)]))
            spark_runs.append(measured([sys.executable, "-c", SPARK_SIDE, str(export_dir)]))
        duck_views, spark_views = duck_runs[0].output, spark_runs[0].output
        print(f"{'view':<24}{'duckdb s':>10}{'spark s':>10}{'rows':>12}")
        disagree = []
        for view, (seconds, rows) in duck_views.items():
            spark_seconds, spark_rows = spark_views[view]
            print(f"{view:<24}{seconds:>10.2f}{spark_seconds:>10.2f}{rows:>12,}")
            if rows != spark_rows:
                disagree.append(f"{view}: duckdb {rows:,} rows, spark {spark_rows:,}")
        duck_best, spark_best = min(r.wall for r in duck_runs), min(r.wall for r in spark_runs)
        print(f"{'':<24}{'wall min s':>12}{'peak RSS MiB':>14}  (RSS of the Python process; Spark's JVM not counted)")
        print(f"{'duckdb (warehouse)':<24}{duck_best:>12.2f}{max(r.peak_mib for r in duck_runs):>14.0f}")
        print(f"{'spark local[2] (export)':<24}{spark_best:>12.2f}{max(r.peak_mib for r in spark_runs):>14.0f}")
        print(f"ratio (spark / duckdb): {spark_best / duck_best:.1f}x; wall times include starting each engine")
        if disagree:
            sys.exit("row counts differ: " + "; ".join(disagree))


if __name__ == "__main__":
    main()
