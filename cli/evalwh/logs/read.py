"""Reading log files into lines and records: JSONL (plain or gzip), one JSON document, a JSON array,
CSV or Parquet.

Every record lands in the temp table ``log_raw(file, line, record JSON)``, known by its file and
line (a CSV or Parquet file's row, a JSON array's element), so an error or a reject names where it
is. A clean file is read by DuckDB in one pass; a file with a blank line or a cut-off record is read
line by line, in parts, so one bad line does not hide the rest.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Generator, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import duckdb

from evalwh.errors import InputError, UsageError
from evalwh.loader.encoding import check_byte_order_mark, check_utf8, data_suffix, line_blocks, open_bytes
from evalwh.loader.strictjson import TRAILING_COMMA_SQL, json_error
from evalwh.sqltext import sql_literal
from evalwh.warehouse.connection import scalar

PART_BYTES = 1 << 25  # a log read a part at a time is read in parts of about 32 MiB


@dataclass(frozen=True)
class LogFile:
    """How one log file was read: its name in messages, its shape, and what its records are counted in."""

    label: str
    shape: str  # lines (JSON lines, or one JSON document), array (one JSON array), csv, parquet
    unit: str  # line, record (an element of a JSON array), row (of a CSV or Parquet file)


@dataclass
class LineBatch:
    """Files read into tables of their own and not yet into ``log_lines``: all of them go in with one
    INSERT, since appending file after file makes DuckDB merge the table's row groups again and again
    (a day of hourly files: bench/logs_1m.py)."""

    selects: list[str] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)

    def table(self, stem: str) -> str:
        """A new temporary table name for this batch."""
        name = f"{stem}_{len(self.tables)}"
        self.tables.append(name)
        return name

    def flush(self, con: duckdb.DuckDBPyConnection) -> None:
        """Insert every file's lines, then drop the tables."""
        if self.selects:
            # in any order (a line is known by its file and number): then DuckDB reads the files' tables in parallel
            con.execute("SET preserve_insertion_order = false")
            try:
                con.execute("INSERT INTO log_lines " + " UNION ALL ".join(self.selects))
            finally:
                con.execute("RESET preserve_insertion_order")
        for table in self.tables:
            con.execute(f"DROP TABLE IF EXISTS temp.{table}")
        self.selects.clear()
        self.tables.clear()


def file_labels(paths: Sequence[Path]) -> list[str]:
    """How each log file is named in its records' errors and rejects (and in ``log_batches``): its base
    name or, where two files of one import share a base name, the path as given. A record is known by
    (file, line), so the same file given twice is refused."""
    seen: set[Path] = set()
    for path in paths:
        if path.resolve() in seen:
            raise UsageError(f"{path}: the same log file is given twice")
        seen.add(path.resolve())
    names = Counter(path.name for path in paths)
    return [path.name if names[path.name] == 1 else str(path) for path in paths]


def read_raw(con: duckdb.DuckDBPyConnection, paths: list[Path], labels: list[str]) -> dict[str, LogFile]:
    """Fill ``log_raw`` with one row per record: JSONL lines (blank lines skipped), the elements of a
    JSON array, CSV or Parquet rows, or, for a JSON document that is not one object a line (an OTLP
    export), the whole file. Returns how each file was read, by its label."""
    con.execute("CREATE OR REPLACE TEMP TABLE log_lines (file VARCHAR, line BIGINT, record JSON, text VARCHAR)")
    batch = LineBatch()
    files: dict[str, LogFile] = {}
    for path, label in zip(paths, labels, strict=True):
        if not path.is_file():
            raise InputError(str(path), "no such file")
        files[label] = read_file(con, path, label, batch)
    batch.flush(con)
    con.execute("CREATE OR REPLACE TEMP TABLE bad (file VARCHAR, line BIGINT, error VARCHAR, raw VARCHAR)")
    con.execute("INSERT INTO bad SELECT file, line, 'not a JSON object', text FROM log_lines WHERE record IS NULL")
    # DuckDB also reads a comma before } or ], which JSON has not: the records that may hold one are parsed again
    suspects = con.execute("SELECT file, line, CAST(record AS VARCHAR) FROM log_lines WHERE record IS NOT NULL "
                           "AND regexp_matches(CAST(record AS VARCHAR), $comma) ORDER BY file, line",
                           {"comma": TRAILING_COMMA_SQL}).fetchall()
    malformed = [(file, line, reason, text) for file, line, text in suspects if (reason := json_error(text))]
    if malformed:
        con.executemany("INSERT INTO bad VALUES (?, ?, ?, ?)", malformed)
        con.execute("UPDATE log_lines SET text = CAST(record AS VARCHAR), record = NULL WHERE (file, line) IN "
                    "(SELECT (file, line) FROM bad)")
    raw_view(con)
    return files


