"""Connections to the warehouse: attaching its file (waiting out another writer's lock) or its lake
(``evalwh.warehouse.lake``), transactions.

Every evalwh connection goes through ``open_warehouse``. Writers create or upgrade the schema and
refresh the views in one transaction (``evalwh.warehouse.schema``); readers open the warehouse read-only
and refuse a schema they do not match.
"""

from __future__ import annotations

import datetime as dt
import re
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

import duckdb

from evalwh.errors import UsageError, WarehouseError
from evalwh.invocation import QUIET, Invocation
from evalwh.sqltext import sql_identifier, sql_literal
from evalwh.warehouse.lake import Lake, Location, as_location, attach_lake, no_warehouse, retry_conflicts
from evalwh.warehouse.schema import check_not_newer, code_schema_version, file_schema_version, migrate

# the oldest DuckDB release whose storage format new warehouse files use
STORAGE_VERSION = "v1.4.0"
# how a new file is attached: written in that format
NEW_FILE = f" (STORAGE_VERSION '{STORAGE_VERSION}')"

# DuckDB's memory while evalwh computes many views of a run at once (a load's headline metrics, a
# report, a site, unless --memory-limit gives another): past it, DuckDB spills to its temporary files, so a large run's peak stays bounded
# (bench/tfidf.py and bench/report_100k.py measure it)
VIEWS_MEMORY_LIMIT = "700MB"
# a load's: the whole load runs under it, spilling past it, so its peak does not grow with the run
# (bench/claims.py: 1M claims with questions peak near 650 MiB; tests/test_load_memory.py loads them under 500MB)
LOAD_MEMORY_LIMIT = "1GB"

DUCKDB_MAGIC = b"DUCK"  # bytes 8 to 12 of every DuckDB database file, after the header's checksum

def is_duckdb_file(path: Path) -> bool:
    """Whether the file at ``path`` starts as a DuckDB database file does."""
    with path.open("rb") as file:
        return file.read(12)[8:] == DUCKDB_MAGIC


def _open_cleanly(con: duckdb.DuckDBPyConnection, path: Path, invocation: Invocation) -> None:
    """Raise WarehouseError naming the file unless it attaches read-only and its catalog reads."""
    try:
        attach(con, path, read_only=True, invocation=invocation)
        con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'warehouse'").fetchall()
    except WarehouseError as exc:
        if _locked(exc):
            raise
        raise WarehouseError(f"{path}: the warehouse file is damaged and was left as it is: "
                             f"{str(exc).split(': ', 1)[-1]}") from None
    except duckdb.Error as exc:
        raise WarehouseError(f"{path}: the warehouse file is damaged and was left as it is: "
                             f"{str(exc).splitlines()[0]}") from None
    finally:
        _detach(con)


def _locked(error: Exception) -> bool:
    """Whether ``error`` says another process holds the warehouse (as ``_attach_waiting`` raises it)."""
    return "locked" in str(error)


def _detach(con: duckdb.DuckDBPyConnection) -> None:
    """Detach the warehouse from ``con`` if it is attached, back to the in-memory database."""
    con.execute("USE memory; DETACH DATABASE IF EXISTS warehouse")


def attach(con: duckdb.DuckDBPyConnection, path: Location, *, read_only: bool,
           invocation: Invocation = QUIET, alias: str = "warehouse") -> None:
    """Attach the warehouse (its file or its lake) to ``con`` as its default database (as a second
    database named ``alias``, when that is not ``warehouse``: a copy's source).

    Working through ATTACH lets a load stage and validate its input in memory
    first and touch the warehouse only once the input is known to be good.
    """
    if isinstance(path, Lake):
        attach_lake(con, path, read_only=read_only, create=not read_only, invocation=invocation, alias=alias)
        return
    _refuse_what_is_no_warehouse_file(path)
    if path.is_file() and not read_only:
        # opened for writing, a damaged file may be written to before DuckDB finds the damage: it is first
        # opened read-only, and left untouched if it does not open cleanly
        _open_cleanly(con, path, invocation)
    # a new file is written in the storage format of DuckDB 1.4, which every client from 1.4 on reads
    mode = " (READ_ONLY)" if read_only else "" if path.exists() else NEW_FILE
    _attach_waiting(con, path, mode, invocation, alias)


def _refuse_what_is_no_warehouse_file(path: Path) -> None:
    """A UsageError or WarehouseError for a --db that names no file DuckDB would keep a warehouse in."""
    if str(path).startswith(":memory:"):
        # DuckDB's name for a database in memory: a load into it would succeed and keep nothing
        raise UsageError(f"{path}: an in-memory database keeps nothing once evalwh ends; the warehouse is a file "
                         "(--db names it)")
    if path.is_file() and not is_duckdb_file(path):
        # DuckDB would attach an existing .csv or .parquet file as an empty in-memory database, and
        # a load into it would report success and keep nothing
        raise WarehouseError(f"{path}: not a DuckDB database file, so not a warehouse (--db names the warehouse)")


