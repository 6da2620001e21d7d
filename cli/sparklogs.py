"""Production logs imported on Spark: the same log-format SQL, over JSON lines read by Spark.

``import_logs(spark, paths, fmt)`` reads each JSON-lines file's lines with their line numbers, keeps those
holding a JSON object as ``log_raw`` (file, line, record), runs the format's SELECTs from
``sql/logformats/`` (transpiled by ``evalwh.sparksql``) and adds the new requests to the session's
``log_requests``, ``log_retrievals`` and ``log_citations`` (temporary views, created when missing,
e.g. by ``evalwh.spark.register``), with the warehouse's columns. A request whose (source, request
id) the session already holds is skipped, as ``evalwh logs import`` skips it.

The text columns (``question_words``, ``question_uterms``, ``quote_norm``) come from vectorised
pandas UDFs that call ``evalwh.textnorm``: Java's regex and ``lower()`` differ from Python's on
Unicode, so only the same Python functions give the same words.

Spark reads the formats whose SQL passes the portability lint (``SPARK_FORMATS``). It does not
type-check records or set bad ones aside as ``evalwh logs import`` does: check a file there first.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd  # the spark extra's; pandas UDFs take and give pandas Series
from evalwh.errors import UsageError
from evalwh.logs import PARTS, _format_file, _format_sql
from evalwh.sparksql import to_spark
from evalwh.textnorm import norm, terms, words

# the log formats whose SQL sqlglot carries to Spark with the same meaning (tests/test_spark.py)
SPARK_FORMATS = ("evalwh", "ragas", "openinference", "anthropic", "otlp")
LOG_TABLES = ("log_requests", "log_retrievals", "log_citations")
JSON_OBJECT = "startswith(ltrim(text), '{') AND try_parse_json(text) IS NOT NULL"  # a line holding a JSON object


def _text_udfs(spark: Any) -> None:
    """Register evalwh_words, evalwh_uterms and evalwh_norm: textnorm's functions as pandas UDFs."""
    from pyspark.sql.functions import pandas_udf
    from pyspark.sql.types import ArrayType, StringType

    @pandas_udf(ArrayType(StringType()))  # type: ignore[call-overload]
    def evalwh_words(texts: pd.Series) -> pd.Series:
        return texts.map(lambda t: None if t is None else words(t))

    @pandas_udf(ArrayType(StringType()))  # type: ignore[call-overload]
    def evalwh_uterms(texts: pd.Series) -> pd.Series:
        return texts.map(lambda t: None if t is None else terms(t, "unicode"))

    @pandas_udf(StringType())  # type: ignore[call-overload]
    def evalwh_norm(texts: pd.Series) -> pd.Series:
        return texts.map(lambda t: None if t is None else norm(t))

    for udf in (evalwh_words, evalwh_uterms, evalwh_norm):
        spark.udf.register(udf.__name__, udf)


def _numbered_lines(spark: Any, path: Path) -> Any:
    """(file, line, text) for each line of a file; a file that is one JSON document spread over lines
    (an OTLP export), not a JSON object a line, is one record on line 1, as the DuckDB import reads it."""
    from pyspark.sql.types import LongType, StringType, StructField, StructType

    schema = StructType([StructField("file", StringType()), StructField("line", LongType()),
                         StructField("text", StringType())])
    name = Path(path).name
    numbered = spark.sparkContext.textFile(str(path)).zipWithIndex().map(lambda t, n=name: (n, t[1] + 1, t[0]))
    lines = spark.createDataFrame(numbered, schema)
    if lines.where(f"trim(BOTH ' \\t\\r' FROM text) <> '' AND NOT ({JSON_OBJECT})").isEmpty():
        return lines
    content = spark.sparkContext.wholeTextFiles(str(path)).values().first()
    if spark.sql("SELECT try_parse_json(:content) IS NOT NULL", args={"content": content}).first()[0]:
        return spark.createDataFrame([(name, 1, content)], schema)
    return lines