def read_file(con: duckdb.DuckDBPyConnection, path: Path, label: str, batch: LineBatch) -> LogFile:
    """Read one file's records into ``log_lines`` (now, or with ``batch``) by its shape."""
    suffix = data_suffix(path).lower()
    if path.suffix.lower() == ".zst":
        raise InputError(label, "a zstd-compressed log is not read; decompress it (zstd -d) or gzip it")
    if suffix == ".parquet":
        _read_rows(con, label, batch, f"read_parquet({sql_literal(str(path))})", "Parquet")
        return LogFile(label, "parquet", "row")
    check_byte_order_mark(path)
    if suffix in (".csv", ".tsv"):
        check_utf8(path)
        delimiter = sql_literal("\t" if suffix == ".tsv" else ",")
        _read_rows(con, label, batch, f"read_csv({sql_literal(str(path))}, all_varchar = true, header = true, "
                                      f"delim = {delimiter})", "CSV")
        return LogFile(label, "csv", "row")
    if first_character(path) == "[":
        check_utf8(path)
        table = batch.table("file_records")
        try:
            con.execute(f"CREATE TEMP TABLE {table} AS SELECT json FROM "
                        f"read_json_objects({sql_literal(str(path))}, format = 'array')")
        except duckdb.Error as exc:
            raise InputError(label, f"cannot read as a JSON array: {str(exc).splitlines()[0]}") from exc
        batch.selects.append(f"SELECT {sql_literal(label)}, rowid + 1, CASE WHEN starts_with(json, '{{') THEN json END, "
                             f"CASE WHEN NOT starts_with(json, '{{') THEN json END FROM temp.{table}")
        return LogFile(label, "array", "record")
    if not read_json_lines_fast(con, path, label, batch=batch):
        # DuckDB's reader refuses text that is not UTF-8: only now is the file scanned, to name its encoding
        check_utf8(path)
        read_json_lines_in_parts(con, path, label)
    return LogFile(label, "lines", "line")


def _read_rows(con: duckdb.DuckDBPyConnection, label: str, batch: LineBatch, source: str, kind: str) -> None:
    """A table file's rows as records, each row's values under its column names (row n is record n)."""
    table = batch.table("file_records")
    try:
        con.execute(f"CREATE TEMP TABLE {table} AS SELECT to_json(t) AS json FROM {source} AS t")
    except duckdb.Error as exc:
        raise InputError(label, f"cannot read {kind}: {str(exc).splitlines()[0]}") from exc
    batch.selects.append(f"SELECT {sql_literal(label)}, rowid + 1, json, NULL FROM temp.{table}")


def first_character(path: Path) -> str:
    """The file's first character that is not white space (a byte-order mark skipped), or ''."""
    with open_bytes(path) as handle:
        head = handle.read(1 << 12).removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    return head[:1].decode("ascii", errors="replace")