def _attach_waiting(con: duckdb.DuckDBPyConnection, path: Path, mode: str, invocation: Invocation,
                    alias: str = "warehouse") -> None:
    """ATTACH the file as ``warehouse`` and make it the default database, waiting out another process's lock."""
    deadline = time.monotonic() + invocation.wait
    pause = 0.05
    while True:
        try:
            con.execute(f"ATTACH {sql_literal(str(path))} AS {sql_identifier(alias)}{mode}")
            break
        except duckdb.Error as exc:
            message = str(exc).splitlines()[0]
            if not re.search(r"\block\b", message, re.IGNORECASE):  # not "block", as in a damaged block
                raise WarehouseError(f"{path}: cannot open the warehouse: {message}") from exc
            if time.monotonic() >= deadline:
                waited = f" (waited {invocation.wait:g} s; --wait sets how long)" if invocation.wait else ""
                raise WarehouseError(f"{path}: the warehouse is locked by another process{waited}") from exc
            if pause == 0.05:
                invocation.notify(f"{path} is locked by another process; waiting up to {invocation.wait:g} s")
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 1.0)
    if alias == "warehouse":
        con.execute("USE warehouse")


def _build_empty_warehouse(path: Path) -> None:
    """Create an empty warehouse at the new file ``path``: every schema step and view, nothing else."""
    con = new_connection()
    try:
        con.execute(f"ATTACH {sql_literal(str(path))} AS warehouse{NEW_FILE}")  # a private scratch file: no lock to wait out
        con.execute("USE warehouse")
        migrate(con, path)
        _detach(con)
    finally:
        con.close()


def new_connection() -> duckdb.DuckDBPyConnection:
    """A new in-memory connection for evalwh's own work. DuckDB's progress bar is off: DuckDB would draw
    it on stdout for a long query, and stdout is data (evalwh draws its own bars on stderr)."""
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    # what spills goes to the system's temporary directory, not the caller's working directory (which may
    # not be writable); DuckDB names its files there by process and deletes them
    con.execute(f"SET temp_directory = {sql_literal(tempfile.gettempdir())}")
    return con

