"""Reading one input file into a staging table, whatever its format.

A run directory holds ``chunks``, ``claims``, ``citations`` and ``questions``,
each as ``.csv``, ``.tsv``, ``.jsonl`` or ``.parquet``. DuckDB's readers do the
parsing; this module picks the reader, checks the bytes are UTF-8 first (so the
error can name the line), and leaves a temp table ``stg_<kind>`` with a 1-based
``row_no`` and every requested column as VARCHAR (list columns as VARCHAR[]).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import duckdb
from evalwh.errors import InputError

FORMATS: tuple[str, ...] = (".csv", ".tsv", ".jsonl", ".parquet")
TEXT_FORMATS = {".csv", ".tsv", ".jsonl"}


@dataclass(frozen=True)
class Staged:
    """An input file loaded into ``temp.<table>``; ``columns`` are those the file has."""

    kind: str
    path: Path
    table: str
    columns: frozenset[str]

    @property
    def name(self) -> str:
        """The file name used in error messages."""
        return self.path.name


def find_input(directory: Path, kind: str) -> Path | None:
    """The one file ``<kind>.<format>`` in ``directory``, or None; two formats at once is an error."""
    found = [directory / f"{kind}{ext}" for ext in FORMATS if (directory / f"{kind}{ext}").is_file()]
    if len(found) > 1:
        names = " and ".join(p.name for p in found)
        raise InputError(str(directory), f"both {names} are present; keep one")
    return found[0] if found else None


def line_blocks(path: Path, block: int = 1 << 24) -> Iterator[tuple[bytes, bool]]:
    """The file's bytes in large blocks of whole lines, each ending with a newline, then what follows
    the last newline (possibly empty): ``(data, is_tail)``. Every block starts a line."""
    carry = b""
    with path.open("rb") as handle:
        while chunk := handle.read(block):
            data = carry + chunk
            cut = data.rfind(b"\n") + 1
            data, carry = data[:cut], data[cut:]
            if data:
                yield data, False
    yield carry, True


def check_utf8(path: Path, block: int = 1 << 24) -> None:
    """Raise InputError naming the first line that is not valid UTF-8.

    Decodes the file in large blocks of whole lines; only a block that fails is read line by line.
    """
    line_base = 0
    for data, _ in line_blocks(path, block):
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            for line_no, raw in enumerate(data.split(b"\n"), start=line_base + 1):
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError as exc:
                    raise InputError(
                        path.name, f"line {line_no}, byte {exc.start + 1}: text is not valid UTF-8"
                    ) from exc
        line_base += data.count(b"\n")


def quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sql_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _locate_csv_encoding_error(con: duckdb.DuckDBPyConnection, path: Path, delim: str) -> InputError:
    """Re-read a CSV whose bytes are not UTF-8 as Latin-1 to name the row and column at fault."""
    rel = con.sql(
        f"SELECT * FROM read_csv({_sql_literal(str(path))}, header=true, all_varchar=true, "
        f"delim={_sql_literal(delim)}, quote='\"', escape='\"', encoding='latin-1')"
    )
    names = rel.columns
    for row_no, row in enumerate(rel.fetchall(), start=1):
        for column, value in zip(names, row, strict=True):
            if value is None:
                continue
            try:
                value.encode("latin-1").decode("utf-8")
            except UnicodeDecodeError:
                return InputError(path.name, "text is not valid UTF-8", row=row_no, column=column)
    return InputError(path.name, "text is not valid UTF-8")


def _stage_csv(con: duckdb.DuckDBPyConnection, path: Path, raw: str) -> None:
    delim = "\t" if path.suffix == ".tsv" else ","
    if path.stat().st_size == 0:
        raise InputError(path.name, "the file is empty; it needs a header row")
    try:
        check_utf8(path)
    except InputError as exc:
        located = _locate_csv_encoding_error(con, path, delim)
        raise (located if located.row is not None else exc) from None
    rejects, scans = f"{raw}_rejects", f"{raw}_scans"
    try:
        con.execute(
            f"CREATE TEMP TABLE {raw} AS SELECT * FROM read_csv({_sql_literal(str(path))}, header=true, "
            f"all_varchar=true, delim={_sql_literal(delim)}, quote='\"', escape='\"', strict_mode=true, "
            f"store_rejects=true, rejects_table={_sql_literal(rejects)}, rejects_scan={_sql_literal(scans)})"
        )
    except duckdb.Error as exc:
        detail = " ".join(str(exc).splitlines()[:2]).replace("Invalid Input Error: ", "")
        raise InputError(path.name, f"cannot parse as {path.suffix[1:].upper()}: {detail}") from exc
    reject = con.execute(
        f"SELECT line, column_name, error_type, error_message FROM {rejects} ORDER BY line LIMIT 1"
    ).fetchone()
    if reject:
        line, column, error_type, message = reject
        detail = message.splitlines()[0] if message else str(error_type)
        where = f"line {line}"
        if column:
            where += f", column {column}"
        raise InputError(path.name, f"{where}: cannot parse: {detail}")


def _stage_jsonl(
    con: duckdb.DuckDBPyConnection, path: Path, raw: str, wanted: tuple[str, ...], list_columns: set[str]
) -> None:
    check_utf8(path)
    try:
        con.execute(f"CREATE TEMP TABLE {raw}_objects AS SELECT json FROM read_ndjson_objects({_sql_literal(str(path))})")
    except duckdb.Error as exc:
        message = str(exc).splitlines()[0]
        line = re.search(r"line (\d+)", message)
        detail = message.split(":", 2)[-1].strip() if ":" in message else message
        where = f"line {line.group(1)}: " if line else ""
        raise InputError(path.name, f"{where}malformed JSON: {detail}") from exc
    bad = con.execute(
        f"SELECT rowid + 1 FROM {raw}_objects WHERE json_type(json) <> 'OBJECT' ORDER BY rowid LIMIT 1"
    ).fetchone()
    if bad:
        raise InputError(path.name, "expected one JSON object per line", row=int(bad[0]))
    keys = {
        row[0]
        for row in con.execute(f"SELECT DISTINCT unnest(json_keys(json)) FROM {raw}_objects").fetchall()
    }
    if not keys:  # an empty file has no rows to lack a column: give it every wanted column
        columns = ", ".join(
            f"CAST(NULL AS {'VARCHAR[]' if c in list_columns else 'VARCHAR'}) AS {quote_ident(c)}" for c in wanted
        )
        con.execute(f"CREATE TEMP TABLE {raw} AS SELECT {columns} FROM {raw}_objects")
        return
    selects = []
    for key in sorted(keys):
        path_expr = _sql_literal("$." + '"' + key.replace('"', '\\"') + '"')
        extract = "json_extract" if key in list_columns else "json_extract_string"
        selects.append(f"{extract}(json, {path_expr}) AS {quote_ident(key)}")
    # qualified: a key named rowid would otherwise be the ORDER BY's output column
    con.execute(f"CREATE TEMP TABLE {raw} AS SELECT {', '.join(selects)} FROM {raw}_objects AS o ORDER BY o.rowid")


def _stage_parquet(con: duckdb.DuckDBPyConnection, path: Path, raw: str) -> None:
    try:
        con.execute(f"CREATE TEMP TABLE {raw} AS SELECT * FROM read_parquet({_sql_literal(str(path))})")
    except duckdb.Error as exc:
        raise InputError(path.name, f"cannot read Parquet: {str(exc).splitlines()[0]}") from exc


def _check_list_column(con: duckdb.DuckDBPyConnection, staged_name: str, raw: str, column: str) -> None:
    """A list column must hold a JSON array (or list) of scalar ids on every row that has it."""
    bad = con.execute(
        f"SELECT rowid + 1 FROM {raw} WHERE {quote_ident(column)} IS NOT NULL "
        f"AND try_cast({quote_ident(column)} AS VARCHAR[]) IS NULL ORDER BY rowid LIMIT 1"
    ).fetchone()
    if bad:
        raise InputError(staged_name, "expected a list of chunk ids", row=int(bad[0]), column=column)


def stage(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    kind: str,
    wanted: tuple[str, ...],
    list_columns: tuple[str, ...] = (),
) -> Staged:
    """Load ``path`` into ``temp.stg_<kind>`` (row_no, then the wanted columns the file has)."""
    raw = f"raw_{kind}"
    if path.suffix in (".csv", ".tsv"):
        _stage_csv(con, path, raw)
    elif path.suffix == ".jsonl":
        _stage_jsonl(con, path, raw, wanted, set(list_columns))
    else:
        _stage_parquet(con, path, raw)
    # a column named rowid would shadow the row order DuckDB keeps: evalwh reads no such column
    con.execute(f"ALTER TABLE {raw} DROP COLUMN IF EXISTS rowid")
    present = [
        row[0]
        for row in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE database_name = 'temp' AND table_name = ? "
            "ORDER BY column_index",
            [raw],
        ).fetchall()
    ]
    columns = frozenset(present)
    for column in list_columns:
        if column in columns:
            _check_list_column(con, path.name, raw, column)
    selects = ["rowid + 1 AS row_no"]
    for column in wanted:
        if column not in columns:
            continue
        cast_to = "VARCHAR[]" if column in list_columns else "VARCHAR"
        selects.append(f"CAST({quote_ident(column)} AS {cast_to}) AS {quote_ident(column)}")
    table = f"stg_{kind}"
    if path.suffix in (".csv", ".tsv"):
        # every column is already text: a view over the raw rows, in file order, copies nothing
        con.execute(f"CREATE TEMP VIEW {table} AS SELECT {', '.join(selects)} FROM {raw}")
        return Staged(kind=kind, path=path, table=f"temp.{table}", columns=columns)
    try:
        con.execute(f"CREATE TEMP TABLE {table} AS SELECT {', '.join(selects)} FROM {raw} ORDER BY rowid")
    except duckdb.ConversionException as exc:
        raise InputError(path.name, f"cannot read a column as text: {str(exc).splitlines()[0]}") from exc
    return Staged(kind=kind, path=path, table=f"temp.{table}", columns=columns)