@contextmanager
def plain_text(path: Path) -> Iterator[Path]:
    """The file itself or, for a gzip file, its text in a temporary file (DuckDB's read_text does not
    decompress), removed afterwards."""
    if path.suffix.lower() != ".gz":
        yield path
        return
    with tempfile.TemporaryDirectory(prefix="evalwh-log-") as scratch:
        text = Path(scratch) / path.stem
        with open_bytes(path) as source, text.open("wb") as target:
            shutil.copyfileobj(source, target, 1 << 20)
        yield text


def line_parts(path: Path, block: int) -> Generator[tuple[Path, int], None, None]:
    """The file's (decompressed) text in parts of whole lines of about ``block`` bytes, written in turn
    to one temporary file: ``(part, number of its first line)``."""
    with tempfile.TemporaryDirectory(prefix="evalwh-log-") as scratch:
        part, first_line = Path(scratch) / "part.jsonl", 1
        for data, _ in line_blocks(path, block):
            if data:
                part.write_bytes(data)
                yield part, first_line
                first_line += data.count(b"\n")


def read_json_lines_in_parts(con: duckdb.DuckDBPyConnection, path: Path, label: str) -> None:
    """A JSONL file with a line the NDJSON reader cannot parse, read a part at a time (bounded memory):
    each part by that reader where it can, else line-exact. A file that is one pretty-printed JSON
    document (an OTLP export) becomes one record."""
    batch = LineBatch()  # the parts it reads go in together, like whole files
    with closing(line_parts(path, PART_BYTES)) as parts:
        for part, first_line in parts:
            if not read_json_lines_fast(con, part, label, first_line, batch=batch):
                read_json_lines_exact(con, part, label, first_line)
    batch.flush(con)
    # one document over many lines has a first line that is no JSON value by itself; a file whose first
    # line is one is JSON lines, and the whole of it (which may be large) is not parsed as one
    literal = sql_literal(label)
    if scalar(con, f"SELECT arg_min(record IS NULL, line) FROM log_lines WHERE file = {literal}"):
        with plain_text(path) as text:
            name = sql_literal(str(text))
            if is_one_json_document(con, name):
                con.execute(f"DELETE FROM log_lines WHERE file = {literal}")
                con.execute(f"INSERT INTO log_lines SELECT {literal}, 1, content::JSON, NULL FROM read_text({name})")


