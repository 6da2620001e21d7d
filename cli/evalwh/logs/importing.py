"""Importing production logs: tell each file's format, check every record, normalise it, append one batch.

Each format is a recipe of SELECTs in ``sql/logformats/`` over the temp table ``log_raw(file, line,
record JSON)`` (``evalwh.logs.formats``). An import reads one format: each file's is told from its
first record, and files of different formats are refused together. Records are validated before
anything is written; a malformed one stops the import with its file and line, or with ``skip_bad``
is set aside in ``log_rejects``; a file none of whose records is in the format stops it even with
``skip_bad``. A request already in the warehouse (same source and request id) is skipped, so
importing a file twice adds nothing. A trace whose spans arrive without their root span is kept in
``log_pending`` and completed by the import that brings its root.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
from duckdb.func import FunctionNullHandling
from duckdb.sqltypes import VARCHAR

from evalwh.errors import InputError, UsageError, WarehouseError
from evalwh.invocation import QUIET, Invocation
from evalwh.location import Lake, Location
from evalwh.logs.formats import (
    DEFAULT_ID_KEYS,
    FORMATS,
    PARTS,
    checks_sql,
    format_of_keys,
    format_sql,
    looks_like,
    prelude_tables,
    preludes,
    refused,
)
from evalwh.logs.literals import python_list
from evalwh.logs.read import LogFile, file_labels, raw_view, read_raw
from evalwh.output.terminal import progress
from evalwh.sqltext import sql_literal
from evalwh.text.nativetext import register_native_macros
from evalwh.text.textnorm import register_udfs
from evalwh.warehouse.connection import (
    attach,
    attach_writer,
    limit_memory,
    new_connection,
    one,
    scalar,
    write_transaction,
)
from evalwh.warehouse.schema import file_schema_version, migrate

# the formats whose requests are traces, whose spans may arrive over several imports
TRACE_FORMATS = ("otlp", "openinference")

# DuckDB's buffers for an import; the process peaks a little above it. Lower, a large import spills
# to disk and slows down; higher buys no speed (bench/logs_1m.py measures both)
MEMORY_LIMIT = "1200MB"


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
    pending: int = 0  # traces whose spans came without their root span, kept for a later import
    completed: int = 0  # traces kept pending by an earlier import that this one completed
    unjoined: tuple[str, ...] = field(default=())  # traces already imported that more spans arrived for


# (condition over a row of norm_requests, error): portable SQL, also run by the Spark import
REQUEST_CHECKS: tuple[tuple[str, str], ...] = (
    ("request_id IS NULL OR request_id = ''", "missing request id"),
    # DuckDB also reads 'infinity' and 'epoch' as timestamps: a log time is a date and a time
    ("ts_text IS NOT NULL AND (TRY_CAST(ts_text AS TIMESTAMPTZ) IS NULL OR NOT regexp_matches(trim(ts_text), "
     "'^[0-9]{4}-[0-9]{2}-[0-9]{2}([T ][0-9]{2}:[0-9]{2}|\\z)'))", "timestamp is not ISO 8601"),
    # DuckDB reads any two-digit offset (+99:00); a time zone's is at most 14 hours, and its minutes below 60
    ("ts_text IS NOT NULL AND regexp_matches(trim(ts_text), '[T ][0-9]{2}:[0-9]{2}(:[0-9]{2}([.,][0-9]+)?)?"
     "[+-]((1[5-9]|[2-9][0-9])(:?[0-9]{2})?|[0-9]{2}:?[6-9][0-9])$')", "timestamp's UTC offset is not a time zone's (over 14 hours)"),
    (f"refused_text IS NOT NULL AND ({refused('refused_text')}) IS NULL", "refused is not a boolean"),
)
REPEATED_ID = ("first_seen < {'file': file, 'line': line}", "request id already used earlier in this import")


def _raw_join(con: duckdb.DuckDBPyConnection, one_file: bool = False) -> tuple[str, str]:
    """(the raw record expression, the join that provides it) for rows ``n`` of norm_requests (or of a
    query with its file and line): a format whose requests carry no ``raw`` column logs one request per
    line, whose record is the raw one. The lines of ``one_file`` are joined by number alone (a join on
    one integer instead of a name and a number, which is cheaper)."""
    columns = {row[0] for row in con.execute("DESCRIBE temp.norm_requests").fetchall()}
    if "raw" in columns:
        return "n.raw", ""
    same_file = "" if one_file else "l.file = n.file AND "
    return "l.record", f" JOIN temp.log_lines AS l ON {same_file}l.line = n.line"


def _collect_rejects(con: duckdb.DuckDBPyConnection, skip_bad: bool, files: dict[str, LogFile] | None = None) -> None:
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
    _raise_first_bad(con, skip_bad, files)


def first_failed(checks: list[tuple[str, str]]) -> str:
    """SQL for the message of the first of ``checks`` a request fails (NULL when it passes them all):
    a request is set aside once, for the first problem it has."""
    return "CASE " + " ".join(f"WHEN {condition} THEN {sql_literal(message)}" for condition, message in checks) + " END"


def _raise_first_bad(con: duckdb.DuckDBPyConnection, skip_bad: bool, files: dict[str, LogFile] | None = None) -> None:
    # by line; two requests of one record (an OTLP file) by their messages, as the Spark import does
    found = con.execute("SELECT file, line, error FROM bad ORDER BY file, line, error LIMIT 1").fetchall()
    first = found[0] if found else None
    if first and not skip_bad:
        unit = files[first[0]].unit if files and first[0] in files else "line"
        raise InputError(first[0], f"{unit} {first[1]}: {first[2]} (use --skip-bad to set such records aside)")


def _check_records(con: duckdb.DuckDBPyConnection, fmt: str, skip_bad: bool, files: dict[str, LogFile]) -> None:
    """Set aside records that are not in the format, or whose fields have the wrong type
    (``<format>_checks.sql``); a file none of whose records is in the format is refused outright."""
    checks = checks_sql(fmt)
    if checks is not None:
        # the filter on each record's error stays where it is written, after the CASE: DuckDB 1.4 pushes it
        # down into the CASE's list lambdas and runs out of memory on a few thousand records
        con.execute("SET disabled_optimizers = 'filter_pushdown'")
        try:
            con.execute(f"CREATE OR REPLACE TEMP TABLE typed_bad AS {checks}")
        finally:
            con.execute("RESET disabled_optimizers")
        con.execute("INSERT INTO bad SELECT t.file, t.line, t.error, CAST(l.record AS VARCHAR) FROM temp.typed_bad AS t "
                    "JOIN temp.log_lines AS l USING (file, line)")
    _refuse_files_not_in(con, fmt, files)
    _raise_first_bad(con, skip_bad, files)
    raw_view(con)


# a record's check error that says it is not in the format at all (not a JSON object, not a sample ...)
NOT_IN_FORMAT = "(error = 'not a JSON object' OR starts_with(error, 'not a ') OR starts_with(error, 'not an '))"


def _refuse_files_not_in(con: duckdb.DuckDBPyConnection, fmt: str, files: dict[str, LogFile]) -> None:
    """An input error for a file with no record, or none in the format, naming what it looks like."""
    counts = dict(con.execute(
        f"SELECT l.file, count(*) FILTER (WHERE NOT EXISTS (SELECT 1 FROM temp.bad AS b WHERE b.file = l.file "
        f"AND b.line = l.line AND {NOT_IN_FORMAT})) FROM temp.log_lines AS l GROUP BY l.file").fetchall())
    for label, read in files.items():
        if label not in counts:
            raise InputError(label, "the file holds no log records (it is empty or blank)")
        if counts[label] == 0:
            keys, first_texts = _first_record(con, label)
            raise InputError(label, f"no {read.unit} is in the {fmt} format: the file looks like "
                                    f"{looks_like(keys, read.shape, first_texts)}")


def _first_record(con: duckdb.DuckDBPyConnection, label: str) -> tuple[list[str] | None, list[str]]:
    """The keys of a file's first JSON object (None where it has none) and its first two lines that are no
    JSON object."""
    keys, texts = one(con, "SELECT json_keys(arg_min(record, line) FILTER (WHERE record IS NOT NULL)), "
                           "list(text ORDER BY line) FILTER (WHERE text IS NOT NULL)[1:2] FROM temp.log_lines "
                           "WHERE file = ?", [label])
    return keys, texts or []


def choose_format(con: duckdb.DuckDBPyConnection, files: dict[str, LogFile], fmt: str | None) -> str:
    """The import's format: ``fmt`` where given (a file that is plainly in another format is refused),
    else the one format every file's first record is in. Files of different formats are refused
    together, each named with its format."""
    found: dict[str, str | None] = {}
    present = {r[0] for r in con.execute("SELECT DISTINCT file FROM temp.log_lines").fetchall()}
    for label in files:
        if label not in present:
            raise InputError(label, "the file holds no log records (it is empty or blank)")
        keys, _ = _first_record(con, label)
        found[label] = format_of_keys(keys) if keys is not None else None
    if fmt is not None:
        for label, seen in found.items():
            if seen is not None and seen != fmt:
                raise UsageError(f"{label} is in the {seen} format, not {fmt} (leave out --log-format, or give it "
                                 f"{seen})")
        return fmt
    unknown = [label for label, seen in found.items() if seen is None]
    if unknown:
        label = unknown[0]
        keys, first_texts = _first_record(con, label)
        raise InputError(label, "cannot tell the log format from its first record: it looks like "
                                f"{looks_like(keys, files[label].shape, first_texts)}; pass --log-format "
                                f"({', '.join(FORMATS)})")
    formats = sorted(set(found.values()), key=lambda f: FORMATS.index(f or ""))
    if len(formats) > 1:
        named = ", ".join(f"{label} is {seen}" for label, seen in found.items())
        raise UsageError(f"logs of different formats in one import ({named}); import each format on its own")
    return str(formats[0])


def _normalise_or_set_aside(con: duckdb.DuckDBPyConnection, fmt: str, skip_bad: bool,
                            files: dict[str, LogFile] | None = None) -> None:
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
        raw_view(con)
        _raise_first_bad(con, skip_bad, files)


def _first_unreadable(con: duckdb.DuckDBPyConnection, fmt: str) -> tuple[str | None, int | None]:
    """The first record (by file and line) the format's SELECTs fail on, found by bisection."""
    con.execute("CREATE OR REPLACE TEMP TABLE record_keys AS SELECT file, line, "
                "row_number() OVER (ORDER BY file, line) AS k FROM log_raw")
    low, high = 1, scalar(con, "SELECT count(*) FROM temp.record_keys")

    def fails(first: int, last: int) -> bool:
        raw_view(con, f"(file, line) IN (SELECT (file, line) FROM temp.record_keys WHERE k BETWEEN {first} AND {last})")
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
        return tuple(one(con, "SELECT file, line FROM temp.record_keys WHERE k = ?", [low]))
    finally:
        raw_view(con)


