"""Importing production logs: read log files with DuckDB, normalise them by format, append a batch.

Each format is three SELECTs in ``sql/logformats/<format>_{requests,retrievals,citations}.sql``
over the temp table ``log_raw(file, line, record JSON)``. Records are validated before
anything is written; a malformed one stops the import with its file and line, or with
``skip_bad`` is set aside in ``log_rejects``. A request already in the warehouse (same
source and request id) is skipped, so importing a file twice adds nothing.
"""

from __future__ import annotations

import datetime as dt
import shutil
import tempfile
import uuid
from collections import Counter
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from importlib.resources import files as package_files
from importlib.resources.abc import Traversable
from pathlib import Path

import duckdb
from evalwh.errors import InputError, UsageError
from evalwh.nativetext import register_native_macros
from evalwh.progress import progress
from evalwh.encoding import check_byte_order_mark, check_utf8, line_blocks, open_bytes
from evalwh.sqltext import sql_literal
from evalwh.textnorm import register_udfs
from evalwh.warehouse import attach, migrate, new_connection, one, scalar

# DuckDB's buffers; the process peaks about 130 MiB above it (1,330 MiB importing 1,000,000 requests, as
# fast as at 1,300 MB, which peaked at 1,430 MiB); at 1 GB that import spilled to disk (about 10% slower)
MEMORY_LIMIT = "1200MB"
PART_BYTES = 1 << 25  # a log read a part at a time is read in parts of about 32 MiB
FORMATS: tuple[str, ...] = ("evalwh", "openinference", "otlp", "anthropic", "ragas")
PARTS: tuple[str, ...] = ("requests", "retrievals", "citations")


@dataclass(frozen=True)
class ImportResult:
    """What an import added."""

    log_batch_id: str | None  # None when nothing was new, and no batch was recorded
    source: str
    requests: int
    skipped: int
    rejects: int
    retrievals: int
    citations: int


@dataclass
class _LineBatch:
    """Files read into tables of their own and not yet into ``log_lines``: all of them go in with one
    INSERT, since appending file after file made DuckDB merge the table's row groups again and again
    (24 hourly files of 1,000,000 lines in all: 0.6 s every 250,000 lines, 1.8 s in all)."""

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


def _format_file(name: str) -> Traversable:
    return package_files("evalwh.sql") / "logformats" / f"{name}.sql"


def _format_sql(fmt: str, part: str) -> str:
    """The format's SELECT for ``part``.

    A format without its own retrievals ranks the documents its spans list (ranked_documents.sql).
    A format without its own citations cites by [n] markers in its answers; where it also has
    provider citations (``<format>_provider_citations.sql``), those win for their requests.
    """
    own = _format_file(f"{fmt}_{part}")
    if own.is_file() or part == "requests":
        return own.read_text(encoding="utf-8")
    if part == "retrievals":
        return _format_file("ranked_documents").read_text(encoding="utf-8")
    markers = _format_file("marker_citations").read_text(encoding="utf-8")
    provider = _format_file(f"{fmt}_provider_citations")
    if not provider.is_file():
        return markers
    return (f"WITH provider AS ({provider.read_text(encoding='utf-8')}), markers AS ({markers}) "
            "SELECT * FROM provider UNION ALL "
            "SELECT * FROM markers WHERE request_id NOT IN (SELECT request_id FROM provider)")


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


def _read_raw(con: duckdb.DuckDBPyConnection, paths: list[Path], labels: list[str]) -> None:
    """Fill ``log_raw`` with one row per record: JSONL lines (blank lines skipped), Parquet rows,
    or, for a JSON document that is not one object a line (an OTLP export), the whole file."""
    con.execute("CREATE OR REPLACE TEMP TABLE log_lines (file VARCHAR, line BIGINT, record JSON, text VARCHAR)")
    batch = _LineBatch()
    for path, label in zip(paths, labels, strict=True):
        if not path.is_file():
            raise InputError(str(path), "no such file")
        name = sql_literal(str(path))
        if path.suffix == ".parquet":
            table = batch.table("file_records")
            try:
                con.execute(f"CREATE TEMP TABLE {table} AS SELECT to_json(t) AS json FROM read_parquet({name}) AS t")
            except duckdb.Error as exc:
                raise InputError(label, f"cannot read Parquet: {str(exc).splitlines()[0]}") from exc
            batch.selects.append(f"SELECT {sql_literal(label)}, rowid + 1, json, NULL FROM temp.{table}")
            continue
        if path.suffix.lower() == ".zst":
            raise InputError(label, "a zstd-compressed log is not read; decompress it (zstd -d) or gzip it")
        check_byte_order_mark(path)
        if not _read_json_lines_fast(con, path, label, batch=batch):
            # DuckDB's reader refuses text that is not UTF-8: only now is the file scanned, to name its encoding
            check_utf8(path)
            _read_json_lines_in_parts(con, path, label)
    batch.flush(con)
    con.execute("CREATE OR REPLACE TEMP TABLE bad (file VARCHAR, line BIGINT, error VARCHAR, raw VARCHAR)")
    con.execute("INSERT INTO bad SELECT file, line, 'not a JSON object', text FROM log_lines WHERE record IS NULL")
    _raw_view(con)


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


