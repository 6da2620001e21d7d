"""The warehouse's schema: which version a file holds, and the steps in ``sql/`` that bring it to this release's.

A step is applied once, in order, inside the caller's transaction, and recorded in ``schema_version``;
the views are recreated whenever a step ran or a view's models fingerprint differs from this release's.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb

from evalwh import __version__
from evalwh.errors import WarehouseError
from evalwh.warehouse.lake import Lake

# the version of the last step in sql/ (tests/test_schema_version.py holds them equal): a reader compares a
# file's version with it without listing, reading or importing what writes the schema
SCHEMA_VERSION = 12


def code_schema_version() -> int:
    """The schema version this release of evalwh writes."""
    return SCHEMA_VERSION

def file_schema_version(con: duckdb.DuckDBPyConnection) -> int:
    """The schema version of an open warehouse; 0 for a file evalwh never initialised."""
    exists = con.execute(
        "SELECT count(*) FROM duckdb_tables() "
        "WHERE database_name = current_database() AND schema_name = 'main' AND table_name = 'schema_version'"
    ).fetchall()[0]
    if exists[0] == 0:
        return 0
    row = con.execute("SELECT max(version) FROM schema_version").fetchall()[0]
    return int(row[0]) if row[0] is not None else 0


def check_not_newer(path: object, found: int) -> None:
    """Refuse a file whose schema is newer than this release's."""
    ours = code_schema_version()
    if found > ours:
        raise WarehouseError(
            f"{path}: schema version {found} is newer than this evalwh supports ({ours}); upgrade evalwh"
        )


def migrate(con: duckdb.DuckDBPyConnection, path: Path | Lake) -> int:
    """Apply the schema steps the file lacks, each in a transaction of its own with its row in
    ``schema_version`` (an upgrade cut short resumes at the step it did not finish), then refresh the
    views where needed, in one more. Call it outside any transaction: the caller's own work follows.

    One transaction a step, not one for all: DuckDB 1.4 cannot commit a transaction that alters a
    table it has already updated (step 7 updates ``runs``, step 10 adds a column to it).

    Returns the number of schema steps applied.
    """
    from evalwh.resources import schema_steps  # a writer's: readers only compare versions
    from evalwh.text.textnorm import ensure_udfs
    from evalwh.warehouse.connection import transaction
    from evalwh.warehouse.views import create_views, views_current

    found = file_schema_version(con)
    check_not_newer(path, found)
    if isinstance(path, Lake):
        return _migrate_lake(con, path, found)
    pending = [(version, sql) for version, _, sql in schema_steps() if version > found]
    if pending:
        ensure_udfs(con)  # the steps that fill stored columns call the Python normalisation
    for version, sql in pending:
        with transaction(con):
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
    applied = len(pending)
    if applied or not views_current(con):  # a view binds the tables' columns when it is created
        with transaction(con):
            create_views(con)
    return applied


def _lake_shapes() -> duckdb.DuckDBPyConnection:
    """An in-memory database holding the tables every schema step leaves, empty: the shapes a lake's
    tables are created from (DuckLake cannot replay the steps: keys, compression, a narrowing ALTER)."""
    from evalwh.resources import schema_steps
    from evalwh.text.textnorm import ensure_udfs
    from evalwh.warehouse.connection import new_connection

    shapes = new_connection()
    ensure_udfs(shapes)
    for _, _, sql in schema_steps():
        shapes.execute(sql)
    return shapes


def _migrate_lake(con: duckdb.DuckDBPyConnection, lake: Lake, found: int) -> int:
    """Create evalwh's tables in a new lake (at this release's version), or refresh an existing lake's
    views; a lake of an older schema is refused (its tables cannot be altered as a file's are)."""
    from evalwh.warehouse.connection import write_transaction
    from evalwh.warehouse.lake import create_schema
    from evalwh.warehouse.views import create_views, views_current

    ours = code_schema_version()
    if 0 < found < ours:
        raise WarehouseError(f"{lake}: a lake of schema version {found}; this evalwh writes {ours}. Copy it into a "
                             "new lake with `evalwh copy`")
    applied = 0
    if found == 0:
        shapes = _lake_shapes()
        try:
            def create() -> int:
                if file_schema_version(con):  # another process created it while this one waited
                    return 0
                tables = con.execute("SELECT count(*) FROM duckdb_tables() WHERE database_name = 'warehouse'")
                if tables.fetchall()[0][0]:
                    raise WarehouseError(f"{lake}: is no evalwh warehouse and already holds tables; choose "
                                         "another lake")
                now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
                create_schema(con, shapes, ours, __version__, now)
                create_views(con)
                return 1
            applied = write_transaction(con, lake, create, ticket=False)
        finally:
            shapes.close()
    if not views_current(con):
        write_transaction(con, lake, lambda: create_views(con))
    return applied