def _normalise(con: duckdb.DuckDBPyConnection, fmt: str) -> None:
    """Run the format's preludes, each into the temp table the next ones read, then its SELECTs of
    requests, retrievals and citations."""
    for sql, table in preludes(fmt):
        con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS {sql}")
    for part in PARTS:
        con.execute(f"CREATE OR REPLACE TEMP TABLE norm_{part} AS {format_sql(fmt, part)}")


def _drop_preludes(con: duckdb.DuckDBPyConnection, fmt: str) -> None:
    """Only the format's SELECTs read the preludes: their memory goes to the writes that follow (a large
    import spills less)."""
    for table in prelude_tables(fmt):
        con.execute(f"DROP TABLE IF EXISTS temp.{table}")


# json_first_map(j): a JSON object's keys and values as MAP(VARCHAR, VARCHAR) (a value that is no string as its
# JSON text), a key written twice with its first value. DuckDB's json_transform to a MAP gives NULL for an
# object with a key written twice; such an object is read key by key, in order, the later repeats dropped.
# On Spark the macro is FROM_JSON to a MAP (evalwh.spark.dialect)
JSON_FIRST_MAP = """coalesce(json_transform(j, '"MAP(VARCHAR, VARCHAR)"'),
    CASE WHEN json_type(j) = 'OBJECT' THEN map_from_entries(list_transform(
        list_filter(range(1, len(json_keys(j)) + 1), lambda i: list_position(json_keys(j), json_keys(j)[i]) = i),
        lambda i: struct_pack(k := json_keys(j)[i], v := json_extract_string(j, '$.*')[i]))) END)"""


