"""Production logs imported on Spark: the same log-format SQL, over JSON lines read by Spark.

``import_logs(spark, paths, fmt)`` reads each JSON-lines file's lines with their line numbers, keeps those
holding a JSON object as ``log_raw`` (file, line, record), runs the format's SELECTs from
``sql/logformats/`` (transpiled by ``evalwh.spark.dialect``) and adds the new requests to the session's
``log_requests``, ``log_retrievals`` and ``log_citations`` (temporary views, created when missing,
e.g. by ``evalwh.spark.register``), with the warehouse's columns. A request whose (source, request
id) the session already holds is skipped, as ``evalwh logs import`` skips it.

The text columns (``question_words``, ``question_uterms``, ``quote_norm``) come from vectorised
pandas UDFs that call ``evalwh.text.textnorm``: Java's regex and ``lower()`` differ from Python's on
Unicode, so only the same Python functions give the same words.

Every format runs on Spark (``SPARK_FORMATS``): its SQL passes the portability lint. A request
that fails the import's request checks (no request id, a time that is not ISO 8601, a refused
flag that is not a boolean, a request id used earlier in the import) stops the import with its
file and line, or with ``skip_bad`` is set aside in ``log_rejects``, as ``evalwh logs import``
does. The per-format JSON type checks (``<format>_checks.sql``) run on DuckDB only: there a value
of the wrong JSON type is refused; on Spark it reads as absent.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, cast

import pandas as pd  # the spark extra's; pandas UDFs take and give pandas Series

from evalwh.errors import InputError, UsageError
from evalwh.loader.encoding import data_suffix
from evalwh.logs.formats import PARTS, format_sql, preludes, refused
from evalwh.logs.importing import REPEATED_ID, REQUEST_CHECKS, first_failed, parse_id_keys
from evalwh.logs.literals import python_list
from evalwh.logs.read import file_labels
from evalwh.spark.dialect import to_spark
from evalwh.text.textnorm import norm, terms, words

# the log formats whose SQL sqlglot carries to Spark with the same meaning (tests/test_spark.py)
SPARK_FORMATS = ("evalwh", "ragas", "openinference", "anthropic", "otlp", "deepeval")
LOG_TABLES = ("log_requests", "log_retrievals", "log_citations")
# a line (or file) holding a JSON object
JSON_OBJECT = "startswith(trim(BOTH ' \\t\\r\\n' FROM text), '{') AND try_parse_json(text) IS NOT NULL"


def _text_udfs(spark: Any) -> None:
    """Register evalwh_words, evalwh_uterms and evalwh_norm: textnorm's functions as pandas UDFs."""
    from pyspark.sql.pandas import functions
    from pyspark.sql.types import ArrayType, StringType

    # PySpark's decorator, untyped: what it returns is a Spark UDF, registered below
    pandas_udf = cast(Callable[[Any], Callable[[Callable[[pd.Series], pd.Series]], Any]], functions.pandas_udf)

    @pandas_udf(ArrayType(StringType()))
    def evalwh_words(texts: pd.Series) -> pd.Series:
        return texts.map(lambda t: None if t is None else words(t))

    @pandas_udf(ArrayType(StringType()))
    def evalwh_uterms(texts: pd.Series) -> pd.Series:
        return texts.map(lambda t: None if t is None else terms(t, "unicode"))

    @pandas_udf(StringType())
    def evalwh_norm(texts: pd.Series) -> pd.Series:
        return texts.map(lambda t: None if t is None else norm(t))

    @pandas_udf(ArrayType(StringType()))
    def evalwh_python_list(texts: pd.Series) -> pd.Series:
        return texts.map(python_list)

    for udf in (evalwh_words, evalwh_uterms, evalwh_norm):
        spark.udf.register(udf.__name__, udf)
    spark.udf.register("python_list", evalwh_python_list)  # the name the format SQL calls it by


