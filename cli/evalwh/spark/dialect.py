"""The Spark SQL that evalwh's DuckDB SQL becomes: sqlglot's Spark dialect with these changes.

sqlglot (pinned in the ``spark`` extra) transpiles the views and log formats from DuckDB. Where
its Spark output would mean something else, this dialect writes it differently:

- A list element ``l[i]``: DuckDB counts from 1 and gives NULL past the end. sqlglot shifts a
  literal index to Spark's 0-based ``l[0]`` but leaves a computed index as it is (off by one),
  and Spark 4's ANSI mode fails past the end. Every list index becomes ``TRY_ELEMENT_AT(l, i)``,
  1-based with NULL past the end, as in DuckDB. (``s['field']`` is left alone.)
- ``json_transform(json, '<DuckDB structure>')`` and ``json_transform_strict``, which sqlglot
  passes through unknown, become ``FROM_JSON(json, '<Spark schema>')``: the structure's objects as
  STRUCT, lists as ARRAY, ``"MAP(VARCHAR, VARCHAR)"`` as MAP, VARCHAR and JSON as STRING (an
  object or list read as STRING keeps its JSON text, a string loses its quotes). Where DuckDB's
  strict form fails on a value of the wrong JSON type, Spark gives NULL (the JSON type checks of
  a log import run on DuckDB only).
- ``json_first_map(json)``, the log import's macro (a JSON object as a MAP, a key written twice with
  its first value), becomes ``FROM_JSON(json, 'MAP<STRING, STRING>')``: Spark refuses an object
  with a key written twice (its default ``spark.sql.mapKeyDedupPolicy``).
- ``chr(n)`` of a literal code point becomes that character as a string literal: Spark's ``CHR``
  takes ``n`` modulo 256 (``chr(12288)``, an ideographic space, would be ``chr(0)``).
- ``json_valid(text)``, which Spark lacks, becomes ``TRY_PARSE_JSON(text) IS NOT NULL`` (false,
  not NULL, for a NULL text: use it in conditions).
- ``make_timestamp(microseconds)`` becomes ``TIMESTAMPADD(MICROSECOND, n, TIMESTAMP_NTZ '1970-01-01
  00:00:00')`` (a time without zone, as DuckDB's TIMESTAMP; Spark's TIMESTAMP_MICROS is an instant
  shown in the session's time zone), and ``strftime(t, '%Y-%m-%dT...')`` becomes ``DATE_FORMAT``
  with the letters between the fields quoted (sqlglot leaves a ``T`` bare, which Spark refuses).
- ``CAST(text AS JSON)`` (sqlglot's ``TO_JSON(text)``, which Spark refuses for a string) stays the
  text, as ``CAST(text AS STRING)``: a JSON value on Spark is its text.
- ``json_object(k, v, ...)``, which Spark lacks, becomes
  ``TO_JSON(NAMED_STRUCT(k, v, ...), MAP('ignoreNullFields', 'false'))``: a null value stays a
  key holding null, as in DuckDB.
"""

from __future__ import annotations

import json
import re
from typing import Any

from sqlglot import exp
from sqlglot.dialects.spark import Spark
from sqlglot.generators.spark import SparkGenerator

# DuckDB type names in json_transform structures -> Spark types
SCALARS = {"VARCHAR": "STRING", "JSON": "STRING", "DOUBLE": "DOUBLE", "BIGINT": "BIGINT", "INTEGER": "INT",
           "BOOLEAN": "BOOLEAN", "UBIGINT": "DECIMAL(20,0)", "MAP(VARCHAR, VARCHAR)": "MAP<STRING, STRING>"}
# strftime fields -> Java DateTimeFormatter letters; anything else is quoted text
TIME_FIELDS = {"%Y": "yyyy", "%m": "MM", "%d": "dd", "%H": "HH", "%M": "mm", "%S": "ss", "%f": "SSSSSS"}


def spark_schema(structure: Any) -> str:
    """A DuckDB json_transform structure (parsed JSON) as a Spark DDL type."""
    if isinstance(structure, dict):
        fields = ", ".join(f"`{name.replace('`', '``')}`: {spark_schema(kind)}" for name, kind in structure.items())
        return f"STRUCT<{fields}>"
    if isinstance(structure, list):
        if len(structure) != 1:
            raise ValueError(f"a list structure holds one element type, not {structure!r}")
        return f"ARRAY<{spark_schema(structure[0])}>"
    if structure not in SCALARS:
        raise ValueError(f"no Spark type for json_transform type {structure!r}")
    return SCALARS[structure]


