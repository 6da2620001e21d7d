"""Opening the warehouse file: schema versions, migrations, views, and naming runs.

Every evalwh connection goes through ``open_warehouse``. Writers create or
upgrade the schema and refresh the views in one transaction; readers open the
file read-only and refuse a schema they do not match.
"""

from __future__ import annotations

import datetime as dt
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb
from evalwh import __version__
from evalwh.errors import UsageError, WarehouseError
from evalwh.resources import schema_steps
from evalwh.sqltext import sql_literal
from evalwh.textnorm import register_udfs
from evalwh.views import create_views, views_current

LATEST = "latest"
# the oldest DuckDB release whose storage format new warehouse files use
STORAGE_VERSION = "v1.4.0"
# DuckDB's memory while evalwh computes many views of a run at once (a load's headline metrics, a
# report): past it, DuckDB spills to its temporary files. 10,000 questions x 100,000 chunks: a load's
# metrics 1.2 GB peak instead of 2.7, an HTML report 0.8 GB instead of 2.6 (and faster)
VIEWS_MEMORY_LIMIT = "700MB"


def code_schema_version() -> int:
    """The schema version this release of evalwh writes."""
    return max(version for version, _, _ in schema_steps())


def file_schema_version(con: duckdb.DuckDBPyConnection) -> int:
    """The schema version of an open warehouse; 0 for a file evalwh never initialised."""
    exists = con.execute(
        "SELECT count(*) FROM duckdb_tables() "
        "WHERE database_name = current_database() AND schema_name = 'main' AND table_name = 'schema_version'"
    ).fetchone()
    if not exists or exists[0] == 0:
        return 0
    row = con.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0]) if row and row[0] is not None else 0


@dataclass
class LockWait:
    """How long to wait for a warehouse another process holds: 0 fails at once (the library's
    default); the CLI sets it from --wait / EVALWH_WAIT."""

    seconds: float = 0.0


lock_wait = LockWait()


DUCKDB_MAGIC = b"DUCK"  # bytes 8 to 12 of every DuckDB database file, after the header's checksum


def is_duckdb_file(path: Path) -> bool:
    """Whether the file at ``path`` starts as a DuckDB database file does."""
    with path.open("rb") as file:
        return file.read(12)[8:] == DUCKDB_MAGIC


def attach(con: duckdb.DuckDBPyConnection, path: Path, *, read_only: bool) -> None:
    """Attach the warehouse file to ``con`` as its default database.

    Working through ATTACH lets a load stage and validate its input in memory
    first and touch the file only once the input is known to be good.
    """
    if path.is_file() and not is_duckdb_file(path):
        # DuckDB would attach an existing .csv or .parquet file as an empty in-memory database, and
        # a load into it would report success and keep nothing
        raise WarehouseError(f"{path}: not a DuckDB database file, so not a warehouse (--db names the warehouse)")
    # a new file is written in the storage format of DuckDB 1.4, which every client from 1.4 on reads
    mode = " (READ_ONLY)" if read_only else "" if path.exists() else f" (STORAGE_VERSION '{STORAGE_VERSION}')"
    deadline = time.monotonic() + lock_wait.seconds
    pause = 0.05
    while True:
        try:
            con.execute(f"ATTACH {sql_literal(str(path))} AS warehouse{mode}")
            break
        except duckdb.Error as exc:
            message = str(exc).splitlines()[0]
            if "lock" not in message.lower():
                raise WarehouseError(f"{path}: cannot open the warehouse: {message}") from exc
            if time.monotonic() >= deadline:
                waited = f" (waited {lock_wait.seconds:g} s; --wait sets how long)" if lock_wait.seconds else ""
                raise WarehouseError(f"{path}: the warehouse is locked by another process{waited}") from exc
            if pause == 0.05:
                print(f"evalwh: {path} is locked by another process; waiting up to {lock_wait.seconds:g} s",
                      file=sys.stderr)
            time.sleep(min(pause, max(0.0, deadline - time.monotonic())))
            pause = min(pause * 2, 1.0)
    con.execute("USE warehouse")


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
    """Run the block in one transaction: committed when it ends, rolled back when it raises."""
    con.execute("BEGIN TRANSACTION")
    try:
        yield
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


def limit_memory(con: duckdb.DuckDBPyConnection) -> None:
    """Cap DuckDB's memory at VIEWS_MEMORY_LIMIT for the rest of the connection."""
    con.execute(f"SET memory_limit = {sql_literal(VIEWS_MEMORY_LIMIT)}")


def connect(path: Path, *, read_only: bool) -> duckdb.DuckDBPyConnection:
    """A new connection with the evalwh UDFs registered and the warehouse at ``path`` attached."""
    con = new_connection()
    register_udfs(con)
    try:
        attach(con, path, read_only=read_only)
    except BaseException:
        con.close()
        raise
    return con


def _check_not_newer(path: Path, found: int) -> None:
    ours = code_schema_version()
    if found > ours:
        raise WarehouseError(
            f"{path}: schema version {found} is newer than this evalwh supports ({ours}); upgrade evalwh"
        )