def register_log_functions(con: duckdb.DuckDBPyConnection, id_keys: Sequence[str]) -> None:
    """What the format SQL reads besides the records: ``python_list`` (ragas's CSV lists), the macro
    ``json_first_map`` and the table ``log_id_keys`` (the metadata keys a document's chunk id is looked
    for under, in order)."""
    con.create_function("python_list", python_list, [VARCHAR], con.list_type(VARCHAR),
                        null_handling=FunctionNullHandling.SPECIAL)
    con.execute(f"CREATE OR REPLACE TEMP MACRO json_first_map(j) AS {JSON_FIRST_MAP}")
    con.execute("CREATE OR REPLACE TEMP TABLE log_id_keys (position INTEGER, key VARCHAR)")
    if id_keys:
        con.executemany("INSERT INTO log_id_keys VALUES (?, ?)", [[n, k] for n, k in enumerate(id_keys, 1)])


def parse_id_keys(id_keys: Sequence[str] | None) -> tuple[str, ...]:
    """The metadata id keys an import uses: the given ones (none blank), else the default list."""
    if id_keys is None:
        return DEFAULT_ID_KEYS
    keys = tuple(id_keys)
    if not keys or any(not k.strip() for k in keys):
        raise UsageError("--id-keys takes metadata keys separated by commas, none of them blank")
    return keys


