"""A warehouse kept in a DuckLake: the home a team shares, written by many CI jobs at once.

A ``--db`` starting ``ducklake:`` names a lake as DuckLake's ATTACH takes it: the catalog in Postgres
(``ducklake:postgres:dbname=… host=…``), in SQLite (``ducklake:sqlite:PATH``) or in a DuckDB file
(``ducklake:PATH.ducklake``); the data as Parquet files under its data path (``--data-path``, given
when the lake is created and remembered by it). Every DuckDB client with the ducklake extension reads
its tables and evalwh's views.

What differs from a file, and is handled here:

- DuckLake has no PRIMARY KEY, UNIQUE or CHECK constraint, and cannot narrow a column's type, so a
  lake is not built by replaying the schema steps: its tables are created from the shapes the steps
  leave in a file (the same columns, types and NOT NULLs; the keys are what the loader and the importer
  check before they write), at this release's schema version.
- Several processes write at once. DuckLake's commits are optimistic: two transactions that append to
  the same table both commit. So that a run id, a log request or a run's history is still written once,
  every writing transaction first bumps the one row of ``write_ticket``: of two concurrent writers the
  later conflicts at its commit, rolls back, and is run again, seeing what the first committed
  (``retry_conflicts``). Readers never wait.
- The ducklake, postgres and sqlite extensions: where the ``lake`` extra installed DuckDB's official
  binaries from PyPI (``duckdb-ext-*``), DuckDB's extension directory points at them; elsewhere DuckDB
  installs the extensions itself.
"""

from __future__ import annotations

import importlib.util
import random
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import duckdb

from evalwh.errors import UsageError, WarehouseError
from evalwh.invocation import QUIET, Invocation
from evalwh.location import LAKE_PREFIX, Lake, Location, as_location, is_lake, no_warehouse, redact
from evalwh.sqltext import sql_identifier, sql_literal

__all__ = ["LAKE_PREFIX", "Lake", "Location", "as_location", "attach_lake", "is_lake", "no_warehouse", "redact",
           "retry_conflicts"]

def bundled_extensions() -> str | None:
    """The extension directory of DuckDB's official binaries installed from PyPI (the ``lake`` extra),
    when they are there for the running DuckDB; else None, and DuckDB installs extensions itself."""
    found = importlib.util.find_spec("duckdb_ext")
    if found is None or not found.submodule_search_locations:
        return None
    for root in found.submodule_search_locations:
        directory = Path(root) / "extensions"
        if (directory / f"v{duckdb.__version__}").is_dir():
            return str(directory)
    return None


def load_extensions(con: duckdb.DuckDBPyConnection, lake: Lake) -> None:
    """Load ducklake, and the catalog's extension, from the bundled binaries or DuckDB's own install."""
    bundled = bundled_extensions()
    if bundled is not None:
        con.execute(f"SET extension_directory = {sql_literal(bundled)}")
    needed = ["ducklake"] + {"postgres": ["postgres"], "sqlite": ["sqlite"]}.get(lake.catalog, [])
    for name in needed:
        try:
            if bundled is None:
                con.execute(f"INSTALL {name}")
            con.execute(f"LOAD {name}")
        except duckdb.Error as exc:
            raise WarehouseError(
                f"{lake}: cannot load DuckDB's {name} extension ({str(exc).splitlines()[0]}); install "
                "evalwh[lake] (DuckDB 1.4.4's official binaries) or let DuckDB download it") from None