def line_parts(path: Path, block: int) -> Iterator[tuple[Path, int]]:
    """The file's (decompressed) text in parts of whole lines of about ``block`` bytes, written in turn
    to one temporary file: ``(part, number of its first line)``."""
    with tempfile.TemporaryDirectory(prefix="evalwh-log-") as scratch:
        part, first_line = Path(scratch) / "part.jsonl", 1
        for data, _ in line_blocks(path, block):
            if data:
                part.write_bytes(data)
                yield part, first_line
                first_line += data.count(b"\n")


def _read_json_lines_in_parts(con: duckdb.DuckDBPyConnection, path: Path, label: str) -> None:
    """A JSONL file with a line the NDJSON reader cannot parse, read a part at a time (bounded memory):
    each part by that reader where it can, else line-exact. A file that is one pretty-printed JSON
    document (an OTLP export) becomes one record."""
    batch = _LineBatch()  # the parts it reads go in together, like whole files
    with closing(line_parts(path, PART_BYTES)) as parts:
        for part, first_line in parts:
            if not _read_json_lines_fast(con, part, label, first_line, batch=batch):
                _read_json_lines_exact(con, part, label, first_line)
    batch.flush(con)
    # one document over many lines has a first line that is no JSON value by itself; a file whose first
    # line is one is JSON lines, and the whole of it (which may be large) is not parsed as one
    literal = sql_literal(label)
    if scalar(con, f"SELECT arg_min(record IS NULL, line) FROM log_lines WHERE file = {literal}"):
        with plain_text(path) as text:
            name = sql_literal(str(text))
            if _is_one_json_document(con, name):
                con.execute(f"DELETE FROM log_lines WHERE file = {literal}")
                con.execute(f"INSERT INTO log_lines SELECT {literal}, 1, content::JSON, NULL FROM read_text({name})")


def _is_one_json_document(con: duckdb.DuckDBPyConnection, name: str) -> bool:
    """Whether the file's whole text is one JSON object (False where it is too large to parse as one)."""
    try:
        return bool(scalar(con, f"SELECT json_valid(content) AND starts_with(ltrim(content, ' \t\r\n'), '{{') "
                                f"FROM read_text({name})"))
    except duckdb.OutOfMemoryException:
        return False


def _raw_view(con: duckdb.DuckDBPyConnection, where: str = "TRUE") -> None:
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


def _read_json_lines_fast(con: duckdb.DuckDBPyConnection, path: Path, label: str, first_line: int = 1,
                          batch: _LineBatch | None = None) -> bool:
    """One record a line, streamed by DuckDB's NDJSON reader; record n is line n once blank lines count
    (the file's first line is line ``first_line``). The lines go into ``log_lines`` now, or with the
    rest of ``batch`` when it is flushed.

    Returns False, reading nothing, when the reader cannot parse the lines (a malformed line), or
    when its records and the blank lines do not add up to the file's lines; the exact reader then
    takes over.
    """
    own = batch is None
    batch = _LineBatch() if batch is None else batch
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


def _read_json_lines_exact(con: duckdb.DuckDBPyConnection, path: Path, label: str, first_line: int = 1) -> None:
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


def detect_format(con: duckdb.DuckDBPyConnection) -> str:
    """Tell the format from the keys of the first record."""
    # arg_min keeps one record as it goes; ORDER BY ... LIMIT 1 carried every record through a sort
    row = con.execute("SELECT json_keys(arg_min(record, (file, line))) FROM log_raw WHERE record IS NOT NULL").fetchone()
    keys = set(row[0]) if row and row[0] is not None else set()
    if "resourceSpans" in keys:
        return "otlp"
    if {"user_input", "retrieved_contexts"} & keys or {"contexts", "ground_truth"} & keys:
        return "ragas"
    if "response" in keys and "request" in keys:
        return "anthropic"
    if {"context", "span_kind", "parent_id"} & keys or "attributes" in keys:
        return "openinference"
    if "request_id" in keys:
        return "evalwh"
    first = con.execute("SELECT file FROM log_lines ORDER BY file, line LIMIT 1").fetchone()
    raise InputError(first[0] if first else "logs", "cannot tell the log format from its first record; "
                     f"pass --format ({', '.join(FORMATS)})")


