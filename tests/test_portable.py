"""The portable-SQL lint and `evalwh views`: what sqlglot would carry to Spark, and what it would not.

The lint is checked on snippets where the answer is known, then over the shipped SQL: every
model and log-format file holds none of the constructs. The Spark dialect's rewrites are checked
on snippets whose Spark text is written out by hand.
"""

from __future__ import annotations

import duckdb
import pytest
import sqlglot
from typer.testing import CliRunner

from evalwh.app import app
from evalwh.resources import model_sources, schema_steps
from evalwh.spark.dialect import java_time_pattern, to_spark
from evalwh.spark.portable import (
    ARROW,
    DECIMAL_RATIO,
    HAS_ALL,
    JSON_LIST,
    LEN,
    ORDERED_AGG,
    ORDINALITY,
    SLICE,
    UNNEST_FROM,
    lint,
)
from evalwh.text.textnorm import register_udfs
from evalwh.warehouse.views import dependency_order
from tests.conftest import REPO

SNIPPETS = [
    ("SELECT array_agg(x ORDER BY y) FROM t", 1, ORDERED_AGG),
    ("SELECT\n  len(l)\nFROM t", 2, LEN),
    ("SELECT l[1:2] FROM t", 1, SLICE),
    ("SELECT list_has_all(a, b) FROM t", 1, HAS_ALL),
    ("SELECT * FROM t,\nunnest(t.l) WITH ORDINALITY AS u(v, i)", 2, ORDINALITY),
    ("SELECT * FROM t, unnest(t.l) AS u(v) JOIN s ON s.v = u.v", 1, UNNEST_FROM),
    ("SELECT * FROM t, generate_series(1, 3) AS g(i)", 1, UNNEST_FROM),
    ("SELECT r.record ->> 'a' FROM t", 1, ARROW),
    ("SELECT CAST(x AS JSON[]) FROM t", 1, JSON_LIST),
    ("SELECT 2.0 * n / m FROM t", 1, DECIMAL_RATIO),
]


@pytest.mark.parametrize("sql,line,found", SNIPPETS, ids=[s[2][0][:30] for s in SNIPPETS])
def test_each_construct_is_found_on_its_line(sql: str, line: int, found: tuple[str, str]) -> None:
    findings = lint("x.sql", sql)
    assert [(f.line, (f.construct, f.replacement)) for f in findings if (f.construct, f.replacement) == found] == [
        (line, found)]
    assert str(findings[0]).startswith(f"x.sql:{findings[0].line}: ")


@pytest.mark.parametrize("sql", [
    "SELECT array_length(l), list_slice(l, 1, 2), list_sort(array_agg(x)) FROM t",
    "SELECT unnest(l) AS v FROM t",  # in the select list, its own CTE: portable
    "SELECT CAST(2 AS DOUBLE) * n, 'len(x) -> l[1:2] 2.0 * x' AS text FROM t -- array_agg(x ORDER BY y)",
    "SELECT json_extract_string(record, '$.a') FROM t ORDER BY a",
])
def test_portable_sql_and_text_in_strings_or_comments_pass(sql: str) -> None:
    assert lint("x.sql", sql) == []


def test_every_shipped_sql_file_is_portable() -> None:
    counts = {}
    for folder in (REPO / "models", REPO / "sql" / "logformats"):
        for path in sorted(folder.glob("*.sql")):
            n = len(lint(path.name, path.read_text(encoding="utf-8")))
            if n:
                counts[f"{folder.name}/{path.name}"] = n
    assert counts == {}  # models and every log format


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def test_views_in_duckdb_dialect_recreate_the_warehouse_views() -> None:
    result = run("views")
    assert result.exit_code == 0, result.stderr
    statements = [s.strip() for s in result.stdout.split("\n;\n") if s.strip()]
    assert len(statements) == len(model_sources())
    con = duckdb.connect()
    register_udfs(con)
    for _, _, sql in schema_steps():
        con.execute(sql)
    for statement in statements:  # in the printed order: each view's inputs exist before it
        con.execute(statement)
    made = {r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal "
                                      "AND database_name = current_database() AND schema_name = 'main'").fetchall()}
    assert made == set(model_sources())


def test_views_in_spark_dialect_parse_as_spark_in_dependency_order() -> None:
    result = run("views", "--dialect", "spark")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.endswith("\n;\n")
    statements = [s.strip() for s in result.stdout.split("\n;\n") if s.strip()]
    names = [s.split("\n", 1)[0].removeprefix("CREATE OR REPLACE TEMPORARY VIEW ").removesuffix(" AS")
             for s in statements]
    assert names == dependency_order(model_sources())
    for statement in statements:
        assert len(sqlglot.parse(statement, read="spark")) == 1


def test_spark_schema_has_every_base_table_without_keys() -> None:
    result = run("views", "--dialect", "spark", "--schema")
    assert result.exit_code == 0
    con = duckdb.connect()
    register_udfs(con)
    for _, _, sql in schema_steps():
        con.execute(sql)
    tables = {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables() "
                                        "WHERE database_name = current_database()").fetchall()}
    assert {s.split(" (", 1)[0].removeprefix("CREATE TABLE ") for s in result.stdout.split("\n;\n") if s.strip()} \
        == tables
    assert "PRIMARY KEY" not in result.stdout and "JSON" not in result.stdout
    assert "  params STRING," in result.stdout and "  text_numbers ARRAY<STRING>" in result.stdout
    assert run("views", "--schema").exit_code == 2


@pytest.mark.parametrize("strftime,java", [
    ("%Y-%m-%dT%H:%M:%S.%fZ", "yyyy'-'MM'-'dd'T'HH':'mm':'ss'.'SSSSSS'Z'"),
    ("%Y%m%d", "yyyyMMdd"),
    ("at %H o'clock", "'at 'HH' o''clock'"),
])
def test_strftime_formats_become_java_patterns_with_text_quoted(strftime: str, java: str) -> None:
    assert java_time_pattern(strftime) == java


def test_a_strftime_field_spark_has_no_letter_for_is_refused() -> None:
    with pytest.raises(ValueError, match="%j"):
        java_time_pattern("%Y-%j")


@pytest.mark.parametrize("duckdb_sql,spark_sql", [
    ("SELECT json_valid(x) FROM t", "SELECT (TRY_PARSE_JSON(x) IS NOT NULL) FROM t"),
    ("""SELECT json_transform_strict(x, '["JSON"]') FROM t""", "SELECT FROM_JSON(x, 'ARRAY<STRING>') FROM t"),
    ("""SELECT json_transform(x, '"MAP(VARCHAR, VARCHAR)"') FROM t""",
     "SELECT FROM_JSON(x, 'MAP<STRING, STRING>') FROM t"),
    ("SELECT make_timestamp(n) FROM t",
     "SELECT TIMESTAMPADD(MICROSECOND, n, CAST('1970-01-01 00:00:00' AS TIMESTAMP_NTZ)) FROM t"),
    ("SELECT strftime(ts, '%Y-%m-%d') FROM t", "SELECT DATE_FORMAT(ts, 'yyyy\\'-\\'MM\\'-\\'dd') FROM t"),
    ("SELECT l[i], l[1] FROM t", "SELECT TRY_ELEMENT_AT(l, i), TRY_ELEMENT_AT(l, 1) FROM t"),
])
def test_the_spark_dialect_rewrites(duckdb_sql: str, spark_sql: str) -> None:
    assert to_spark(duckdb_sql, pretty=False) == spark_sql