def is_one_json_document(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether the file's whole text is one JSON object (False where it is too large to parse as one)."""
    try:
        return bool(scalar(con, f"SELECT json_valid(content) AND starts_with(ltrim(content, ' \t\r\n'), '{{') "
                                f"FROM read_text({name})"))
    except duckdb.OutOfMemoryException:
        return False


def raw_view(con: duckdb.DuckDBPyConnection, where: str = "TRUE") -> None:
    """``log_raw``: the records that are JSON objects and not set aside as bad (and meet ``where``)."""
    set_aside = scalar(con, "SELECT count(*) FROM temp.bad") > 0
    not_bad = ("NOT EXISTS (SELECT 1 FROM temp.bad AS b WHERE b.file = l.file AND b.line = l.line)"
               if set_aside else "TRUE")  # the usual case: no filter for every query to pay for
    con.execute(
        "CREATE OR REPLACE TEMP VIEW log_raw AS SELECT file, line, record FROM log_lines AS l "
        f"WHERE record IS NOT NULL AND {not_bad} AND {where}"
    )


def count_lines(path: Path, block: int = 1 << 22) -> int:
    """The number of lines: newlines, plus one for text after the last newline."""
    lines, last, buffer = 0, b"\n", bytearray(block)
    with open_bytes(path) as handle:
        while size := handle.readinto(buffer):  # into one buffer: no new bytes object a block
            lines += buffer.count(b"\n", 0, size)
            last = bytes(buffer[size - 1:size])
    return lines + (last != b"\n")


def blank_lines(path: Path) -> list[int]:
    """The numbers of the lines that hold nothing but spaces, tabs and carriage returns."""
    with open_bytes(path) as handle:
        return [number for number, line in enumerate(handle, 1) if not line.strip(b" \t\r\n")]


def read_json_lines_fast(con: duckdb.DuckDBPyConnection, path: Path, label: str, first_line: int = 1,
                          batch: LineBatch | None = None) -> bool:
    """One record a line, streamed by DuckDB's NDJSON reader; record n is line n once blank lines count
    (the file's first line is line ``first_line``). The lines go into ``log_lines`` now, or with the
    rest of ``batch`` when it is flushed.

    Returns False, reading nothing, when the reader cannot parse the lines (a malformed line), or
    when its records and the blank lines do not add up to the file's lines; the exact reader then
    takes over.
    """
    own = batch is None
    batch = LineBatch() if batch is None else batch
    name, records_table = sql_literal(str(path)), batch.table("file_records")
    with ThreadPoolExecutor(max_workers=1) as pool:
        counted = pool.submit(count_lines, path)  # as DuckDB reads the file (it releases the GIL meanwhile)
        try:
            con.execute(f"CREATE TEMP TABLE {records_table} AS SELECT json FROM read_ndjson_objects({name})")
        except duckdb.Error:
            return False
        records, lines = scalar(con, f"SELECT count(*) FROM temp.{records_table}"), counted.result()
    # the reader skips blank lines: record k is line k plus the blank lines before it
    blanks = blank_lines(path) if records != lines else []
    if records + len(blanks) != lines:  # a line the reader skipped that is not blank here: read it line-exact
        con.execute(f"DROP TABLE temp.{records_table}")
        return False
    line = f"rowid + {int(first_line)}"
    if blanks:
        # blank line j (1-based) comes after (its number - j) records; record k after the blanks with fewer
        offsets, numbered = batch.table("blank_offsets"), batch.table("numbered_records")
        con.execute(f"CREATE TEMP TABLE {offsets} AS SELECT line - j AS records_before, max(j) AS blanks "
                    "FROM (SELECT unnest($blanks) AS line, generate_subscripts($blanks, 1) AS j) GROUP BY ALL",
                    {"blanks": blanks})
        con.execute(f"CREATE TEMP TABLE {numbered} AS SELECT r.json, "
                    f"r.k + coalesce(b.blanks, 0) + {int(first_line) - 1} AS line "
                    f"FROM (SELECT rowid + 1 AS k, json FROM temp.{records_table}) AS r "
                    f"ASOF LEFT JOIN temp.{offsets} AS b ON r.k > b.records_before")
        records_table, line = numbered, "line"
    # the reader hands each line's JSON value over without its surrounding white space: an object is one
    # that starts with a brace (no need to parse every record again to ask its type); any other value is
    # kept as text, for its reject
    batch.selects.append(
        f"SELECT {sql_literal(label)}, {line}, CASE WHEN starts_with(json, '{{') THEN json END, "
        f"CASE WHEN NOT starts_with(json, '{{') THEN json END FROM temp.{records_table}"
    )
    if own:
        batch.flush(con)
    return True


def read_json_lines_exact(con: duckdb.DuckDBPyConnection, path: Path, label: str, first_line: int = 1) -> None:
    """Split the file into lines to keep exact line numbers (slower; for text with lines the NDJSON
    reader cannot parse). A line's text is kept only where it is not a JSON object (its reject's raw text)."""
    name, label = sql_literal(str(path)), sql_literal(label)
    # a valid JSON value is an object when it starts with a brace (past the white space JSON allows)
    con.execute(
        f"INSERT INTO log_lines SELECT {label}, i + {int(first_line) - 1}, CASE WHEN is_object THEN text::JSON END, "
        "CASE WHEN NOT is_object THEN text END "
        "FROM (SELECT l.text, l.i, json_valid(l.text) AND starts_with(ltrim(l.text, ' \t\r'), '{') AS is_object "
        f"      FROM (SELECT string_split(content, chr(10)) AS lines FROM read_text({name})) AS f, "
        "           unnest(f.lines) WITH ORDINALITY AS l(text, i) WHERE trim(l.text, ' \t\r') <> '')"
    )
