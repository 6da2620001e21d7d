"""Importing production logs: check every record, normalise it by format, append one batch.

Each format is three SELECTs in ``sql/logformats/<format>_{requests,retrievals,citations}.sql``
over the temp table ``log_raw(file, line, record JSON)``. Records are validated before
anything is written; a malformed one stops the import with its file and line, or with
``skip_bad`` is set aside in ``log_rejects``. A request already in the warehouse (same
source and request id) is skipped, so importing a file twice adds nothing.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from pathlib import Path

import duckdb

from evalwh.errors import InputError, UsageError
from evalwh.invocation import QUIET, Invocation
from evalwh.logs.formats import FORMATS, PARTS, detect_format, format_file, format_sql, refused
from evalwh.logs.read import file_labels, raw_view, read_raw
from evalwh.output.terminal import progress
from evalwh.sqltext import sql_literal
from evalwh.text.nativetext import register_native_macros
from evalwh.text.textnorm import register_udfs
from evalwh.warehouse.connection import attach, new_connection, one, scalar
from evalwh.warehouse.schema import migrate

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
    one integer instead of a name and a number, which is cheaper)."""
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
    checks = format_file(f"{fmt}_checks")
    if checks.is_file():
        con.execute(f"CREATE OR REPLACE TEMP TABLE typed_bad AS {checks.read_text(encoding='utf-8')}")
        con.execute("INSERT INTO bad SELECT t.file, t.line, t.error, CAST(l.record AS VARCHAR) FROM temp.typed_bad AS t "
                    "JOIN temp.log_lines AS l USING (file, line)")
    _raise_first_bad(con, skip_bad)
    raw_view(con)


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
        raw_view(con)
        _raise_first_bad(con, skip_bad)


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
    """Run the format's SELECTs. A format may first flatten its records (``<format>_spans.sql``),
    list each request's retrieved documents (``<format>_documents.sql``) and, citing by [n]
    markers, name each request's answer (``<format>_answers.sql``)."""
    preludes = ((f"{fmt}_spans", f"{fmt}_spans"), (f"{fmt}_documents", "log_documents"),
                (f"{fmt}_answers", "log_answers"))
    made = [table for prelude, table in preludes if format_file(prelude).is_file()]
    for prelude, table in preludes:
        if table in made:
            con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS {format_file(prelude).read_text(encoding='utf-8')}")
    for part in PARTS:
        con.execute(f"CREATE OR REPLACE TEMP TABLE norm_{part} AS {format_sql(fmt, part)}")
    # only the SELECTs read them: their memory goes to the writes that follow (a large import spills less)
    for table in made:
        con.execute(f"DROP TABLE temp.{table}")


def import_logs(
    db: Path, paths: list[Path], fmt: str | None = None, skip_bad: bool = False, invocation: Invocation = QUIET,
) -> ImportResult:
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
        with progress("import logs", 3, enabled=invocation.progress) as advance:
            labels = file_labels(paths)
            read_raw(con, paths, labels)
            source = fmt or detect_format(con)
            _check_records(con, source, skip_bad)
            _normalise_or_set_aside(con, source, skip_bad)
            _collect_rejects(con, skip_bad)
            advance(1)
            result = _write_batch(con, db, source, labels, invocation)
            advance(2)
        return result
    finally:
        con.close()


def _write_batch(
    con: duckdb.DuckDBPyConnection, db: Path, source: str, files: list[str], invocation: Invocation,
) -> ImportResult:
    batch = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    attach(con, db, read_only=False, invocation=invocation)
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
