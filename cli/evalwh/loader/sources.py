"""Reading one input file into a staging table, whatever its format.

A run directory holds ``chunks``, ``claims``, ``citations`` and ``questions``
(and optionally ``retrievals``, ``responses``, ``grades``), each as ``.csv``,
``.tsv``, ``.jsonl`` or ``.parquet``, plus ``run.toml`` and ``stopwords.txt``.
DuckDB's readers do the parsing; this module picks the reader, checks the bytes
are UTF-8 first (so the error can name the line), refuses files and columns it
does not know and values of the wrong type, and leaves a temp table
``stg_<kind>`` with a 1-based ``row_no`` and every known column as VARCHAR
(list columns as VARCHAR[]).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import duckdb

from evalwh.errors import SHOWN_CHARACTERS, InputError, closest
from evalwh.loader.encoding import (
    COMPRESSIONS,
    check_byte_order_mark,
    check_utf8,
    data_suffix,
    looks_like,
    open_bytes,
    readable_here,
)
from evalwh.loader.locate import csv_bad_utf8, csv_syntax_error
from evalwh.loader.strictjson import TRAILING_COMMA_SQL, first_invalid, json_error
from evalwh.sqltext import sql_identifier, sql_literal
from evalwh.warehouse.connection import one

FORMATS: tuple[str, ...] = (".csv", ".tsv", ".jsonl", ".parquet")
TEXT_FORMATS = frozenset({".csv", ".tsv", ".jsonl"})
OTHER_FILES: tuple[str, ...] = ("run.toml", "stopwords.txt")
# names that look like something a user meant evalwh to read
INPUT_SUFFIXES = {*FORMATS, ".json", ".ndjson", ".txt", ".toml", ".xlsx", ".gz", ".zst", ".bz2", ".zip"}
# DuckDB's default longest CSV line; a file with longer lines is read again with room for them
DEFAULT_MAX_LINE = 2_000_000
MAX_LINE_RETRIES = 4


@dataclass(frozen=True)
class Staged:
    """An input file loaded into ``temp.<table>``; ``columns`` are those the file has."""

    kind: str
    path: Path
    table: str
    columns: frozenset[str]
    extra: tuple[str, ...] = ()  # columns evalwh does not read, in file order (refused unless --allow-extra)

    @property
    def name(self) -> str:
        """The file name used in error messages."""
        return self.path.name


@dataclass(frozen=True)
class ValueType:
    """What a column may hold in a typed format: the JSON types and the Parquet (DuckDB) types allowed."""

    described: str
    json_types: frozenset[str]
    duckdb_types: frozenset[str]


INTEGER_TYPES = frozenset({"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT",
                           "UINTEGER", "UBIGINT", "UHUGEINT"})
TEXT = ValueType("a string", frozenset({"VARCHAR"}), frozenset({"VARCHAR"}))
TEXT_LIST = ValueType("a list of chunk ids", frozenset({"ARRAY"}), frozenset({"VARCHAR[]"}))
WHOLE_NUMBER = ValueType("a whole number", frozenset({"BIGINT", "UBIGINT", "DOUBLE", "VARCHAR"}),
                         INTEGER_TYPES | {"VARCHAR"})
NUMBER = ValueType("a number", frozenset({"BIGINT", "UBIGINT", "DOUBLE", "VARCHAR"}),
                   INTEGER_TYPES | {"FLOAT", "DOUBLE", "VARCHAR"})
BOOLEAN = ValueType("true or false", frozenset({"BOOLEAN", "VARCHAR"}), frozenset({"BOOLEAN", "VARCHAR"}))
# acceptable answers: one string of variants separated by |, or (in JSON Lines) a list of them
ANSWERS = ValueType("a string or a list of strings", frozenset({"VARCHAR", "ARRAY"}), frozenset({"VARCHAR"}))
# columns that are not text; every other column is TEXT, list columns TEXT_LIST
TYPED_COLUMNS: dict[str, ValueType] = {"rank": WHOLE_NUMBER, "score": NUMBER, "refused": BOOLEAN,
                                       "acceptable_answers": ANSWERS}


def value_type(column: str, list_columns: Iterable[str]) -> ValueType:
    """The type a column of an input file must have."""
    return TEXT_LIST if column in list_columns else TYPED_COLUMNS.get(column, TEXT)


def check_directory(directory: Path, kinds: Iterable[str], allow_extra: bool) -> None:
    """Every input-looking entry of a run folder is one evalwh reads, and each of those is a readable file.

    Dot files and files that do not look like input (README.md, notes.pdf) are left alone; with
    ``allow_extra`` unknown input-looking files are too.
    """
    kinds = set(kinds)
    known = {name for kind in kinds for name in input_names(kind)} | set(OTHER_FILES)
    for entry in sorted(directory.iterdir()):
        name = entry.name
        if name.startswith("."):
            continue
        if name in known:
            if entry.is_symlink() and not entry.exists():
                raise InputError(name, f"broken link (it points to {str(entry.readlink())!r}, which does not exist)")
            if entry.is_dir():
                raise InputError(name, "is a directory, not a file")
            if not entry.is_file():
                raise InputError(name, "is not a regular file")
            continue
        stem = name.split(".", 1)[0].lower()
        looks_like_input = entry.suffix.lower() in INPUT_SUFFIXES or stem in kinds | {"run", "stopwords"}
        if looks_like_input and not allow_extra:
            raise InputError(name, f"not a file evalwh reads{closest(name, known)}; rename it, "
                                   "or pass --allow-extra to ignore it")


def input_names(kind: str) -> list[str]:
    """The file names an input of ``kind`` may have: each format, text formats also gzip or zstd compressed."""
    return [f"{kind}{ext}{compression}" for ext in FORMATS
            for compression in ("", *(COMPRESSIONS if ext in TEXT_FORMATS else ()))]


def find_input(directory: Path, kind: str) -> Path | None:
    """The one file ``<kind>.<format>[.gz|.zst]`` in ``directory``, or None; two at once is an error."""
    found = [directory / name for name in input_names(kind) if (directory / name).is_file()]
    if len(found) > 1:
        names = " and ".join(p.name for p in found)
        raise InputError(str(directory), f"both {names} are present; keep one")
    return found[0] if found else None


# how evalwh reads a CSV or TSV file: RFC 4180 quoting, the delimiter by the file's suffix
CSV_QUOTING = "quote='\"', escape='\"'"
TSV_QUOTING = "quote='', escape=''"  # TSV has no quoting: a field may start with a double quote


def quoting(delim: str) -> str:
    """The reader options for quotes in a file of this delimiter: CSV's doubled double quotes, or none in TSV."""
    return TSV_QUOTING if delim == "\t" else CSV_QUOTING


