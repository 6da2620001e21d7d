"""Open a warehouse with an older DuckDB (the oldest the README promises) and query every view.

Run by .ci/run with a separate virtual environment's Python: python old_duckdb.py WAREHOUSE.
Prints one line per view (name, rows) and exits 1 if any view fails or none exists.
"""

import sys

import duckdb

con = duckdb.connect(sys.argv[1], read_only=True)
views = [row[0] for row in con.execute(
    "SELECT view_name FROM duckdb_views() WHERE NOT internal AND schema_name = 'main' ORDER BY view_name").fetchall()]
failed = []
for view in views:
    try:
        rows = con.execute(f'SELECT count(*) FROM "{view}"').fetchone()[0]
        print(f"{view}: {rows} rows")
    except duckdb.Error as exc:
        failed.append(view)
        print(f"{view}: FAILED {str(exc).splitlines()[0]}")
print(f"DuckDB {duckdb.__version__}: {len(views) - len(failed)} of {len(views)} views answer")
sys.exit(1 if failed or not views else 0)