def import_logs(
    db: Location, paths: list[Path], fmt: str | None = None, skip_bad: bool = False, invocation: Invocation = QUIET,
    id_keys: Sequence[str] | None = None,
) -> ImportResult:
    """Import log files as one batch; returns what was added. ``id_keys`` are the metadata keys a
    retrieved document's chunk id is looked for under when it has no id (default: ``DEFAULT_ID_KEYS``)."""
    if not paths:
        raise UsageError("give at least one log file")
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown log format {fmt!r} (use {', '.join(FORMATS)})")
    keys = parse_id_keys(id_keys)
    con = new_connection()
    try:
        register_udfs(con)
        register_native_macros(con)
        register_log_functions(con, keys)
        # bounded memory: DuckDB spills to its temporary directory past this
        limit_memory(con, invocation.memory_limit or MEMORY_LIMIT)
        with progress("import logs", 3, enabled=invocation.progress) as advance:
            labels = file_labels(paths)
            files = read_raw(con, paths, labels)
            source = choose_format(con, files, fmt)
            if source in TRACE_FORMATS:
                _read_pending(con, db, source, invocation)
            _check_records(con, source, skip_bad, files)
            _normalise_or_set_aside(con, source, skip_bad, files)
            if source in TRACE_FORMATS:
                _find_incomplete_traces(con)
            _drop_preludes(con, source)
            _collect_rejects(con, skip_bad, files)
            advance(1)
            result = _write_batch(con, db, source, labels, invocation)
            advance(2)
        return result
    finally:
        con.close()


def _read_pending(con: duckdb.DuckDBPyConnection, db: Location, source: str, invocation: Invocation) -> None:
    """Add the records an earlier import kept pending for ``source`` to this import's lines, each known as
    ``<file> (batch <id>)``; ``pending_in`` maps them back to where they came from."""
    con.execute("CREATE OR REPLACE TEMP TABLE pending_in (label VARCHAR, log_batch_id VARCHAR, file VARCHAR, "
                "line BIGINT, record JSON, trace_ids VARCHAR[])")
    if isinstance(db, Lake):
        if db.exists() is False:
            return
        try:
            attach(con, db, read_only=True, invocation=invocation)
        except WarehouseError:  # a lake not created yet holds nothing pending; the write creates it
            return
    elif not db.is_file():
        return
    else:
        attach(con, db, read_only=True, invocation=invocation)
    try:
        if file_schema_version(con) >= 9:
            con.execute("INSERT INTO temp.pending_in SELECT file || ' (batch ' || log_batch_id || ')', log_batch_id, "
                        "file, line, record, trace_ids FROM log_pending WHERE source = $source", {"source": source})
    finally:
        con.execute("USE memory")
        con.execute("DETACH warehouse")
    con.execute("INSERT INTO log_lines SELECT label, line, record, NULL FROM temp.pending_in")
    raw_view(con)


def _find_incomplete_traces(con: duckdb.DuckDBPyConnection) -> None:
    """``incomplete``: each record (file, line) holding spans of a trace with no root span here, with those
    traces' ids: they are no request yet (trace_requests.sql)."""
    con.execute(
        """CREATE OR REPLACE TEMP TABLE incomplete AS
        SELECT file, line, list_sort(list_distinct(list(trace_id))) AS trace_ids
        FROM temp.trace_spans AS s
        WHERE signal = 'span' AND trace_id IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM temp.trace_spans AS r
                          WHERE r.trace_id = s.trace_id AND r.signal = 'span' AND r.parent_id IS NULL)
          AND NOT EXISTS (SELECT 1 FROM temp.bad AS b WHERE b.file = s.file AND b.line = s.line)
        GROUP BY file, line"""
    )