def refused(text: str) -> str:
    """SQL for a log's refused flag from its text: the words DuckDB reads as a boolean, spelled out so
    that Spark (whose cast also trims spaces) reads the same ones."""
    return (f"CASE WHEN lower({text}) IN ('true', 't', 'yes', 'y', '1') THEN TRUE "
            f"WHEN lower({text}) IN ('false', 'f', 'no', 'n', '0') THEN FALSE END")


# (condition over a row of norm_requests, error): portable SQL, also run by the Spark import
REQUEST_CHECKS: tuple[tuple[str, str], ...] = (
    ("request_id IS NULL OR request_id = ''", "missing request id"),
    # DuckDB also reads 'infinity' and 'epoch' as timestamps: a log time is a date and a time
    ("ts_text IS NOT NULL AND (TRY_CAST(ts_text AS TIMESTAMPTZ) IS NULL OR NOT regexp_matches(trim(ts_text), "
     "'^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}|\\z)'))", "timestamp is not ISO 8601"),
    (f"refused_text IS NOT NULL AND ({refused('refused_text')}) IS NULL", "refused is not a boolean"),
)
REPEATED_ID = ("first_seen < {'file': file, 'line': line}", "request id already used earlier in this import")


def _raw_join(con: duckdb.DuckDBPyConnection, one_file: bool = False) -> tuple[str, str]:
    """(the raw record expression, the join that provides it) for rows ``n`` of norm_requests (or of a
    query with its file and line): a format whose requests carry no ``raw`` column logs one request per
    line, whose record is the raw one. The lines of ``one_file`` are joined by number alone (a join on
    one integer instead of a name and a number: 0.2 s less at 1,000,000 requests)."""
    columns = {row[0] for row in con.execute("DESCRIBE temp.norm_requests").fetchall()}
    if "raw" in columns:
        return "n.raw", ""
    same_file = "" if one_file else "l.file = n.file AND "
    return "l.record", f" JOIN temp.log_lines AS l ON {same_file}l.line = n.line"


def _collect_rejects(con: duckdb.DuckDBPyConnection, skip_bad: bool) -> None:
    """Find malformed requests; raise for the first bad record unless ``skip_bad``, which keeps them in ``bad``."""
    checks = list(REQUEST_CHECKS)
    join = ""
    first_seen = "NULL AS first_seen"
    repeated = scalar(con, "SELECT count(*) FROM (SELECT 1 FROM temp.norm_requests GROUP BY request_id "
                           "HAVING count(*) > 1)")
    if repeated:  # only then is it worth finding where each id was first seen
        con.execute(
            "CREATE OR REPLACE TEMP TABLE first_lines AS SELECT request_id, "
            "min({'file': file, 'line': line}) AS first_seen FROM norm_requests GROUP BY request_id"
        )
        join = " LEFT JOIN temp.first_lines AS f USING (request_id)"
        first_seen = "f.first_seen"
        checks.append(REPEATED_ID)
    checked = f"SELECT n.*, {first_seen} FROM temp.norm_requests AS n{join}"
    # the raw records of the failing requests only (the usual import has none)
    raw, raw_join = _raw_join(con)
    con.execute(
        f"""INSERT INTO bad SELECT n.file, n.line, n.error, CAST({raw} AS VARCHAR)
        FROM (SELECT * FROM (SELECT *, {first_failed(checks)} AS error FROM ({checked})) WHERE error IS NOT NULL) AS n
        {raw_join}"""
    )
    _raise_first_bad(con, skip_bad)


def first_failed(checks: list[tuple[str, str]]) -> str:
    """SQL for the message of the first of ``checks`` a request fails (NULL when it passes them all):
    a request is set aside once, for the first problem it has."""
    return "CASE " + " ".join(f"WHEN {condition} THEN {sql_literal(message)}" for condition, message in checks) + " END"


def _raise_first_bad(con: duckdb.DuckDBPyConnection, skip_bad: bool) -> None:
    # by line; two requests of one record (an OTLP file) by their messages, as the Spark import does
    first = con.execute("SELECT file, line, error FROM bad ORDER BY file, line, error LIMIT 1").fetchone()
    if first and not skip_bad:
        raise InputError(first[0], f"line {first[1]}: {first[2]} (use --skip-bad to set such lines aside)")