@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """Run the block in one transaction: committed when it ends, rolled back when it raises (a commit
    that fails has rolled back already)."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
    except BaseException:
        con.execute("ROLLBACK")
        raise
    try:
        con.execute("COMMIT")
    except BaseException:
        with suppress(duckdb.Error):
            con.execute("ROLLBACK")
        raise


T = TypeVar("T")


def write_transaction(con: duckdb.DuckDBPyConnection, db: Location, work: Callable[[], T],
                      invocation: Invocation = QUIET, *, ticket: bool = True) -> T:
    """Run ``work`` in one writing transaction: committed when it returns, rolled back when it raises.
    In a lake the transaction first bumps the write ticket (unless ``ticket`` is false), and runs again
    when a concurrent writer committed first (``evalwh.warehouse.lake``); ``work`` must then be safe to
    run again after a rollback."""
    if not isinstance(db, Lake):
        with transaction(con):
            return work()

    def attempt() -> T:
        with transaction(con):
            if ticket:
                con.execute("UPDATE write_ticket SET writes = writes + 1")
            return work()

    return retry_conflicts(db, attempt, invocation)

def drop_temp_tables(con: duckdb.DuckDBPyConnection, *, prefix: str = "", keep: tuple[str, ...] = ()) -> None:
    """Drop the connection's temporary tables whose names start with ``prefix``, but those in ``keep``:
    their memory goes to what the connection does next."""
    for (table,) in con.execute(
        "SELECT table_name FROM duckdb_tables() WHERE database_name = 'temp' AND starts_with(table_name, ?) "
        "AND NOT list_contains(?, table_name)", [prefix, list(keep)]
    ).fetchall():
        con.execute(f"DROP TABLE temp.{sql_identifier(table)}")


def limit_memory(con: duckdb.DuckDBPyConnection, limit: str | None = None) -> None:
    """Cap DuckDB's memory at ``limit`` for the rest of the connection (a size DuckDB reads: "500MB";
    None: VIEWS_MEMORY_LIMIT, the cap of the commands that compute many views of a run)."""
    limit = limit or VIEWS_MEMORY_LIMIT
    try:
        con.execute(f"SET memory_limit = {sql_literal(limit)}")
    except duckdb.Error as exc:
        raise UsageError(f"memory limit {limit!r}: {str(exc).splitlines()[0]} (give a size such as 500MB or 2GB)") \
            from None


def _stamp_new_file(path: Path) -> None:
    """Stamp the schema steps of the new file ``path`` with this moment: a copy of the cached empty
    warehouse was made now, not when its template was."""
    con = new_connection()
    try:
        con.execute(f"ATTACH {sql_literal(str(path))} AS warehouse")  # a private scratch file: no lock to wait out
        con.execute("UPDATE warehouse.schema_version SET applied_at = ?",
                    [dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)])
    finally:
        con.close()


def attach_writer(con: duckdb.DuckDBPyConnection, path: Location, invocation: Invocation = QUIET) -> None:
    """Attach the warehouse for writing; a new file starts as a copy of the cached empty warehouse
    (evalwh.warehouse.template), which the caller's ``migrate`` finds complete; a new lake is created
    empty, and ``migrate`` creates its tables."""
    from evalwh.warehouse import template

    if isinstance(path, Lake):
        attach_lake(con, path, read_only=False, create=True, invocation=invocation)
        return
    _refuse_what_is_no_warehouse_file(path)  # before a copy of the template could take the name
    if not path.exists():
        template.copy_empty_warehouse(path, STORAGE_VERSION, _build_empty_warehouse, _stamp_new_file)
    attach(con, path, read_only=False, invocation=invocation)


def connect(
    path: Location, *, read_only: bool, invocation: Invocation = QUIET, udfs: bool = True
) -> duckdb.DuckDBPyConnection:
    """A new connection with the warehouse at ``path`` attached and, unless ``udfs`` is false, the evalwh
    UDFs registered (registering them imports numpy; no view calls them)."""
    con = new_connection()
    if udfs:
        from evalwh.text.textnorm import register_udfs

        register_udfs(con)
    try:
        if read_only:
            attach(con, path, read_only=True, invocation=invocation)
        else:
            attach_writer(con, path, invocation)
    except BaseException:
        con.close()
        raise
    return con


@contextmanager
def open_warehouse(
    path: str | Path | Lake, *, write: bool = False, create: bool = True, invocation: Invocation = QUIET, udfs: bool = True,
    keep: list[duckdb.DuckDBPyConnection] | None = None,
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to the warehouse at ``path``.

    ``write=True`` creates the file if needed (unless ``create=False``) and brings its
    schema and views up to date before handing it over. ``write=False`` needs an
    existing file at this release's schema and opens it read-only. The evalwh UDFs
    (``words``, ``norm``, ...) are registered on it unless ``udfs=False``: code that only
    reads the views (every command but a load) passes that, since no view calls a UDF and
    registering them costs a numpy import; a schema step that calls them registers them itself
    (``migrate``).

    Given a ``keep`` list, a block that ends without an error leaves the connection open with the
    warehouse detached (the file released, as by closing) and appends it to the list: an in-memory
    DuckDB for the caller's own work, which the caller closes (starting a second DuckDB would cost a
    small command as much as its query). A connection locked down (no file access, as ``evalwh sql``
    leaves it) is closed instead.

    ``path`` is a warehouse file, or a lake (``ducklake:…`` or a ``Lake``, evalwh.warehouse.lake).
    """
    path = as_location(path)
    if (not write or not create) and not _exists(path):
        raise no_warehouse(path)
    con = connect(path, read_only=not write, invocation=invocation, udfs=udfs)
    try:
        found = file_schema_version(con)
        if isinstance(path, Lake) and found == 0 and (not write or not create):
            raise no_warehouse(path)  # attached, a lake in Postgres holds nothing of evalwh's
        if write:
            migrate(con, path)
        else:
            check_not_newer(path, found)
            if found == 0:
                raise WarehouseError(f"{path}: a DuckDB file that holds no evalwh warehouse yet; create one in it "
                                     "with `evalwh init` or `evalwh load DIR`")
            if found < code_schema_version():
                raise WarehouseError(
                    f"{path}: schema version {found} is older than this evalwh ({code_schema_version()}); "
                    "run `evalwh init` to upgrade it"
                )
        yield con
    except BaseException:
        con.close()
        raise
    if keep is not None and _reusable(con):
        keep.append(con)
        return
    con.close()


def _exists(path: Location) -> bool:
    """Whether a warehouse may be at ``path``: its file, or its lake's catalog file, exists (a lake in
    Postgres may exist; attaching tells)."""
    if isinstance(path, Lake):
        return path.exists() is not False
    return path.exists()


def _reusable(con: duckdb.DuckDBPyConnection) -> bool:
    """Detach the warehouse from ``con`` and say whether the connection may still read and write files
    (False, with the warehouse perhaps still attached, when it may not or detaching fails)."""
    try:
        if not scalar(con, "SELECT current_setting('enable_external_access')"):
            return False
        _detach(con)
    except duckdb.Error:
        return False
    return True


def one(con: duckdb.DuckDBPyConnection, sql: str, params: object = None) -> tuple[Any, ...]:
    """The row of a query that always returns exactly one (aggregates, a known run)."""
    # every row fetched, not fetchone(): a result left unfinished blocks the connection's next relation
    rows = con.execute(sql, params or []).fetchall()
    row = rows[0] if rows else None
    if row is None:
        raise WarehouseError(f"query returned no row: {sql}")
    return row

def scalar(con: duckdb.DuckDBPyConnection, sql: str, params: object = None) -> Any:
    """The single value of a query that always returns one row (a count, a max)."""
    return one(con, sql, params)[0]


def dicts(con: duckdb.DuckDBPyConnection, sql: str, params: object = None) -> list[dict[str, Any]]:
    """Every row of a query as a dict of column name to value."""
    rel = con.execute(sql, params or [])
    names = [d[0] for d in rel.description]
    return [dict(zip(names, row, strict=True)) for row in rel.fetchall()]