def _write_batch(
    con: duckdb.DuckDBPyConnection, db: Location, source: str, files: list[str], invocation: Invocation,
) -> ImportResult:
    batch = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    traced = source in TRACE_FORMATS
    attach_writer(con, db, invocation)
    migrate(con, db)
    # no force_compression: each log column has its own (sql/008_log_compression.sql)

    def work() -> ImportResult:
        """The batch's transaction; in a lake, run again from the start when a concurrent writer committed
        first (its requests are then known, and skipped)."""
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
        pending = _pending_changes(con, source, batch) if traced else _PendingChanges()
        if new == 0 and rejects == 0 and not pending.changed:  # nothing to add: no batch is recorded
            return ImportResult(None, source, 0, valid, 0, 0, 0, unjoined=pending.unjoined)
        params = {"batch": batch, "source": source}
        raw, join = _raw_join(con, one_file=len(files) == 1)
        # a format of one request a line (raw joined from its line) whose every line is new and good: its
        # retrievals and citations come from those lines, so the filters below would keep every row
        # (and skipping them saves a join on the request ids of every retrieval)
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
                   r.id_source, r.metadata
            FROM temp.norm_retrievals AS r{kept('r')}""",
            params,
        )
        con.execute(
            f"""INSERT INTO log_citations BY NAME
            SELECT $batch AS log_batch_id, $source AS source, c.request_id, c.position, c.chunk_id, c.quote,
                   native_join(native_words(c.quote)) AS quote_norm, c.resolution, c.location
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
        new, rejects, retrievals, citations = counts
        return ImportResult(batch, source, new, valid - new, rejects, retrievals, citations, pending=pending.pending,
                            completed=pending.completed, unjoined=pending.unjoined)

    return write_transaction(con, db, work, invocation)



@dataclass(frozen=True)
class _PendingChanges:
    pending: int = 0  # traces left pending after this import
    completed: int = 0  # traces pending before that this import completes
    unjoined: tuple[str, ...] = ()  # traces already imported that this import brings more spans of
    changed: bool = False  # whether log_pending changes


def _pending_changes(con: duckdb.DuckDBPyConnection, source: str, batch: str) -> _PendingChanges:
    """Rewrite ``source``'s rows of log_pending, in the import's transaction: the records holding spans of
    traces still without their root span (a record kept before keeps its batch, file and line), less the
    traces the warehouse already holds as requests, whose new spans cannot join them."""
    params = {"source": source}
    unjoined = tuple(r[0] for r in con.execute(
        "SELECT DISTINCT t.trace_id FROM (SELECT unnest(trace_ids) AS trace_id FROM temp.incomplete) AS t "
        "WHERE EXISTS (SELECT 1 FROM log_requests AS e WHERE e.source = $source AND e.request_id = t.trace_id) "
        "ORDER BY 1", params).fetchall())
    con.execute(
        """CREATE OR REPLACE TEMP TABLE pending_out AS
        SELECT coalesce(p.log_batch_id, $batch) AS log_batch_id, coalesce(p.file, i.file) AS file,
               coalesce(p.line, i.line) AS line, l.record,
               list_filter(i.trace_ids, lambda t: NOT list_contains($unjoined, t)) AS trace_ids
        FROM temp.incomplete AS i
        JOIN temp.log_lines AS l ON l.file = i.file AND l.line = i.line
        LEFT JOIN temp.pending_in AS p ON p.label = i.file AND p.line = i.line""",
        {"batch": batch, "unjoined": list(unjoined)})
    con.execute("DELETE FROM temp.pending_out WHERE len(trace_ids) = 0")
    before = {r[0] for r in con.execute("SELECT DISTINCT unnest(trace_ids) FROM temp.pending_in").fetchall()}
    after = {r[0] for r in con.execute("SELECT DISTINCT unnest(trace_ids) FROM temp.pending_out").fetchall()}
    added = scalar(con, "SELECT count(*) FROM temp.pending_out WHERE log_batch_id = $batch", {"batch": batch})
    con.execute("DELETE FROM log_pending WHERE source = $source", params)
    con.execute("INSERT INTO log_pending SELECT log_batch_id, $source, file, line, record, trace_ids FROM temp.pending_out",
                params)
    return _PendingChanges(pending=len(after), completed=len(before - after), unjoined=unjoined,
                           changed=added > 0 or before != after)
