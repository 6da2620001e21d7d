"""Copying one warehouse into another: a file into the lake a team moves to, a lake back into a file.

``evalwh copy SRC DST`` adds every run (with its rows), every log batch (with its requests), every
history row and every baseline setting of SRC to DST, in one transaction of DST: all of it or none. A run
id, or a log batch id, that DST already holds is refused before anything is written (a copy never
merges two runs), as is a run whose created_at another run of DST has ("latest" and every baseline
stay well defined). Text stored by content (chunk_texts, sentence_norms) is added only where DST lacks it.
Both warehouses must be at this release's schema (``evalwh init`` upgrades a file).
"""

from __future__ import annotations

from dataclasses import dataclass

import duckdb

from evalwh.errors import UsageError, WarehouseError
from evalwh.invocation import QUIET, Invocation
from evalwh.location import Lake, Location, as_location
from evalwh.sqltext import sql_identifier
from evalwh.warehouse.connection import attach, attach_writer, new_connection, write_transaction
from evalwh.warehouse.schema import code_schema_version, migrate

# tables that hold no data of their own to copy: the schema's log and a lake's commit counter
NOT_COPIED = ("schema_version", "write_ticket")
# tables keyed by the text they store: rows DST lacks are added
BY_CONTENT = {"chunk_texts": "text_hash", "sentence_norms": "text_hash"}


@dataclass(frozen=True)
class CopyResult:
    """What a copy added to DST."""

    runs: list[str]
    log_batches: int
    history_rows: int
    baseline_settings: int
    rows: dict[str, int]  # table -> rows added


def _tables(con: duckdb.DuckDBPyConnection, database: str) -> dict[str, list[str]]:
    """Each base table of ``database`` -> its columns."""
    found: dict[str, list[str]] = {}
    for table, column in con.execute(
        "SELECT table_name, column_name FROM duckdb_columns() WHERE database_name = ? AND schema_name = 'main' "
        "AND table_name IN (SELECT table_name FROM duckdb_tables() WHERE database_name = ? AND schema_name = 'main') "
        "ORDER BY table_name, column_index", [database, database]
    ).fetchall():
        found.setdefault(table, []).append(column)
    return found


def _version(con: duckdb.DuckDBPyConnection, database: str) -> int:
    tables = _tables(con, database)
    if "schema_version" not in tables:
        return 0
    row = con.execute(f"SELECT max(version) FROM {sql_identifier(database)}.schema_version").fetchall()
    return int(row[0][0] or 0)


def copy_warehouse(source: str | Location, target: str | Location, *, data_path: str | None = None,
                   invocation: Invocation = QUIET) -> CopyResult:
    """Copy every run, log batch, history row and baseline setting of ``source`` into ``target`` (created
    if need be; a new lake's Parquet files go under ``data_path``), whole or not at all."""
    src, dst = as_location(source), as_location(target, data_path) if data_path else as_location(target)
    if str(src) == str(dst) or (not isinstance(src, Lake) and not isinstance(dst, Lake)
                                and src.resolve() == dst.resolve()):
        raise UsageError(f"{src}: a warehouse cannot be copied into itself")
    if not isinstance(src, Lake) and not src.is_file():
        raise WarehouseError(f"{src}: no warehouse here")
    con = new_connection()
    try:
        attach(con, src, read_only=True, invocation=invocation, alias="source")
        found, ours = _version(con, "source"), code_schema_version()
        if found != ours:
            raise WarehouseError(f"{src}: schema version {found}; copy needs this release's ({ours}): "
                                 "run `evalwh init` on it first" if found < ours else
                                 f"{src}: schema version {found} is newer than this evalwh supports ({ours})")
        attach_writer(con, dst, invocation)
        migrate(con, dst)
        return write_transaction(con, dst, lambda: _copy(con, src, dst), invocation)
    finally:
        con.close()


def _copy(con: duckdb.DuckDBPyConnection, src: Location, dst: Location) -> CopyResult:
    """Check that nothing of ``src`` is in the target already, then add it, table by table."""
    clash = [r for (r,) in con.execute(
        "SELECT run_id FROM source.runs INTERSECT SELECT run_id FROM warehouse.runs ORDER BY 1").fetchall()]
    if clash:
        raise UsageError(f"{dst}: already holds run(s) {', '.join(clash[:5])}{' …' if len(clash) > 5 else ''}; "
                         "nothing was copied (a copy never merges runs)")
    batches = [b for (b,) in con.execute(
        "SELECT log_batch_id FROM source.log_batches INTERSECT SELECT log_batch_id FROM warehouse.log_batches "
        "ORDER BY 1").fetchall()]
    if batches:
        raise UsageError(f"{dst}: already holds log batch(es) {', '.join(batches[:5])}; nothing was copied")
    same_time = con.execute(
        "SELECT s.run_id, w.run_id FROM source.runs AS s JOIN warehouse.runs AS w USING (created_at) "
        "ORDER BY 1 LIMIT 1").fetchall()
    if same_time:
        raise UsageError(f"run {same_time[0][0]!r} has the created_at of {dst}'s run {same_time[0][1]!r}; nothing "
                         "was copied ('latest' and every baseline must stay well defined)")
    source_tables, target_tables = _tables(con, "source"), _tables(con, "warehouse")
    added: dict[str, int] = {}
    for table, columns in source_tables.items():
        if table in NOT_COPIED:
            continue
        if table not in target_tables:
            raise WarehouseError(f"{dst}: has no table {table}")
        name = sql_identifier(table)
        listed = ", ".join(sql_identifier(c) for c in columns)
        select = f"SELECT {listed} FROM source.{name}"
        if table in BY_CONTENT:
            key = sql_identifier(BY_CONTENT[table])
            select += f" AS s WHERE NOT EXISTS (SELECT 1 FROM warehouse.{name} AS w WHERE w.{key} = s.{key})"
        elif table == "baseline_log":
            select += " EXCEPT ALL SELECT " + listed + " FROM warehouse.baseline_log"
        rows = con.execute(f"INSERT INTO warehouse.{name} BY NAME {select}").fetchall()
        added[table] = int(rows[0][0]) if rows else 0
    runs = [r for (r,) in con.execute("SELECT run_id FROM source.runs ORDER BY created_at").fetchall()]
    return CopyResult(runs=runs, log_batches=added.get("log_batches", 0),
                      history_rows=added.get("metrics_history", 0) + added.get("claim_status_history", 0),
                      baseline_settings=added.get("baseline_log", 0), rows=added)