def csv_delimiter(path: Path) -> str:
    """A tab for ``.tsv`` (plain or compressed), else a comma."""
    return "\t" if data_suffix(path) == ".tsv" else ","


def _reader_message(exc: duckdb.Error) -> str:
    """The first lines of a DuckDB reader error, with any echoed data cut to 200 characters."""
    detail = " ".join(str(exc).splitlines()[:2]).replace("Invalid Input Error: ", "")
    return re.sub(r"(Original Line: )(.{%d}).+" % SHOWN_CHARACTERS, r"\1\2…", detail)


def _check_csv_utf8(path: Path, delim: str) -> None:
    """Raise the encoding error, with its row and column, if the file is not UTF-8.

    DuckDB's reader rejects every byte sequence that is not UTF-8, so this full scan of the file
    runs only once the reader has failed or set a row aside: a valid file is read once.
    """
    try:
        check_utf8(path)
    except InputError as exc:
        located = csv_bad_utf8(path, delim)
        if located is None:
            raise
        row, column, line = located
        raise InputError(path.name, exc.detail.split(": ", 1)[1], row=row, column=column,
                         line=None if line == row + 1 else line) from None


def _check_header_utf8(path: Path) -> None:
    """Raise InputError if the header line is not UTF-8: DuckDB's reader would set it aside as a bad
    row and take the next line for the header, and the error would be a missing column."""
    if not readable_here(path):
        return
    with open_bytes(path) as handle:
        header = handle.readline()
    try:
        header.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path.name, f"line 1 (the header), byte {exc.start + 1}: text is not valid UTF-8; "
                                    f"{looks_like(header, exc.start)}; save it as UTF-8") from None