def _read_lines(spark: Any, paths: Sequence[Path]) -> None:
    """``log_raw``: (file, line, record) for every line of the files holding a JSON object; line n is the
    file's n-th line (blank lines counted, as the DuckDB import counts them)."""
    frames = []
    for path in paths:
        if not Path(path).is_file():
            raise UsageError(f"{path}: no such file")
        frames.append(_numbered_lines(spark, path))
    lines = frames[0]
    for frame in frames[1:]:
        lines = lines.unionByName(frame)
    lines.createOrReplaceTempView("log_lines")
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW log_raw AS SELECT file, line, trim(text) AS record FROM log_lines "
              f"WHERE {JSON_OBJECT}")


def _normalise(spark: Any, fmt: str) -> None:
    """The format's preludes and its requests, retrievals and citations SELECTs, as temporary views."""
    preludes = ((f"{fmt}_spans", f"{fmt}_spans"), (f"{fmt}_documents", "log_documents"),
                (f"{fmt}_answers", "log_answers"))
    for prelude, view in preludes:
        if _format_file(prelude).is_file():
            sql = to_spark(_format_file(prelude).read_text(encoding="utf-8"))
            spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW {view} AS {sql}")
    for part in PARTS:
        spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW norm_{part} AS {to_spark(_format_sql(fmt, part))}")


def _new_rows(spark: Any, batch: str, source: str) -> dict[str, Any]:
    """The batch's rows of each log table, for requests the session does not hold yet."""
    known = spark.catalog.tableExists("log_requests")
    held = ("SELECT request_id FROM log_requests WHERE source = '{0}'".format(source.replace("'", "''"))
            if known else "SELECT CAST(NULL AS STRING) AS request_id WHERE FALSE")
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW new_requests AS SELECT DISTINCT n.request_id FROM norm_requests AS n "
              f"LEFT ANTI JOIN ({held}) AS e ON e.request_id = n.request_id")
    head = f"SELECT '{batch}' AS log_batch_id, '{source}' AS source"
    # a format whose requests name no raw record logs one request a line: the line's record is the raw one
    raw = "n.raw" if "raw" in spark.table("norm_requests").columns else "r.record"
    return {
        "log_requests": spark.sql(
            f"""{head}, n.request_id, n.session_id,
                CAST(to_utc_timestamp(TRY_CAST(n.ts_text AS TIMESTAMP), current_timezone()) AS TIMESTAMP_NTZ) AS ts,
                n.question, n.answer, n.model, n.finish_reason, TRY_CAST(n.refused_text AS BOOLEAN) AS refused,
                n.metadata, {raw} AS raw, evalwh_words(coalesce(n.question, '')) AS question_words,
                evalwh_uterms(coalesce(n.question, '')) AS question_uterms
            FROM norm_requests AS n
            JOIN log_raw AS r ON r.file = n.file AND r.line = n.line
            LEFT SEMI JOIN new_requests AS k ON k.request_id = n.request_id"""),
        "log_retrievals": spark.sql(
            f"""{head}, r.request_id, r.rank, r.chunk_id, r.score, r.content, r.id_source
            FROM norm_retrievals AS r LEFT SEMI JOIN new_requests AS k ON k.request_id = r.request_id"""),
        "log_citations": spark.sql(
            f"""{head}, c.request_id, c.position, c.chunk_id, c.quote, evalwh_norm(c.quote) AS quote_norm,
                c.resolution
            FROM norm_citations AS c LEFT SEMI JOIN new_requests AS k ON k.request_id = c.request_id"""),
    }


def import_logs(spark: Any, paths: Sequence[Path], fmt: str = "evalwh") -> dict[str, Any]:
    """Import log files as one batch into the session's log tables; returns the batch's rows per table
    (DataFrames, computed once)."""
    if fmt not in SPARK_FORMATS:
        raise UsageError(f"log format {fmt!r} is not read on Spark yet (use {', '.join(SPARK_FORMATS)}, "
                         "or import with `evalwh logs import` and `evalwh export`)")
    if not paths:
        raise UsageError("give at least one log file")
    _text_udfs(spark)
    _read_lines(spark, paths)
    _normalise(spark, fmt)
    batch = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S") + "-" + uuid.uuid4().hex[:8]
    # computed now, and cut loose from the views that made them (redefined by the next import)
    rows = {table: frame.localCheckpoint() for table, frame in _new_rows(spark, batch, fmt).items()}
    for table, frame in rows.items():
        combined = spark.table(table).unionByName(frame) if spark.catalog.tableExists(table) else frame
        combined.createOrReplaceTempView(table)
    return rows