def migrate(con: duckdb.DuckDBPyConnection, path: Path) -> int:
    """Apply the schema steps the file lacks and refresh the views where needed, in the caller's transaction.

    Returns the number of schema steps applied.
    """
    found = file_schema_version(con)
    _check_not_newer(path, found)
    applied = 0
    for version, _, sql in schema_steps():
        if version > found:
            try:
                con.execute(sql)
            except duckdb.CatalogException as exc:  # the file's own tables or views by evalwh's names
                holds = "is no evalwh warehouse and already holds" if found == 0 else "holds"
                raise WarehouseError(f"{path}: {holds} something by a name evalwh's schema needs "
                                     f"({str(exc).splitlines()[0]}); choose another --db") from exc
            con.execute(
                "INSERT INTO schema_version VALUES (?, ?, ?)",
                [version, dt.datetime.now(dt.timezone.utc).replace(tzinfo=None), __version__],
            )
            applied += 1
    if applied or not views_current(con):  # a view binds the tables' columns when it is created
        create_views(con)
    return applied


@contextmanager
def open_warehouse(
    path: Path, *, write: bool = False, create: bool = True
) -> Iterator[duckdb.DuckDBPyConnection]:
    """A connection to the warehouse at ``path``.

    ``write=True`` creates the file if needed (unless ``create=False``) and brings its
    schema and views up to date before handing it over. ``write=False`` needs an
    existing file at this release's schema and opens it read-only.
    """
    if (not write or not create) and not path.exists():
        raise WarehouseError(f"{path}: no warehouse here; create one with `evalwh init` or `evalwh load DIR`")
    con = connect(path, read_only=not write)
    try:
        if write:
            with transaction(con):
                migrate(con, path)
        else:
            found = file_schema_version(con)
            _check_not_newer(path, found)
            if found == 0:
                raise WarehouseError(f"{path}: a DuckDB file that holds no evalwh warehouse yet; create one in it "
                                     "with `evalwh init` or `evalwh load DIR`")
            if found < code_schema_version():
                raise WarehouseError(
                    f"{path}: schema version {found} is older than this evalwh ({code_schema_version()}); "
                    "run `evalwh init` to upgrade it"
                )
        yield con
    finally:
        con.close()


def _version(label: str) -> tuple[int, ...]:
    """``'v1.4.0+'`` -> (1, 4, 0)."""
    return tuple(int(part) for part in label.strip("v+").split(".") if part.isdigit())


def storage_version(path: Path) -> str | None:
    """The storage format of the warehouse file (``'v1.4.0+'``), as DuckDB reports it."""
    con = new_connection()
    try:
        attach(con, path, read_only=True)
        tags = con.execute("SELECT tags FROM duckdb_databases() WHERE database_name = 'warehouse'").fetchone()
        return (tags[0] or {}).get("storage_version") if tags else None
    finally:
        con.close()


def rewrite_in_oldest_format(path: Path) -> bool:
    """Rewrite a warehouse stored in a format newer than STORAGE_VERSION in that format, whole or not at
    all (DuckDB's COPY FROM DATABASE into a new file, then a rename). Returns whether it rewrote the file."""
    found = storage_version(path)
    if found is None or _version(found) <= _version(STORAGE_VERSION):
        return False
    staging = path.with_name(f".{path.name}.rewrite")
    staging.unlink(missing_ok=True)
    con = new_connection()
    try:
        register_udfs(con)
        attach(con, path, read_only=True)
        con.execute("USE memory")
        con.execute(f"ATTACH {sql_literal(str(staging))} AS rewritten "
                    f"(STORAGE_VERSION '{STORAGE_VERSION}')")
        con.execute("COPY FROM DATABASE warehouse TO rewritten")
        con.execute("DETACH rewritten")
        con.execute("DETACH warehouse")
    except duckdb.Error as exc:
        staging.unlink(missing_ok=True)
        raise WarehouseError(f"{path}: cannot rewrite it in the {STORAGE_VERSION} format: "
                             f"{str(exc).splitlines()[0]}") from exc
    finally:
        con.close()
    staging.replace(path)
    return True


def one(con: duckdb.DuckDBPyConnection, sql: str, params: object = None) -> tuple[Any, ...]:
    """The row of a query that always returns exactly one (aggregates, a known run)."""
    row = con.execute(sql, params or []).fetchone()
    if row is None:
        raise WarehouseError(f"query returned no row: {sql}")
    return row


def scalar(con: duckdb.DuckDBPyConnection, sql: str, params: object = None) -> Any:
    """The single value of a query that always returns one row (a count, a max)."""
    return one(con, sql, params)[0]


def run_ids(con: duckdb.DuckDBPyConnection) -> list[str]:
    """All run ids, oldest first."""
    return [row[0] for row in con.execute("SELECT run_id FROM runs ORDER BY created_at").fetchall()]


def resolve_run(con: duckdb.DuckDBPyConnection, name: str) -> str:
    """The run id ``name`` refers to: a run id, or ``latest`` for the most recently created run."""
    ids = run_ids(con)
    if not ids:
        raise UsageError("the warehouse has no runs yet; load one with `evalwh load DIR` or `evalwh seed`")
    if name == LATEST:
        return ids[-1]
    if name not in ids:
        raise UsageError(f"no run named {name!r} (runs: {', '.join(ids)})")
    return name


def initialise(path: Path) -> bool:
    """Create the warehouse at ``path``, or bring it to this release's schema and views, and store it in
    STORAGE_VERSION's format; returns whether the file had to be rewritten in that format.

    The schema comes first, so a file evalwh cannot use (one holding tables of its own by the names
    evalwh's schema needs) is refused before anything, the rewrite included, touches it.
    """
    with open_warehouse(path, write=True):
        pass
    if not rewrite_in_oldest_format(path):
        return False
    with open_warehouse(path, write=True):  # the views as this release writes them
        pass
    return True