def _stage_csv(con: duckdb.DuckDBPyConnection, path: Path, raw: str) -> None:
    delim = csv_delimiter(path)
    if path.stat().st_size == 0:
        raise InputError(path.name, "the file is empty; it needs a header row")
    check_byte_order_mark(path)
    _check_header_utf8(path)
    rejects, scans = f"{raw}_rejects", f"{raw}_scans"
    max_line = DEFAULT_MAX_LINE
    for _ in range(MAX_LINE_RETRIES):
        try:
            con.execute(
                f"CREATE TEMP TABLE {raw} AS SELECT * FROM read_csv({sql_literal(str(path))}, header=true, "
                f"all_varchar=true, delim={sql_literal(delim)}, {quoting(delim)}, strict_mode=true, "
                f"max_line_size={max_line}, store_rejects=true, rejects_table={sql_literal(rejects)}, "
                f"rejects_scan={sql_literal(scans)})"
            )
            break
        except duckdb.OutOfMemoryException:
            raise  # the file may be fine: the machine, or --memory-limit, is too small for it
        except duckdb.Error as exc:
            longer = re.search(r"Maximum line size of \d+ bytes exceeded\. Actual Size:\s*(\d+)", str(exc))
            if longer:  # a valid file with long lines: read it again with room for them
                max_line = max(2 * max_line, int(longer.group(1)) + 1)
                continue
            _check_csv_utf8(path, delim)
            where = csv_syntax_error(path, delim)
            detail = where if where is not None else _reader_message(exc)
            raise InputError(path.name, f"cannot parse as {data_suffix(path)[1:].upper()}: {detail}") from exc
    else:
        raise InputError(path.name, f"a line is longer than {max_line:,} bytes")
    rejects_found = con.execute(
        f"SELECT line, column_name, error_type, error_message FROM {rejects} ORDER BY line LIMIT 1"
    ).fetchall()
    reject = rejects_found[0] if rejects_found else None
    if reject:
        _check_csv_utf8(path, delim)
        line, column, error_type, message = reject
        detail = message.splitlines()[0] if message else str(error_type)
        where = f"line {line}"
        if column:
            where += f", column {column}"
        raise InputError(path.name, f"{where}: cannot parse: {detail}")


def _json_path(key: str) -> str:
    return sql_literal("$." + '"' + key.replace('"', '\\"') + '"')


def first_bad_json_line(path: Path) -> tuple[int, str] | None:
    """(line, reason) of the first line of a JSON-lines file that is neither blank nor JSON, or None."""
    if not readable_here(path):
        return None
    with open_bytes(path) as handle:
        for line_no, raw in enumerate(handle, start=1):  # lines end at \n only, as the NDJSON reader's do
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n")
            reason = json_error(text) if text.strip() else None
            if reason is not None:
                return line_no, reason
    return None