def _numbered_lines(spark: Any, path: Path, name: str) -> Any:
    """(file, line, text) for each record of a file, as the DuckDB import numbers them: a JSON-lines file's
    lines; a file that is one JSON document spread over lines (an OTLP export) as one record on line 1;
    a JSON array's elements; a Parquet or CSV file's rows, each as its JSON (nulls kept)."""
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    schema = StructType([StructField("file", StringType()), StructField("line", LongType()),
                         StructField("text", StringType())])
    suffix = data_suffix(Path(path)).lower()
    if suffix in (".parquet", ".csv", ".tsv"):  # one record a row, as JSON (nulls kept); row n is record n
        if suffix == ".parquet":
            frame = spark.read.parquet(str(path))
        else:
            frame = spark.read.options(header=True, multiLine=True, escape='"',
                                       sep="\t" if suffix == ".tsv" else ",").csv(str(path))
        rows = frame.selectExpr("to_json(struct(*), map('ignoreNullFields', 'false')) AS text")
        return spark.createDataFrame(rows.rdd.zipWithIndex().map(lambda t, n=name: (n, t[1] + 1, t[0][0])), schema)
    content = spark.sparkContext.wholeTextFiles(str(path)).values().first()
    if content.lstrip("\ufeff \t\r\n").startswith("["):  # a JSON array: its elements, each a record
        elements = json.loads(content)
        return spark.createDataFrame([(name, n, json.dumps(e)) for n, e in enumerate(elements, 1)], schema)
    numbered = spark.sparkContext.textFile(str(path)).zipWithIndex().map(lambda t, n=name: (n, t[1] + 1, t[0]))
    lines = spark.createDataFrame(numbered, schema)
    if lines.where(f"trim(BOTH ' \\t\\r' FROM text) <> '' AND NOT ({JSON_OBJECT})").isEmpty():
        return lines
    try:  # one JSON document, not several (Spark's own parser stops after the first value)
        json.loads(content)
    except ValueError:
        return lines
    return spark.createDataFrame([(name, 1, content)], schema)


def _read_lines(spark: Any, paths: Sequence[Path]) -> None:
    """``log_raw``: (file, line, record) for every line of the files holding a JSON object; line n is the
    file's n-th line (blank lines counted, as the DuckDB import counts them)."""
    frames = []
    for path, name in zip(paths, file_labels([Path(p) for p in paths]), strict=True):
        if not Path(path).is_file():
            raise UsageError(f"{path}: no such file")
        frames.append(_numbered_lines(spark, path, name))
    lines = frames[0]
    for frame in frames[1:]:
        lines = lines.unionByName(frame)
    lines.createOrReplaceTempView("log_lines")
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW log_raw AS SELECT file, line, trim(text) AS record FROM log_lines "
              f"WHERE {JSON_OBJECT}")


def _normalise(spark: Any, fmt: str, id_keys: tuple[str, ...]) -> None:
    """The format's preludes and its requests, retrievals and citations SELECTs, as temporary views."""
    spark.createDataFrame([(n, k) for n, k in enumerate(id_keys, 1)], "position INT, key STRING") \
        .createOrReplaceTempView("log_id_keys")
    for sql, view in preludes(fmt):
        spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW {view} AS {to_spark(sql)}")
    for part in PARTS:
        spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW norm_{part} AS {to_spark(format_sql(fmt, part))}")


def _raw_source(spark: Any) -> tuple[str, str]:
    """(the raw record of a row ``n`` of norm_requests, the join that provides it): a format whose requests
    name no raw record logs one request a line, whose record is the raw one."""
    if "raw" in spark.table("norm_requests").columns:
        return "n.raw", ""
    return "r.record", " JOIN log_raw AS r ON r.file = n.file AND r.line = n.line"


def _bad_lines(spark: Any) -> Any:
    """``bad_lines`` (stage, file, line, error, raw), as ``evalwh logs import`` finds them: each line that holds
    no JSON object, and each request that fails a request check, with the first it fails
    (``evalwh.logs.REQUEST_CHECKS``, transpiled; a request id used on an earlier line of the import)."""
    raw, join = _raw_source(spark)
    spark.sql(f"""CREATE OR REPLACE TEMPORARY VIEW checked_requests AS
        SELECT n.*, CAST({raw} AS STRING) AS raw_text,
               named_struct('file', n.file, 'line', n.line) >
                   min(named_struct('file', n.file, 'line', n.line)) OVER (PARTITION BY n.request_id) AS repeated
        FROM norm_requests AS n{join}""")
    # stage: the import reports a line that is no JSON object before any request check
    failing = [f"SELECT 1 AS stage, file, line, 'not a JSON object' AS error, text AS raw FROM log_lines "
               f"WHERE trim(BOTH ' \\t\\r' FROM text) <> '' AND NOT ({JSON_OBJECT})"]
    # a request once, for the first check it fails; the repeated-id check's condition here is the window flag
    error = first_failed([*REQUEST_CHECKS, ("repeated", REPEATED_ID[1])])
    failing.append(to_spark(f"SELECT 2 AS stage, file, line, error, raw FROM (SELECT file, line, {error} AS error, "
                            "raw_text AS raw FROM checked_requests) AS c WHERE error IS NOT NULL", pretty=False))
    return spark.sql(" UNION ALL ".join(f"({query})" for query in failing))