def _check_records(con: duckdb.DuckDBPyConnection, fmt: str, skip_bad: bool) -> None:
    """Set aside records whose fields have the wrong type (``<format>_checks.sql``, where the format has one)."""
    checks = _format_file(f"{fmt}_checks")
    if checks.is_file():
        con.execute(f"CREATE OR REPLACE TEMP TABLE typed_bad AS {checks.read_text(encoding='utf-8')}")
        con.execute("INSERT INTO bad SELECT t.file, t.line, t.error, CAST(l.record AS VARCHAR) FROM temp.typed_bad AS t "
                    "JOIN temp.log_lines AS l USING (file, line)")
    _raise_first_bad(con, skip_bad)
    _raw_view(con)


def _normalise_or_set_aside(con: duckdb.DuckDBPyConnection, fmt: str, skip_bad: bool) -> None:
    """Run the format's SELECTs; a record they cannot read (a list that is a string, a number out of
    range) is found by halving the records, then reported or, with ``skip_bad``, set aside."""
    while True:
        try:
            _normalise(con, fmt)
            return
        except duckdb.Error as exc:
            failure = str(exc).splitlines()[0]
        file, line = _first_unreadable(con, fmt)
        if file is None:  # every record alone is readable: not a problem of one record
            raise duckdb.Error(failure)
        con.execute("INSERT INTO bad SELECT file, line, $error, CAST(record AS VARCHAR) FROM temp.log_lines "
                    "WHERE file = $file AND line = $line",
                    {"error": f"does not fit the {fmt} format ({failure})", "file": file, "line": line})
        _raw_view(con)
        _raise_first_bad(con, skip_bad)


def _first_unreadable(con: duckdb.DuckDBPyConnection, fmt: str) -> tuple[str | None, int | None]:
    """The first record (by file and line) the format's SELECTs fail on, found by bisection."""
    con.execute("CREATE OR REPLACE TEMP TABLE record_keys AS SELECT file, line, "
                "row_number() OVER (ORDER BY file, line) AS k FROM log_raw")
    low, high = 1, scalar(con, "SELECT count(*) FROM temp.record_keys")

    def fails(first: int, last: int) -> bool:
        _raw_view(con, f"(file, line) IN (SELECT (file, line) FROM temp.record_keys WHERE k BETWEEN {first} AND {last})")
        try:
            _normalise(con, fmt)
            return False
        except duckdb.Error:
            return True

    try:
        if high == 0 or not fails(low, high):
            return None, None
        while low < high:
            middle = (low + high) // 2
            if fails(low, middle):
                high = middle
            else:
                low = middle + 1
        return tuple(con.execute("SELECT file, line FROM temp.record_keys WHERE k = ?", [low]).fetchone())
    finally:
        _raw_view(con)


def _normalise(con: duckdb.DuckDBPyConnection, fmt: str) -> None:
    """Run the format's SELECTs. A format may first flatten its records (``<format>_spans.sql``),
    list each request's retrieved documents (``<format>_documents.sql``) and, citing by [n]
    markers, name each request's answer (``<format>_answers.sql``)."""
    preludes = ((f"{fmt}_spans", f"{fmt}_spans"), (f"{fmt}_documents", "log_documents"),
                (f"{fmt}_answers", "log_answers"))
    made = [table for prelude, table in preludes if _format_file(prelude).is_file()]
    for prelude, table in preludes:
        if table in made:
            con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS {_format_file(prelude).read_text(encoding='utf-8')}")
    for part in PARTS:
        con.execute(f"CREATE OR REPLACE TEMP TABLE norm_{part} AS {_format_sql(fmt, part)}")
    # only the SELECTs read them: their memory goes to the writes that follow (a large import spills less)
    for table in made:
        con.execute(f"DROP TABLE temp.{table}")


def import_logs(db: Path, paths: list[Path], fmt: str | None = None, skip_bad: bool = False) -> ImportResult:
    """Import log files as one batch; returns what was added."""
    if not paths:
        raise UsageError("give at least one log file")
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown log format {fmt!r} (use {', '.join(FORMATS)})")
    con = new_connection()
    try:
        register_udfs(con)
        register_native_macros(con)
        # bounded memory: DuckDB spills to its temporary directory past this
        con.execute(f"SET memory_limit = '{MEMORY_LIMIT}'")
        with progress("import logs", 3) as advance:
            labels = file_labels(paths)
            _read_raw(con, paths, labels)
            source = fmt or detect_format(con)
            _check_records(con, source, skip_bad)
            _normalise_or_set_aside(con, source, skip_bad)
            _collect_rejects(con, skip_bad)
            advance(1)
            result = _write_batch(con, db, source, labels)
            advance(2)
        return result
    finally:
        con.close()