def _stage_jsonl(
    con: duckdb.DuckDBPyConnection, path: Path, raw: str, wanted: tuple[str, ...], list_columns: set[str]
) -> tuple[str, ...]:
    """Stage the wanted keys of every record; returns the other keys found, in order of first use."""
    check_utf8(path)
    try:
        con.execute(f"CREATE TEMP TABLE {raw}_objects AS SELECT json FROM read_ndjson_objects({sql_literal(str(path))})")
    except duckdb.Error as exc:
        # DuckDB's message counts lines its own way (one too many after a record cut short): the line is
        # found here, with Python's reason
        found = first_bad_json_line(path)
        if found is None:
            message = str(exc).splitlines()[0]
            raise InputError(path.name, f"malformed JSON: {message.split(':', 2)[-1].strip()}") from exc
        raise InputError(path.name, f"line {found[0]}: {found[1]}") from None
    # DuckDB also reads a comma before } or ], which JSON has not: the records that may hold one are parsed again
    suspects = con.execute(f"SELECT rowid, json FROM {raw}_objects WHERE regexp_matches(json, "
                           f"{sql_literal(TRAILING_COMMA_SQL)}) ORDER BY rowid").fetchall()
    if first_invalid(suspects) is not None:
        found = first_bad_json_line(path)
        raise InputError(path.name, f"line {found[0]}: {found[1]}" if found else "malformed JSON")
    bad = con.execute(
        f"SELECT rowid + 1 FROM {raw}_objects WHERE json_type(json) <> 'OBJECT' ORDER BY rowid LIMIT 1"
    ).fetchall()
    if bad:
        raise InputError(path.name, "expected one JSON object per line", row=int(bad[0][0]))
    written = dict(con.execute(  # each key and how often it is written, in order of first use
        f"SELECT key, count(*) FROM (SELECT unnest(json_keys(json)) AS key, rowid AS r FROM {raw}_objects) "
        "GROUP BY key ORDER BY min(r), key").fetchall())
    keys = list(written)
    present = [key for key in wanted if key in keys]
    holders = _check_json_types(con, path.name, f"{raw}_objects", present, list_columns)
    repeated = [key for key in present if written[key] > holders[key]]
    if repeated:
        _raise_repeated_key(con, path.name, f"{raw}_objects", repeated)
    if not present:  # no record has a known key (or there are none): every wanted key is missing
        present = list(wanted)
    selects = []
    for key in present:
        if value_type(key, list_columns) is ANSWERS:  # a list of answers becomes the |-separated string
            selects.append(f"CASE WHEN json_type(json, {_json_path(key)}) = 'ARRAY' THEN "
                           f"array_to_string(CAST(json_extract(json, {_json_path(key)}) AS VARCHAR[]), '|') "
                           f"ELSE json_extract_string(json, {_json_path(key)}) END AS {sql_identifier(key)}")
            continue
        extract = "json_extract" if key in list_columns else "json_extract_string"
        selects.append(f"{extract}(json, {_json_path(key)}) AS {sql_identifier(key)}")
    # qualified: a key named rowid would otherwise be the ORDER BY's output column
    con.execute(f"CREATE TEMP TABLE {raw} AS SELECT {', '.join(selects)} FROM {raw}_objects AS o ORDER BY o.rowid")
    return tuple(key for key in keys if key not in wanted)


def _raise_repeated_key(con: duckdb.DuckDBPyConnection, name: str, objects: str, keys: list[str]) -> None:
    """Name the first record that writes one of ``keys`` twice: which value counts differs between JSON
    parsers (DuckDB reads the first, Python's json the last), so such a record has no one right reading."""
    known = "[" + ", ".join(sql_literal(key) for key in keys) + "]"
    row, key = one(
        con,
        f"SELECT rowid + 1, list_filter(k, lambda key, i: list_position(k, key) < i)[1] "
        f"FROM (SELECT rowid, list_filter(json_keys(json), lambda key: list_contains({known}, key)) AS k "
        f"FROM {objects}) WHERE len(k) > len(list_distinct(k)) ORDER BY rowid LIMIT 1",
    )
    raise InputError(name, "the record holds this key twice; keep one", row=int(row), column=shown_name(key))