def attach_lake(con: duckdb.DuckDBPyConnection, lake: Lake, *, read_only: bool, create: bool,
                invocation: Invocation = QUIET, alias: str = "warehouse") -> None:
    """Attach the lake as ``warehouse`` and make it the default database. A lake that does not exist is
    created only when ``create`` (it then needs its data path)."""
    if not create and lake.exists() is False:
        raise no_warehouse(lake)
    load_extensions(con, lake)
    options = ["READ_ONLY"] if read_only else []
    if lake.data_path:
        options.append(f"DATA_PATH {sql_literal(lake.data_path)}")
    clause = f" ({', '.join(options)})" if options else ""
    try:
        # two processes creating one lake at once race to create DuckLake's own catalog tables: the loser
        # attaches again, and finds them
        retry_conflicts(lake, lambda: con.execute(
            f"ATTACH {sql_literal(LAKE_PREFIX + lake.spec)} AS {sql_identifier(alias)}{clause}"), invocation)
    except duckdb.Error as exc:
        message = redact(str(exc).splitlines()[0])
        if "DATA_PATH" in message and not lake.data_path:
            raise UsageError(f"{lake}: a new lake needs --data-path (or EVALWH_DATA_PATH): the folder or URL "
                             "where its Parquet files go") from None
        raise WarehouseError(f"{lake}: cannot open the lake: {message}") from None
    if alias == "warehouse":
        con.execute("USE warehouse")


def data_path(con: duckdb.DuckDBPyConnection) -> str | None:
    """The data path the attached lake remembers (where its Parquet files are)."""
    try:
        rows = con.execute("SELECT value FROM __ducklake_metadata_warehouse.ducklake_metadata "
                           "WHERE key = 'data_path'").fetchall()
    except duckdb.Error:
        return None
    return str(rows[0][0]) if rows else None


def create_schema(con: duckdb.DuckDBPyConnection, shapes: duckdb.DuckDBPyConnection, version: int,
                  release: str, now: object) -> None:
    """Create evalwh's tables in the attached, empty lake as the schema steps leave them in a file (read
    from the default database of ``shapes``), and record ``version`` as applied. Inside the caller's
    transaction."""
    tables = shapes.execute(
        "SELECT table_name, comment FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = 'main' ORDER BY table_name").fetchall()
    for table, comment in tables:
        columns = shapes.execute(
            "SELECT column_name, data_type, is_nullable, comment FROM duckdb_columns() "
            "WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ? "
            "ORDER BY column_index", [table]).fetchall()
        body = ", ".join(f"{sql_identifier(name)} {kind}{'' if nullable else ' NOT NULL'}"
                         for name, kind, nullable, _ in columns)
        con.execute(f"CREATE TABLE {sql_identifier(table)} ({body})")
        if comment:
            con.execute(f"COMMENT ON TABLE {sql_identifier(table)} IS {sql_literal(comment)}")
    con.execute("INSERT INTO schema_version VALUES (?, ?, ?)", [version, now, release])
    con.execute("INSERT INTO write_ticket VALUES (0)")


T = TypeVar("T")

CONFLICT = re.compile(r"conflict|could not serialize|duplicate key value", re.IGNORECASE)


def is_conflict(error: BaseException) -> bool:
    """Whether ``error`` is a commit that lost to a concurrent writer (worth running again)."""
    return isinstance(error, duckdb.Error) and bool(CONFLICT.search(str(error)))


def retry_conflicts(lake: Lake, attempt: Callable[[], T], invocation: Invocation = QUIET) -> T:
    """Run ``attempt`` (one whole transaction, rolled back when it raises) until it commits without a
    conflict, waiting a growing, jittered pause between tries, for at most --wait seconds (at least 30:
    a team's CI jobs commit at the same moment often)."""
    deadline = time.monotonic() + max(invocation.wait, 30.0)
    pause, told = 0.05, False
    while True:
        try:
            return attempt()
        except Exception as exc:
            if not is_conflict(exc):
                raise
            if time.monotonic() >= deadline:
                raise WarehouseError(f"{lake}: another writer kept committing first; gave up after "
                                     f"{max(invocation.wait, 30.0):g} s (--wait sets how long)") from None
            if not told:
                invocation.notify(f"{lake}: another process committed first; writing again")
                told = True
            time.sleep(min(pause * (0.5 + random.random()), max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 2.0)
