"""The file's storage format: new warehouses are written in the oldest DuckDB format evalwh promises.

``evalwh init`` rewrites a file stored in a newer format (a file another tool wrote) in that one,
whole or not at all, so every DuckDB client from that release on can open it.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from evalwh.errors import WarehouseError
from evalwh.invocation import QUIET, Invocation
from evalwh.location import Lake, Location
from evalwh.sqltext import sql_literal
from evalwh.warehouse.connection import NEW_FILE, STORAGE_VERSION, attach, new_connection, open_warehouse


def _version(label: str) -> tuple[int, ...]:
    """``'v1.4.0+'`` -> (1, 4, 0)."""
    return tuple(int(part) for part in label.strip("v+").split(".") if part.isdigit())

def storage_version(path: Path) -> str | None:
    """The storage format of the warehouse file (``'v1.4.0+'``), as DuckDB reports it."""
    con = new_connection()
    try:
        attach(con, path, read_only=True)
        tags = con.execute("SELECT tags FROM duckdb_databases() WHERE database_name = 'warehouse'").fetchall()
        return (tags[0][0] or {}).get("storage_version") if tags else None
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
    from evalwh.text.textnorm import register_udfs  # imported here: of this module, only a rewrite needs it

    con = new_connection()
    try:
        register_udfs(con)
        attach(con, path, read_only=True)
        con.execute("USE memory")
        con.execute(f"ATTACH {sql_literal(str(staging))} AS rewritten{NEW_FILE}")
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


def initialise(path: Location, invocation: Invocation = QUIET) -> bool:
    """Create the warehouse at ``path``, or bring it to this release's schema and views, and store it in
    STORAGE_VERSION's format; returns whether the file had to be rewritten in that format.

    The schema comes first, so a file evalwh cannot use (one holding tables of its own by the names
    evalwh's schema needs) is refused before anything, the rewrite included, touches it.
    """
    with open_warehouse(path, write=True, invocation=invocation, udfs=False):
        pass
    if isinstance(path, Lake) or not rewrite_in_oldest_format(path):  # a lake's files are Parquet
        return False
    with open_warehouse(path, write=True, invocation=invocation, udfs=False):  # the views as this release writes them
        pass
    return True