def _check_json_types(
    con: duckdb.DuckDBPyConnection, name: str, objects: str, keys: list[str], list_columns: set[str]
) -> dict[str, int]:
    """Every value is of its column's JSON type (or null); a list holds only strings.

    Returns how many records hold each key."""
    if not keys:
        return {}
    tests = []
    for key in keys:
        kind = value_type(key, list_columns)
        allowed = ", ".join(sql_literal(t) for t in sorted(kind.json_types | {"NULL"}))
        test = f"coalesce(json_type(json, {_json_path(key)}), 'NULL') NOT IN ({allowed})"
        if kind is TEXT_LIST:
            test += (f" OR coalesce(list_bool_or(list_transform(json_extract(json, {_json_path(key)[:-1]}[*]'), "
                     "lambda e: json_type(e) <> 'VARCHAR')), FALSE)")
        elif kind is ANSWERS:  # a list's answers are joined with |, so none may hold one
            test += (f" OR coalesce(list_bool_or(list_transform(json_extract(json, {_json_path(key)[:-1]}[*]'), "
                     "lambda e: json_type(e) <> 'VARCHAR' OR contains(e ->> '$', '|'))), FALSE)")
        tests.append(f"min(CASE WHEN {test} THEN rowid END), count(json_type(json, {_json_path(key)}))")
    results = next(iter(con.execute(f"SELECT {', '.join(tests)} FROM {objects}").fetchall()), ())
    firsts, holders = results[0::2], results[1::2]
    found = [(row, key) for row, key in zip(firsts, keys, strict=True) if row is not None]
    if found:
        row, key = min(found)
        actual = one(con, f"SELECT json_type(json, {_json_path(key)}) FROM {objects} WHERE rowid = ?", [row])[0]
        kind = value_type(key, list_columns)
        what = "a list holding a value that is not a string" if kind is TEXT_LIST and actual == "ARRAY" \
            else "a list holding a value that is not a string without |" if kind is ANSWERS and actual == "ARRAY" \
            else JSON_TYPE_NAMES.get(actual, actual)
        raise InputError(name, f"expected {kind.described}, found {what}", row=int(row) + 1, column=key)
    return dict(zip(keys, holders, strict=True))


def _stage_parquet(con: duckdb.DuckDBPyConnection, path: Path, raw: str) -> None:
    try:
        con.execute(f"CREATE TEMP TABLE {raw} AS SELECT * FROM read_parquet({sql_literal(str(path))})")
    except duckdb.Error as exc:
        raise InputError(path.name, f"cannot read Parquet: {str(exc).splitlines()[0]}") from exc


def _check_parquet_types(name: str, types: Mapping[str, str], list_columns: set[str]) -> None:
    """Every known column of a Parquet file has a type its values can be read as without change."""
    for column, duckdb_type in types.items():
        kind = value_type(column, list_columns)
        if duckdb_type not in kind.duckdb_types:
            raise InputError(name, f"expected {kind.described}, found a column of type {duckdb_type}", column=column)


def renamed_duplicates(columns: list[str]) -> bool:
    """Whether DuckDB may have renamed a repeated column: it reads a second ``text`` (or ``Text``, as
    names are case-insensitive) as ``text_1``, ``Text_1``."""
    lowered = {column.lower() for column in columns}
    return any((m := re.fullmatch(r"(.+)_\d+", column)) and m.group(1).lower() in lowered for column in columns)


def file_columns(con: duckdb.DuckDBPyConnection, path: Path, fmt: str) -> list[str]:
    """The column names as the file writes them (DuckDB's readers rename repeated ones)."""
    if fmt == ".parquet":
        fields = con.execute(f"SELECT name, coalesce(num_children, 0) FROM parquet_schema({sql_literal(str(path))})"
                             ).fetchall()
        names, position = [], 1  # the root's children in order, each followed by its own subtree
        while position < len(fields):
            names.append(fields[position][0])
            pending = 1
            while pending:  # skip the field and everything below it
                pending += fields[position][1] - 1
                position += 1
        return names
    header = con.execute(
        f"SELECT * FROM read_csv({sql_literal(str(path))}, header=false, all_varchar=true, "
        f"delim={sql_literal(csv_delimiter(path))}, {quoting(csv_delimiter(path))}) LIMIT 1"
    ).fetchall()
    return [str(value) for value in (header[0] if header else ())]


def _check_repeated_columns(con: duckdb.DuckDBPyConnection, path: Path, fmt: str) -> None:
    """Refuse a file whose header names one column twice (names compared as DuckDB does, ignoring case)."""
    seen: dict[str, int] = {}
    for number, column in enumerate(file_columns(con, path, fmt), start=1):
        first = seen.setdefault(column.lower(), number)
        if first != number:
            raise InputError(path.name, f"columns {first} and {number} have the same name; keep one",
                             column=shown_name(column))


def reject_extra_columns(staged: Staged, wanted: tuple[str, ...]) -> None:
    """Refuse the first column evalwh does not read, suggesting the closest known name."""
    for column in staged.extra:
        raise InputError(staged.name, f"unknown column{closest(column, wanted)}; pass --allow-extra to ignore it",
                         column=shown_name(column))


