"""Rows as CSV, JSON, TSV or Parquet, written by DuckDB's COPY.

A command's rows are fetched and the warehouse released before anything is
written (a slow reader of stdout never holds the file's lock). The rows then go,
column by column (each as one list parameter), into a
private in-memory DuckDB connection (a cursor of the command's own, once its
warehouse is detached: starting a second DuckDB costs a small command as much
as its query) and are cast back to the types the query
gave, so DuckDB's own writers print every type it has (INTERVAL, TIME, UUID,
BLOB, HUGEINT, nested lists and structs) the way the DuckDB CLI and its readers
expect. The result goes to a temporary file beside the destination and replaces
it only when complete, or is copied to stdout.

What evalwh adds to DuckDB's text, per format:

- ``csv``: lists, structs and maps as JSON text; with ``safe_csv`` a text cell a
  spreadsheet would run as a formula gets a leading ``'``.
- ``json``: one array of objects; NaN and infinities become ``null`` (JSON has none).
- ``tsv``: no header, no quoting; backslash, tab, newline and carriage return
  written as ``\\\\``, ``\\t``, ``\\n`` and ``\\r``; lists as JSON text.
- ``parquet``: the values and types as they are.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, TextIO

import duckdb

from evalwh.output.files import atomic_path
from evalwh.output.rows import FORMULA_START, Format, Rows
from evalwh.sqltext import sql_identifier, sql_literal
from evalwh.warehouse.connection import new_connection

# nested types: a list or array type ends with "]"; these start with their name
NESTED_PREFIXES = ("STRUCT(", "MAP(", "UNION(")
FLOATS = frozenset({"DOUBLE", "FLOAT", "REAL"})


def _is_nested(type_name: str) -> bool:
    return type_name.endswith("]") or type_name.startswith(NESTED_PREFIXES)


def _mixed(values: list[Any]) -> bool:
    """Whether a column built in Python holds both text and other values (a diff's before and after)."""
    kinds = {isinstance(v, str) for v in values if v is not None}
    return len(kinds) > 1


def _load(con: duckdb.DuckDBPyConnection, rows: Rows, fmt: Format) -> list[tuple[str, str]]:
    """Create ``rows_out`` in ``con`` holding ``rows`` with their query types; returns (name, type) pairs.

    Each column travels as one list parameter, unnested beside the others, and is cast back to its
    query type. A float column's NaNs travel as a separate flag, so that a NaN stays a NaN whatever
    the column's type. A column built in Python that mixes text and numbers is JSON for ``json``
    (each value keeps its JSON type) and text otherwise.
    """
    columns: dict[str, list[Any]] = {}
    selects = []
    for i, name in enumerate(rows.columns):
        values = [row[i] for row in rows.rows]
        wanted = rows.types[i] if rows.types else None
        if wanted is None and _mixed(values):
            as_json = fmt is Format.json
            values = [None if v is None else json.dumps(v) if as_json else str(v) for v in values]
            wanted = "JSON" if as_json else "VARCHAR"
        if any(isinstance(v, int) and not -(2**63) <= v < 2**63 for v in values):
            # DuckDB 1.4 reads a list of integers past 64 bits as DOUBLE: such a column travels as text
            fits = all(not isinstance(v, int) or -(2**127) <= v < 2**127 for v in values)
            values = [None if v is None else str(v) for v in values]
            wanted = wanted or ("HUGEINT" if fits else "VARCHAR")
        columns[f"c{i}"] = values
        value = f"c{i}" if wanted is None or wanted.strip('"') == "NULL" else f"CAST(c{i} AS {wanted})"
        nan = [isinstance(v, float) and math.isnan(v) for v in values]
        if any(nan):
            columns[f"nan{i}"] = nan
            value = f"CASE WHEN nan{i} THEN CAST('nan' AS {wanted or 'DOUBLE'}) ELSE {value} END"
        selects.append(f"{value} AS {sql_identifier(name)}")
    if not selects:
        con.execute("CREATE TEMP TABLE rows_out AS SELECT 1 WHERE false")
        return []
    unnested = ", ".join(f"unnest(${key}) AS {key}" for key in columns)
    con.execute(f"CREATE TEMP TABLE rows_out AS SELECT {', '.join(selects)} FROM (SELECT {unnested})", columns)
    return _described(con)


def _described(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    described = con.execute("SELECT * FROM temp.rows_out LIMIT 0").description or []
    return [(d[0], str(d[1])) for d in described]


def _csv_cell(name: str, type_name: str, safe_csv: bool) -> str:
    column = sql_identifier(name)
    if _is_nested(type_name):
        return f"CAST(to_json({column}) AS VARCHAR) AS {column}"
    if safe_csv and type_name == "VARCHAR":
        starts = ", ".join(sql_literal(s) for s in FORMULA_START)
        return f"CASE WHEN left({column}, 1) IN ({starts}) THEN '''' || {column} ELSE {column} END AS {column}"
    return column


def _json_cell(name: str, type_name: str) -> str:
    column = sql_identifier(name)
    if type_name in FLOATS:
        return f"CASE WHEN isfinite({column}) THEN {column} END AS {column}"
    if type_name[:-2] in FLOATS and type_name.endswith("[]"):
        return f"list_transform({column}, lambda x: CASE WHEN isfinite(x) THEN x END) AS {column}"
    return column


def _tsv_cell(name: str, type_name: str) -> str:
    column = sql_identifier(name)
    text = f"CAST(to_json({column}) AS VARCHAR)" if _is_nested(type_name) else f"CAST({column} AS VARCHAR)"
    for raw, escaped in (("\\", "\\\\"), ("\t", "\\t"), ("\n", "\\n"), ("\r", "\\r")):
        text = f"replace({text}, {sql_literal(raw)}, {sql_literal(escaped)})"
    return f"{text} AS {column}"


def _copy_statement(columns: list[tuple[str, str]], fmt: Format, target: Path, safe_csv: bool) -> str:
    if fmt is Format.csv:
        cells, options = [_csv_cell(n, t, safe_csv) for n, t in columns], "FORMAT csv, HEADER true"
    elif fmt is Format.json:
        cells, options = [_json_cell(n, t) for n, t in columns], "FORMAT json, ARRAY true"
    elif fmt is Format.tsv:
        cells, options = [_tsv_cell(n, t) for n, t in columns], "FORMAT csv, DELIMITER '\t', HEADER false, QUOTE '', ESCAPE ''"
    elif fmt is Format.parquet:
        cells, options = [sql_identifier(n) for n, _ in columns], "FORMAT parquet"
    else:
        raise ValueError(f"{fmt.value} is not written by DuckDB")
    select = ", ".join(cells) if cells else "*"
    # the rows in the order they were inserted: DuckDB 2.0's COPY of a projection (the cells above) over a
    # table of more than one row group can write some of its vectors out of order. (A column named rowid
    # hides the row id; such rows go out as DuckDB scans them.)
    ordered = "" if any(name.lower() == "rowid" for name, _ in columns) else " ORDER BY rowid"
    return f"COPY (SELECT {select} FROM temp.rows_out{ordered}) TO {sql_literal(str(target))} ({options})"


def write_file(
    rows: Rows, fmt: Format, target: Path, safe_csv: bool = False, *,
    con: duckdb.DuckDBPyConnection | None = None,
) -> None:
    """Write ``rows`` in ``fmt`` to the new file ``target`` with DuckDB's COPY: through a cursor of ``con``,
    an in-memory connection of the caller's that it leaves open, else on a new connection of its own."""
    work = new_connection() if con is None else con.cursor()  # a cursor has temporary tables of its own
    try:
        columns = _load(work, rows, fmt)
        work.execute(_copy_statement(columns, fmt, target, safe_csv))
    finally:
        work.close()


def write_copy(
    rows: Rows, fmt: Format, stream: TextIO | None, path: Path | None, safe_csv: bool = False,
    con: duckdb.DuckDBPyConnection | None = None,
) -> None:
    """Write ``rows`` in ``fmt`` to the file ``path`` (replaced only once complete), else to ``stream``
    (stdout); through ``con``, if given, as ``write_file`` says."""
    if path is not None:
        with atomic_path(path) as target:
            write_file(rows, fmt, target, safe_csv, con=con)
        return
    out: TextIO = stream if stream is not None else sys.stdout
    with tempfile.TemporaryDirectory(prefix="evalwh-out-") as scratch:
        target = Path(scratch) / f"rows.{fmt.value}"
        write_file(rows, fmt, target, safe_csv, con=con)
        if fmt is Format.parquet:
            out.flush()
            with target.open("rb") as source:
                shutil.copyfileobj(source, out.buffer)
            out.buffer.flush()
        else:
            with target.open(encoding="utf-8", newline="") as source:
                shutil.copyfileobj(source, out)


def copy_query(
    con: duckdb.DuckDBPyConnection, sql: str, params: list[Any], fmt: Format, path: Path, safe_csv: bool = False
) -> None:
    """Write the rows of ``sql`` in ``fmt`` to ``path`` straight from ``con`` (whole or not at all)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE rows_out AS {sql}", params)
    try:
        columns = _described(con)
        with atomic_path(path) as target:
            con.execute(_copy_statement(columns, fmt, target, safe_csv))
    finally:
        con.execute("DROP TABLE IF EXISTS temp.rows_out")