def _write_batch(con: duckdb.DuckDBPyConnection, db: Path, source: str, files: list[str]) -> ImportResult:
    batch = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    attach(con, db, read_only=False)
    # no force_compression: each log column has its own (sql/008_log_compression.sql)
    con.execute("BEGIN TRANSACTION")
    try:
        migrate(con, db)
        # the valid requests not already in the warehouse (same source and request id): their lines
        con.execute("CREATE OR REPLACE TEMP TABLE valid_lines AS SELECT n.file, n.line, n.request_id "
                    "FROM temp.norm_requests AS n ANTI JOIN temp.bad AS b ON b.file = n.file AND b.line = n.line")
        con.execute(
            "CREATE OR REPLACE TEMP TABLE new_requests AS SELECT v.request_id FROM temp.valid_lines AS v "
            "WHERE NOT EXISTS (SELECT 1 FROM log_requests AS e WHERE e.source = $source AND e.request_id = v.request_id)",
            {"source": source},
        )
        valid = scalar(con, "SELECT count(*) FROM temp.valid_lines")
        new, rejects = one(con, "SELECT (SELECT count(*) FROM temp.new_requests), (SELECT count(*) FROM temp.bad)")
        if new == 0 and rejects == 0:  # nothing to add: no batch is recorded
            con.execute("ROLLBACK")
            return ImportResult(None, source, 0, valid, 0, 0, 0)
        params = {"batch": batch, "source": source}
        raw, join = _raw_join(con, one_file=len(files) == 1)
        # a format of one request a line (raw joined from its line) whose every line is new and good: its
        # retrievals and citations come from those lines, so the filters below would keep every row
        # (a join on the request ids of 3,000,000 retrievals costs about 0.1 s)
        keep_all = bool(join) and rejects == 0 and new == valid

        def kept(alias: str) -> str:
            """The filter keeping the rows of new requests from good lines, or none where it keeps all."""
            return "" if keep_all else (f" SEMI JOIN temp.new_requests AS k ON k.request_id = {alias}.request_id "
                                        f"ANTI JOIN temp.bad AS b ON b.file = {alias}.file AND b.line = {alias}.line")

        con.execute(
            f"""INSERT INTO log_requests BY NAME
            SELECT * EXCLUDE (q), native_uterms_given(q, question_words) AS question_uterms
            FROM (SELECT $batch AS log_batch_id, $source AS source, n.request_id, n.session_id,
                         CAST(TRY_CAST(n.ts_text AS TIMESTAMPTZ) AT TIME ZONE 'UTC' AS TIMESTAMP) AS ts,
                         n.question, n.answer, n.model, n.finish_reason,
                         {refused('n.refused_text')} AS refused, n.metadata, {raw} AS raw,
                         coalesce(n.question, '') AS q, native_words(q) AS question_words
                  FROM temp.norm_requests AS n{join}{kept('n')})""",
            params,
        )
        con.execute(
            f"""INSERT INTO log_retrievals BY NAME
            SELECT $batch AS log_batch_id, $source AS source, r.request_id, r.rank, r.chunk_id, r.score, r.content,
                   r.id_source
            FROM temp.norm_retrievals AS r{kept('r')}""",
            params,
        )
        con.execute(
            f"""INSERT INTO log_citations BY NAME
            SELECT $batch AS log_batch_id, $source AS source, c.request_id, c.position, c.chunk_id, c.quote,
                   native_join(native_words(c.quote)) AS quote_norm, c.resolution
            FROM temp.norm_citations AS c{kept('c')}""",
            params,
        )
        con.execute("INSERT INTO log_rejects SELECT $batch, file, line, error, raw FROM temp.bad", {"batch": batch})
        counts = one(
            con,
            "SELECT (SELECT count(*) FROM temp.new_requests), "
            "(SELECT count(*) FROM temp.bad), (SELECT count(*) FROM log_retrievals WHERE log_batch_id = $batch), "
            "(SELECT count(*) FROM log_citations WHERE log_batch_id = $batch)",
            {"batch": batch},
        )
        con.execute(
            "INSERT INTO log_batches VALUES ($batch, $source, $files, $now, $requests, $rejects)",
            {**params, "files": files, "now": now, "requests": counts[0], "rejects": counts[1]},
        )
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    new, rejects, retrievals, citations = counts
    return ImportResult(batch, source, new, valid - new, rejects, retrievals, citations)