def shown_name(name: str) -> str:
    """A column name as a message shows it: as written if plain, else quoted; at most 60 characters."""
    shown = name if name.isprintable() and name.strip() == name and name else repr(name)
    return shown if len(shown) <= 60 else shown[:59] + "…"


JSON_TYPE_NAMES = {"VARCHAR": "a string", "BIGINT": "a number", "UBIGINT": "a number", "DOUBLE": "a number",
                   "BOOLEAN": "true or false", "OBJECT": "an object", "ARRAY": "a list"}


def _check_list_column(con: duckdb.DuckDBPyConnection, staged_name: str, raw: str, column: str) -> None:
    """A list column must hold a JSON array (or list) of scalar ids on every row that has it."""
    bad = con.execute(
        f"SELECT rowid + 1 FROM {raw} WHERE {sql_identifier(column)} IS NOT NULL "
        f"AND try_cast({sql_identifier(column)} AS VARCHAR[]) IS NULL ORDER BY rowid LIMIT 1"
    ).fetchall()
    if bad:
        raise InputError(staged_name, "expected a list of chunk ids", row=int(bad[0][0]), column=column)


def stage(
    con: duckdb.DuckDBPyConnection,
    path: Path,
    kind: str,
    wanted: tuple[str, ...],
    list_columns: tuple[str, ...] = (),
    allow_extra: bool = False,
) -> Staged:
    """Load ``path`` into ``temp.stg_<kind>`` (row_no, then the wanted columns the file has).

    A column outside ``wanted`` is an error unless ``allow_extra``, when it is ignored.
    """
    raw = f"raw_{kind}"
    unread: tuple[str, ...] = ()
    fmt = data_suffix(path)
    if fmt in (".csv", ".tsv"):
        _stage_csv(con, path, raw)
    elif fmt == ".jsonl":
        unread = _stage_jsonl(con, path, raw, wanted, set(list_columns))
    else:
        _stage_parquet(con, path, raw)
    types = dict(con.execute(
        "SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = 'temp' AND table_name = ? "
        "ORDER BY column_index",
        [raw],
    ).fetchall())
    if fmt != ".jsonl" and renamed_duplicates(list(types)):
        _check_repeated_columns(con, path, fmt)
    extra = () if allow_extra else unread + tuple(column for column in types if column not in wanted)
    if "rowid" in types:  # ignored with --allow-extra; renamed, as it would shadow the row order DuckDB keeps
        taken = {column.lower() for column in types}
        free = next(name for n in range(1, len(types) + 2)
                    if (name := "rowid (input)" if n == 1 else f"rowid (input {n})").lower() not in taken)
        con.execute(f"ALTER TABLE {raw} RENAME COLUMN rowid TO {sql_identifier(free)}")
    types = {column: t for column, t in types.items() if column in wanted}
    if fmt == ".parquet":
        _check_parquet_types(path.name, types, set(list_columns))
    columns = frozenset(types)
    for column in list_columns:
        if column in columns:
            _check_list_column(con, path.name, raw, column)
    selects = ["rowid + 1 AS row_no"]
    for column in wanted:
        if column not in columns:
            continue
        cast_to = "VARCHAR[]" if column in list_columns else "VARCHAR"
        selects.append(f"CAST({sql_identifier(column)} AS {cast_to}) AS {sql_identifier(column)}")
    table = f"stg_{kind}"
    if fmt in (".csv", ".tsv"):
        # every column is already text: a view over the raw rows, in file order, copies nothing
        con.execute(f"CREATE TEMP VIEW {table} AS SELECT {', '.join(selects)} FROM {raw}")
        return Staged(kind=kind, path=path, table=f"temp.{table}", columns=columns, extra=extra)
    try:
        con.execute(f"CREATE TEMP TABLE {table} AS SELECT {', '.join(selects)} FROM {raw} ORDER BY rowid")
    except duckdb.ConversionException as exc:
        raise InputError(path.name, f"cannot read a column as text: {str(exc).splitlines()[0]}") from exc
    return Staged(kind=kind, path=path, table=f"temp.{table}", columns=columns, extra=extra)
