"""Handing the warehouse to other tools: every base table and every view written by DuckDB's COPY.

``evalwh export DIR`` writes each base table to ``DIR/<table>/`` (Parquet by default),
Hive-partitioned by ``run_id`` where the table has one (``DIR/claims/run_id=x/...``, the run id
also inside every file, so a reader that ignores the folder names keeps ``'007'`` a string), and
each view to ``DIR/views/<view>.parquet``, so pandas, Polars, Spark or a BI tool can read
the data without evalwh. The folder is written whole or not at all.

A partition folder is named ``run=<id>``, not ``run_id=<id>``: a reader that takes the folder names
as a column (pandas, Polars and DuckDB do by default) adds ``run`` beside the file's own ``run_id``
instead of finding two types for one column. The views that score every question against every
chunk (``MATRICES``) are written only when asked for (``include``, ``all_views``): they hold runs'
questions times chunks, far more rows than the rest together. Views are computed under the views'
memory cap, spilling past it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

from evalwh.errors import UsageError, closest
from evalwh.invocation import QUIET, Invocation
from evalwh.location import Location
from evalwh.output.rows import Rows
from evalwh.sqltext import sql_literal
from evalwh.warehouse.connection import limit_memory, one, open_warehouse
from evalwh.warehouse.runs import resolve_run

EXPORT_FORMATS = ("parquet", "csv")
# the question x chunk score views, exported only when asked for
MATRICES: tuple[str, ...] = ("question_chunk_scores", "retriever_scores", "tfidf_scores", "tfidf_units")


@dataclass(frozen=True)
class Exported:
    name: str
    kind: str  # table or view
    rows: int
    path: str  # relative to the export folder


def _relations(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, bool]]:
    """(name, 'table' or 'view', has a run_id column) for every relation of the warehouse, tables first."""
    rows = con.execute(
        """SELECT name, kind, EXISTS (SELECT 1 FROM duckdb_columns() AS c WHERE c.database_name = current_database()
                                     AND c.schema_name = 'main' AND c.table_name = r.name AND c.column_name = 'run_id')
           FROM (SELECT table_name AS name, 'table' AS kind FROM duckdb_tables()
                 WHERE database_name = current_database() AND schema_name = 'main'
                 UNION ALL
                 SELECT view_name, 'view' FROM duckdb_views()
                 WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal) AS r
           ORDER BY kind, name"""
    ).fetchall()
    return [(name, kind, bool(has_run)) for name, kind, has_run in rows]


def _copy(con: duckdb.DuckDBPyConnection, select: str, target: Path, fmt: str, partition: bool) -> None:
    options = "FORMAT parquet" if fmt == "parquet" else "FORMAT csv, HEADER"
    if partition:  # folders run=<id>; the run id stays in each file as run_id, text as in the warehouse
        select = f"SELECT *, run_id AS run FROM ({select})"
        options += ", PARTITION_BY (run)"
    con.execute(f"COPY ({select}) TO {sql_literal(str(target))} ({options})")


def export_warehouse(
    db: Location, directory: Path, fmt: str = "parquet", run: str | None = None, invocation: Invocation = QUIET,
    *, include: Sequence[str] = (), all_views: bool = False,
) -> list[Exported]:
    """Write every table and view of the warehouse at ``db`` (only ``run``'s rows, if given) under
    ``directory``, but the score matrices (MATRICES) only where ``include`` names them or ``all_views``."""
    if fmt not in EXPORT_FORMATS:
        raise UsageError(f"unknown export format {fmt!r} (use {' or '.join(EXPORT_FORMATS)})")
    unknown = [name for name in include if name not in MATRICES]
    if unknown:
        raise UsageError(f"--include {unknown[0]!r}: not a view left out by default{closest(unknown[0], list(MATRICES))} "
                         f"(those are {', '.join(MATRICES)}; every other table and view is always written)")
    left_out = set() if all_views else set(MATRICES) - set(include)
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise UsageError(f"{directory}: exists and is not an empty folder; choose a new folder")
    directory.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{directory.name}.", dir=directory.parent))
    exported: list[Exported] = []
    try:
        with open_warehouse(db, invocation=invocation, udfs=False) as con:
            limit_memory(con, invocation.memory_limit)
            run_id = resolve_run(con, run) if run is not None else None
            for name, kind, has_run in _relations(con):
                if kind == "view" and name in left_out:
                    continue
                where = " WHERE run_id = $run" if run_id is not None and has_run else ""
                select = f'SELECT * FROM "{name}"{where}'
                if run_id is not None and has_run:
                    select = select.replace("$run", sql_literal(run_id))
                count = one(con, f"SELECT count(*) FROM ({select})")[0]
                if kind == "table":
                    folder = staging / name
                    folder.mkdir()
                    if has_run and count:
                        _copy(con, select, folder, fmt, partition=True)
                    else:  # one file, possibly with no rows: a reader still finds the columns
                        _copy(con, select, folder / f"data.{fmt}", fmt, partition=False)
                    path = f"{name}/"
                else:
                    (staging / "views").mkdir(exist_ok=True)
                    _copy(con, select, staging / "views" / f"{name}.{fmt}", fmt, partition=False)
                    path = f"views/{name}.{fmt}"
                exported.append(Exported(name, kind, int(count), path))
        if directory.exists():
            directory.rmdir()
        os.replace(staging, directory)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return exported


def exported_rows(exported: list[Exported]) -> Rows:
    return Rows(("name", "kind", "rows", "path"), [(e.name, e.kind, e.rows, e.path) for e in exported])