def _bracket(generator: SparkGenerator, expression: exp.Bracket) -> str:
    (index,) = expression.expressions if len(expression.expressions) == 1 else (None,)
    if index is None or (isinstance(index, exp.Literal) and index.is_string) or expression.args.get("json_access"):
        return generator.bracket_sql(expression)
    if isinstance(index, exp.Literal):  # the parser made a literal index 0-based; element_at counts from 1
        index = exp.Literal.number(int(index.this) + 1)
    return generator.func("TRY_ELEMENT_AT", expression.this, index)


def java_time_pattern(strftime: str) -> str:
    """A strftime format of the fields in TIME_FIELDS as a Spark DATE_FORMAT pattern."""
    out: list[str] = []
    text: list[str] = []
    for piece in re.split(r"(%.)", strftime):
        if not piece:
            continue
        if piece in TIME_FIELDS:
            if text:
                out.append("'" + "".join(text).replace("'", "''") + "'")
                text = []
            out.append(TIME_FIELDS[piece])
        elif piece.startswith("%") and len(piece) == 2:
            raise ValueError(f"no Spark pattern for strftime field {piece!r}")
        else:
            text.append(piece)
    if text:
        out.append("'" + "".join(text).replace("'", "''") + "'")
    return "".join(out)


def _time_to_str(generator: SparkGenerator, expression: exp.TimeToStr) -> str:
    pattern = expression.args["format"]
    if not (isinstance(pattern, exp.Literal) and pattern.is_string):
        raise ValueError("strftime needs a literal format to run on Spark")
    return generator.func("DATE_FORMAT", expression.this, exp.Literal.string(java_time_pattern(pattern.this)))


def _unix_to_time(generator: SparkGenerator, expression: exp.UnixToTime) -> str:
    scale = expression.args.get("scale")
    if not (isinstance(scale, exp.Literal) and scale.this == "6"):
        return SparkGenerator.TRANSFORMS[exp.UnixToTime](generator, expression)
    epoch = exp.cast(exp.Literal.string("1970-01-01 00:00:00"), exp.DataType.build("TIMESTAMP_NTZ", dialect="spark"))
    return generator.func("TIMESTAMPADD", exp.var("MICROSECOND"), expression.this, epoch)


def _anonymous(generator: SparkGenerator, expression: exp.Anonymous) -> str:
    name = str(expression.this).lower()
    if name == "json_valid" and len(expression.expressions) == 1:
        return f"({generator.func('TRY_PARSE_JSON', expression.expressions[0])} IS NOT NULL)"
    if name == "json_first_map" and len(expression.expressions) == 1:
        map_schema = exp.Literal.string(spark_schema("MAP(VARCHAR, VARCHAR)"))
        return generator.func("FROM_JSON", expression.expressions[0], map_schema)
    if name in ("json_transform", "json_transform_strict") and len(expression.expressions) == 2:
        value, structure = expression.expressions
        if isinstance(structure, exp.Literal) and structure.is_string:
            schema = spark_schema(json.loads(structure.this))
            return generator.func("FROM_JSON", value, exp.Literal.string(schema))
    return generator.anonymous_sql(expression)


def _chr(generator: SparkGenerator, expression: exp.Chr) -> str:
    (code,) = expression.expressions
    if isinstance(code, exp.Literal) and not code.is_string:
        return generator.sql(exp.Literal.string(chr(int(code.this))))
    return generator.func("CHR", code)


def _json_object(generator: SparkGenerator, expression: exp.JSONObject) -> str:
    fields: list[exp.Expr] = []
    for pair in expression.expressions:
        fields.extend([pair.this, pair.expression])
    keep_nulls = exp.Anonymous(this="MAP", expressions=[exp.Literal.string("ignoreNullFields"),
                                                        exp.Literal.string("false")])
    return generator.func("TO_JSON", exp.func("NAMED_STRUCT", *fields), keep_nulls)


def _cast(generator: SparkGenerator, expression: exp.Cast) -> str:
    if expression.to.is_type(exp.DataType.Type.JSON):
        return generator.cast_sql(exp.cast(expression.this, exp.DataType.build("STRING", dialect="spark")))
    return generator.cast_sql(expression)


class EvalwhSpark(Spark):
    """Spark, with DuckDB's list indexing and json_transform carried over."""

    class Generator(SparkGenerator):
        TRANSFORMS = {**SparkGenerator.TRANSFORMS, exp.Bracket: _bracket, exp.Anonymous: _anonymous,
                      exp.JSONObject: _json_object, exp.Chr: _chr, exp.TimeToStr: _time_to_str,
                      exp.UnixToTime: _unix_to_time, exp.Cast: _cast}


def to_spark(sql: str, pretty: bool = True) -> str:
    """One DuckDB statement as Spark SQL."""
    import sqlglot

    (statement,) = sqlglot.transpile(sql, read="duckdb", write=EvalwhSpark, pretty=pretty)
    return statement