def _new_rows(spark: Any, batch: str, source: str) -> dict[str, Any]:
    """The batch's rows of each log table, for requests the session does not hold yet, from lines not set
    aside (``bad_lines``)."""
    known = spark.catalog.tableExists("log_requests")
    held = ("SELECT request_id FROM log_requests WHERE source = '{0}'".format(source.replace("'", "''"))
            if known else "SELECT CAST(NULL AS STRING) AS request_id WHERE FALSE")
    spark.sql("CREATE OR REPLACE TEMPORARY VIEW valid_requests AS SELECT n.* FROM norm_requests AS n "
              "LEFT ANTI JOIN bad_lines AS b ON b.file = n.file AND b.line = n.line")
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW new_requests AS SELECT DISTINCT n.request_id FROM valid_requests AS n "
              f"LEFT ANTI JOIN ({held}) AS e ON e.request_id = n.request_id")
    head = f"SELECT '{batch}' AS log_batch_id, '{source}' AS source"
    raw, join = _raw_source(spark)
    not_bad = "LEFT ANTI JOIN bad_lines AS b ON b.file = {0}.file AND b.line = {0}.line"
    return {
        "log_requests": spark.sql(
            f"""{head}, n.request_id, n.session_id,
                CAST(to_utc_timestamp(TRY_CAST(n.ts_text AS TIMESTAMP), current_timezone()) AS TIMESTAMP_NTZ) AS ts,
                n.question, n.answer, n.model, n.finish_reason, {refused('n.refused_text')} AS refused,
                n.metadata, {raw} AS raw, evalwh_words(coalesce(n.question, '')) AS question_words,
                evalwh_uterms(coalesce(n.question, '')) AS question_uterms
            FROM valid_requests AS n{join}
            LEFT SEMI JOIN new_requests AS k ON k.request_id = n.request_id"""),
        "log_retrievals": spark.sql(
            f"""{head}, r.request_id, r.rank, r.chunk_id, r.score, r.content, r.id_source, r.metadata
            FROM norm_retrievals AS r LEFT SEMI JOIN new_requests AS k ON k.request_id = r.request_id
            {not_bad.format('r')}"""),
        "log_citations": spark.sql(
            f"""{head}, c.request_id, c.position, c.chunk_id, c.quote, evalwh_norm(c.quote) AS quote_norm,
                c.resolution, c.location
            FROM norm_citations AS c LEFT SEMI JOIN new_requests AS k ON k.request_id = c.request_id
            {not_bad.format('c')}"""),
        "log_rejects": spark.sql(f"SELECT '{batch}' AS log_batch_id, file, line, error, raw FROM bad_lines"),
    }


def import_logs(spark: Any, paths: Sequence[Path], fmt: str = "evalwh", skip_bad: bool = False,
                id_keys: Sequence[str] | None = None) -> dict[str, Any]:
    """Import log files as one batch into the session's log tables; returns the batch's rows per table
    (DataFrames, computed once), ``log_rejects`` among them. A request that fails the request checks
    raises InputError naming its file and line, unless ``skip_bad`` sets its line aside."""
    if fmt not in SPARK_FORMATS:
        raise UsageError(f"unknown log format {fmt!r} (use {', '.join(SPARK_FORMATS)})")
    if not paths:
        raise UsageError("give at least one log file")
    _text_udfs(spark)
    _read_lines(spark, paths)
    _normalise(spark, fmt, parse_id_keys(id_keys))
    bad = _bad_lines(spark).localCheckpoint()
    first = bad.orderBy("stage", "file", "line", "error").first()
    if first is not None and not skip_bad:
        raise InputError(first["file"], f"line {first['line']}: {first['error']} "
                         "(pass skip_bad=True to set such records aside)")
    bad.createOrReplaceTempView("bad_lines")
    batch = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    # computed now, and cut loose from the views that made them (redefined by the next import)
    rows = {table: frame.localCheckpoint() for table, frame in _new_rows(spark, batch, fmt).items()}
    for table, frame in rows.items():
        combined = spark.table(table).unionByName(frame) if spark.catalog.tableExists(table) else frame
        combined.createOrReplaceTempView(table)
    return rows
